//! Sojourn-time distributions of a coupled dual queue's two queues (RFC 9332's L and C), from
//! each packet that leaves a queue for the wire: its time from enqueue to dequeue in the queue
//! it was classified into. Packets dropped at dequeue never depart and are not counted.
//!
//! [`SojournHistogram`] keeps counts, not values, so its memory does not grow with the run:
//! a sojourn is taken in whole microseconds (rounded down), then kept exactly below 1024 µs and
//! with its 10 leading binary digits above (each bin at most 1/512 of its value wide, so
//! a quantile is low by less than 0.2 %). Quantiles are nearest-rank (rank ⌈q·n⌉, as the
//! response-time quantiles of `summary.rs`), each the lower edge of its rank's bin; the mean
//! and the maximum are exact (ns, and µs rounded down). The sub-millisecond range RFC 9332
//! speaks of is thus exact to the microsecond.
//! Validation: tests below (hand-computed sojourns and ranks).

use serde::Serialize;

/// Values below this many µs each have a bin of their own.
const EXACT_US: u64 = 1024;
/// Bins per power of two above `EXACT_US` (9 binary digits after the leading one).
const SUB_BINS: u64 = 512;

/// Bin of a sojourn of `us` microseconds.
fn bin_of(us: u64) -> usize {
    if us < EXACT_US {
        return us as usize;
    }
    let shift = (63 - us.leading_zeros() as u64) - 9;
    (EXACT_US + (shift - 1) * SUB_BINS + ((us >> shift) - SUB_BINS)) as usize
}

/// Lower edge of bin `b`, µs.
fn lower_edge(b: usize) -> u64 {
    let b = b as u64;
    if b < EXACT_US {
        return b;
    }
    let shift = (b - EXACT_US) / SUB_BINS + 1;
    (SUB_BINS + (b - EXACT_US) % SUB_BINS) << shift
}

/// Counts of the sojourn times of the packets that left one queue (module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SojournHistogram {
    /// Packets per bin (grown to the largest bin seen).
    counts: Vec<u64>,
    n: u64,
    sum_ns: u128,
    max_us: u64,
}

impl SojournHistogram {
    /// Count one departure after `sojourn_ns` ns in the queue.
    #[inline]
    pub fn add(&mut self, sojourn_ns: u64) {
        let us = sojourn_ns / 1000;
        let b = bin_of(us);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
        self.sum_ns += sojourn_ns as u128;
        self.max_us = self.max_us.max(us);
    }

    /// Departures counted.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True if nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Nearest-rank q-quantile (q in (0, 1]), µs: the lower edge of the bin holding rank
    /// ⌈q·n⌉; None without departures.
    pub fn quantile_us(&self, q: f64) -> Option<u64> {
        let rank = crate::summary::nearest_rank(self.n, q)? + 1;
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(lower_edge(b));
            }
        }
        unreachable!("the counts add up to n")
    }

    /// The figures the summary reports, ms (NaN without departures).
    pub fn figures(&self) -> SojournFigures {
        let ms = |us: Option<u64>| us.map_or(f64::NAN, |u| u as f64 / 1e3);
        SojournFigures {
            departures: self.n,
            mean_ms: if self.n == 0 {
                f64::NAN
            } else {
                self.sum_ns as f64 / self.n as f64 / 1e6
            },
            p50_ms: ms(self.quantile_us(0.5)),
            p90_ms: ms(self.quantile_us(0.9)),
            p99_ms: ms(self.quantile_us(0.99)),
            max_ms: ms((self.n > 0).then_some(self.max_us)),
        }
    }
}

/// One queue's sojourn figures: departures, and the mean, p50, p90, p99 and maximum sojourn,
/// ms (NaN without departures).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SojournFigures {
    pub departures: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// A coupled dual queue's two histograms: L (L4S) and C (Classic).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaneSojourns {
    pub l: SojournHistogram,
    pub c: SojournHistogram,
}

