//! The queue-discipline trait and the enum the engine dispatches through.

use crate::ared::{Ared, AredParams};
use crate::avq::{Avq, AvqParams};
use crate::blue::{Blue, BlueParams};
use crate::codel::{Codel, CodelParams};
use crate::droptail::{DropTail, DropTailParams};
use crate::dualpi2::{DualPi2, DualPi2Params};
use crate::fq_codel::{FqCodel, FqCodelParams};
use crate::packet::{DropReason, Lane, PacketMeta, Verdict};
use crate::params::QueueModel;
use crate::pi::{Pi, PiParams};
use crate::pie::{Pie, PieParams};
use crate::pimc::{Pimc, PimcParams};
use crate::pisa::{Pisa, PisaParams};
use crate::red::{Red, RedParams};
use crate::rem::{Rem, RemParams};
use crate::stats::QueueStats;
use units::{Rate, Rng, SimDuration, SimTime};

/// What a discipline may know of the link it feeds (RED's packet time `s`, PI's capacity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkInfo {
    pub rate: Rate,
    pub delay: SimDuration,
}

/// An invalid parameter: the key (field name) and why (declared with the parameter mechanics).
pub use declare::ParamError;

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
    /// True if the packet the latest `dequeue` returned must leave with CE set (disciplines
    /// that mark at dequeue time: CoDel, FQ-CoDel). Only ever true for ECN-capable packets.
    fn dequeue_marked(&self) -> bool {
        false
    }
    /// Stored packets the latest `enqueue` pushed out to make room (FQ-CoDel drops from the
    /// fattest flow, RFC 8290 §4.1), appended to `out` with their reason; the engine frees
    /// them. Each is counted as the overflow drop of that arrival (the arrival takes over the
    /// victim's `enqueued` count), so `check_identities` holds.
    fn take_evicted(&mut self, _out: &mut Vec<(PacketMeta, DropReason)>) {}
    /// True if [`dequeue_marked`](Self::dequeue_marked) can ever be true for this
    /// discipline (CoDel, FQ-CoDel, REM); an engine may skip asking otherwise. Fixed for the
    /// discipline's lifetime.
    fn marks_at_dequeue(&self) -> bool {
        false
    }
    /// True if [`take_evicted`](Self::take_evicted) can ever hand packets back (FQ-CoDel); an
    /// engine may skip asking otherwise. Fixed for the discipline's lifetime.
    fn evicts(&self) -> bool {
        false
    }
    /// An arrival while the link is idle (nothing being transmitted): if the discipline would
    /// store `pkt` and hand it straight back to the next `dequeue` with nothing else in it
    /// changed (drop-tail with nothing stored and room for it), count it as that arrival,
    /// enqueue and dequeue and return true: the engine then transmits it without the two calls.
    /// False (the default): nothing changed; the engine calls `enqueue` and `dequeue`.
    fn pass_through(&mut self, _pkt: &PacketMeta) -> bool {
        false
    }
    /// False if a `dequeue` that finds the discipline empty changes nothing in it (drop-tail,
    /// PI, PISA, PIMC, AVQ: their buffer's release and nothing else), so an engine may skip
    /// that dequeue when its link goes idle; true if the discipline must hear of it (RED's
    /// idle time, BLUE's decrease, …). Fixed for the discipline's lifetime
    /// (`tests/fuzz_disciplines.rs`).
    fn hears_idle(&self) -> bool {
        true
    }
    /// True for a coupled dual queue (DualPI2: an L and a C queue under one scheduler, RFC
    /// 9332), whose monitor reports each queue's sojourns ([`dequeued_lane`](Self::dequeued_lane)).
    /// Fixed for the discipline's lifetime.
    fn has_lanes(&self) -> bool {
        false
    }
    /// With [`has_lanes`](Self::has_lanes): the queue the packet the latest `dequeue` returned
    /// left from; None for a discipline without lanes.
    fn dequeued_lane(&self) -> Option<Lane> {
        None
    }
}

/// Parameters of any discipline, as a scenario names it.
#[derive(Clone, Debug, PartialEq)]
pub enum DisciplineParams {
    DropTail(DropTailParams),
    Pi(PiParams),
    Pisa(PisaParams),
    Pimc(PimcParams),
    Rem(RemParams),
    Red(RedParams),
    Ared(AredParams),
    Codel(CodelParams),
    Blue(BlueParams),
    Avq(AvqParams),
    FqCodel(FqCodelParams),
    Pie(PieParams),
    DualPi2(DualPi2Params),
}

