//! PackMime-HTTP's server delay (§3.4) and HTTP/1.1 variables (§3.5–3.7) of
//! reference/packmime/MODEL.md, as ns-2.35 samples them. None depends on `rate`. All are i.i.d.
//! draws (no FARIMA); the only structure is hierarchical: the persistent-response location and
//! scale are per connection ([`PersistRspSize`]), the gap locations and scales per run
//! ([`Gaps`]).
//!
//! - [`server_delay_s`] (§3.4): `W ~ Weibull(0.63, 305)`, `W < 10 → 10`, delay = 1/W seconds.
//! - [`persistent`] (§3.5): Bernoulli(0.09), `U ≤ p`.
//! - [`pages`], [`objects`] (§3.6): 1 page with probability 0.82, else `max(2, ⌈1 + W⌉)`,
//!   `W ~ Weibull(1, 0.417)`; objects of a page of a multi-page connection: 1 with
//!   probability 0.69, else `max(2, ⌈1 + W'⌉)`, `W' ~ Weibull(1, 1.578)`; the page of a
//!   one-page connection skips the single-object draw (always ≥ 2 objects).
//! - [`PersistRspSize`] (§3.7): per connection `loc ~ N(10.62, 0.94)`, `s ~ Gamma(3.22,
//!   1/3.22)`; each size `⌊2^(loc + √s·√2.43·Z)⌋` bytes.
//! - [`Gaps`] (§3.7): per run `loc_B ~ N(3.22, 0.73)`, `s_B ~ Gamma(1.85, 1/1.85)`, `loc_W ~
//!   N(−4.15, 3.12)`, `s_W ~ Gamma(2.35, 1/2.35)` (drawn in that order); between-page gap
//!   `2^(loc_B + √s_B·√1.21·Z)` s, within-page gap `2^(loc_W + √s_W·√1.57·Z)` s.
//!
//! Deviation: Gamma variates by Marsaglia–Tsang (2000) squeeze/rejection with `units::math`
//! (portable bits), not R's `rgamma` that ns-2 carries; same distribution.
//!
//! Validation: `workload::tests::packmime11` (100,000-draw statistics against MODEL.md §3.4,
//! §3.6 and §8, and against the moments the §3.7 formulas imply).

use super::pow2;
use crate::distribution::unit;
use rand::Rng as _;
use rand_distr::StandardNormal;
use units::math::{exp, ln, powf};
use units::Rng;

use super::weibull;

/// Server delay in seconds, in (0, 0.1] (§3.4): `1 / max(10, W)`, `W ~ Weibull(0.63, 305)`.
pub fn server_delay_s(rng: &mut Rng) -> f64 {
    1.0 / weibull(rng, 0.63, 305.0).max(10.0)
}

/// Probability that an HTTP/1.1 connection is persistent (`P_PERSISTENT`, §3.5).
pub const P_PERSISTENT: f64 = 0.09;

/// §3.5: is this HTTP/1.1 connection persistent? One uniform, `U ≤ 0.09`.
pub fn persistent(rng: &mut Rng) -> bool {
    unit(rng) <= P_PERSISTENT
}

/// `max(2, ⌈1 + W⌉)`, `W ~ Weibull(1, scale)`: the multi-page / multi-object count (§3.6).
fn at_least_two(rng: &mut Rng, scale: f64) -> u32 {
    let c = (1.0 + weibull(rng, 1.0, scale)).ceil();
    if c >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        (c as u32).max(2)
    }
}

/// Pages of a persistent connection (§3.6): one uniform (`U ≤ 0.82` → 1, `P_1PAGE`), then for
/// a multi-page connection one Weibull(1, 0.417) draw.
pub fn pages(rng: &mut Rng) -> u32 {
    if unit(rng) <= 0.82 {
        1
    } else {
        at_least_two(rng, 0.417)
    }
}

/// Objects (request/response exchanges) of one page (§3.6). `multi_page`: the connection has
/// more than one page; then one uniform (`U ≤ 0.69` → 1, `P_1TRANSFER`) first. Otherwise, or
/// when that draw fails, one Weibull(1, 1.578) draw.
pub fn objects(rng: &mut Rng, multi_page: bool) -> u32 {
    if multi_page && unit(rng) <= 0.69 {
        1
    } else {
        at_least_two(rng, 1.578)
    }
}

/// Standard normal draw (rand_distr ziggurat, as `crate::packmime` uses).
fn normal(rng: &mut Rng) -> f64 {
    rng.sample::<f64, _>(StandardNormal)
}

