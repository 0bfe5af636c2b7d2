//! BBR's ACK-aggregation estimate, as Linux's `tcp_bbr.c` keeps it since 4.19/5.0
//! (`bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd`): the most data recently
//! acknowledged beyond what the bandwidth estimate explains, added to the cwnd target so the
//! sender keeps sending through the silences between aggregated (bursty, stretched or
//! delayed) ACKs.
//!
//! An epoch starts when ACKs fall behind the estimate: while bytes acknowledged since the epoch
//! began exceed bw · (time since it began), the excess is a sample ("extra acked"), clamped to
//! cwnd. The estimate is the larger of two slots; each slot collects the maximum for 5
//! packet-timed rounds (`bbr_extra_acked_win_rtts`), then the other is emptied and takes over,
//! so a sample counts for 5 to 10 rounds. Added to cwnd: the estimate · gain 1
//! (`bbr_extra_acked_gain`), at most 100 ms of the bandwidth (`bbr_extra_acked_max_us`), only
//! once STARTUP has found the pipe full (the caller's check).
//!
//! Counts are in bytes where Linux counts packets: the estimate in segments is rounded up
//! (Linux's `acked − ⌊expected⌋` for whole segments), the 100 ms cap rounded down.
//!
//! Validation: unit tests below, hand-computed from the algorithm.

use units::{SimDuration, SimTime};

/// Rounds a slot collects before the other one is emptied and takes over.
pub const WIN_RTTS: u32 = 5;
/// Largest addition to cwnd: this much time at the bandwidth estimate.
pub const MAX_AGGR_TIME: SimDuration = SimDuration::from_millis(100);
/// Epoch restart after this many segments acknowledged in one epoch (Linux 2^20 packets).
const EPOCH_ACKED_RESET_SEGS: u64 = 1 << 20;

/// The ACK-aggregation estimator of one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckAggregation {
    epoch_start: SimTime,
    /// Bytes acknowledged (cumulatively or by SACK) since `epoch_start`.
    epoch_acked: u64,
    /// The two slots' maxima of extra bytes acknowledged.
    extra: [u64; 2],
    /// Round starts since the current slot took over.
    win_rtts: u32,
    idx: usize,
}

impl AckAggregation {
    /// A new estimator whose first epoch starts at `now` (Linux `bbr_init`).
    pub fn new(now: SimTime) -> Self {
        AckAggregation {
            epoch_start: now,
            epoch_acked: 0,
            extra: [0; 2],
            win_rtts: 0,
            idx: 0,
        }
    }

