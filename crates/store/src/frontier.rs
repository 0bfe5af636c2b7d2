//! The completed prefix of request ids: the smallest id `X` such that every id below `X` has
//! had its record. The engine hands a request's record over exactly once, when its exchange
//! ends, and gives ids in order as exchanges open (`sim::world` `open`, `sim::conn`
//! `next_request`): so a record below `X` can no longer arrive (but a duplicate, an engine
//! bug the spool reports, see `spool.rs`), and the rows of ids below `X` are final: the writer
//! encodes their row groups while the run goes on (`sink.rs`).
//!
//! Memory: one bit per id between `X` and the largest id seen; past [`MAX_SPAN`] ids (an id
//! that stays open for a very long run, an endless bulk flow) the tracker gives up, frees the
//! bits and the prefix stays where it was: the rest is written at the end, as before.

use std::collections::VecDeque;

/// Ids tracked above the prefix at most (1 bit each: 2 MiB).
pub const MAX_SPAN: u64 = 1 << 24;

/// Which ids have had their record, as a prefix and a bit set above it.
#[derive(Debug, Default)]
pub struct Frontier {
    /// Every id below `base` has been seen; `base` is a multiple of 64.
    base: u64,
    /// Bit `i` of word `w`: id `base + 64 w + i` seen.
    words: VecDeque<u64>,
    gave_up: bool,
}

impl Frontier {
    /// No id seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// Note that `id` has had its record.
    pub fn mark(&mut self, id: u64) {
        if self.gave_up || id < self.base {
            return;
        }
        let off = id - self.base;
        if off >= MAX_SPAN {
            self.gave_up = true;
            self.words = VecDeque::new();
            return;
        }
        let w = (off / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (off % 64);
        while self.words.front() == Some(&u64::MAX) {
            self.words.pop_front();
            self.base += 64;
        }
    }

    /// Every id below this one has been seen.
    pub fn prefix(&self) -> u64 {
        self.base + self.words.front().map_or(0, |w| w.trailing_ones() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_advances_only_over_ids_all_seen() {
        let mut f = Frontier::new();
        assert_eq!(f.prefix(), 0);
        f.mark(1);
        assert_eq!(f.prefix(), 0);
        f.mark(0);
        assert_eq!(f.prefix(), 2);
        // A hole at 64 holds the prefix across a word boundary.
        for id in (2..200).filter(|&i| i != 64) {
            f.mark(id);
        }
        assert_eq!(f.prefix(), 64);
        f.mark(64);
        assert_eq!(f.prefix(), 200);
        // A repeated id changes nothing.
        f.mark(5);
        f.mark(199);
        assert_eq!(f.prefix(), 200);
    }

    #[test]
    fn an_id_held_open_too_long_freezes_the_prefix_with_bounded_memory() {
        let mut f = Frontier::new();
        for id in 1..1000 {
            f.mark(id);
        }
        f.mark(MAX_SPAN + 5);
        assert!(f.words.is_empty());
        f.mark(0);
        assert_eq!(f.prefix(), 0, "frozen: the rest is written at the end");
    }
}
