//! Receive side: RCV.NXT, reassembly of out-of-order data, and the peer's FIN (RFC 793 §3.7,
//! RFC 5681 §4.2 for when to acknowledge).
//!
//! Payload is counted, not carried, and the application drains instantly, so the receive buffer
//! is just RCV.NXT plus a short sorted list of out-of-order ranges `[start, end)` (disjoint,
//! non-adjacent, all above RCV.NXT). A FIN seen out of order is remembered and consumed when
//! RCV.NXT reaches it. The advertised window is always the configured receive window.
//!
//! This module only classifies an arrival (new in-order bytes, out of order, filled a hole,
//! duplicate, FIN consumed); the endpoint decides when to ACK: immediately for out-of-order,
//! hole-filling, duplicate and FIN segments (RFC 5681 §4.2, RFC 1122 §4.2.2.21), otherwise after
//! every second full-sized segment or the delayed-ACK timer (when delayed ACKs are on), or at
//! once in Linux's quick-ACK mode (`quickack_mode`, quickack.rs).
//!
//! SACK blocks (RFC 2018 §4): each out-of-order range carries the arrival count of the last
//! segment that landed in it; [`Receiver::sack_blocks`] lists up to 3 ranges, most recent
//! first. So the first block contains the segment that triggered the ACK (unless it advanced
//! RCV.NXT), and the rest repeat the most recently first-reported blocks, as the RFC asks; a
//! block that merged with the new segment's range is reported once, at its new extent (ns-2
//! FullTcp/Sack: "most recently changed block first", reference/aqm-defaults.md §6.2).
//!
//! The ranges' stamps are also kept in stamp order (a map to the range), so listing the blocks
//! reads three entries, not every range (issue 32 item 6).
//!
//! Differences from ns-2 Full-TCP's reassembly queue (tcp/rq.cc): no per-segment records —
//! ranges only.
//!
//! Validation: unit tests below (`in_order_advances`, `hole_is_filled_and_merged`,
//! `duplicate_is_flagged`, `fin_out_of_order_waits_for_data`,
//! `sack_blocks_most_recent_first`, `sack_blocks_are_the_three_latest_stamps`); tests/sack.rs
//! end to end.

use std::collections::BTreeMap;

/// What one arriving segment did to the receive state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// Payload bytes that became in-order (deliverable) with this segment.
    pub new_bytes: u64,
    /// The segment lies (at least partly) above RCV.NXT: a gap remains before it.
    pub out_of_order: bool,
    /// The segment filled (part of) a gap below buffered out-of-order data.
    pub filled_hole: bool,
    /// The segment carried only sequence space already received (a retransmission).
    pub duplicate: bool,
    /// The peer's FIN was consumed by this arrival (RCV.NXT stepped over it).
    pub fin: bool,
}

/// Receive sequence state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Receiver {
    /// Next sequence number expected (RCV.NXT). 0 until the peer's SYN arrives.
    rcv_nxt: u64,
    /// In-order payload bytes received so far.
    data_total: u64,
    /// Out-of-order ranges, sorted, disjoint and non-adjacent, all above `rcv_nxt`.
    ooo: Vec<(u64, u64)>,
    /// For each range of `ooo`, the arrival number of the last segment that landed in it.
    stamp: Vec<u64>,
    /// The same stamps (distinct: one arrival stamps one range) mapped to their range's start,
    /// so the most recent ranges are read without scanning every range (issue 32 item 6).
    recent: BTreeMap<u64, u64>,
    /// Out-of-order arrivals so far (the stamp clock).
    arrivals: u64,
    /// Sequence number of the peer's FIN, once seen.
    fin_at: Option<u64>,
    fin_done: bool,
}

