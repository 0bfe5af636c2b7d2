//! Exact running totals behind the run [`Summary`](crate::Summary), fed one record at a time so
//! the summary needs no list of records: counts, retransmission sums, the response-time bins
//! and the sum of response times of the measured requests ([`RequestTally`]), and the mean and
//! maximum of one link's queue rows after the warm-up ([`QueueTally`]). Only the response-time
//! quantiles need the response times themselves (`Summary::assemble` takes them as a function).
//!
//! Exactness: every total is an integer except the queue mean's sum, which adds the rows'
//! `mean_qlen` in the order the rows are produced (as the list-based summary always did). The
//! mean response time is the sum of the response times as an integer (u128, exact), converted
//! once: the same value as adding them as f64 in any order while that sum stays below 2^53 ns
//! (104 days of summed response time), and the correctly rounded one beyond.
//! Validation: `summary.rs` tests (the list-based summary is built from these).

use crate::records::{QueueRow, RequestKind, RequestRecord};
use crate::steady_state::PerSecond;

/// One second, ns (the response-time bins' unit).
const S: u64 = 1_000_000_000;

/// Running totals of the measured requests: HTTP requests whose first SYN was sent at or after
/// the warm-up (seed 000 §4.3.1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestTally {
    /// End of the warm-up, ns: earlier requests are not counted.
    pub warmup_ns: u64,
    /// Measured requests (completed or not).
    pub started: u64,
    /// Measured requests whose whole response arrived.
    pub completed: u64,
    /// Sums of the measured requests' retransmitted SYNs, FINs, data segments and timeouts.
    pub syn_retx: u64,
    pub fin_retx: u64,
    pub data_retx: u64,
    pub timeouts: u64,
    /// Sum of the completed responses' times, ns (exact).
    pub rt_sum_ns: u128,
    /// Completed responses with time ≤ 1 s, in (1, 2] s, in (2, 3] s and > 3 s.
    pub le_1s: u64,
    pub in_1_2s: u64,
    pub in_2_3s: u64,
    pub gt_3s: u64,
    /// Per second of the measured window, the change of the HTTP responses in progress (+1 a
    /// start, −1 a completion; those in progress at the warm-up counted in its first second).
    pub in_progress_delta: PerSecond,
}

impl RequestTally {
    /// Empty totals for a run whose warm-up ends at `warmup_ns`.
    pub fn new(warmup_ns: u64) -> Self {
        RequestTally {
            warmup_ns,
            ..Default::default()
        }
    }

    /// Count `r`. Returns its response time, ns, if it is a measured completed response (the
    /// values the quantiles are taken over), else None.
    pub fn add(&mut self, r: &RequestRecord) -> Option<u64> {
        if r.kind != RequestKind::Http {
            return None;
        }
        if !r.completed || r.end_ns >= self.warmup_ns {
            self.in_progress_delta.add(self.warmup_ns, r.start_ns, 1);
            if r.completed {
                self.in_progress_delta.add(self.warmup_ns, r.end_ns, -1);
            }
        }
        if r.start_ns < self.warmup_ns {
            return None;
        }
        self.started += 1;
        self.syn_retx += r.syn_retx as u64;
        self.fin_retx += r.fin_retx as u64;
        self.data_retx += r.data_retx as u64;
        self.timeouts += r.timeouts as u64;
        if !r.completed {
            return None;
        }
        let t = r.end_ns - r.start_ns;
        self.completed += 1;
        self.rt_sum_ns += t as u128;
        match t {
            t if t <= S => self.le_1s += 1,
            t if t <= 2 * S => self.in_1_2s += 1,
            t if t <= 3 * S => self.in_2_3s += 1,
            _ => self.gt_3s += 1,
        }
        Some(t)
    }

    /// Mean response time of the completed measured responses, ms (NaN without any).
    pub fn mean_rt_ms(&self) -> f64 {
        if self.completed == 0 {
            f64::NAN
        } else {
            self.rt_sum_ns as f64 / self.completed as f64 / 1e6
        }
    }
}

/// Running mean and maximum of one link's queue-monitor rows that end after the warm-up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueTally {
    /// End of the warm-up, ns: rows ending at or before it are not counted.
    pub warmup_ns: u64,
    /// Rows counted.
    pub rows: u64,
    /// Sum of their `mean_qlen`, in row order, packets.
    pub sum_mean_qlen: f64,
    /// Largest `max_qlen`, packets (0 without rows).
    pub max_qlen: u32,
    /// Forced and overflow drops per second of the measured window (a row counts in the second
    /// its interval ends in).
    pub forced_per_second: PerSecond,
}

impl QueueTally {
    /// Empty totals for a run whose warm-up ends at `warmup_ns`.
    pub fn new(warmup_ns: u64) -> Self {
        QueueTally {
            warmup_ns,
            ..Default::default()
        }
    }

