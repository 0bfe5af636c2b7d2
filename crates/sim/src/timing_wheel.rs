//! A timing wheel in front of a small heap, for the event queue's one-shot events.
//!
//! The pending events of a packet simulation are spread over a few round-trip times ahead of
//! the clock, and almost every event is handled within a few of its neighbours in time, so a
//! heap holding all of them (the 4-ary [`QuadHeap`] used alone before) spends most of each pop
//! sifting through entries far in the future (quickstart: ≈ 190 instructions per pop, a fifth
//! of the engine's). Here time is cut into slots of 2^14 ns (16.4 µs) and only the events of
//! the current slot (the *near* run, a [`SortedRun`]: one or two entries on the quickstart)
//! are ordered; the next 4,095 slots are unordered lists (the wheel; Varghese & Lauck,
//! "Hashed and hierarchical timing wheels", SOSP 1987, scheme 4) found by a two-level bitmap,
//! and events further ahead wait in a heap (*far*, a [`QuadHeap`]) until the wheel reaches
//! them. The order is exact — every key in the near run is below every key on the wheel, and
//! those below every key in the far heap — so the (time, sequence) order, and so every result, is
//! that of a single heap (`same_order_as_std_binary_heap` below; `bench/compare_runs.py` on
//! the shipped scenarios).
//!
//! Keys are `time_ns << 64 | sequence`, unique. Pushes may be below keys taken out before
//! (the event queue's re-armable timers are a separate heap, so the clock can stand before
//! this structure's current slot); such keys go to the near run, which orders anything.
//!
//! Why: it is faster than the single 4-ary heap on every bench case; the figures, and the
//! calendar queue tried before, are in bench/HISTORY.md ("Measurements behind code choices").

use crate::quad_heap::QuadHeap;
use crate::sorted_run::SortedRun;

/// log2 of a slot's width in ns: 16,384 ns, the fastest of 2^12 … 2^16 ns on the bench cases
/// (bench/HISTORY.md, "Measurements behind code choices").
const SLOT_SHIFT: u32 = 14;
/// Slots on the wheel (its horizon: 4,096 × 16.4 µs = 67 ms ahead of the current slot).
const SLOTS: usize = 1 << 12;
const MASK: u64 = SLOTS as u64 - 1;
/// Words of the slot bitmap (one bit per slot), and no node.
const WORDS: usize = SLOTS / 64;
const NIL: u32 = u32::MAX;
// One summary word covers every bitmap word.
const _: () = assert!(WORDS <= 64);

/// One event on the wheel: its key (split so the node is 8-byte aligned), value and the next
/// node of its slot's list.
#[derive(Clone, Copy, Debug)]
struct Node<V: Copy> {
    hi: u64,
    lo: u64,
    value: V,
    next: u32,
}

/// The slot of a key: its time in units of 2^[`SLOT_SHIFT`] ns.
#[inline]
fn slot_of(key: u128) -> u64 {
    ((key >> 64) as u64) >> SLOT_SHIFT
}

/// Exact min-priority queue on unique `u128` keys (see the module doc).
#[derive(Debug)]
pub struct TimingWheel<V: Copy> {
    /// Events of slots up to `base` (the current slot), in order.
    near: SortedRun<V>,
    /// Absolute slot of `near`: the wheel holds slots `base + 1 .. base + SLOTS`.
    base: u64,
    /// Per wheel index (`slot & MASK`): first node of its list, or `NIL`.
    heads: Vec<u32>,
    /// Bit `i` of `words[w]`: index `w * 64 + i` has a list; bit `w` of `summary`: `words[w]`
    /// is not zero.
    words: [u64; WORDS],
    summary: u64,
    nodes: Vec<Node<V>>,
    /// First free node (linked through `next`), or `NIL`.
    free: u32,
    on_wheel: usize,
    /// Events beyond the wheel's horizon.
    far: QuadHeap<V>,
}

impl<V: Copy> Default for TimingWheel<V> {
    fn default() -> Self {
        TimingWheel {
            near: SortedRun::with_capacity(64),
            base: 0,
            heads: vec![NIL; SLOTS],
            words: [0; WORDS],
            summary: 0,
            nodes: Vec::with_capacity(1 << 10),
            free: NIL,
            on_wheel: 0,
            far: QuadHeap::with_capacity(64),
        }
    }
}

