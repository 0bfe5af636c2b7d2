//! A 4-ary min-heap of `(u128 key, value)` pairs: the far heap of the event queue's timing
//! wheel (`timing_wheel.rs`), events past its horizon.
//!
//! Why not the `dary_heap` crate (used before): its push appends the entry and then reads it
//! back from memory to sift it up. The entry was just written field by field (an `Event` enum),
//! so the 16-byte reload cannot be forwarded from the store buffer and stalls (perf, quickstart:
//! 15 % of `World::start_tx`, where pushes are inlined). Here a push keeps the new entry in
//! registers, moves parents down and writes the entry once, at its final place. A pop is the
//! same as the crate's: the hole left at the root goes down along the smallest children to the
//! bottom (three branch-free compares per level) and the last entry is sifted up from there
//! (Wegener's bottom-up heapsort trick; Floyd, "Treesort 3", CACM 1964, for the sift).

/// Children per node.
const D: usize = 4;

/// 4-ary min-heap ordered by `key` (ties are the caller's business: keys here are unique).
#[derive(Debug)]
pub struct QuadHeap<V: Copy> {
    data: Vec<(u128, V)>,
}

impl<V: Copy> Default for QuadHeap<V> {
    fn default() -> Self {
        QuadHeap { data: Vec::new() }
    }
}

impl<V: Copy> QuadHeap<V> {
    /// An empty heap with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        QuadHeap {
            data: Vec::with_capacity(n),
        }
    }

    /// Add `value` under `key`.
    #[inline]
    pub fn push(&mut self, key: u128, value: V) {
        let mut i = self.data.len();
        // The new slot; overwritten below, never read.
        self.data.push((key, value));
        while i > 0 {
            let p = (i - 1) / D;
            let parent = self.data[p];
            if parent.0 <= key {
                break;
            }
            self.data[i] = parent;
            i = p;
        }
        self.data[i] = (key, value);
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.data.first().map(|e| e.0)
    }

    /// Remove and return the entry with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<(u128, V)> {
        let last = self.data.pop()?;
        let n = self.data.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.data[0];
        let d = &mut self.data[..];
        let mut hole = 0;
        // Down to the bottom along the smallest children.
        loop {
            let c = D * hole + 1;
            if c + D <= n {
                // One bounds check for the four children.
                let ch = &d[c..c + D];
                let a = usize::from(ch[1].0 < ch[0].0);
                let b = 2 + usize::from(ch[3].0 < ch[2].0);
                let m = c + if ch[b].0 < ch[a].0 { b } else { a };
                d[hole] = d[m];
                hole = m;
            } else {
                if c < n {
                    let mut m = c;
                    for j in c + 1..n {
                        if d[j].0 < d[m].0 {
                            m = j;
                        }
                    }
                    d[hole] = d[m];
                    hole = m;
                }
                break;
            }
        }
        // The former last entry goes up from the hole to its place.
        while hole > 0 {
            let p = (hole - 1) / D;
            if d[p].0 <= last.0 {
                break;
            }
            d[hole] = d[p];
            hole = p;
        }
        d[hole] = last;
        Some(top)
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Take every entry out, in no particular order.
    pub fn drain(&mut self) -> impl Iterator<Item = (u128, V)> + '_ {
        self.data.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn hand_computed_layout() {
        let mut h = QuadHeap::with_capacity(8);
        for k in [50u128, 40, 30, 20, 10, 60] {
            h.push(k, ());
        }
        // Each of 40, 30, 20, 10 displaced the root (its parent); 60 stays under 50 (index 5,
        // parent (5 - 1) / 4 = 1).
        let keys: Vec<u128> = h.data.iter().map(|e| e.0).collect();
        assert_eq!(keys, vec![10, 50, 40, 30, 20, 60]);
        let out: Vec<u128> = std::iter::from_fn(|| h.pop().map(|e| e.0)).collect();
        assert_eq!(out, vec![10, 20, 30, 40, 50, 60]);
    }

    /// Against std's binary heap: scrambled keys, interleaved pushes and pops, every size from
    /// empty to a few thousand (all the partial-children cases of the sift).
    #[test]
    fn same_order_as_std_binary_heap() {
        let mut h = QuadHeap::with_capacity(0);
        let mut r = BinaryHeap::new();
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for step in 0..300_000u32 {
            let x = crate::scrambled::next(&mut s);
            let grow = (step / 20_000) % 2 == 0;
            if (x % 5 < 3) == grow || r.is_empty() {
                let key = (u128::from(x % 1000) << 64) | u128::from(step);
                h.push(key, step);
                r.push(Reverse((key, step)));
            } else {
                assert_eq!(h.peek(), r.peek().map(|e| e.0 .0));
                assert_eq!(h.pop(), r.pop().map(|e| e.0));
            }
            assert_eq!(h.len(), r.len());
        }
        while let Some(Reverse(e)) = r.pop() {
            assert_eq!(h.pop(), Some(e));
        }
        assert!(h.pop().is_none());
    }
}
