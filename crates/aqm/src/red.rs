//! RED — placeholder; implemented by the RED work item (see module doc when written).

use crate::discipline::{LinkInfo, ParamError, QueueDisc};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::stats::QueueStats;
use units::{Rng, SimTime};

/// RED parameters (Floyd & Jacobson 1993; seed 000 §2.1.2). Packet mode.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Minimum threshold on the average queue, packets.
    pub min_th: f64,
    /// Maximum threshold on the average queue, packets.
    pub max_th: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Maximum early-drop probability (at avg = max_th).
    pub max_p: f64,
    /// Buffer size, packets.
    pub limit: u64,
    /// Typical packet size in bytes, for the idle-time packet count m = idle / s.
    pub mean_pktsize: u32,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams { min_th: 5.0, max_th: 15.0, w_q: 0.002, max_p: 0.1, limit: 50, mean_pktsize: 1000 }
    }
}

/// RED queue.
#[derive(Clone, Debug)]
pub struct Red {
    inner: crate::droptail::DropTail,
}

impl Red {
    pub fn new(_params: RedParams, _link: LinkInfo) -> Result<Self, ParamError> {
        unimplemented!("RED is being written")
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        self.inner.enqueue(now, pkt, rng)
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<(PacketMeta, DropReason)>) -> Option<PacketMeta> {
        self.inner.dequeue(now, dropped)
    }
    fn len_packets(&self) -> u32 {
        self.inner.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }
    fn stats(&self) -> &QueueStats {
        self.inner.stats()
    }
}
