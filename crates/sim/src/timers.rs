//! Re-armable timers: an indexed binary heap holding at most one pending wake-up per key
//! (a connection's endpoint side), ordered by (time, insertion sequence) like the event queue.
//!
//! A TCP endpoint re-arms its wake-up on nearly every segment (delayed ACK, then the
//! retransmission timer). Pushing a new event each time and ignoring the stale ones left about
//! 2000 dead entries in the quickstart's event heap against about 140 live events; here a
//! re-arm moves the key's one entry instead, so the heap holds only live wake-ups.

use crate::event::Event;
use units::SimTime;

/// Position marker of a key with no pending entry.
const ABSENT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    key: u32,
    ev: Event,
}

impl Entry {
    #[inline]
    fn before(&self, o: &Entry) -> bool {
        (self.time, self.seq) < (o.time, o.seq)
    }
}

/// Indexed min-heap of (time, seq) with one entry per key `0..keys`.
#[derive(Debug, Default)]
pub struct TimerHeap {
    heap: Vec<Entry>,
    /// `pos[key]`: index of the key's entry in `heap`, or `ABSENT`.
    pos: Vec<u32>,
}

impl TimerHeap {
    /// Set `key`'s wake-up to `(time, seq)` carrying `ev`, replacing any pending one.
    pub fn set(&mut self, key: u32, time: SimTime, seq: u64, ev: Event) {
        let k = key as usize;
        if k >= self.pos.len() {
            self.pos.resize((k + 1).next_power_of_two(), ABSENT);
        }
        let e = Entry { time, seq, key, ev };
        match self.pos[k] {
            ABSENT => {
                let i = self.heap.len();
                self.heap.push(e);
                self.pos[k] = i as u32;
                self.sift_up(i);
            }
            i => {
                let i = i as usize;
                let earlier = e.before(&self.heap[i]);
                self.heap[i] = e;
                if earlier {
                    self.sift_up(i);
                } else {
                    self.sift_down(i);
                }
            }
        }
    }

    /// Drop `key`'s pending wake-up, if any.
    pub fn cancel(&mut self, key: u32) {
        let Some(&i) = self.pos.get(key as usize) else {
            return;
        };
        if i == ABSENT {
            return;
        }
        self.remove_at(i as usize);
    }

    /// (time, seq) of the earliest wake-up.
    #[inline]
    pub fn peek(&self) -> Option<(SimTime, u64)> {
        self.heap.first().map(|e| (e.time, e.seq))
    }

    /// Remove and return the earliest wake-up: (time, seq, event).
    pub fn pop(&mut self) -> Option<(SimTime, u64, Event)> {
        let e = *self.heap.first()?;
        self.remove_at(0);
        Some((e.time, e.seq, e.ev))
    }

    /// Pending wake-ups.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Pending events, for end-of-run accounting (leaves the heap empty).
    pub fn drain(&mut self) -> impl Iterator<Item = Event> + '_ {
        self.pos.iter_mut().for_each(|p| *p = ABSENT);
        self.heap.drain(..).map(|e| e.ev)
    }

    fn remove_at(&mut self, i: usize) {
        let removed = self.heap.swap_remove(i);
        self.pos[removed.key as usize] = ABSENT;
        if i < self.heap.len() {
            self.pos[self.heap[i].key as usize] = i as u32;
            if i > 0 && self.heap[i].before(&self.heap[(i - 1) / 2]) {
                self.sift_up(i);
            } else {
                self.sift_down(i);
            }
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        let e = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if !e.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            self.pos[self.heap[i].key as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = e;
        self.pos[e.key as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let e = self.heap[i];
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].before(&self.heap[l]) {
                r
            } else {
                l
            };
            if !self.heap[c].before(&e) {
                break;
            }
            self.heap[i] = self.heap[c];
            self.pos[self.heap[i].key as usize] = i as u32;
            i = c;
        }
        self.heap[i] = e;
        self.pos[e.key as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    fn ev(k: u32) -> Event {
        Event::Endpoint {
            conn: k,
            gen: 0,
            side: 0,
        }
    }

    fn key_of(e: Event) -> u32 {
        match e {
            Event::Endpoint { conn, .. } => conn,
            _ => unreachable!(),
        }
    }

    #[test]
    fn rearm_moves_the_one_entry_and_ties_break_by_sequence() {
        let t = SimTime::from_millis;
        let mut h = TimerHeap::default();
        h.set(1, t(50), 0, ev(1));
        h.set(2, t(20), 1, ev(2));
        h.set(3, t(20), 2, ev(3));
        h.set(1, t(20), 3, ev(1)); // earlier: now ties with 2 and 3, after them
        h.set(2, t(90), 4, ev(2)); // later
        h.set(4, t(5), 5, ev(4));
        h.cancel(4);
        h.cancel(7); // unknown key: nothing
        assert_eq!(h.len(), 3);
        let order: Vec<(u64, u32)> = std::iter::from_fn(|| h.pop())
            .map(|(time, _, e)| (time.as_nanos() / 1_000_000, key_of(e)))
            .collect();
        assert_eq!(order, vec![(20, 3), (20, 1), (90, 2)]);
        assert_eq!(h.len(), 0);
    }

    /// Against a reference: a sorted list of (time, seq, key) with one entry per key.
    #[test]
    fn matches_a_sorted_reference_under_random_operations() {
        let mut rng = units::stream(7, "timers");
        let mut h = TimerHeap::default();
        let mut reference: Vec<(u64, u64, u32)> = Vec::new();
        let mut seq = 0u64;
        for _ in 0..20_000 {
            let key = (rng.next_u64() % 64) as u32;
            match rng.next_u64() % 4 {
                0 => {
                    h.cancel(key);
                    reference.retain(|r| r.2 != key);
                }
                1 => {
                    let got = h.pop().map(|(time, _, e)| (time.as_nanos(), key_of(e)));
                    reference.sort();
                    let want = (!reference.is_empty()).then(|| reference.remove(0));
                    assert_eq!(got, want.map(|w| (w.0, w.2)));
                }
                _ => {
                    let time = rng.next_u64() % 1000;
                    h.set(key, SimTime::from_nanos(time), seq, ev(key));
                    reference.retain(|r| r.2 != key);
                    reference.push((time, seq, key));
                    seq += 1;
                }
            }
            assert_eq!(h.len(), reference.len());
        }
    }
}
