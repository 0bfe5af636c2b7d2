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
//! Validation: unit tests below (`update_merges_and_trims`, `is_lost_needs_three_segments_above`,
//! `pipe_and_next_seg_by_hand`); tests/sack.rs end to end.

/// SACK scoreboard of one sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    blocks: Vec<(u64, u64)>,
    /// One past the highest sequence number retransmitted in this recovery (0 = none).
    pub high_rxt: u64,
}

impl Scoreboard {
    /// SACKed ranges, sorted.
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks
    }

    /// Forget everything (RFC 6675 §5.1 / RFC 2018 §8 after a timeout).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.high_rxt = 0;
    }

    /// Record the blocks of an ACK (clipped to [`snd_una`, `snd_max`)) after trimming below
    /// `snd_una`. True if some payload byte was SACKed for the first time.
    pub fn update(&mut self, snd_una: u64, snd_max: u64, sack: &[(u64, u64)]) -> bool {
        let k = self.blocks.iter().take_while(|b| b.1 <= snd_una).count();
        self.blocks.drain(..k);
        if let Some(b) = self.blocks.first_mut() {
            b.0 = b.0.max(snd_una);
        }
        let before: u64 = self.sacked_total();
        for &(s, e) in sack {
            let (s, e) = (s.max(snd_una), e.min(snd_max));
            if s < e {
                self.insert(s, e);
            }
        }
        self.sacked_total() > before
    }

    fn sacked_total(&self) -> u64 {
        self.blocks.iter().map(|b| b.1 - b.0).sum()
    }

    fn insert(&mut self, mut s: u64, mut e: u64) {
        let i = self.blocks.partition_point(|r| r.1 < s);
        let mut j = i;
        while j < self.blocks.len() && self.blocks[j].0 <= e {
            s = s.min(self.blocks[j].0);
            e = e.max(self.blocks[j].1);
            j += 1;
        }
        if i == j {
            self.blocks.insert(i, (s, e));
        } else {
            self.blocks[i] = (s, e);
            self.blocks.drain(i + 1..j);
        }
    }

    /// One past the highest SACKed octet (HighSACK + 1), if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.blocks.last().map(|b| b.1)
    }

    /// RFC 6675 IsLost(`s`) with DupThresh `dt` and segment size `mss`.
    pub fn is_lost(&self, s: u64, mss: u64, dt: u32) -> bool {
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

    /// The unSACKed holes of [`una`, `end`), in order (the last may run to `end`).
    fn holes(&self, una: u64, end: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut at = una;
        let mut i = 0;
        std::iter::from_fn(move || loop {
            if at >= end {
                return None;
            }
            match self.blocks.get(i) {
                Some(&(a, b)) if a <= at => {
                    at = at.max(b);
                    i += 1;
                }
                Some(&(a, _)) => {
                    let h = (at, a.min(end));
                    at = a;
                    return Some(h);
                }
                None => {
                    let h = (at, end);
                    at = end;
                    return Some(h);
                }
            }
        })
    }

    /// RFC 6675 SetPipe over payload [`una`, `end`) (`end` = min(SND.MAX, end of data)).
    pub fn pipe(&self, una: u64, end: u64, mss: u64, dt: u32) -> u64 {
        self.holes(una, end)
            .map(|(a, b)| {
                let not_lost = if self.is_lost(a, mss, dt) { 0 } else { b - a };
                let rtx = b.min(self.high_rxt).saturating_sub(a);
                not_lost + rtx
            })
            .sum()
    }

    /// NextSeg rule 1 (`need_lost`) or rule 3: the first unSACKed octet ≥ HighRxt below the
    /// highest SACKed octet (and IsLost for rule 1), with the end of its hole.
    pub fn next_hole(&self, una: u64, mss: u64, dt: u32, need_lost: bool) -> Option<(u64, u64)> {
        let high = self.high_sacked()?;
        self.holes(una, high)
            .filter_map(|(a, b)| {
                let s = a.max(self.high_rxt);
                (s < b).then_some((s, b))
            })
            .find(|&(s, _)| !need_lost || self.is_lost(s, mss, dt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
