//! Whether a run settled: a run whose responses in progress, or whose forced drops at the
//! forward bottleneck, keep growing through the measured window never reached a steady state
//! (an overloaded queueing system: the number in the system grows without bound), and its
//! response-time figures describe a transient, not the configuration.
//!
//! The test: the measured window is cut into [`BLOCKS`] equal blocks; the two series are the
//! responses in progress at the end of each block and the forced drops (the RED family's forced
//! drops plus buffer-overflow drops) within each block. A series *keeps growing* when its
//! Mann-Kendall statistic S = Σ_{i<j} sign(x_j − x_i) is significant for an upward trend at the
//! one-sided 1 % level (normal approximation with continuity correction, no tie correction,
//! which makes it conservative: Kendall 1975; Hirsch, Slack & Smith 1982) and the last block's
//! value is at least twice the first's and [`MIN_GROWTH`] above it (so a trend from 1 to 3
//! drops, significant or not, flags nothing). A window shorter than [`MIN_MEASURED_NS`] is not
//! judged. Validation: tests below; `python/tests/test_steady_state.py` (the quickstart settles,
//! its RED with `min_th = 10`, `max_th = 30` does not).

use serde::Serialize;

/// Blocks the measured window is cut into.
pub const BLOCKS: usize = 10;
/// Shortest measured window judged, ns: 20 s, two seconds a block (the counts are kept per
/// second).
pub const MIN_MEASURED_NS: u64 = 20 * S;
/// Smallest growth, first block to last, that can flag a series (responses or drops).
pub const MIN_GROWTH: u64 = 10;
/// One-sided 1 % point of the standard normal distribution.
const Z_99: f64 = 2.326_347_874;
const S: u64 = 1_000_000_000;

/// Per-second counts over the measured window: index i covers [warm-up + i s, warm-up + (i+1) s);
/// grows as needed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerSecond(pub Vec<i64>);

impl PerSecond {
    /// Add `v` to the second holding `t_ns` (clamped to the first second before `warmup_ns`).
    pub fn add(&mut self, warmup_ns: u64, t_ns: u64, v: i64) {
        let i = (t_ns.saturating_sub(warmup_ns) / S) as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += v;
    }

    /// The sum over seconds [0, end) (0 past the counts).
    fn sum_to(&self, end: usize) -> i64 {
        self.0.iter().take(end).sum()
    }
}

/// The verdict and the first and last values of the two series (summary.json fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SteadyState {
    /// False if either series keeps growing; None (null) for a window under 20 s.
    pub steady_state: Option<bool>,
    /// Responses in progress at the end of the first and of the last tenth of the window.
    pub in_progress_first_tenth: u64,
    pub in_progress_last_tenth: u64,
    /// Forced and overflow drops at the forward bottleneck in the first and the last tenth.
    pub forced_drops_first_tenth: u64,
    pub forced_drops_last_tenth: u64,
}

/// Mann-Kendall S of `x`.
pub fn mann_kendall_s(x: &[i64]) -> i64 {
    let mut s = 0;
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            s += (x[j] - x[i]).signum();
        }
    }
    s
}

/// Whether `x` has an upward trend at the one-sided 1 % level (see the module doc).
pub fn rises_significantly(x: &[i64]) -> bool {
    let n = x.len() as f64;
    let var = n * (n - 1.0) * (2.0 * n + 5.0) / 18.0;
    let s = mann_kendall_s(x);
    var > 0.0 && s > 0 && (s as f64 - 1.0) / var.sqrt() > Z_99
}

/// Whether series `x` keeps growing: a significant upward trend and a last value at least twice
/// the first and [`MIN_GROWTH`] above it.
pub fn keeps_growing(x: &[i64]) -> bool {
    let (Some(&first), Some(&last)) = (x.first(), x.last()) else {
        return false;
    };
    rises_significantly(x) && last >= 2 * first && last - first >= MIN_GROWTH as i64
}

