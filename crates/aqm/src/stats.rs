//! Counters of a queue discipline. Counters only; no behaviour.

use crate::packet::{DropReason, PacketClass};

/// Packet counters of one discipline since the start of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets offered to `enqueue`.
    pub arrivals: u64,
    /// Packets accepted (marked or not).
    pub enqueued: u64,
    /// Packets accepted with a CE mark.
    pub marks: u64,
    /// Packets handed back by `dequeue` for transmission.
    pub dequeued: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub dequeue_drops: u64,
    /// Drops by class and reason: `drops_by_class[class][reason]`.
    pub drops_by_class: [[u64; DropReason::COUNT]; PacketClass::COUNT],
}

impl QueueStats {
    /// Count a drop (any reason) of a packet of `class`.
    pub fn count_drop(&mut self, class: PacketClass, reason: DropReason) {
        match reason {
            DropReason::Early => self.early_drops += 1,
            DropReason::Forced => self.forced_drops += 1,
            DropReason::Overflow => self.overflow_drops += 1,
            DropReason::DequeueTime => self.dequeue_drops += 1,
        }
        self.drops_by_class[class as usize][reason as usize] += 1;
    }

    /// All drops.
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.overflow_drops + self.dequeue_drops
    }

    /// Check the written identities given the packets now stored; `Err` names the broken one.
    pub fn check_identities(&self, queued_now: u64) -> Result<(), String> {
        let accounted = self.enqueued + self.early_drops + self.forced_drops + self.overflow_drops;
        if self.arrivals != accounted {
            return Err(format!(
                "arrivals {} != enqueued {} + early {} + forced {} + overflow {}",
                self.arrivals,
                self.enqueued,
                self.early_drops,
                self.forced_drops,
                self.overflow_drops
            ));
        }
        if self.enqueued != self.dequeued + self.dequeue_drops + queued_now {
            return Err(format!(
                "enqueued {} != dequeued {} + dequeue drops {} + queued {}",
                self.enqueued, self.dequeued, self.dequeue_drops, queued_now
            ));
        }
        let by_class: u64 = self.drops_by_class.iter().flatten().sum();
        if by_class != self.drops() {
            return Err(format!(
                "drops by class {} != drops {}",
                by_class,
                self.drops()
            ));
        }
        Ok(())
    }
}