impl Receiver {
    /// The peer's SYN with sequence number `seq` arrived: RCV.NXT = seq + 1.
    pub fn on_syn(&mut self, seq: u64) {
        self.rcv_nxt = seq.saturating_add(1);
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn data_total(&self) -> u64 {
        self.data_total
    }
    /// The peer's FIN has been consumed in order.
    pub fn fin_received(&self) -> bool {
        self.fin_done
    }
    /// Out-of-order ranges currently buffered.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// Process a segment's sequence space: payload `[seq, seq + len)`, then a FIN if `fin`.
    pub fn on_segment(&mut self, seq: u64, len: u32, fin: bool) -> Arrival {
        let mut a = Arrival::default();
        let end = seq + len as u64;
        if fin && self.fin_at.is_none() {
            self.fin_at = Some(end);
        }
        if len > 0 {
            if end <= self.rcv_nxt {
                a.duplicate = true;
            } else if seq <= self.rcv_nxt {
                let before = self.rcv_nxt;
                self.rcv_nxt = end;
                let had_gap = !self.ooo.is_empty();
                let k = self.ooo.iter().take_while(|r| r.0 <= self.rcv_nxt).count();
                if k > 0 {
                    self.rcv_nxt = self.rcv_nxt.max(self.ooo[k - 1].1);
                    self.ooo.drain(..k);
                    for t in self.stamp.drain(..k) {
                        self.recent.remove(&t);
                    }
                }
                a.filled_hole = had_gap;
                a.new_bytes = self.rcv_nxt - before;
                self.data_total += a.new_bytes;
            } else {
                self.insert(seq, end);
                a.out_of_order = true;
            }
        }
        match self.fin_at {
            Some(f) if !self.fin_done && f == self.rcv_nxt => {
                self.rcv_nxt += 1;
                self.fin_done = true;
                a.fin = true;
            }
            Some(f) if fin && !self.fin_done && f > self.rcv_nxt => a.out_of_order = true,
            _ if fin && self.fin_done && len == 0 => a.duplicate = true,
            _ => {}
        }
        a
    }

    /// Up to 3 SACK blocks for the next ACK: out-of-order ranges, most recently arrived-in first.
    pub fn sack_blocks(&self) -> crate::segment::SackBlocks {
        let mut out = crate::segment::SackBlocks::default();
        for &start in self
            .recent
            .values()
            .rev()
            .take(crate::segment::SackBlocks::MAX)
        {
            let i = self.ooo.partition_point(|r| r.0 < start);
            out.push(self.ooo[i].0, self.ooo[i].1);
        }
        out
    }

    fn insert(&mut self, mut s: u64, mut e: u64) {
        self.arrivals += 1;
        let i = self.ooo.partition_point(|r| r.1 < s);
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        for t in &self.stamp[i..j] {
            self.recent.remove(t);
        }
        self.recent.insert(self.arrivals, s);
        if i == j {
            self.ooo.insert(i, (s, e));
            self.stamp.insert(i, self.arrivals);
        } else {
            self.ooo[i] = (s, e);
            self.stamp[i] = self.arrivals;
            self.ooo.drain(i + 1..j);
            self.stamp.drain(i + 1..j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rx() -> Receiver {
        let mut r = Receiver::default();
        r.on_syn(0);
        r
    }

    #[test]
    fn in_order_advances() {
        let mut r = rx();
        let a = r.on_segment(1, 100, false);
        assert_eq!(
            a,
            Arrival {
                new_bytes: 100,
                ..Arrival::default()
            }
        );
        assert_eq!(r.rcv_nxt(), 101);
        assert_eq!(r.data_total(), 100);
    }

    #[test]
    fn hole_is_filled_and_merged() {
        let mut r = rx();
        r.on_segment(1, 10, false);
        // Segments [21,31) and [31,41) arrive before [11,21): one merged range.
        assert!(r.on_segment(21, 10, false).out_of_order);
        assert!(r.on_segment(31, 10, false).out_of_order);
        assert_eq!(r.out_of_order(), &[(21, 41)]);
        // [51,61) is separate.
        r.on_segment(51, 10, false);
        assert_eq!(r.out_of_order(), &[(21, 41), (51, 61)]);
        // The hole [11,21) delivers 10 + 20 bytes; [51,61) stays.
        let a = r.on_segment(11, 10, false);
        assert_eq!(
            a,
            Arrival {
                new_bytes: 30,
                filled_hole: true,
                ..Arrival::default()
            }
        );
        assert_eq!(r.rcv_nxt(), 41);
        assert_eq!(r.out_of_order(), &[(51, 61)]);
        // Filling [41,51) empties the list.
        let a = r.on_segment(41, 10, false);
        assert_eq!(a.new_bytes, 20);
        assert!(a.filled_hole);
        assert!(r.out_of_order().is_empty());
        assert_eq!(r.data_total(), 60);
    }

    #[test]
    fn duplicate_is_flagged() {
        let mut r = rx();
        r.on_segment(1, 10, false);
        let a = r.on_segment(1, 10, false);
        assert!(a.duplicate);
        assert_eq!(a.new_bytes, 0);
        // Partial overlap delivers only the new part.
        let a = r.on_segment(6, 10, false);
        assert_eq!(a.new_bytes, 5);
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        // 10-byte segments A=[11,21) lost, B=[21,31), C=[31,41) lost, D=[41,51), E=[51,61)
        // lost, F=[61,71), G=[71,81) lost, H=[81,91), then C arrives.
        let mut r = rx();
        r.on_segment(1, 10, false);
        assert!(r.sack_blocks().is_empty());
        r.on_segment(21, 10, false); // B
        assert_eq!(r.sack_blocks().as_slice(), &[(21, 31)]);
        r.on_segment(41, 10, false); // D: newest first, then B
        assert_eq!(r.sack_blocks().as_slice(), &[(41, 51), (21, 31)]);
        r.on_segment(61, 10, false); // F
        assert_eq!(r.sack_blocks().as_slice(), &[(61, 71), (41, 51), (21, 31)]);
        r.on_segment(81, 10, false); // H: 4 ranges, only 3 blocks — B (oldest) is left out
        assert_eq!(r.sack_blocks().as_slice(), &[(81, 91), (61, 71), (41, 51)]);
        r.on_segment(31, 10, false); // C joins B and D into [21,51): first, at its new extent
        assert_eq!(r.sack_blocks().as_slice(), &[(21, 51), (81, 91), (61, 71)]);
        // A duplicate of H makes its block first again (it triggered the ACK).
        r.on_segment(81, 10, false);
        assert_eq!(r.sack_blocks().as_slice(), &[(81, 91), (21, 51), (61, 71)]);
        // A fills the head: RCV.NXT = 51, the rest by recency.
        r.on_segment(11, 10, false);
        assert_eq!(r.rcv_nxt(), 51);
        assert_eq!(r.sack_blocks().as_slice(), &[(81, 91), (61, 71)]);
    }

    #[test]
    fn fin_out_of_order_waits_for_data() {
        let mut r = rx();
        // Last segment [11,21) with FIN arrives before [1,11).
        let a = r.on_segment(11, 10, true);
        assert!(a.out_of_order && !a.fin);
        let a = r.on_segment(1, 10, false);
        assert!(a.fin && a.filled_hole);
        assert_eq!(a.new_bytes, 20);
        assert_eq!(r.rcv_nxt(), 22); // 20 bytes + SYN + FIN
                                     // A retransmitted FIN is a duplicate.
        assert!(r.on_segment(21, 0, true).duplicate);
        assert!(r.fin_received());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, rng_seed: proptest::test_runner::RngSeed::Fixed(32), ..ProptestConfig::default() })]
        /// After any arrivals (10-byte grid, some off-grid), the blocks are the ranges with the
        /// three largest stamps, largest first, found by scanning every range.
        #[test]
        fn sack_blocks_are_the_three_latest_stamps(
            segs in proptest::collection::vec((0u64..80, 1u32..25), 1..80),
        ) {
            let mut r = rx();
            for (at, len) in segs {
                r.on_segment(1 + at * 5, len, false);
                let mut by_stamp: Vec<(u64, (u64, u64))> =
                    r.stamp.iter().copied().zip(r.ooo.iter().copied()).collect();
                by_stamp.sort_by_key(|b| std::cmp::Reverse(b.0));
                let want: Vec<(u64, u64)> = by_stamp.iter().take(3).map(|x| x.1).collect();
                let got = r.sack_blocks();
                prop_assert_eq!(got.as_slice(), &want[..]);
                prop_assert_eq!(r.recent.len(), r.ooo.len());
            }
        }
    }
}
