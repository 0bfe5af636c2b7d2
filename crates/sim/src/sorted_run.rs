//! The timing wheel's current slot (`timing_wheel.rs`): its few events held sorted, smallest
//! key last, so taking the next one is a `Vec::pop`. A slot holds one or two events on the
//! quickstart and a few dozen on bench_1gbps, where a heap's sift costs more than keeping
//! them in order (an insertion is a binary search and a short move).

/// `(u128 key, value)` pairs in decreasing key order (keys unique).
#[derive(Debug)]
pub struct SortedRun<V: Copy> {
    data: Vec<(u128, V)>,
}

impl<V: Copy> SortedRun<V> {
    /// An empty run with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        SortedRun {
            data: Vec::with_capacity(n),
        }
    }

    /// Add `value` under `key`, in its place.
    #[inline]
    pub fn push(&mut self, key: u128, value: V) {
        match self.data.last() {
            // Most often the new key is the smallest, or the run is empty.
            Some(e) if e.0 < key => {
                let i = self.data.partition_point(|e| e.0 > key);
                self.data.insert(i, (key, value));
            }
            _ => self.data.push((key, value)),
        }
    }

    /// Add `value` under `key` anywhere; [`SortedRun::sort`] must follow before any other use.
    #[inline]
    pub fn push_unsorted(&mut self, key: u128, value: V) {
        self.data.push((key, value));
    }

    /// Put the entries added by [`SortedRun::push_unsorted`] in order.
    #[inline]
    pub fn sort(&mut self) {
        if self.data.len() > 1 {
            self.data.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        }
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.data.last().map(|e| e.0)
    }

    /// The value under the smallest key.
    #[inline]
    pub fn peek_value(&self) -> Option<&V> {
        self.data.last().map(|e| &e.1)
    }

    /// The value under the second smallest key.
    #[inline]
    pub fn peek_second_value(&self) -> Option<&V> {
        let n = self.data.len();
        (n >= 2).then(|| &self.data[n - 2].1)
    }

    /// Remove and return the entry with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<(u128, V)> {
        self.data.pop()
    }

    /// Entries held.
    #[inline]
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Take every entry out.
    pub fn drain(&mut self) -> impl Iterator<Item = (u128, V)> + '_ {
        self.data.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys pushed in any order, some in bulk then sorted, come out smallest first; the
    /// second smallest is the one before last.
    #[test]
    fn keeps_keys_in_order_whatever_the_pushes() {
        let mut r = SortedRun::with_capacity(4);
        for k in [5u128, 3, 9, 1, 7] {
            r.push(k, k as u32);
        }
        assert_eq!(
            r.data.iter().map(|e| e.0).collect::<Vec<_>>(),
            [9, 7, 5, 3, 1]
        );
        assert_eq!((r.peek(), r.peek_second_value()), (Some(1), Some(&3)));
        assert_eq!(r.pop(), Some((1, 1)));
        for k in [8u128, 2, 6] {
            r.push_unsorted(k, k as u32);
        }
        r.sort();
        r.push(4, 4);
        let out: Vec<u128> = std::iter::from_fn(|| r.pop().map(|e| e.0)).collect();
        assert_eq!(out, [2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(r.len(), 0);
        assert!(r.peek_second_value().is_none());
    }
}
