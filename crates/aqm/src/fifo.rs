//! The packet buffer most disciplines share: stored packets in arrival order with their byte
//! count, and the counting that goes with storing and releasing a packet (`enqueued`, `marks`,
//! `dequeued` of [`QueueStats`]). Disciplines decide; the FIFO only stores.
//!
//! Validation: `tests` below; every discipline's tests run through it.

use crate::packet::{PacketMeta, Verdict};
use crate::stats::QueueStats;
use std::collections::VecDeque;
use units::SimTime;

/// Stored packets, head first, and their total size.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    queue: VecDeque<PacketMeta>,
    bytes: u64,
}

impl Fifo {
    /// Store `pkt` arriving at `now` (its `enqueued_at` is set), counting it as enqueued and, if
    /// `marked`, as marked; returns the verdict for the engine.
    #[inline]
    pub fn store(
        &mut self,
        now: SimTime,
        mut pkt: PacketMeta,
        marked: bool,
        stats: &mut QueueStats,
    ) -> Verdict {
        pkt.enqueued_at = now;
        self.bytes += pkt.size_bytes as u64;
        self.queue.push_back(pkt);
        stats.enqueued += 1;
        if marked {
            stats.marks += 1;
            Verdict::EnqueuedMarked
        } else {
            Verdict::Enqueued
        }
    }

    /// Take the head packet, counting it as dequeued.
    #[inline]
    pub fn release(&mut self, stats: &mut QueueStats) -> Option<PacketMeta> {
        let p = self.queue.pop_front()?;
        self.bytes -= p.size_bytes as u64;
        stats.dequeued += 1;
        Some(p)
    }

    /// Packets stored.
    #[inline]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True if nothing is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Bytes stored (wire sizes).
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketClass;

    fn pkt(id: u32, size: u32) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes: size,
            ect: false,
            class: PacketClass::Http,
            cwnd_hint: 0,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }

    #[test]
    fn store_and_release_keep_order_bytes_and_counters() {
        let mut f = Fifo::default();
        let mut st = QueueStats::default();
        let t = SimTime::from_millis(3);
        assert_eq!(f.store(t, pkt(1, 1500), false, &mut st), Verdict::Enqueued);
        assert_eq!(
            f.store(t, pkt(2, 40), true, &mut st),
            Verdict::EnqueuedMarked
        );
        assert_eq!((f.len(), f.bytes(), st.enqueued, st.marks), (2, 1540, 2, 1));
        let a = f.release(&mut st).unwrap();
        assert_eq!((a.id, a.enqueued_at), (1, t));
        assert_eq!((f.bytes(), st.dequeued), (40, 1));
        assert_eq!(f.release(&mut st).unwrap().id, 2);
        assert!(f.release(&mut st).is_none() && f.is_empty());
        assert_eq!((f.bytes(), st.dequeued), (0, 2));
    }
}