impl DisciplineParams {
    /// Validate against the link and build the discipline.
    pub fn build(&self, link: LinkInfo) -> Result<Discipline, ParamError> {
        Ok(match self {
            DisciplineParams::DropTail(p) => Discipline::DropTail(DropTail::new(p.clone())?),
            DisciplineParams::Pi(p) => Discipline::Pi(Pi::new(p.clone())?),
            DisciplineParams::Pisa(p) => Discipline::Pisa(Pisa::new(p.clone())?),
            DisciplineParams::Pimc(p) => Discipline::Pimc(Pimc::new(p.clone())?),
            DisciplineParams::Rem(p) => Discipline::Rem(Rem::new(p.clone(), link)?),
            DisciplineParams::Red(p) => Discipline::Red(Red::new(p.clone(), link)?),
            DisciplineParams::Ared(p) => Discipline::Ared(Ared::new(p.clone(), link)?),
            DisciplineParams::Codel(p) => Discipline::Codel(Codel::new(p.clone())?),
            DisciplineParams::Blue(p) => Discipline::Blue(Blue::new(p.clone())?),
            DisciplineParams::Avq(p) => Discipline::Avq(Avq::new(p.clone(), link)?),
            DisciplineParams::FqCodel(p) => Discipline::FqCodel(FqCodel::new(p.clone())?),
            DisciplineParams::Pie(p) => Discipline::Pie(Pie::new(p.clone())?),
            DisciplineParams::DualPi2(p) => Discipline::DualPi2(DualPi2::new(p.clone())?),
        })
    }
    /// Short name for reports, e.g. `droptail` or `red`.
    pub fn name(&self) -> &'static str {
        match self {
            DisciplineParams::DropTail(_) => "droptail",
            DisciplineParams::Pi(_) => "pi",
            DisciplineParams::Pisa(_) => "pisa",
            DisciplineParams::Pimc(_) => "pimc",
            DisciplineParams::Rem(_) => "rem",
            DisciplineParams::Red(_) => "red",
            DisciplineParams::Ared(_) => "ared",
            DisciplineParams::Codel(_) => "codel",
            DisciplineParams::Blue(_) => "blue",
            DisciplineParams::Avq(_) => "avq",
            DisciplineParams::FqCodel(_) => "fq_codel",
            DisciplineParams::Pie(_) => "pie",
            DisciplineParams::DualPi2(_) => "dualpi2",
        }
    }
}

/// Every discipline's declaration ([`crate::params`]), in the order of the docs and of the
/// `kind` list in error messages.
pub fn models() -> &'static [&'static QueueModel] {
    static MODELS: &[&QueueModel] = &[
        &crate::droptail::MODEL,
        &crate::red::MODEL,
        &crate::ared::MODEL,
        &crate::pi::MODEL,
        &crate::pisa::MODEL,
        &crate::pimc::MODEL,
        &crate::rem::MODEL,
        &crate::codel::MODEL,
        &crate::fq_codel::MODEL,
        &crate::pie::MODEL,
        &crate::dualpi2::MODEL,
        &crate::blue::MODEL,
        &crate::avq::MODEL,
    ];
    MODELS
}

/// The declaration of `kind`, if there is such a discipline.
pub fn model(kind: &str) -> Option<&'static QueueModel> {
    models().iter().copied().find(|m| m.kind() == kind)
}

/// Every discipline, for enum dispatch in the engine's inner loop. An explicit one-byte tag
/// (`repr(u8)`): the dispatch is a byte load and a jump table, where the niche-packed tag took
/// a subtraction and range checks (≈ 1 % of the quickstart's instructions, cachegrind).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Discipline {
    DropTail(DropTail),
    Pi(Pi),
    Pisa(Pisa),
    Pimc(Pimc),
    Rem(Rem),
    Red(Red),
    Ared(Ared),
    Codel(Codel),
    Blue(Blue),
    Avq(Avq),
    FqCodel(FqCodel),
    Pie(Pie),
    DualPi2(DualPi2),
}

impl Discipline {
    /// Whether seed 000's split of the drops into unforced (early) and forced (the forced rule
    /// and overflow) applies: the RED family's queues, for which §4.3.1 defines it.
    pub fn defines_forced_split(&self) -> bool {
        matches!(self, Discipline::Red(_) | Discipline::Ared(_))
    }
}

macro_rules! dispatch {
    ($self:ident, $d:ident => $e:expr) => {
        match $self {
            Discipline::DropTail($d) => $e,
            Discipline::Pi($d) => $e,
            Discipline::Pisa($d) => $e,
            Discipline::Pimc($d) => $e,
            Discipline::Rem($d) => $e,
            Discipline::Red($d) => $e,
            Discipline::Ared($d) => $e,
            Discipline::Codel($d) => $e,
            Discipline::Blue($d) => $e,
            Discipline::Avq($d) => $e,
            Discipline::FqCodel($d) => $e,
            Discipline::Pie($d) => $e,
            Discipline::DualPi2($d) => $e,
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
    fn pass_through(&mut self, pkt: &PacketMeta) -> bool {
        dispatch!(self, d => d.pass_through(pkt))
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
    #[inline]
    fn dequeue_marked(&self) -> bool {
        dispatch!(self, d => d.dequeue_marked())
    }
    #[inline]
    fn take_evicted(&mut self, out: &mut Vec<(PacketMeta, DropReason)>) {
        dispatch!(self, d => d.take_evicted(out))
    }
    fn marks_at_dequeue(&self) -> bool {
        dispatch!(self, d => d.marks_at_dequeue())
    }
    fn evicts(&self) -> bool {
        dispatch!(self, d => d.evicts())
    }
    fn hears_idle(&self) -> bool {
        dispatch!(self, d => d.hears_idle())
    }
    fn has_lanes(&self) -> bool {
        dispatch!(self, d => d.has_lanes())
    }
    #[inline]
    fn dequeued_lane(&self) -> Option<Lane> {
        dispatch!(self, d => d.dequeued_lane())
    }
}