/// Gamma(shape a ≥ 1, scale 1/a) — mean 1, variance 1/a — by Marsaglia & Tsang, "A simple
/// method for generating gamma variables", ACM TOMS 26(3), 2000: d = a − 1/3, c = 1/√(9d);
/// repeat Z, v = (1 + cZ)³ until v > 0 and U < 1 − 0.0331 Z⁴ or ln U < Z²/2 + d(1 − v + ln v);
/// the variate is d·v (scaled by 1/a). Draws per attempt: one normal, one uniform.
pub fn gamma_mean_one(rng: &mut Rng, a: f64) -> f64 {
    debug_assert!(a >= 1.0);
    let d = a - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let z = normal(rng);
        let t = 1.0 + c * z;
        if t <= 0.0 {
            continue;
        }
        let v = t * t * t;
        let u = unit(rng);
        if u < 1.0 - 0.0331 * z * z * z * z
            || (u > 0.0 && ln(u) < 0.5 * z * z + d * (1.0 - v + ln(v)))
        {
            return d * v / a;
        }
    }
}

/// Response sizes 2… of a persistent connection (§3.7 `PackMimeHTTPPersistRspSize`): the
/// location and scale are drawn at the first use after [`reset`](Self::reset) (location
/// first), then each size is one normal. Bytes, floored (0 → 1 is the workload's rule).
#[derive(Clone, Debug, Default)]
pub struct PersistRspSize {
    /// (loc, √s·√2.43) of the current connection; `None` until its first size.
    cur: Option<(f64, f64)>,
}

impl PersistRspSize {
    /// Forget the current connection's location and scale.
    pub fn reset(&mut self) {
        self.cur = None;
    }

    /// log2 of the next size, before flooring (for tests of the hierarchical structure).
    pub fn sample_log2(&mut self, rng: &mut Rng) -> f64 {
        let (loc, sd) = match self.cur {
            Some(c) => c,
            None => {
                let loc = 10.62 + 0.94f64.sqrt() * normal(rng);
                let s = gamma_mean_one(rng, 3.22);
                let c = (loc, s.sqrt() * 2.43f64.sqrt());
                self.cur = Some(c);
                c
            }
        };
        loc + sd * normal(rng)
    }

    /// Next size, bytes: `⌊2^(loc + √s·√2.43·Z)⌋`.
    pub fn sample(&mut self, rng: &mut Rng) -> f64 {
        pow2(self.sample_log2(rng)).floor()
    }
}

/// Think times between requests of a persistent connection (§3.7), seconds. The four
/// hyper-parameters are drawn once, at creation (ns-2 draws them when the random-variable
/// object is created, i.e. once per PackMime instance and run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaps {
    /// Location of log2(between-page gap): N(3.22, variance 0.73).
    pub loc_between: f64,
    /// Standard deviation of log2(between-page gap) in this run: √s_B·√1.21.
    pub sd_between: f64,
    /// Location of log2(within-page gap): N(−4.15, variance 3.12).
    pub loc_within: f64,
    /// Standard deviation of log2(within-page gap): √s_W·√1.57.
    pub sd_within: f64,
}

impl Gaps {
    /// Draw the run's hyper-parameters: loc_B, s_B, loc_W, s_W in this order.
    pub fn new(rng: &mut Rng) -> Gaps {
        let loc_between = 3.22 + 0.73f64.sqrt() * normal(rng);
        let s_b = gamma_mean_one(rng, 1.85);
        let loc_within = -4.15 + 3.12f64.sqrt() * normal(rng);
        let s_w = gamma_mean_one(rng, 2.35);
        Gaps {
            loc_between,
            sd_between: s_b.sqrt() * 1.21f64.sqrt(),
            loc_within,
            sd_within: s_w.sqrt() * 1.57f64.sqrt(),
        }
    }

    /// Gap before object `obj` of page `page` (both from 0), seconds: 0 for (0, 0) (no draw),
    /// a between-page gap for the first object of a later page, else a within-page gap (one
    /// normal each).
    pub fn sample(&self, rng: &mut Rng, page: u32, obj: u32) -> f64 {
        let (loc, sd) = match (page, obj) {
            (0, 0) => return 0.0,
            (_, 0) => (self.loc_between, self.sd_between),
            _ => (self.loc_within, self.sd_within),
        };
        pow2(loc + sd * normal(rng))
    }
}

/// P(server delay ≤ x) for x in seconds (§3.4): 0 below 0, 1 from 0.1 on, else
/// P(W ≥ 1/x) = exp(−(1/(305x))^0.63). For tests.
pub fn server_delay_cdf(x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x >= 0.1 {
        1.0
    } else {
        exp(-powf(1.0 / (305.0 * x), 0.63))
    }
}
