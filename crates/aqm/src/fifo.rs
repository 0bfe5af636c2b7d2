//! The packet buffer every discipline shares: stored packets in arrival order with their byte
//! count ([`Fifo`]), and the same buffer with the counters of a whole queue ([`FifoQueue`]):
//! an arrival is counted and settled by the discipline's [`Admit`] decision (`arrivals`,
//! `enqueued`, `marks`, drops by reason and class of [`QueueStats`]), a departure counted as
//! `dequeued`. Disciplines decide; the FIFO stores and counts. Also the byte/packet accounting
//! the disciplines measure the buffer with ([`Fifo::backlog`], [`Fifo::full`]).
//!
//! Validation: `tests` below; every discipline's tests run through it.

use crate::admit::Admit;
use crate::packet::{PacketMeta, Verdict};
use crate::stats::QueueStats;
use std::collections::VecDeque;
use units::SimTime;

/// Stored packets, head first, and their total size. Counts nothing (CoDel's and FQ-CoDel's
/// flow queues, which count at their own level, use it bare).
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    queue: VecDeque<PacketMeta>,
    bytes: u64,
}

impl Fifo {
    /// Store `pkt` arriving at `now` at the tail (its `enqueued_at` is set to `now`).
    #[inline]
    pub fn push(&mut self, now: SimTime, mut pkt: PacketMeta) {
        pkt.enqueued_at = now;
        self.bytes += pkt.size_bytes as u64;
        self.queue.push_back(pkt);
    }

    /// Take the head packet.
    #[inline]
    pub fn pop(&mut self) -> Option<PacketMeta> {
        let p = self.queue.pop_front()?;
        self.bytes -= p.size_bytes as u64;
        Some(p)
    }

    /// The head packet, if any.
    #[inline]
    pub fn front(&self) -> Option<&PacketMeta> {
        self.queue.front()
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

    /// The backlog in packets: packets stored, or with `in_bytes` bytes stored / `mean_pktsize`
    /// (ns-2's `queue_in_bytes_` measure, used by RED's average, PI's and REM's controllers).
    #[inline]
    pub fn backlog(&self, in_bytes: bool, mean_pktsize: u32) -> f64 {
        if in_bytes {
            self.bytes as f64 / mean_pktsize as f64
        } else {
            self.queue.len() as f64
        }
    }

    /// True if the buffer of `limit` packets waiting (with `in_bytes`, `limit·mean_pktsize`
    /// bytes, as ns-2) is full before an arrival: the arrival is an overflow (RED, PI).
    #[inline]
    pub fn full(&self, limit: u64, in_bytes: bool, mean_pktsize: u32) -> bool {
        if in_bytes {
            self.bytes >= limit.saturating_mul(mean_pktsize as u64)
        } else {
            self.queue.len() as u64 >= limit
        }
    }
}

/// A FIFO discipline's buffer and counters: what every discipline but FQ-CoDel stores its
/// packets in.
#[derive(Clone, Debug, Default)]
pub struct FifoQueue {
    fifo: Fifo,
    stats: QueueStats,
}

impl FifoQueue {
    /// Count an arrival at `now` and carry out `admit`: store it (with CE for
    /// [`Admit::Mark`]) or drop it for the reason given; returns the verdict for the engine.
    /// Always inlined: it runs once per packet and hop, and a call costs measurably
    /// (bench/HISTORY.md, "Measurements behind code choices").
    #[inline(always)]
    pub fn settle(&mut self, now: SimTime, pkt: PacketMeta, admit: Admit) -> Verdict {
        self.stats.arrivals += 1;
        let marked = match admit {
            Admit::Store => false,
            Admit::Mark => true,
            Admit::Drop(reason) => {
                self.stats.count_drop(pkt.class, reason);
                return Verdict::Dropped(reason);
            }
        };
        self.fifo.push(now, pkt);
        self.stats.enqueued += 1;
        if marked {
            self.stats.marks += 1;
            Verdict::EnqueuedMarked
        } else {
            Verdict::Enqueued
        }
    }

