//! The event queue: a timing wheel (`timing_wheel.rs`) ordered by (time, insertion sequence), so events at the same
//! instant run in the order they were scheduled (STYLE.md §9); connection wake-ups are
//! re-armed in place in a [`TimerHeap`]. Cancellation of one-shot events is lazy: handlers
//! check generation numbers or deadlines and ignore stale events.

use units::SimTime;

use crate::timers::TimerHeap;
use crate::timing_wheel::TimingWheel;

/// What happens at an instant.
///
/// `repr(u32)`: a 4-byte tag before the 4-byte-aligned fields, so an event (16 bytes) is copied
/// as whole aligned words; a 1-byte tag made the compiler copy it in overlapping pieces that
/// stalled on store forwarding (bench/HISTORY.md, "Measurements behind code choices").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Event {
    /// Packet `pkt` reaches node `node` (end of a link's propagation). `to_ep`: if `node` is
    /// the packet's destination host, the endpoint it is delivered to (connection slot × 2 +
    /// side, 0 client / 1 server), else [`NOT_DELIVERED`]; a hint for cache prefetching only.
    Arrive { pkt: u32, node: u32, to_ep: u32 },
    /// Link `link` finished serializing its current packet.
    TxDone { link: u32 },
    /// Endpoint deadline of connection slot `conn` (generation `gen`), side 0 client / 1 server.
    Endpoint { conn: u32, gen: u32, side: u8 },
    /// Application timer (server delay, client gap between exchanges) of connection slot
    /// `conn` (generation `gen`), side 0 client / 1 server.
    App { conn: u32, gen: u32, side: u8 },
    /// Workload `w` has a deadline.
    Workload { w: u32 },
    /// Queue discipline of `link` has a deadline (periodic AQM updates).
    Queue { link: u32 },
    /// Sample monitored queue lengths (every 3 ms).
    QueueSample,
    /// Close the queue-monitor interval (every 100 ms).
    QueueInterval,
    /// Close the link-monitor interval (every 1 s).
    LinkInterval,
    /// End of the warm-up: snapshot counters.
    WarmupEnd,
}

/// `Event::Arrive::to_ep` of an arrival at a router, or of a datagram.
pub const NOT_DELIVERED: u32 = u32::MAX;

/// (time in ns, sequence) packed into one key, so every ordering comparison is one 128-bit
/// compare.
#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    ((time.as_nanos() as u128) << 64) | seq as u128
}

/// (time, sequence) of a key.
#[inline]
fn unkey(key: u128) -> (SimTime, u64) {
    (SimTime::from_nanos((key >> 64) as u64), key as u64)
}

/// Deterministic future-event list: one-shot events in a timing wheel, re-armable wake-ups
/// (one per key) in a [`TimerHeap`]; both share one sequence counter, so the merged order is
/// (time, sequence) over all events.
#[derive(Debug, Default)]
pub struct EventQueue {
    wheel: TimingWheel<Event>,
    timers: TimerHeap,
    seq: u64,
    now: SimTime,
    /// Sequence number of the event being handled (the latest popped).
    now_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            wheel: TimingWheel::default(),
            timers: TimerHeap::default(),
            seq: 0,
            now: SimTime::ZERO,
            now_seq: 0,
            popped: 0,
        }
    }
    /// Schedule `ev` at `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        debug_assert!(
            time >= self.now,
            "event scheduled in the past: {time} < {}",
            self.now
        );
        self.wheel.push(key(time, self.seq), ev);
        self.seq += 1;
    }
    /// Take the next sequence number for an event that may never be scheduled (a link's end
    /// of transmission, see `World::start_tx`): it keeps its place in the order if it is
    /// scheduled later with [`EventQueue::schedule_at_seq`].
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }
    /// Schedule `ev` at `time` with the sequence number `seq` taken earlier by
    /// [`EventQueue::reserve_seq`].
    #[inline]
    pub fn schedule_at_seq(&mut self, time: SimTime, seq: u64, ev: Event) {
        debug_assert!(time >= self.now && seq < self.seq);
        self.wheel.push(key(time, seq), ev);
    }
    /// True if an event at (`time`, `seq`) comes before the one being handled, i.e. would
    /// already have run had it been scheduled.
    #[inline]
    pub fn is_past(&self, time: SimTime, seq: u64) -> bool {
        (time, seq) < (self.now, self.now_seq)
    }
    /// Set the re-armable wake-up `key` to `ev` at `time` (not in the past), replacing the
    /// key's pending one: it is ordered as if scheduled now.
    #[inline]
    pub fn set_timer(&mut self, key: u32, time: SimTime, ev: Event) {
        debug_assert!(
            time >= self.now,
            "timer set in the past: {time} < {}",
            self.now
        );
        self.timers.set(key, time, self.seq, ev);
        self.seq += 1;
    }
    /// Drop the pending wake-up of `key`, if any.
    pub fn cancel_timer(&mut self, key: u32) {
        self.timers.cancel(key);
    }
    /// Earliest event, advancing the clock; asserts time never goes backwards.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime::MAX)
    }
    /// Earliest event if it is at or before `end` (then the clock advances to it), else
    /// `None` and nothing changes.
    #[inline]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        let timer_first = match (self.wheel.peek(), self.timers.peek()) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(k), Some(t)) => t < unkey(k),
        };
        let (time, seq, ev) = if timer_first {
            if self.timers.peek()?.0 > end {
                return None;
            }
            self.timers.pop()?
        } else {
            if unkey(self.wheel.peek()?).0 > end {
                return None;
            }
            let (k, ev) = self.wheel.pop()?;
            let (time, seq) = unkey(k);
            (time, seq, ev)
        };
        assert!(time >= self.now, "time went backwards");
        self.now = time;
        self.now_seq = seq;
        self.popped += 1;
        Some((time, ev))
    }
    /// The earliest one-shot event (not a wake-up), without taking it: what the engine will
    /// most likely handle next, for prefetching its memory.
    #[inline]
    pub fn peek_event(&self) -> Option<&Event> {
        self.wheel.peek_value()
    }
    /// The one-shot event after [`EventQueue::peek_event`]'s, as things stand.
    #[inline]
    pub fn peek_second_event(&self) -> Option<&Event> {
        self.wheel.peek_second_value()
    }
    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        let h = self.wheel.peek().map(|k| unkey(k).0);
        let t = self.timers.peek().map(|t| t.0);
        match (h, t) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
    /// Events scheduled so far.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
    pub fn pending(&self) -> usize {
        self.wheel.len() + self.timers.len()
    }
    /// Pending events, for end-of-run accounting.
    pub fn drain(&mut self) -> impl Iterator<Item = Event> + '_ {
        self.wheel.drain().map(|e| e.1).chain(self.timers.drain())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        let t = SimTime::from_millis;
        q.schedule(t(5), Event::TxDone { link: 1 });
        q.schedule(t(3), Event::TxDone { link: 2 });
        q.schedule(t(5), Event::TxDone { link: 3 });
        q.schedule(t(3), Event::TxDone { link: 4 });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::TxDone { link } => link,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
        assert_eq!(q.processed(), 4);
        assert_eq!(q.now(), t(5));
    }
}
