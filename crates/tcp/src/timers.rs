//! The endpoint's timers as a deadline table (STYLE.md §8; quinn `connection/timer.rs`).
//!
//! One slot per [`Timer`] kind, each an `Option<SimTime>`. Arming a timer overwrites its slot,
//! stopping clears it; nothing is ever scheduled with the engine. `next()` is the minimum over
//! the slots, which the endpoint reports as `next_deadline()`. The engine may wake the endpoint
//! early or for a deadline that has since moved: `expired(now)` then reports nothing, so stale
//! wake-ups are harmless (lazy cancellation).
//!
//! Differences from BSD and ns-2: both run the delayed-ACK timer off a global periodic "fast
//! timeout" (200 ms in BSD, `interval_` in ns-2 Full-TCP) whose phase is absolute; here every
//! timer is a relative deadline (like Linux), so a delayed ACK waits exactly the configured delay.
//!
//! Validation: unit tests below (`earliest_wins`, `stale_and_early_wakeups_fire_nothing`).

use units::SimTime;

/// Timer kinds; the discriminant is the slot index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Retransmission timer (RFC 6298): SYN, SYN-ACK, data and FIN.
    Rto = 0,
    /// Delayed-ACK timer (RFC 1122 §4.2.3.2), only armed when `delayed_ack` is on.
    DelayedAck = 1,
    /// Pacing release (pacing.rs): the next data segment may leave; only armed when paced.
    Pacing = 2,
    /// RACK's reorder timer (rack.rs, RFC 8985 §6.3): a segment becomes lost then.
    Reorder = 3,
    /// Tail loss probe (RFC 8985 §7): the probe timeout.
    LossProbe = 4,
}

impl Timer {
    /// Every kind, in slot order.
    pub const ALL: [Timer; 5] = [
        Timer::Rto,
        Timer::DelayedAck,
        Timer::Pacing,
        Timer::Reorder,
        Timer::LossProbe,
    ];
}

/// Fixed table of deadlines, one per [`Timer`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timers {
    at: [Option<SimTime>; 5],
}

impl Timers {
    /// Arm `t` to fire at `at` (replaces any earlier deadline of that kind).
    pub fn set(&mut self, t: Timer, at: SimTime) {
        self.at[t as usize] = Some(at);
    }
    /// Disarm `t`.
    pub fn stop(&mut self, t: Timer) {
        self.at[t as usize] = None;
    }
    /// Disarm every timer.
    pub fn stop_all(&mut self) {
        self.at = [None; 5];
    }
    /// Deadline of `t`, if armed.
    pub fn get(&self, t: Timer) -> Option<SimTime> {
        self.at[t as usize]
    }
    pub fn is_armed(&self, t: Timer) -> bool {
        self.at[t as usize].is_some()
    }
    /// Earliest armed deadline.
    pub fn next(&self) -> Option<SimTime> {
        self.at.iter().flatten().min().copied()
    }
    /// If `t` is due at `now`, disarm it and return true.
    pub fn take_expired(&mut self, t: Timer, now: SimTime) -> bool {
        match self.at[t as usize] {
            Some(at) if at <= now => {
                self.at[t as usize] = None;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_wins() {
        let mut t = Timers::default();
        assert_eq!(t.next(), None);
        t.set(Timer::Rto, SimTime::from_millis(300));
        t.set(Timer::DelayedAck, SimTime::from_millis(200));
        assert_eq!(t.next(), Some(SimTime::from_millis(200)));
        t.stop(Timer::DelayedAck);
        assert_eq!(t.next(), Some(SimTime::from_millis(300)));
    }

    #[test]
    fn stale_and_early_wakeups_fire_nothing() {
        let mut t = Timers::default();
        t.set(Timer::Rto, SimTime::from_millis(100));
        // The deadline moves later; a wake-up for the old deadline is stale.
        t.set(Timer::Rto, SimTime::from_millis(500));
        assert!(!t.take_expired(Timer::Rto, SimTime::from_millis(100)));
        assert!(!t.take_expired(Timer::Rto, SimTime::from_millis(499)));
        assert!(t.take_expired(Timer::Rto, SimTime::from_millis(500)));
        assert!(!t.is_armed(Timer::Rto));
    }
}