impl LaneSojourns {
    /// The summary's keys of both queues.
    pub fn summary(&self) -> DualQueueSummary {
        let (l, c) = (self.l.figures(), self.c.figures());
        DualQueueSummary {
            l_departures: l.departures,
            l_sojourn_mean_ms: l.mean_ms,
            l_sojourn_p50_ms: l.p50_ms,
            l_sojourn_p90_ms: l.p90_ms,
            l_sojourn_p99_ms: l.p99_ms,
            l_sojourn_max_ms: l.max_ms,
            c_departures: c.departures,
            c_sojourn_mean_ms: c.mean_ms,
            c_sojourn_p50_ms: c.p50_ms,
            c_sojourn_p90_ms: c.p90_ms,
            c_sojourn_p99_ms: c.p99_ms,
            c_sojourn_max_ms: c.max_ms,
        }
    }
}

/// The summary keys of a coupled dual queue at the forward bottleneck (only such runs have
/// them): per queue (`l_`, `c_`) the packets that left it for the wire in the measured window
/// and their sojourn's mean, p50, p90, p99 and maximum, ms (null without departures).
/// Reference: docs/summary.md.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DualQueueSummary {
    pub l_departures: u64,
    pub l_sojourn_mean_ms: f64,
    pub l_sojourn_p50_ms: f64,
    pub l_sojourn_p90_ms: f64,
    pub l_sojourn_p99_ms: f64,
    pub l_sojourn_max_ms: f64,
    pub c_departures: u64,
    pub c_sojourn_mean_ms: f64,
    pub c_sojourn_p50_ms: f64,
    pub c_sojourn_p90_ms: f64,
    pub c_sojourn_p99_ms: f64,
    pub c_sojourn_max_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_exact_below_1024_us_and_keep_10_binary_digits_above() {
        for us in [0, 1, 999, 1000, 1023] {
            assert_eq!(lower_edge(bin_of(us)), us);
        }
        // 1024..2047 in steps of 2: 1025 shares 1024's bin; 2047 → 2046.
        assert_eq!(bin_of(1024), 1024);
        assert_eq!(lower_edge(bin_of(1025)), 1024);
        assert_eq!(lower_edge(bin_of(2047)), 2046);
        // 2048..4095 in steps of 4; 5000 µs = 0b1001110001000 keeps its value (low 3 bits 0),
        // 5003 rounds down to it; 1 s = 1_000_000 µs → steps of 2^10: 999_424.
        assert_eq!(lower_edge(bin_of(2051)), 2048);
        assert_eq!(lower_edge(bin_of(5003)), 5000);
        assert_eq!(lower_edge(bin_of(1_000_000)), 999_424);
        // bins are consecutive: the last value of a bin and the next value are in neighbours
        for us in [1023u64, 2047, 4095, (1 << 20) - 1, u64::MAX / 2] {
            assert_eq!(bin_of(us) + 1, bin_of(us + 1), "{us}");
        }
        assert!(lower_edge(bin_of(u64::MAX)) > u64::MAX - (u64::MAX >> 9));
    }

    #[test]
    fn quantiles_are_nearest_rank_over_the_departures() {
        let mut h = SojournHistogram::default();
        assert_eq!(h.quantile_us(0.5), None);
        assert!(h.figures().p99_ms.is_nan() && h.figures().mean_ms.is_nan());
        // ten sojourns, ns; whole µs: 0, 0, 100, 200, 300, 400, 500, 600, 700, 3000
        for ns in [
            0, 999, 100_000, 200_400, 300_000, 400_000, 500_000, 600_000, 700_999, 3_000_000,
        ] {
            h.add(ns);
        }
        assert_eq!(h.len(), 10);
        assert_eq!(h.quantile_us(0.5), Some(300)); // rank ⌈5⌉ = 5th
        assert_eq!(h.quantile_us(0.51), Some(400)); // rank ⌈5.1⌉ = 6th
        assert_eq!(h.quantile_us(0.9), Some(700)); // rank 9
        assert_eq!(h.quantile_us(0.99), Some(3000)); // rank ⌈9.9⌉ = 10th
        assert_eq!(h.quantile_us(0.1), Some(0));
        let f = h.figures();
        assert_eq!(
            (f.departures, f.p50_ms, f.p99_ms, f.max_ms),
            (10, 0.3, 3.0, 3.0)
        );
        // mean over the exact ns: 5_802_398 / 10 ns
        assert_eq!(f.mean_ms, 5_802_398.0 / 10.0 / 1e6);
    }
}
