//! The SACK sender's scoreboard, RFC 6675 §3–4: which data above SND.UNA the receiver holds,
//! and the routines IsLost, SetPipe and NextSeg (rules 1 and 3; rule 2, new data, is the
//! endpoint's, between them).
//!
//! State: SACKed ranges `[start, end)` above SND.UNA (sorted, disjoint, non-adjacent; merged
//! on arrival, trimmed when SND.UNA advances) and HighRxt, kept one past the highest sequence
//! number retransmitted in the current recovery (`high_rxt`; RFC 6675 keeps the octet itself).
//! Only payload counts: SACK blocks cover data, never the FIN.
//!
//! - IsLost(S) (§4): more than (DupThresh − 1)·MSS bytes SACKed above S, or at least DupThresh
//!   "discontiguous SACKed sequences" above S, read as segments (each range above S counts
//!   ⌈bytes/MSS⌉) — the reading ns-3 and Linux use, so small segments count one each.
//! - SetPipe (§4): Σ over unSACKed payload octets in [SND.UNA, HighData]: +1 if not IsLost,
//!   +1 more if below HighRxt (the retransmission is in flight too). Computed per hole: every
//!   octet of a hole has the same data SACKed above it.
//! - NextSeg (§4) rule 1: the first unSACKed octet S ≥ HighRxt below the highest SACKed octet
//!   with IsLost(S); rule 3: the same without IsLost. The segment runs to the end of the hole
//!   (at most one MSS, cut by the caller). Rule 4 (rescue retransmission, a MAY) is not done.
//!
//! Cost (issue 32 item 6): none of these scans the window. IsLost(S) only weakens as S rises,
//! so it is decided by the few ranges nearest the top (at most DupThresh + 1 are read, from the
//! highest down); hence the holes that are not lost are the last few, and NextSeg's first hole
//! from HighRxt up decides rules 1 and 3 alone. SetPipe's "+1 below HighRxt" part is the
//! unSACKed bytes in [SND.UNA, HighRxt), from the SACKed bytes below HighRxt, which a cursor
//! keeps (updated as ranges arrive and are trimmed, moved as HighRxt moves). Trimmed ranges
//! leave the front of the vector lazily. Results are those of the per-hole definitions above
//! (unit test `matches_the_per_hole_definitions`).
//!
//! Validation: unit tests below (`update_merges_and_trims`, `is_lost_needs_three_segments_above`,
//! `pipe_and_next_seg_by_hand`, `matches_the_per_hole_definitions`); tests/sack.rs end to end.

use std::cell::Cell;

/// SACK scoreboard of one sender.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges; the live ones are `blocks[head..]` (those trimmed below SND.UNA are
    /// dropped from the front in batches, so a cumulative ACK shifts nothing).
    blocks: Vec<(u64, u64)>,
    head: usize,
    /// One past the highest sequence number retransmitted in this recovery (0 = none).
    pub high_rxt: u64,
    /// Every unSACKed octet below this is lost (SND.MAX at a timeout that kept the ranges,
    /// Linux `tcp_timeout_mark_lost`; 0 = none): IsLost holds there, NextSeg runs up to it.
    pub lost_below: u64,
    /// Cursor `(x, SACKed bytes of the live ranges below x)`, kept exact through every change,
    /// so SetPipe counts the SACKed bytes below HighRxt by moving it, not by a scan.
    below: Cell<(u64, u64)>,
}

/// Scoreboards are equal when they hold the same ranges and HighRxt (the cursor and the
/// not-yet-dropped ranges are bookkeeping).
impl PartialEq for Scoreboard {
    fn eq(&self, other: &Self) -> bool {
        self.blocks() == other.blocks()
            && self.high_rxt == other.high_rxt
            && self.lost_below == other.lost_below
    }
}
impl Eq for Scoreboard {}

/// Bytes of `[a, b)` below `x`.
fn part_below(a: u64, b: u64, x: u64) -> u64 {
    b.min(x).saturating_sub(a.min(x))
}