    /// Take the head packet for transmission, counting it as dequeued.
    #[inline]
    pub fn release(&mut self) -> Option<PacketMeta> {
        let p = self.fifo.pop()?;
        self.stats.dequeued += 1;
        Some(p)
    }

    /// Count a packet stored and taken straight back (`QueueDisc::pass_through`): an arrival,
    /// an enqueue and a dequeue, as `settle` with [`Admit::Store`] and `release` count them.
    #[inline]
    pub fn count_passed(&mut self) {
        self.stats.arrivals += 1;
        self.stats.enqueued += 1;
        self.stats.dequeued += 1;
    }

    /// The stored packets.
    #[inline]
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    /// The stored packets and the counters, both mutable, for disciplines that drop or mark at
    /// dequeue time (CoDel) and count those themselves.
    #[inline]
    pub fn parts_mut(&mut self) -> (&mut Fifo, &mut QueueStats) {
        (&mut self.fifo, &mut self.stats)
    }

    /// Packets stored.
    #[inline]
    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    /// True if nothing is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// Bytes stored (wire sizes).
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    /// The counters.
    #[inline]
    pub fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// Count a CE mark set when a packet leaves (REM's ns-2 marking at dequeue).
    #[inline]
    pub fn count_departure_mark(&mut self) {
        self.stats.marks += 1;
    }
}

/// The `QueueDisc` methods that only read the buffer (`len_packets`, `len_bytes`, `stats`),
/// for a discipline whose [`FifoQueue`] is the field `$buf`.
macro_rules! fifo_accessors {
    ($buf:ident) => {
        fn len_packets(&self) -> u32 {
            self.$buf.len() as u32
        }
        fn len_bytes(&self) -> u64 {
            self.$buf.bytes()
        }
        fn stats(&self) -> &$crate::stats::QueueStats {
            self.$buf.stats()
        }
    };
}
pub(crate) use fifo_accessors;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::DropReason;

    fn pkt(id: u32, size: u32) -> PacketMeta {
        crate::pi::fixtures::pkt(id, size, 0, false)
    }

    #[test]
    fn settle_and_release_keep_order_bytes_and_counters() {
        let mut f = FifoQueue::default();
        let t = SimTime::from_millis(3);
        assert_eq!(f.settle(t, pkt(1, 1500), Admit::Store), Verdict::Enqueued);
        assert_eq!(
            f.settle(t, pkt(2, 40), Admit::Mark),
            Verdict::EnqueuedMarked
        );
        assert_eq!(
            f.settle(t, pkt(3, 40), Admit::Drop(DropReason::Early)),
            Verdict::Dropped(DropReason::Early)
        );
        let st = f.stats().clone();
        assert_eq!((f.len(), f.bytes(), st.enqueued, st.marks), (2, 1540, 2, 1));
        assert_eq!((st.arrivals, st.early_drops), (3, 1));
        let a = f.release().unwrap();
        assert_eq!((a.id, a.enqueued_at), (1, t));
        assert_eq!((f.bytes(), f.stats().dequeued), (40, 1));
        assert_eq!(f.release().unwrap().id, 2);
        assert!(f.release().is_none() && f.is_empty());
        assert_eq!((f.bytes(), f.stats().dequeued), (0, 2));
        f.stats().check_identities(0).unwrap();
    }

    #[test]
    fn backlog_and_full_in_packets_and_bytes() {
        let mut f = Fifo::default();
        f.push(SimTime::ZERO, pkt(1, 1500));
        f.push(SimTime::ZERO, pkt(2, 500));
        assert_eq!(f.backlog(false, 1000), 2.0);
        assert_eq!(f.backlog(true, 1000), 2.0);
        assert_eq!(f.backlog(true, 500), 4.0);
        assert!(f.full(2, false, 1000) && !f.full(3, false, 1000));
        // 2000 bytes stored: full at 2 × 1000 B, not at 3 × 1000 B.
        assert!(f.full(2, true, 1000) && !f.full(3, true, 1000));
        assert_eq!(f.pop().unwrap().id, 1);
        assert_eq!(f.bytes(), 500);
    }
}
