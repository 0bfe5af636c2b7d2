//! Run summary with the columns of seed 000's tables (Tables 4.2, 4.4, B.4-B.18): KB/s on the
//! bottleneck, % drops, % unforced and % forced (shares of the drops), mean queue length,
//! median response time, and the shares of responses in (0,1], (1,2], (2,3], (3,∞) seconds;
//! plus response-time quantiles, the completed share, drops named by cause and the
//! steady-state check. Only what happens after the warm-up counts.
//!
//! Definitions (seed 000 §4.3.1): KB/s = forward-bottleneck wire bytes / 1000 / measured
//! seconds; % drops = drops / arrivals at the forward bottleneck queue; % unforced = early
//! drops / drops; % forced = (forced + overflow) / drops (RED family only); mean queue = mean of
//! the 100 ms interval means. The response-time figures are over the HTTP responses whose first
//! SYN was sent after the warm-up, a response that had not finished when the run ended counted
//! as slower than any bound (nearest-rank quantiles); the `_of_completed` figures leave those
//! out, as the seeds' tables did. Reference: docs/summary.md. Validation: tests below.

use crate::records::{QueueRow, RequestRecord};
use crate::sojourn::DualQueueSummary;
use crate::steady_state::{self, SteadyState};
use crate::tally::{QueueTally, RequestTally};
use serde::Serialize;

/// Packet counts at the forward bottleneck over the measured period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DropCounts {
    pub arrivals: u64,
    pub early: u64,
    pub forced: u64,
    pub overflow: u64,
    /// Drops the AQM made at dequeue time (CoDel, FQ-CoDel).
    pub dequeue: u64,
    pub marks: u64,
}

/// What the summary is computed from.
pub struct SummaryInput<'a> {
    pub requests: &'a [RequestRecord],
    /// Queue rows of the forward bottleneck only.
    pub queue_rows: &'a [QueueRow],
    /// Wire bytes sent on the forward bottleneck during the measured period.
    pub fwd_bytes: u64,
    pub bottleneck_bps: u64,
    pub drops: DropCounts,
    pub warmup_ns: u64,
    /// Measured period, ns (end of run − warm-up).
    pub measured_ns: u64,
    /// Whether seed 000's unforced/forced split is defined: the RED family's queues.
    pub forced_defined: bool,
    /// A coupled dual queue's sojourn figures (as in [`SummaryTotals`]).
    pub dual_queue: Option<DualQueueSummary>,
}

/// The run-wide totals the summary takes besides the records: forward-bottleneck bytes, its
/// rate, its drop counts and the measured time (as in [`SummaryInput`]), and a coupled dual
/// queue's per-queue sojourns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SummaryTotals {
    /// Wire bytes sent on the forward bottleneck during the measured period.
    pub fwd_bytes: u64,
    /// Forward bottleneck rate, bit/s.
    pub bottleneck_bps: u64,
    /// Packet counts at the forward bottleneck over the measured period.
    pub drops: DropCounts,
    /// Measured period, ns.
    pub measured_ns: u64,
    /// Whether seed 000's unforced/forced split is defined: the RED family's queues.
    pub forced_defined: bool,
    /// The forward bottleneck's L and C sojourn figures over the measured period, if its
    /// discipline is a coupled dual queue (DualPI2) and the engine recorded them.
    pub dual_queue: Option<DualQueueSummary>,
}

