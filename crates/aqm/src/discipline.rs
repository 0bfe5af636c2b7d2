//! The queue-discipline trait and the enum the engine dispatches through.

use crate::droptail::{DropTail, DropTailParams};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::red::{Red, RedParams};
use crate::stats::QueueStats;
use units::{Rate, Rng, SimDuration, SimTime};

/// What a discipline may know of the link it feeds (RED's packet time `s`, PI's capacity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkInfo {
    pub rate: Rate,
    pub delay: SimDuration,
}

/// An invalid parameter: the key (field name) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub key: String,
    pub reason: String,
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.reason)
    }
}
impl std::error::Error for ParamError {}

/// One queue discipline at the sending end of a link.
///
/// Call order, with `now` never decreasing: `enqueue` for each arriving packet; `dequeue`
/// whenever the link is free to send (the engine calls it after each transmission ends and
/// right after an enqueue on an idle link; a `None` tells the discipline the link went idle);
/// `on_timeout` at or after `next_deadline()` for disciplines with periodic updates.
pub trait QueueDisc {
    /// Decide on an arriving packet. If stored, the discipline keeps `pkt` (with `enqueued_at`
    /// set to `now`) until `dequeue` returns it.
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict;
    /// Next packet to transmit, if any. Packets the discipline drops at dequeue time are pushed
    /// onto `dropped` with their reason.
    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta>;
    /// Packets stored (not counting the one being transmitted).
    fn len_packets(&self) -> u32;
    /// Bytes stored.
    fn len_bytes(&self) -> u64;
    fn stats(&self) -> &QueueStats;
    /// Next time the discipline needs `on_timeout` (periodic controllers); `None` if never.
    fn next_deadline(&self) -> Option<SimTime> {
        None
    }
    /// Run every update due at or before `now`.
    fn on_timeout(&mut self, _now: SimTime) {}
}

/// Parameters of any discipline, as a scenario names it.
#[derive(Clone, Debug, PartialEq)]
pub enum DisciplineParams {
    DropTail(DropTailParams),
    Red(RedParams),
}

impl DisciplineParams {
    /// Validate against the link and build the discipline.
    pub fn build(&self, link: LinkInfo) -> Result<Discipline, ParamError> {
        Ok(match self {
            DisciplineParams::DropTail(p) => Discipline::DropTail(DropTail::new(p.clone())?),
            DisciplineParams::Red(p) => Discipline::Red(Red::new(p.clone(), link)?),
        })
    }
    /// Short name for reports, e.g. `droptail` or `red`.
    pub fn name(&self) -> &'static str {
        match self {
            DisciplineParams::DropTail(_) => "droptail",
            DisciplineParams::Red(_) => "red",
        }
    }
}

/// Every discipline, for enum dispatch in the engine's inner loop.
#[derive(Clone, Debug)]
pub enum Discipline {
    DropTail(DropTail),
    Red(Red),
}

macro_rules! dispatch {
    ($self:ident, $d:ident => $e:expr) => {
        match $self {
            Discipline::DropTail($d) => $e,
            Discipline::Red($d) => $e,
        }
    };
}

impl QueueDisc for Discipline {
    #[inline]
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        dispatch!(self, d => d.enqueue(now, pkt, rng))
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        dispatch!(self, d => d.dequeue(now, dropped))
    }
    #[inline]
    fn len_packets(&self) -> u32 {
        dispatch!(self, d => d.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, d => d.len_bytes())
    }
    fn stats(&self) -> &QueueStats {
        dispatch!(self, d => d.stats())
    }
    #[inline]
    fn next_deadline(&self) -> Option<SimTime> {
        dispatch!(self, d => d.next_deadline())
    }
    fn on_timeout(&mut self, now: SimTime) {
        dispatch!(self, d => d.on_timeout(now))
    }
}