impl<V: Copy> TimingWheel<V> {
    /// Add `value` under `key`.
    #[inline]
    pub fn push(&mut self, key: u128, value: V) {
        let s = slot_of(key);
        if self.near.len() == 0 {
            // Empty (the near run is empty only when everything is): start at this slot.
            debug_assert!(self.on_wheel == 0 && self.far.len() == 0);
            self.base = s;
            self.near.push(key, value);
        } else if s <= self.base {
            self.near.push(key, value);
        } else if s - self.base < SLOTS as u64 {
            self.put_on_wheel(s, key, value);
        } else {
            self.far.push(key, value);
        }
    }

    /// Append to the list of slot `s` (inside the wheel's horizon). Always inlined: a call
    /// passed the event through the stack and stalled on store forwarding (bench/HISTORY.md).
    #[inline(always)]
    fn put_on_wheel(&mut self, s: u64, key: u128, value: V) {
        let i = (s & MASK) as usize;
        let node = Node {
            hi: (key >> 64) as u64,
            lo: key as u64,
            value,
            next: self.heads[i],
        };
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        self.heads[i] = n;
        self.words[i / 64] |= 1u64 << (i % 64);
        self.summary |= 1u64 << (i / 64);
        self.on_wheel += 1;
    }

    /// The first wheel index at or after `from` (circularly) with a list; the wheel is not
    /// empty.
    #[inline]
    fn next_index(&self, from: usize) -> usize {
        let w = from / 64;
        let bits = self.words[w] & (!0u64 << (from % 64));
        if bits != 0 {
            return w * 64 + bits.trailing_zeros() as usize;
        }
        let later = if w + 1 < 64 {
            self.summary & (!0u64 << (w + 1))
        } else {
            0
        };
        let w2 = if later != 0 {
            later.trailing_zeros()
        } else {
            self.summary.trailing_zeros()
        } as usize;
        w2 * 64 + self.words[w2].trailing_zeros() as usize
    }

    /// The near run is empty: make the next non-empty slot the current one.
    fn advance(&mut self) {
        if self.on_wheel > 0 {
            let from = (self.base & MASK) as usize;
            let i = self.next_index(from);
            self.base += ((i as u64).wrapping_sub(from as u64)) & MASK;
            let mut n = std::mem::replace(&mut self.heads[i], NIL);
            self.words[i / 64] &= !(1u64 << (i % 64));
            if self.words[i / 64] == 0 {
                self.summary &= !(1u64 << (i / 64));
            }
            while n != NIL {
                let node = self.nodes[n as usize];
                self.near.push_unsorted(
                    (u128::from(node.hi) << 64) | u128::from(node.lo),
                    node.value,
                );
                self.nodes[n as usize].next = self.free;
                self.free = n;
                self.on_wheel -= 1;
                n = node.next;
            }
            self.near.sort();
        } else if let Some(k) = self.far.peek() {
            self.base = slot_of(k);
            while self.far.peek().is_some_and(|k| slot_of(k) == self.base) {
                let (k, v) = self.far.pop().expect("peeked");
                self.near.push(k, v);
            }
        } else {
            return;
        }
        // The horizon moved: far events now inside it go onto the wheel.
        while let Some(k) = self.far.peek() {
            let s = slot_of(k);
            if s - self.base >= SLOTS as u64 {
                break;
            }
            let (k, v) = self.far.pop().expect("peeked");
            self.put_on_wheel(s, k, v);
        }
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.near.peek()
    }

    /// The value under the smallest key.
    #[inline]
    pub fn peek_value(&self) -> Option<&V> {
        self.near.peek_value()
    }

    /// The value under the second smallest key if it is in the current slot, else `None` (a
    /// look-ahead for cache prefetching only).
    #[inline]
    pub fn peek_second_value(&self) -> Option<&V> {
        self.near.peek_second_value()
    }