    /// Start a new epoch at `now` (Linux: transmission restarting after an app-limited idle).
    pub fn restart_epoch(&mut self, now: SimTime) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// One ACK with a valid delivery-rate sample: `acked` bytes newly delivered at
    /// `delivered_time`, the bandwidth estimate `bw` (bytes/s, after this ACK's sample), the
    /// cwnd before this ACK (bytes) and `mss` (bytes).
    pub fn update(
        &mut self,
        round_start: bool,
        acked: u64,
        delivered_time: SimTime,
        bw: u64,
        cwnd: u64,
        mss: u64,
    ) {
        if acked == 0 {
            return;
        }
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1F);
            if self.win_rtts >= WIN_RTTS {
                self.win_rtts = 0;
                self.idx = 1 - self.idx;
                self.extra[self.idx] = 0;
            }
        }
        let epoch = delivered_time.max(self.epoch_start) - self.epoch_start;
        let mut expected = (bw as u128 * epoch.as_nanos() as u128 / 1_000_000_000) as u64;
        // ACKs at or below the expected rate (or a very old epoch): a new epoch from here.
        if self.epoch_acked <= expected
            || self.epoch_acked + acked >= EPOCH_ACKED_RESET_SEGS * mss.max(1)
        {
            self.epoch_acked = 0;
            self.epoch_start = delivered_time;
            expected = 0;
        }
        self.epoch_acked += acked;
        let extra = (self.epoch_acked - expected).min(cwnd);
        if extra > self.extra[self.idx] {
            self.extra[self.idx] = extra;
        }
    }

    /// The estimate, bytes: the larger slot.
    pub fn extra_acked(&self) -> u64 {
        self.extra[0].max(self.extra[1])
    }

    /// Segments to add to the cwnd target at bandwidth `bw` (bytes/s): the estimate rounded
    /// up to segments, at most 100 ms of `bw` rounded down.
    pub fn cwnd_segs(&self, bw: u64, mss: u64) -> u64 {
        let mss = mss.max(1);
        let cap =
            (bw as u128 * MAX_AGGR_TIME.as_nanos() as u128 / (1_000_000_000 * mss as u128)) as u64;
        self.extra_acked().div_ceil(mss).min(cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    /// 1 segment per ms.
    const BW: u64 = 1_000_000;
    const CWND: u64 = 100 * MSS;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn a_burst_of_aggregated_acks() {
        let mut a = AckAggregation::new(ms(0));
        // ACKs of one segment every ms, as the bandwidth explains: at 1 ms, 1000 B expected
        // since the epoch began at 0, 0 B acknowledged → a new epoch; each later ACK finds
        // 1000 B acknowledged and 1000 B expected → a new epoch again. Extra: 1 segment.
        for t in 1..=4 {
            a.update(false, MSS, ms(t), BW, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), MSS);
        // 10 ms of silence, then 10 ACKs of one segment each at 14 ms (aggregated): the first
        // finds 1000 B acknowledged against 10 000 B expected since 4 ms → a new epoch at 14
        // ms; the next nine arrive with 0 ms elapsed, 0 B expected: extra 2, 3, … 10 segments.
        for k in 1..=10 {
            a.update(false, MSS, ms(14), BW, CWND, MSS);
            assert_eq!(a.extra_acked(), k * MSS);
        }
        assert_eq!(a.cwnd_segs(BW, MSS), 10);
        // Back to one segment a ms: at 15 ms 1000 B expected, 11 000 B acknowledged → still
        // 10 000 B extra, no more; by 24 ms 10 000 B expected, 20 000 B acknowledged.
        for t in 15..=24 {
            a.update(false, MSS, ms(t), BW, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), 10 * MSS);
        // At 34 ms (10 ms silent again) 20 000 B expected against 20 000 B: a new epoch.
        a.update(false, MSS, ms(34), BW, CWND, MSS);
        assert_eq!(a.epoch_start, ms(34));
        assert_eq!(a.epoch_acked, MSS);
    }

    #[test]
    fn extra_is_clamped_to_cwnd() {
        // 30 segments acknowledged at one instant with cwnd 8 segments: the sample is 8.
        let mut a = AckAggregation::new(ms(0));
        for _ in 0..30 {
            a.update(false, MSS, ms(0), BW, 8 * MSS, MSS);
        }
        assert_eq!(a.extra_acked(), 8 * MSS);
    }

    #[test]
    fn the_cap_is_100_ms_of_bandwidth() {
        // 30 segments at one instant, cwnd 100: extra 30 segments. At 100 000 B/s, 100 ms is
        // 10 000 B = 10 segments; at 1 MB/s the cap is 100 segments and 30 pass.
        let mut a = AckAggregation::new(ms(0));
        for _ in 0..30 {
            a.update(false, MSS, ms(0), 100_000, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), 30 * MSS);
        assert_eq!(a.cwnd_segs(100_000, MSS), 10);
        assert_eq!(a.cwnd_segs(BW, MSS), 30);
        // 109 999 B/s: 10 999.9 B in 100 ms → 10 whole segments.
        assert_eq!(a.cwnd_segs(109_999, MSS), 10);
        // A partial segment of extra rounds up: 2500 B → 3 segments.
        let mut b = AckAggregation::new(ms(0));
        b.update(false, 2500, ms(0), BW, CWND, MSS);
        assert_eq!(b.cwnd_segs(BW, MSS), 3);
    }

    #[test]
    fn a_sample_lasts_five_to_ten_rounds() {
        let mut a = AckAggregation::new(ms(0));
        // A 12-segment burst at 0 ms in slot 0.
        for _ in 0..12 {
            a.update(false, MSS, ms(0), BW, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), 12 * MSS);
        // Then one ACK of 2 segments per round, 40 ms apart: 40 000 B expected since the
        // epoch began, at most 12 000 B acknowledged, so each starts a new epoch: extra 2.
        let mut t = 0;
        let mut round = |a: &mut AckAggregation| {
            t += 40;
            a.update(true, 2 * MSS, ms(t), BW, CWND, MSS);
        };
        // Round starts 1–4 keep slot 0; the 5th switches to slot 1 (emptied, then 2 segments):
        // the 12 of slot 0 still count.
        for _ in 0..5 {
            round(&mut a);
        }
        assert_eq!(a.idx, 1);
        assert_eq!(a.extra_acked(), 12 * MSS);
        // Round starts 6–9: still; the 10th switches back to slot 0 and empties it.
        for _ in 0..4 {
            round(&mut a);
        }
        assert_eq!(a.extra_acked(), 12 * MSS);
        round(&mut a);
        assert_eq!(a.idx, 0);
        assert_eq!(a.extra_acked(), 2 * MSS);
    }

    #[test]
    fn a_restarted_epoch_counts_from_the_restart() {
        // 5 segments acknowledged at 0 ms (extra 5), then the sender restarts after idle at
        // 100 ms: the epoch is empty from there, so the ACK of 3 segments at 101 ms (0 B
        // acknowledged ≤ 1000 B expected) opens a new one at 101 ms with extra 3.
        let mut a = AckAggregation::new(ms(0));
        for _ in 0..5 {
            a.update(false, MSS, ms(0), BW, CWND, MSS);
        }
        a.restart_epoch(ms(100));
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(100), 0));
        a.update(false, 3 * MSS, ms(101), BW, CWND, MSS);
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(101), 3 * MSS));
        assert_eq!(a.extra_acked(), 5 * MSS);
    }
}