/// Summary of one run (written as summary.json). Reference: docs/summary.md.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub measured_s: f64,
    /// Forward bottleneck throughput, KB/s (1 KB = 1000 bytes), seed 000's "KB/s".
    pub kb_per_s: f64,
    /// Forward bottleneck throughput / capacity.
    pub utilization: f64,
    /// Drops / arrivals at the forward bottleneck, %.
    pub drops_pct: f64,
    /// Shares of the drops, %: by the AQM's decision (early at enqueue, the RED family's
    /// forced rule, or at dequeue as CoDel's), and because the buffer was full.
    pub aqm_drops_pct: f64,
    pub overflow_drops_pct: f64,
    /// Seed 000's shares of the drops, %, defined for the RED family only (null otherwise):
    /// unforced = early drops; forced = forced-rule and overflow drops (§4.3.1).
    pub unforced_pct: Option<f64>,
    pub forced_pct: Option<f64>,
    pub marks: u64,
    pub arrivals: u64,
    pub drops: u64,
    /// Drops by the AQM's decision and by a full buffer, packets.
    pub drops_aqm: u64,
    pub drops_overflow: u64,
    /// Mean of the 100 ms mean queue lengths, packets.
    pub mean_qlen: f64,
    pub max_qlen: u32,
    /// Measured responses started, those whose whole response arrived, and their share, %.
    pub responses_started: u64,
    pub responses_completed: u64,
    pub pct_completed: f64,
    #[serde(flatten)]
    pub steady: SteadyState,
    /// Nearest-rank quantiles of the response times of all measured responses, ms, a response
    /// unfinished at the end counted slower than any other: +inf (null in JSON) when the rank
    /// falls on one; NaN (null) without responses.
    pub median_rt_ms: f64,
    pub p10_rt_ms: f64,
    pub p25_rt_ms: f64,
    pub p75_rt_ms: f64,
    pub p90_rt_ms: f64,
    pub p95_rt_ms: f64,
    pub p99_rt_ms: f64,
    /// Shares of all measured responses, %: ≤ 1 s, (1, 2], (2, 3], and > 3 s or unfinished.
    pub pct_le_1s: f64,
    pub pct_1_2s: f64,
    pub pct_2_3s: f64,
    pub pct_gt_3s: f64,
    /// The same figures over the completed responses only, and their mean, ms.
    pub mean_rt_ms_of_completed: f64,
    pub median_rt_ms_of_completed: f64,
    pub p10_rt_ms_of_completed: f64,
    pub p25_rt_ms_of_completed: f64,
    pub p75_rt_ms_of_completed: f64,
    pub p90_rt_ms_of_completed: f64,
    pub p95_rt_ms_of_completed: f64,
    pub p99_rt_ms_of_completed: f64,
    pub pct_le_1s_of_completed: f64,
    pub pct_1_2s_of_completed: f64,
    pub pct_2_3s_of_completed: f64,
    pub pct_gt_3s_of_completed: f64,
    pub syn_retx: u64,
    pub fin_retx: u64,
    pub data_retx: u64,
    pub timeouts: u64,
    /// A coupled dual queue at the forward bottleneck: its L and C queues' sojourn figures
    /// (`l_departures`, `l_sojourn_p99_ms`, …); absent (no keys) for every other discipline.
    #[serde(flatten)]
    pub dual_queue: Option<DualQueueSummary>,
}

/// The response-time quantiles the summary reports (p10 … p99), in this order.
pub const SUMMARY_QUANTILES: [f64; 7] = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99];

/// Index (0-based) of the nearest-rank q-quantile among `n` sorted values (q in (0,1]): rank
/// ⌈q·n⌉, at least 1 and at most n; None if `n` is 0.
pub fn nearest_rank(n: u64, q: f64) -> Option<u64> {
    if n == 0 {
        return None;
    }
    let rank = (q * n as f64).ceil().max(1.0) as u64;
    Some(rank.min(n) - 1)
}

/// The 0-based ranks among the `completed` sorted response times the summary needs: each
/// quantile's over the completed responses, and over the `started` ones where it falls on a
/// completed response (the completed are the fastest; the others are unfinished).
pub fn summary_ranks(started: u64, completed: u64) -> Vec<u64> {
    let mut ranks: Vec<u64> = SUMMARY_QUANTILES
        .iter()
        .flat_map(|&q| [nearest_rank(completed, q), nearest_rank(started, q)])
        .flatten()
        .filter(|&r| r < completed)
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    ranks
}

/// Nearest-rank quantile of a sorted slice (q in (0,1]); NaN if empty.
pub fn quantile_sorted(sorted: &[u64], q: f64) -> f64 {
    match nearest_rank(sorted.len() as u64, q) {
        Some(i) => sorted[i as usize] as f64,
        None => f64::NAN,
    }
}

fn pct(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        100.0 * num as f64 / den as f64
    }
}