    /// Remove and return the entry with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<(u128, V)> {
        let top = self.near.pop()?;
        if self.near.len() == 0 {
            self.advance();
        }
        Some(top)
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.near.len() + self.on_wheel + self.far.len()
    }

    /// Take every entry out, in no particular order.
    pub fn drain(&mut self) -> impl Iterator<Item = (u128, V)> + '_ {
        let mut all: Vec<(u128, V)> = self.near.drain().chain(self.far.drain()).collect();
        for i in 0..SLOTS {
            let mut n = std::mem::replace(&mut self.heads[i], NIL);
            while n != NIL {
                let node = self.nodes[n as usize];
                all.push((
                    (u128::from(node.hi) << 64) | u128::from(node.lo),
                    node.value,
                ));
                n = node.next;
            }
        }
        self.words = [0; WORDS];
        self.summary = 0;
        self.nodes.clear();
        self.free = NIL;
        self.on_wheel = 0;
        all.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    const SLOT: u64 = 1 << SLOT_SHIFT;

    fn key(t: u64, seq: u64) -> u128 {
        (u128::from(t) << 64) | u128::from(seq)
    }

    /// Where entries go, worked by hand: the first push sets the current slot; a later key in
    /// the same slot joins the near run, one a few slots ahead the wheel, one past the
    /// horizon the far heap; pops come out in key order and the far one moves in when the
    /// wheel empties.
    #[test]
    fn hand_computed_placement() {
        let mut w = TimingWheel::default();
        w.push(key(10 * SLOT + 5, 0), 'a');
        assert_eq!(w.base, 10);
        w.push(key(10 * SLOT + 1, 1), 'b'); // same slot, earlier time: near
        w.push(key(13 * SLOT, 2), 'c'); // wheel index 13
        w.push(key((10 + SLOTS as u64) * SLOT, 3), 'd'); // slot base + SLOTS: far
        w.push(key(13 * SLOT, 4), 'e'); // same instant as 'c', later sequence
        assert_eq!((w.near.len(), w.on_wheel, w.far.len()), (2, 2, 1));
        assert_eq!(w.words[0], 1 << 13);
        let order: Vec<char> = std::iter::from_fn(|| w.pop().map(|e| e.1)).collect();
        assert_eq!(order, vec!['b', 'a', 'c', 'e', 'd']);
        assert_eq!(w.len(), 0);
        // A push below the current slot (the clock stands before it) goes to the near run
        // and comes out first.
        w.push(key(50 * SLOT, 5), 'f');
        w.push(key(50 * SLOT + 3, 6), 'g');
        assert_eq!(w.pop().map(|e| e.1), Some('f'));
        w.push(key(40 * SLOT, 7), 'h');
        assert_eq!(w.pop().map(|e| e.1), Some('h'));
        assert_eq!(w.pop().map(|e| e.1), Some('g'));
    }

    /// Against std's binary heap on event-queue-like keys (time << 64 | sequence): pushes at
    /// the current instant, a little later, across the wheel's wrap-around and past its
    /// horizon, and some below the last key taken out; interleaved with pops at every size
    /// from empty to a few thousand.
    #[test]
    fn same_order_as_std_binary_heap() {
        let mut h = TimingWheel::default();
        let mut r = BinaryHeap::new();
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut now = 0u64;
        for step in 0..400_000u64 {
            let x = crate::scrambled::next(&mut s);
            let grow = (step / 20_000) % 2 == 0;
            if (x % 5 < 3) == grow || r.is_empty() {
                let t = match x % 9 {
                    0 => now,
                    1 => now + (x >> 8) % (4 * SLOTS as u64 * SLOT),
                    2 => now.saturating_sub((x >> 8) % (3 * SLOT)),
                    3 => now + (x >> 8) % (SLOTS as u64 * SLOT),
                    _ => now + (x >> 8) % (20 * SLOT),
                };
                let k = key(t, step);
                h.push(k, step);
                r.push(Reverse((k, step)));
            } else {
                assert_eq!(h.peek(), r.peek().map(|e| e.0 .0));
                let e = h.pop();
                assert_eq!(e, r.pop().map(|e| e.0));
                now = (e.unwrap().0 >> 64) as u64;
            }
            assert_eq!(h.len(), r.len());
        }
        let mut rest: Vec<(u128, u64)> = h.drain().collect();
        rest.sort();
        let mut want: Vec<(u128, u64)> = r.into_iter().map(|e| e.0).collect();
        want.sort();
        assert_eq!(rest, want);
    }
}