/// Trimmed ranges are dropped from the vector's front once at least this many have gathered
/// (and they are at least half of it): amortised O(1) per range.
const DROP_BATCH: usize = 64;

impl Scoreboard {
    /// SACKed ranges, sorted.
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks[self.head..]
    }

    /// Forget everything (RFC 6675 §5.1 / RFC 2018 §8 after a timeout).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.head = 0;
        self.high_rxt = 0;
        self.lost_below = 0;
        self.below.set((0, 0));
    }

    /// Record the blocks of an ACK (clipped to [`snd_una`, `snd_max`)) after trimming below
    /// `snd_una`. True if some payload byte was SACKed for the first time.
    pub fn update(&mut self, snd_una: u64, snd_max: u64, sack: &[(u64, u64)]) -> bool {
        self.trim(snd_una);
        let mut new = 0;
        for &(s, e) in sack {
            let (s, e) = (s.max(snd_una), e.min(snd_max));
            if s < e {
                new += self.insert(s, e);
            }
        }
        new > 0
    }

    /// Drop what lies below `una`.
    fn trim(&mut self, una: u64) {
        let (x, mut sum) = self.below.get();
        while let Some(&(a, b)) = self.blocks.get(self.head) {
            if b > una {
                break;
            }
            sum -= part_below(a, b, x);
            self.head += 1;
        }
        if let Some(first) = self.blocks.get_mut(self.head) {
            if first.0 < una {
                sum -= part_below(first.0, una, x);
                first.0 = una;
            }
        }
        self.below.set((x, sum));
        if self.head >= DROP_BATCH && 2 * self.head >= self.blocks.len() {
            self.blocks.drain(..self.head);
            self.head = 0;
        }
    }

    /// Add `[s, e)`, merging what it touches; returns the bytes not SACKed before.
    fn insert(&mut self, mut s: u64, mut e: u64) -> u64 {
        let (x, sum) = self.below.get();
        let i = self.head + self.blocks[self.head..].partition_point(|r| r.1 < s);
        let mut j = i;
        let (mut old, mut old_below) = (0, 0);
        while j < self.blocks.len() && self.blocks[j].0 <= e {
            let (a, b) = self.blocks[j];
            old += b - a;
            old_below += part_below(a, b, x);
            s = s.min(a);
            e = e.max(b);
            j += 1;
        }
        self.below.set((x, sum + part_below(s, e, x) - old_below));
        if i == j {
            self.blocks.insert(i, (s, e));
        } else {
            self.blocks[i] = (s, e);
            self.blocks.drain(i + 1..j);
        }
        (e - s) - old
    }

    /// One past the highest SACKed octet (HighSACK + 1), if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.blocks().last().map(|b| b.1)
    }

    /// Start of the first SACKed range beginning above `seq` (where a retransmission from
    /// `seq` must stop), if any.
    pub fn next_sacked_start(&self, seq: u64) -> Option<u64> {
        let live = self.blocks();
        live.get(live.partition_point(|r| r.0 <= seq)).map(|r| r.0)
    }

    /// RFC 6675 IsLost(`s`) with DupThresh `dt` and segment size `mss`, or `s` below
    /// [`Scoreboard::lost_below`].
    pub fn is_lost(&self, s: u64, mss: u64, dt: u32) -> bool {
        if s < self.lost_below {
            return true;
        }
        let lost = |bytes: u64, segs: u64| {
            segs >= dt as u64 || bytes > (dt as u64).saturating_sub(1) * mss
        };
        let (mut bytes, mut segs) = (0u64, 0u64);
        if lost(bytes, segs) {
            return true;
        }
        // From the top down: the sums only grow, so the first time they pass is the answer.
        for &(a, b) in self.blocks().iter().rev() {
            if b <= s {
                break;
            }
            let n = b - a.max(s + 1).min(b);
            bytes += n;
            segs += n.div_ceil(mss.max(1));
            if lost(bytes, segs) {
                return true;
            }
        }
        false
    }

    /// The unSACKed holes of [`una`, `end`), from the highest down.
    fn holes_rev(&self, una: u64, end: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let live = self.blocks();
        let mut i = live.partition_point(|r| r.0 < end);
        let mut at = end;
        std::iter::from_fn(move || loop {
            if at <= una {
                return None;
            }
            match i.checked_sub(1).map(|k| live[k]) {
                Some((a, b)) if b >= at => {
                    at = a;
                    i -= 1;
                }
                Some((_, b)) if b > una => {
                    let h = (b, at);
                    at = b;
                    return Some(h);
                }
                _ => {
                    let h = (una, at);
                    at = una;
                    return Some(h);
                }
            }
        })
    }

    /// SACKed bytes below `x` (moves the cursor to `x`).
    fn sacked_below(&self, x: u64) -> u64 {
        let live = self.blocks();
        let (k, mut sum) = self.below.get();
        if x >= k {
            let i = live.partition_point(|r| r.1 <= k);
            for &(a, b) in live[i..].iter().take_while(|r| r.0 < x) {
                sum += b.min(x) - a.max(k);
            }
        } else {
            let i = live.partition_point(|r| r.0 < k);
            for &(a, b) in live[..i].iter().rev().take_while(|r| r.1 > x) {
                sum -= b.min(k) - a.max(x);
            }
        }
        self.below.set((x, sum));
        sum
    }

    /// RFC 6675 SetPipe over payload [`una`, `end`) (`end` = min(SND.MAX, end of data)).
    pub fn pipe(&self, una: u64, end: u64, mss: u64, dt: u32) -> u64 {
        // Octets of holes that are not lost: a run of the highest holes.
        let mut not_lost = 0;
        for (a, b) in self.holes_rev(una, end) {
            // A hole reaching below `lost_below` is lost up to it, and so is every hole below.
            let from = a.max(self.lost_below).min(b);
            if from == b || self.is_lost(from, mss, dt) {
                break;
            }
            not_lost += b - from;
            if from > a {
                break;
            }
        }
        // Octets retransmitted and unSACKed: those of [una, HighRxt ∧ end) not SACKed.
        let h = end.min(self.high_rxt);
        let rtx = if h > una {
            let sacked_below_una: u64 = self
                .blocks()
                .iter()
                .take_while(|r| r.0 < una)
                .map(|r| part_below(r.0, r.1, una))
                .sum();
            (h - una) - (self.sacked_below(h) - sacked_below_una)
        } else {
            0
        };
        not_lost + rtx
    }

    /// NextSeg rule 1 (`need_lost`) or rule 3: the first unSACKed octet ≥ HighRxt below the
    /// highest SACKed octet or [`Scoreboard::lost_below`] (and IsLost for rule 1), with the end
    /// of its hole.
    pub fn next_hole(&self, una: u64, mss: u64, dt: u32, need_lost: bool) -> Option<(u64, u64)> {
        let high = self.high_sacked().unwrap_or(0).max(self.lost_below);
        if high == 0 {
            return None;
        }
        let live = self.blocks();
        let mut s = una.max(self.high_rxt);
        let mut i = live.partition_point(|r| r.1 <= s);
        if live.get(i).is_some_and(|r| r.0 <= s) {
            s = live[i].1;
            i += 1;
        }
        if s >= high {
            return None;
        }
        // IsLost weakens upwards: if the first candidate is not lost, no later one is.
        let end = live.get(i).map_or(high, |r| r.0.min(high));
        (!need_lost || self.is_lost(s, mss, dt)).then_some((s, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const M: u64 = 100;

    /// Segments of 100 B: k-th segment is [1 + 100(k−1), 1 + 100k).
    fn sg(k: u64) -> (u64, u64) {
        (1 + M * (k - 1), 1 + M * k)
    }

    #[test]
    fn update_merges_and_trims() {
        let mut sb = Scoreboard::default();
        // SND.UNA = 1, SND.MAX = 1001 (10 segments). SACK seg 3, then 5, then 4 (merges).
        assert!(sb.update(1, 1001, &[sg(3)]));
        assert!(sb.update(1, 1001, &[sg(5), sg(3)]));
        assert!(!sb.update(1, 1001, &[sg(5), sg(3)]), "nothing new");
        assert!(sb.update(1, 1001, &[sg(4)]));
        assert_eq!(sb.blocks(), &[(201, 501)]);
        // A block beyond SND.MAX is clipped; below SND.UNA ignored.
        sb.update(1, 1001, &[(901, 1201)]);
        assert_eq!(sb.blocks(), &[(201, 501), (901, 1001)]);
        // SND.UNA moves to 301: the first range is trimmed.
        sb.update(301, 1001, &[]);
        assert_eq!(sb.blocks(), &[(301, 501), (901, 1001)]);
    }

    #[test]
    fn is_lost_needs_three_segments_above() {
        // Seg 1 missing; segs 2, 3 SACKed: 200 B = 2 segments above → not lost (needs > 200 B
        // or 3 segments). Seg 4 SACKed too: lost.
        let mut sb = Scoreboard::default();
        sb.update(1, 1001, &[(101, 301)]);
        assert!(!sb.is_lost(1, M, 3));
        sb.update(1, 1001, &[sg(4)]);
        assert!(sb.is_lost(1, M, 3));
        // Three 10-byte pieces above (small segments): 3 discontiguous sequences → lost.
        let mut sb = Scoreboard::default();
        sb.update(1, 1001, &[(101, 111), (201, 211), (301, 311)]);
        assert!(sb.is_lost(1, M, 3));
        assert!(!sb.is_lost(150, M, 3), "only two pieces above octet 150");
    }

    #[test]
    fn pipe_and_next_seg_by_hand() {
        // 10 segments out (SND.MAX 1001); seg 1 and 4 lost; 2, 3, 5, 6, 7 SACKed.
        let mut sb = Scoreboard::default();
        sb.update(1, 1001, &[sg(5), sg(6), sg(7), sg(2), sg(3)]);
        assert_eq!(sb.blocks(), &[(101, 301), (401, 701)]);
        // Holes: seg 1 (5 segs above → lost), seg 4 (3 above → lost), segs 8–10 (nothing
        // above → in flight). pipe = 0 + 0 + 300 = 300.
        assert_eq!(sb.pipe(1, 1001, M, 3), 300);
        // NextSeg rule 1: seg 1.
        assert_eq!(sb.next_hole(1, M, 3, true), Some((1, 101)));
        // Retransmit seg 1: HighRxt = 101 → pipe 400; next lost hole: seg 4.
        sb.high_rxt = 101;
        assert_eq!(sb.pipe(1, 1001, M, 3), 400);
        assert_eq!(sb.next_hole(1, M, 3, true), Some((301, 401)));
        sb.high_rxt = 401;
        assert_eq!(sb.pipe(1, 1001, M, 3), 500);
        assert_eq!(sb.next_hole(1, M, 3, true), None);
        // Rule 3 also finds nothing: every hole below HighSACK was retransmitted.
        assert_eq!(sb.next_hole(1, M, 3, false), None);
        // With only seg 5 SACKed above seg 4, seg 4 is not lost: rule 1 skips it, rule 3 takes it.
        let mut sb = Scoreboard::default();
        sb.update(1, 1001, &[sg(2), sg(3), sg(5)]);
        sb.high_rxt = 101;
        assert!(!sb.is_lost(301, M, 3));
        assert_eq!(sb.next_hole(1, M, 3, true), None);
        assert_eq!(sb.next_hole(1, M, 3, false), Some((301, 401)));
    }

    #[test]
    fn lost_below_marks_every_hole_under_it_lost() {
        // 10 segments out; 3 and 6 SACKed; a timeout kept them and marked the rest lost
        // (lost_below = SND.MAX = 1001), HighRxt = SND.UNA = 1.
        let mut sb = Scoreboard::default();
        sb.update(1, 1001, &[sg(3), sg(6)]);
        assert!(!sb.is_lost(701, M, 3), "nothing SACKed above segment 8");
        sb.high_rxt = 1;
        sb.lost_below = 1001;
        // Every hole is lost, none retransmitted: pipe 0. The holes in order: 1–2, 4–5, 7–10.
        assert_eq!(sb.pipe(1, 1001, M, 3), 0);
        assert_eq!(sb.next_hole(1, M, 3, true), Some((1, 201)));
        sb.high_rxt = 201;
        assert_eq!(sb.pipe(1, 1001, M, 3), 200);
        assert_eq!(sb.next_hole(1, M, 3, true), Some((301, 501)));
        sb.high_rxt = 501;
        // Above the highest SACK, up to lost_below: segments 7–10.
        assert_eq!(sb.next_hole(1, M, 3, true), Some((601, 1001)));
        sb.high_rxt = 1001;
        assert_eq!(sb.next_hole(1, M, 3, false), None);
        // New data sent after the timeout (segments 11, 12) is in flight, not lost.
        assert_eq!(sb.pipe(1, 1201, M, 3), 800 + 200);
        // Without any SACK the ranges below lost_below are one hole.
        let mut sb = Scoreboard {
            lost_below: 301,
            high_rxt: 1,
            ..Scoreboard::default()
        };
        assert_eq!(sb.next_hole(1, M, 3, true), Some((1, 301)));
        sb.clear();
        assert_eq!(sb.lost_below, 0);
    }

    /// The definitions as first written, one scan per hole (the oracle for the fast version).
    #[derive(Default)]
    struct PerHole {
        blocks: Vec<(u64, u64)>,
        high_rxt: u64,
    }

    impl PerHole {
        fn update(&mut self, una: u64, max: u64, sack: &[(u64, u64)]) -> bool {
            self.blocks.retain(|b| b.1 > una);
            if let Some(b) = self.blocks.first_mut() {
                b.0 = b.0.max(una);
            }
            let total = |v: &Vec<(u64, u64)>| v.iter().map(|b| b.1 - b.0).sum::<u64>();
            let before = total(&self.blocks);
            for &(s, e) in sack {
                let (s, e) = (s.max(una), e.min(max));
                if s < e {
                    self.blocks.push((s, e));
                    self.blocks.sort();
                    let mut m: Vec<(u64, u64)> = Vec::new();
                    for &(a, b) in &self.blocks {
                        match m.last_mut() {
                            Some(l) if a <= l.1 => l.1 = l.1.max(b),
                            _ => m.push((a, b)),
                        }
                    }
                    self.blocks = m;
                }
            }
            total(&self.blocks) > before
        }
        fn is_lost(&self, s: u64, mss: u64, dt: u32) -> bool {
            let (mut bytes, mut segs) = (0u64, 0u64);
            for &(a, b) in &self.blocks {
                if b > s {
                    let n = b - a.max(s + 1).min(b);
                    bytes += n;
                    segs += n.div_ceil(mss.max(1));
                }
            }
            segs >= dt as u64 || bytes > (dt as u64).saturating_sub(1) * mss
        }
        /// Holes octet by octet: maximal unSACKed runs of [una, end).
        fn holes(&self, una: u64, end: u64) -> Vec<(u64, u64)> {
            let mut sacked = vec![false; end.saturating_sub(una) as usize];
            for &(a, b) in &self.blocks {
                for o in a.max(una)..b.min(end) {
                    sacked[(o - una) as usize] = true;
                }
            }
            let mut v: Vec<(u64, u64)> = Vec::new();
            for o in una..end {
                if sacked[(o - una) as usize] {
                    continue;
                }
                match v.last_mut() {
                    Some(h) if h.1 == o => h.1 = o + 1,
                    _ => v.push((o, o + 1)),
                }
            }
            v
        }
        fn pipe(&self, una: u64, end: u64, mss: u64, dt: u32) -> u64 {
            self.holes(una, end)
                .into_iter()
                .map(|(a, b)| {
                    let not_lost = if self.is_lost(a, mss, dt) { 0 } else { b - a };
                    not_lost + b.min(self.high_rxt).saturating_sub(a)
                })
                .sum()
        }
        fn next_hole(&self, una: u64, mss: u64, dt: u32, need_lost: bool) -> Option<(u64, u64)> {
            let high = self.blocks.last()?.1;
            self.holes(una, high)
                .into_iter()
                .filter_map(|(a, b)| {
                    let s = a.max(self.high_rxt);
                    (s < b).then_some((s, b))
                })
                .find(|&(s, _)| !need_lost || self.is_lost(s, mss, dt))
        }
    }

    /// One step of a sender's life: an ACK (cumulative point, SND.MAX, up to 3 blocks), a
    /// retransmission raising HighRxt, a recovery entry (HighRxt = SND.UNA) or a timeout.
    #[derive(Clone, Debug)]
    enum Step {
        Ack(u64, u64, Vec<(u64, u64)>),
        Rxt(u64),
        Enter,
        Clear,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (0u64..30, 0u64..40, proptest::collection::vec((0u64..600, 1u64..90), 0..4))
                .prop_map(|(da, dm, b)| Step::Ack(da, dm, b)),
            2 => (1u64..120).prop_map(Step::Rxt),
            1 => Just(Step::Enter),
            1 => Just(Step::Clear),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, rng_seed: proptest::test_runner::RngSeed::Fixed(32), ..ProptestConfig::default() })]
        /// After every step the fast scoreboard answers as the per-hole definitions do, octet
        /// by octet: ranges, "new data SACKed", IsLost, SetPipe (also from an SND.UNA the
        /// ranges were not trimmed at), NextSeg rules 1 and 3, and where a retransmission
        /// stops; for segment sizes 1–40 B and DupThresh 0–4.
        #[test]
        fn matches_the_per_hole_definitions(
            steps in proptest::collection::vec(step(), 1..60),
            mss in 1u64..40,
            dt in 0u32..5,
        ) {
            let (mut fast, mut slow) = (Scoreboard::default(), PerHole::default());
            let (mut una, mut max) = (1u64, 1u64);
            for st in steps {
                match st {
                    Step::Ack(da, dm, b) => {
                        max += dm;
                        una = (una + da).min(max);
                        let b: Vec<(u64, u64)> =
                            b.iter().map(|&(s, l)| (una + s / 2, una + s / 2 + l)).collect();
                        prop_assert_eq!(fast.update(una, max, &b), slow.update(una, max, &b));
                    }
                    Step::Rxt(l) => {
                        let r = (fast.high_rxt.max(una) + l).min(max);
                        fast.high_rxt = fast.high_rxt.max(r);
                        slow.high_rxt = fast.high_rxt;
                    }
                    Step::Enter => {
                        fast.high_rxt = una;
                        slow.high_rxt = una;
                    }
                    Step::Clear => {
                        fast.clear();
                        slow = PerHole::default();
                    }
                }
                prop_assert_eq!(fast.blocks(), &slow.blocks[..]);
                for s in [una, una + 1, una + 17, una + 100, una + 333, max] {
                    prop_assert_eq!(fast.is_lost(s, mss, dt), slow.is_lost(s, mss, dt));
                    prop_assert_eq!(
                        fast.next_sacked_start(s),
                        slow.blocks.iter().find(|b| b.0 > s).map(|b| b.0)
                    );
                }
                for u in [una, una.saturating_sub(7), una + 5] {
                    for end in [max, max.saturating_sub(30), una + 50] {
                        prop_assert_eq!(fast.pipe(u, end, mss, dt), slow.pipe(u, end, mss, dt));
                    }
                    for need in [true, false] {
                        prop_assert_eq!(
                            fast.next_hole(u, mss, dt, need),
                            slow.next_hole(u, mss, dt, need)
                        );
                    }
                }
            }
        }
    }
}