    /// Count row `r` (of the link this tally is for).
    pub fn add(&mut self, r: &QueueRow) {
        if r.t_ns <= self.warmup_ns {
            return;
        }
        self.rows += 1;
        let forced = r.forced_drops + r.overflow_drops;
        self.forced_per_second
            .add(self.warmup_ns, r.t_ns - 1, forced as i64);
        self.sum_mean_qlen += r.mean_qlen;
        self.max_qlen = self.max_qlen.max(r.max_qlen);
    }

    /// Mean of the rows' 100 ms mean queue lengths, packets (0 without rows).
    pub fn mean_qlen(&self) -> f64 {
        if self.rows == 0 {
            0.0
        } else {
            self.sum_mean_qlen / self.rows as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: RequestKind, start_s: f64, rt_ns: u64, completed: bool) -> RequestRecord {
        let start_ns = (start_s * 1e9) as u64;
        RequestRecord {
            id: 0,
            conn_id: 0,
            exchange: 0,
            workload: 0,
            kind,
            page: 0,
            client: 0,
            server: 0,
            start_ns,
            end_ns: start_ns + rt_ns,
            request_bytes: 0,
            response_bytes: 0,
            server_delay_ns: 0,
            base_rtt_ns: 0,
            completed,
            syn_retx: 1,
            fin_retx: 2,
            data_retx: 3,
            timeouts: 4,
            ..Default::default()
        }
    }

    #[test]
    fn request_tally_counts_measured_http_and_bins_at_whole_seconds() {
        let mut t = RequestTally::new(10 * S);
        // not measured: before the warm-up, and a bulk flow
        assert_eq!(t.add(&rec(RequestKind::Http, 9.0, S, true)), None);
        assert_eq!(t.add(&rec(RequestKind::Bulk, 11.0, S, true)), None);
        // measured: the bin edges belong to the lower bin; an incomplete one counts as started
        for rt in [S, S + 1, 2 * S, 3 * S, 3 * S + 1] {
            assert_eq!(t.add(&rec(RequestKind::Http, 10.0, rt, true)), Some(rt));
        }
        assert_eq!(t.add(&rec(RequestKind::Http, 12.0, 7, false)), None);
        assert_eq!((t.started, t.completed), (6, 5));
        // in progress: the one from 9 s ends at 10 s (second 0: +1 −1); five start in second 0
        // and end in seconds 1, 1, 2, 3, 3; the unfinished one starts in second 2, never ends
        assert_eq!(t.in_progress_delta.0, vec![5, -2, 0, -2]);
        assert_eq!((t.le_1s, t.in_1_2s, t.in_2_3s, t.gt_3s), (1, 2, 1, 1));
        assert_eq!(
            (t.syn_retx, t.fin_retx, t.data_retx, t.timeouts),
            (6, 12, 18, 24)
        );
        assert_eq!(t.rt_sum_ns, (10 * S + 2) as u128);
        assert_eq!(t.mean_rt_ms(), (10 * S + 2) as f64 / 5.0 / 1e6);
        assert!(RequestTally::new(0).mean_rt_ms().is_nan());
    }

    #[test]
    fn mean_response_time_is_exact_where_f64_sums_would_round() {
        // 2^53 + 1 cannot be held by an f64: adding 1 ns to 2^53 ns as f64 loses it, u128 not.
        let mut t = RequestTally::new(0);
        t.add(&rec(RequestKind::Http, 0.0, 1 << 53, true));
        t.add(&rec(RequestKind::Http, 0.0, 1, true));
        t.add(&rec(RequestKind::Http, 0.0, 1, true));
        assert_eq!(t.rt_sum_ns, (1u128 << 53) + 2);
        assert_eq!(t.mean_rt_ms(), ((1u64 << 53) + 2) as f64 / 3.0 / 1e6);
    }

    #[test]
    fn queue_tally_skips_rows_ending_at_or_before_the_warm_up() {
        let row = |t_ns: u64, mean: f64, max: u32| QueueRow {
            link: "l".into(),
            t_ns,
            forwarded: 0,
            early_drops: 0,
            forced_drops: 0,
            overflow_drops: 0,
            dequeue_drops: 0,
            marks: 0,
            min_qlen: 0,
            max_qlen: max,
            mean_qlen: mean,
            var_qlen: 0.0,
        };
        let mut q = QueueTally::new(100);
        assert_eq!(q.mean_qlen(), 0.0);
        for r in [row(100, 50.0, 90), row(101, 1.0, 3), row(200, 2.5, 7)] {
            q.add(&r);
        }
        assert_eq!((q.rows, q.max_qlen), (2, 7));
        assert_eq!(q.mean_qlen(), 1.75);
    }
}