impl Summary {
    /// The summary of a run held in memory: the tallies of `inp`'s records and rows, the
    /// quantiles of its sorted response times.
    pub fn compute(inp: &SummaryInput) -> Summary {
        let mut req = RequestTally::new(inp.warmup_ns);
        let mut rts: Vec<u64> = inp.requests.iter().filter_map(|r| req.add(r)).collect();
        rts.sort_unstable();
        let mut queue = QueueTally::new(inp.warmup_ns);
        inp.queue_rows.iter().for_each(|r| queue.add(r));
        Summary::assemble(
            &req,
            &queue,
            &|rank| rts[rank as usize],
            &SummaryTotals {
                fwd_bytes: inp.fwd_bytes,
                bottleneck_bps: inp.bottleneck_bps,
                drops: inp.drops,
                measured_ns: inp.measured_ns,
                forced_defined: inp.forced_defined,
                dual_queue: inp.dual_queue,
            },
        )
    }

    /// The summary from running totals: `req` over the run's requests, `queue` over the
    /// forward bottleneck's queue rows, and `rt_at(rank)` the response time, ns, at 0-based
    /// rank `rank` of the sorted response times `req.add` returned, for the ranks of
    /// [`summary_ranks`].
    pub fn assemble(
        req: &RequestTally,
        queue: &QueueTally,
        rt_at: &dyn Fn(u64) -> u64,
        t: &SummaryTotals,
    ) -> Summary {
        let (n, all) = (req.completed, req.started);
        let ms_of = |among: u64, q: f64| match nearest_rank(among, q) {
            None => f64::NAN,
            Some(r) if r >= n => f64::INFINITY,
            Some(r) => rt_at(r) as f64 / 1e6,
        };
        let d = t.drops;
        let aqm = d.early + d.forced + d.dequeue;
        let drops = aqm + d.overflow;
        let secs = t.measured_ns as f64 / 1e9;
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let unfinished = all - n;
        let red = |v: f64| t.forced_defined.then_some(v);
        Summary {
            measured_s: secs,
            kb_per_s: per_s(t.fwd_bytes as f64 / 1000.0),
            utilization: per_s(t.fwd_bytes as f64 * 8.0 / t.bottleneck_bps as f64),
            drops_pct: pct(drops, d.arrivals),
            aqm_drops_pct: pct(aqm, drops),
            overflow_drops_pct: pct(d.overflow, drops),
            unforced_pct: red(pct(d.early, drops)),
            forced_pct: red(pct(d.forced + d.overflow, drops)),
            marks: d.marks,
            arrivals: d.arrivals,
            drops,
            drops_aqm: aqm,
            drops_overflow: d.overflow,
            mean_qlen: queue.mean_qlen(),
            max_qlen: queue.max_qlen,
            responses_started: all,
            responses_completed: n,
            pct_completed: if all == 0 { f64::NAN } else { pct(n, all) },
            steady: steady_state::assess(
                &req.in_progress_delta,
                &queue.forced_per_second,
                t.measured_ns,
            ),
            median_rt_ms: ms_of(all, 0.5),
            p10_rt_ms: ms_of(all, 0.1),
            p25_rt_ms: ms_of(all, 0.25),
            p75_rt_ms: ms_of(all, 0.75),
            p90_rt_ms: ms_of(all, 0.9),
            p95_rt_ms: ms_of(all, 0.95),
            p99_rt_ms: ms_of(all, 0.99),
            pct_le_1s: pct(req.le_1s, all),
            pct_1_2s: pct(req.in_1_2s, all),
            pct_2_3s: pct(req.in_2_3s, all),
            pct_gt_3s: pct(req.gt_3s + unfinished, all),
            mean_rt_ms_of_completed: req.mean_rt_ms(),
            median_rt_ms_of_completed: ms_of(n, 0.5),
            p10_rt_ms_of_completed: ms_of(n, 0.1),
            p25_rt_ms_of_completed: ms_of(n, 0.25),
            p75_rt_ms_of_completed: ms_of(n, 0.75),
            p90_rt_ms_of_completed: ms_of(n, 0.9),
            p95_rt_ms_of_completed: ms_of(n, 0.95),
            p99_rt_ms_of_completed: ms_of(n, 0.99),
            pct_le_1s_of_completed: pct(req.le_1s, n),
            pct_1_2s_of_completed: pct(req.in_1_2s, n),
            pct_2_3s_of_completed: pct(req.in_2_3s, n),
            pct_gt_3s_of_completed: pct(req.gt_3s, n),
            syn_retx: req.syn_retx,
            fin_retx: req.fin_retx,
            data_retx: req.data_retx,
            timeouts: req.timeouts,
            dual_queue: t.dual_queue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::RequestKind;

    fn rec(start_ms: u64, rt_ms: u64, completed: bool) -> RequestRecord {
        RequestRecord {
            id: 0,
            conn_id: 0,
            exchange: 0,
            workload: 0,
            kind: RequestKind::Http,
            page: 0,
            client: 0,
            server: 0,
            start_ns: start_ms * 1_000_000,
            end_ns: (start_ms + rt_ms) * 1_000_000,
            request_bytes: 300,
            response_bytes: 1000,
            server_delay_ns: 0,
            base_rtt_ns: 0,
            completed,
            syn_retx: 1,
            fin_retx: 0,
            data_retx: 2,
            timeouts: 1,
            ..Default::default()
        }
    }

    #[test]
    fn quantiles_nearest_rank() {
        let v = [10, 20, 30, 40];
        assert_eq!(quantile_sorted(&v, 0.5), 20.0);
        assert_eq!(quantile_sorted(&v, 0.75), 30.0);
        assert_eq!(quantile_sorted(&v, 0.76), 40.0);
        assert_eq!(quantile_sorted(&v, 0.01), 10.0);
        assert!(quantile_sorted(&[], 0.5).is_nan());
    }

    #[test]
    fn table_columns_from_hand_made_run() {
        // warm-up 1 s; the record starting at 0.5 s is excluded; the incomplete one counts as
        // started but not completed. Completed response times: 500, 1000, 1500, 2500, 4000 ms.
        let reqs = vec![
            rec(500, 100, true),
            rec(1000, 500, true),
            rec(1100, 1000, true),
            rec(1200, 1500, true),
            rec(1300, 2500, true),
            rec(1400, 4000, true),
            rec(1500, 9000, false),
        ];
        let row = |t: u64, m: f64, mx: u32| QueueRow {
            link: "f".into(),
            t_ns: t,
            forwarded: 0,
            early_drops: 0,
            forced_drops: 0,
            overflow_drops: 0,
            dequeue_drops: 0,
            marks: 0,
            min_qlen: 0,
            max_qlen: mx,
            mean_qlen: m,
            var_qlen: 0.0,
        };
        let rows = vec![
            row(1_000_000_000, 100.0, 200),
            row(1_100_000_000, 10.0, 12),
            row(1_200_000_000, 20.0, 30),
        ];
        let s = Summary::compute(&SummaryInput {
            requests: &reqs,
            queue_rows: &rows,
            fwd_bytes: 2_500_000,
            bottleneck_bps: 10_000_000,
            drops: DropCounts {
                arrivals: 1000,
                early: 30,
                forced: 5,
                overflow: 15,
                dequeue: 0,
                marks: 0,
            },
            warmup_ns: 1_000_000_000,
            measured_ns: 2_000_000_000,
            forced_defined: true,
            dual_queue: None,
        });
        assert_eq!(s.responses_started, 6);
        assert_eq!(s.responses_completed, 5);
        assert_eq!(s.pct_completed, 100.0 * 5.0 / 6.0);
        // completed: 500, 1000, 1500, 2500, 4000 ms, then one unfinished (slowest of all 6)
        assert_eq!(s.median_rt_ms, 1500.0); // rank ceil(3) = 3rd of 6
        assert_eq!(s.p75_rt_ms, 4000.0); // rank ceil(4.5) = 5th of 6
        assert_eq!(s.p90_rt_ms, f64::INFINITY); // rank ceil(5.4) = 6th: the unfinished one
        assert_eq!(s.median_rt_ms_of_completed, 1500.0); // rank ceil(2.5) = 3rd of 5
        assert_eq!(s.p90_rt_ms_of_completed, 4000.0); // rank ceil(4.5) = 5th of 5
        assert_eq!(s.mean_rt_ms_of_completed, 1900.0);
        let third = 100.0 / 3.0;
        assert_eq!(
            (s.pct_le_1s, s.pct_1_2s, s.pct_2_3s, s.pct_gt_3s),
            (third, third / 2.0, third / 2.0, third)
        );
        assert_eq!(
            (
                s.pct_le_1s_of_completed,
                s.pct_1_2s_of_completed,
                s.pct_2_3s_of_completed,
                s.pct_gt_3s_of_completed
            ),
            (40.0, 20.0, 20.0, 20.0)
        );
        assert_eq!(s.kb_per_s, 1250.0);
        assert_eq!(s.utilization, 1.0);
        assert_eq!(
            (s.drops_pct, s.unforced_pct, s.forced_pct),
            (5.0, Some(60.0), Some(40.0))
        );
        // early 30 + forced 5 are the AQM's; overflow 15 the buffer's
        assert_eq!((s.drops_aqm, s.drops_overflow), (35, 15));
        assert_eq!((s.aqm_drops_pct, s.overflow_drops_pct), (70.0, 30.0));
        assert_eq!(s.steady.steady_state, None); // a 2 s window is not judged
        assert_eq!(s.mean_qlen, 15.0); // the row ending exactly at the warm-up is excluded
        assert_eq!(s.max_qlen, 30);
        assert_eq!((s.syn_retx, s.data_retx, s.timeouts), (6, 12, 6));
    }

    #[test]
    fn codel_drops_read_as_aqm_drops_and_no_forced_split() {
        // CoDel drops at dequeue: AQM drops, not "forced"; seed 000's split is undefined.
        let s = Summary::compute(&SummaryInput {
            requests: &[],
            queue_rows: &[],
            fwd_bytes: 0,
            bottleneck_bps: 10_000_000,
            drops: DropCounts {
                arrivals: 400,
                early: 0,
                forced: 0,
                overflow: 4,
                dequeue: 36,
                marks: 0,
            },
            warmup_ns: 0,
            measured_ns: 1_000_000_000,
            forced_defined: false,
            dual_queue: None,
        });
        assert_eq!((s.drops, s.drops_aqm, s.drops_overflow), (40, 36, 4));
        assert_eq!((s.aqm_drops_pct, s.overflow_drops_pct), (90.0, 10.0));
        assert_eq!((s.unforced_pct, s.forced_pct), (None, None));
        assert!(s.median_rt_ms.is_nan() && s.pct_completed.is_nan());
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["forced_pct"].is_null() && json["median_rt_ms"].is_null());
    }

    #[test]
    fn dual_queue_keys_follow_the_others_and_only_for_a_dual_queue() {
        let totals = |dual_queue| SummaryTotals {
            bottleneck_bps: 10_000_000,
            measured_ns: 1_000_000_000,
            dual_queue,
            ..SummaryTotals::default()
        };
        let assemble = |t: &SummaryTotals| {
            let req = RequestTally::new(0);
            let queue = QueueTally::new(0);
            serde_json::to_string(&Summary::assemble(&req, &queue, &|_| 0, t)).unwrap()
        };
        let plain = assemble(&totals(None));
        assert!(plain.ends_with("\"timeouts\":0}"), "{plain}");
        assert!(!plain.contains("sojourn") && !plain.contains("departures"));
        // L: 1, 2, 3 ms; C: none (its figures are null)
        let mut lanes = crate::sojourn::LaneSojourns::default();
        for ms in [3, 1, 2] {
            lanes.l.add(ms * 1_000_000);
        }
        let dual = assemble(&totals(Some(lanes.summary())));
        let tail = dual
            .split("\"timeouts\":0,")
            .nth(1)
            .expect("keys after timeouts");
        assert_eq!(
            tail,
            "\"l_departures\":3,\"l_sojourn_mean_ms\":2.0,\"l_sojourn_p50_ms\":2.0,\
             \"l_sojourn_p90_ms\":3.0,\"l_sojourn_p99_ms\":3.0,\"l_sojourn_max_ms\":3.0,\
             \"c_departures\":0,\"c_sojourn_mean_ms\":null,\"c_sojourn_p50_ms\":null,\
             \"c_sojourn_p90_ms\":null,\"c_sojourn_p99_ms\":null,\"c_sojourn_max_ms\":null}"
        );
    }
}