/// The steady-state verdict of a window of `measured_ns` from the per-second change of the
/// responses in progress (`in_progress_delta`: +1 at a start, −1 at a completion; responses
/// started before the warm-up and still in progress then are counted in its first second) and
/// the per-second forced drops.
pub fn assess(in_progress_delta: &PerSecond, drops: &PerSecond, measured_ns: u64) -> SteadyState {
    let secs = (measured_ns / S) as usize;
    let ends: Vec<usize> = (1..=BLOCKS).map(|k| k * secs / BLOCKS).collect();
    let in_progress: Vec<i64> = ends.iter().map(|&e| in_progress_delta.sum_to(e)).collect();
    let mut starts = vec![0];
    starts.extend_from_slice(&ends[..BLOCKS - 1]);
    let per_block: Vec<i64> = starts
        .iter()
        .zip(&ends)
        .map(|(&a, &b)| drops.sum_to(b) - drops.sum_to(a))
        .collect();
    let judged = measured_ns >= MIN_MEASURED_NS;
    let growing = keeps_growing(&in_progress) || keeps_growing(&per_block);
    let u = |v: i64| v.max(0) as u64;
    SteadyState {
        steady_state: judged.then_some(!growing),
        in_progress_first_tenth: u(in_progress[0]),
        in_progress_last_tenth: u(in_progress[BLOCKS - 1]),
        forced_drops_first_tenth: u(per_block[0]),
        forced_drops_last_tenth: u(per_block[BLOCKS - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mann_kendall_by_hand() {
        // 1,3,2: pairs (1,3)+ (1,2)+ (3,2)− → S = 1
        assert_eq!(mann_kendall_s(&[1, 3, 2]), 1);
        assert_eq!(mann_kendall_s(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 45);
        assert_eq!(mann_kendall_s(&[5, 5, 5]), 0);
    }

    #[test]
    fn one_percent_point_for_ten_values_lies_between_s_27_and_29() {
        // Var S = 10·9·25/18 = 125; (27 − 1)/√125 = 2.3255 < z(0.99) = 2.3263 < (29 − 1)/√125.
        // Without ties S = 45 − 2·(discordant pairs).
        let s27 = [4, 3, 2, 1, 7, 6, 5, 8, 9, 10]; // 6 + 3 discordant pairs
        let s29 = [4, 3, 2, 1, 5, 6, 8, 7, 10, 9]; // 6 + 1 + 1
        assert_eq!((mann_kendall_s(&s27), mann_kendall_s(&s29)), (27, 29));
        assert!(!rises_significantly(&s27));
        assert!(rises_significantly(&s29));
        let falling = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
        assert!(!rises_significantly(&falling));
    }

    #[test]
    fn growth_needs_a_trend_a_doubling_and_ten_more() {
        let steady = [300, 310, 290, 305, 295, 300, 312, 298, 301, 299];
        assert!(!keeps_growing(&steady));
        let climbing: Vec<i64> = (0..10).map(|k| 300 + 3000 * k).collect();
        assert!(keeps_growing(&climbing));
        // a clean trend but under a doubling (300 → 390)
        let slow: Vec<i64> = (0..10).map(|k| 300 + 10 * k).collect();
        assert!(rises_significantly(&slow) && !keeps_growing(&slow));
        // a doubling and a trend, but only 1 → 9
        let tiny = [1, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(rises_significantly(&tiny) && !keeps_growing(&tiny));
    }

    #[test]
    fn assess_reads_in_progress_at_block_ends_and_drops_per_block() {
        // 100 s window: blocks of 10 s. One start per second, never finished: in progress at
        // the end of block k is 10(k+1); drops 5 per second in block 0, then 0.
        let w = 7 * S;
        let mut starts = PerSecond::default();
        let mut drops = PerSecond::default();
        for i in 0..100 {
            starts.add(w, w + i * S + 1, 1);
        }
        for i in 0..10 {
            drops.add(w, w + i * S, 5);
        }
        let a = assess(&starts, &drops, 100 * S);
        assert_eq!(a.in_progress_first_tenth, 10);
        assert_eq!(a.in_progress_last_tenth, 100);
        assert_eq!(
            (a.forced_drops_first_tenth, a.forced_drops_last_tenth),
            (50, 0)
        );
        assert_eq!(a.steady_state, Some(false));
        // each start finishes a second later: in progress stays at 1
        for i in 0..100 {
            starts.add(w, w + (i + 1) * S + 1, -1);
        }
        let b = assess(&starts, &drops, 100 * S);
        assert_eq!(
            (b.in_progress_first_tenth, b.in_progress_last_tenth),
            (1, 1)
        );
        assert_eq!(b.steady_state, Some(true));
        // a 19 s window is not judged
        assert_eq!(assess(&starts, &drops, 19 * S).steady_state, None);
    }

    #[test]
    fn per_second_puts_early_times_in_the_first_second() {
        let mut p = PerSecond::default();
        p.add(10 * S, 3 * S, 1);
        p.add(10 * S, 10 * S, 1);
        p.add(10 * S, 12 * S + 5, 2);
        assert_eq!(p.0, vec![2, 0, 2]);
    }
}
