//! Size and time distributions: one non-negative random quantity (bytes, or seconds for think
//! times), with an analytic mean and a validating check.
//!
//! | variant         | sample                                                   | draws per sample     |
//! |-----------------|----------------------------------------------------------|----------------------|
//! | `Constant`      | `value`                                                  | none                 |
//! | `Uniform`       | `min + (max − min)·u`                                    | one u                |
//! | `Exponential`   | `mean · Exp1` (rand_distr ziggurat)                      | ≥ 1 u64 (ziggurat)   |
//! | `Lognormal`     | `exp(mu + sigma·z)`, z = rand_distr `StandardNormal`     | ≥ 1 u64 (ziggurat)   |
//! | `BoundedPareto` | exact inverse CDF of the truncated density on [min, max] | one u                |
//! | `Empirical`     | inverse CDF, linear between points (`distribution/empirical.rs`) | one u                |
//!
//! `u` is rand 0.8's `Standard` f64 — the top 53 bits of one `next_u64`, times 2⁻⁵³, in [0, 1).
//! `mu + sigma·z` is exactly what rand_distr 0.4.3 `LogNormal::sample` computes (tested), without
//! its constructor's `Result`. Bounded Pareto: the ns-2 formula (`ranvar.cc`/`rng.h` paretoBd,
//! as given in the brief) x = (−(u·Hᵅ − u·Lᵅ − Hᵅ)/(Hᵅ·Lᵅ))^(−1/α) is rewritten in the
//! algebraically identical, overflow-free form x = L·(1 − u·(1 − (L/H)ᵅ))^(−1/α) (equality tested).
//!
//! Exponential uses `mean · Exp1` rather than `Exp::new(1/mean)`, which multiplies by the
//! rounded 1/(1/mean); the draws are the same.
//!
//! All exp/ln/pow go through `crate::math` (pure-Rust libm) so draws are bit-identical on every
//! machine.
//!
//! `sample` assumes `validate` passed; on invalid parameters it returns some value but never
//! panics. Read `distribution/empirical.rs` before changing how tables are read.
//!
//! Validation: `distribution::tests` — `mean_*` (analytic means against hand-computed values),
//! `sample_mean_*` (200k draws within 4 standard errors of the analytic mean),
//! `bounded_pareto_quantiles` (empirical CDF at 3 points within ±0.005),
//! `bounded_pareto_inverse_matches_ns2_formula`, `lognormal_matches_rand_distr`,
//! `validate_*` (reason texts), plus the empirical table tests.

pub(crate) mod empirical;
#[cfg(test)]
mod tests;

pub(crate) use empirical::inverse_cdf;
pub use empirical::EmpiricalCdf;

use rand::Rng as _;
use rand_distr::{Exp1, StandardNormal};
use units::math::{exp, exp_m1, ln, powf};
use units::Rng;

/// A non-negative random quantity (bytes, or seconds for think times).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Always `value` (≥ 0).
    Constant {
        value: f64,
    },
    /// Exponential with mean `mean` (> 0).
    Exponential {
        mean: f64,
    },
    /// exp(N(mu, sigma²)); `sigma` > 0. Mean exp(mu + sigma²/2).
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    /// Pareto with shape `shape` on [min, max] (truncated density); shape > 0, 0 < min < max.
    BoundedPareto {
        shape: f64,
        min: f64,
        max: f64,
    },
    Empirical(EmpiricalCdf),
    /// Uniform on [min, max]; 0 ≤ min ≤ max (min = max is a constant that still uses one draw).
    Uniform {
        min: f64,
        max: f64,
    },
}

/// One uniform draw in [0, 1) (rand 0.8 `Standard` for f64: 53 bits of one `next_u64`).
#[inline]
pub(crate) fn unit(rng: &mut Rng) -> f64 {
    rng.gen::<f64>()
}

/// Inverse CDF of the Pareto density ∝ x^−(α+1) truncated to [l, h], at u in [0, 1):
/// x = l·(1 − u·(1 − (l/h)^α))^(−1/α); u = 0 → l, u → 1 → h.
pub(crate) fn bounded_pareto_inverse(u: f64, shape: f64, l: f64, h: f64) -> f64 {
    let tail = 1.0 - powf(l / h, shape);
    (l * powf(1.0 - u * tail, -1.0 / shape)).clamp(l, h)
}

/// CDF of the bounded Pareto: F(x) = (1 − (l/x)^α) / (1 − (l/h)^α) on [l, h].
#[cfg(test)]
pub(crate) fn bounded_pareto_cdf(x: f64, shape: f64, l: f64, h: f64) -> f64 {
    if x < l {
        0.0
    } else if x >= h {
        1.0
    } else {
        (1.0 - powf(l / x, shape)) / (1.0 - powf(l / h, shape))
    }
}

/// Mean of the bounded Pareto: E = α/(α−1) · l · (1 − r^(α−1)) / (1 − r^α) with r = l/h, and its
/// limit l·ln(h/l)/(1 − r) at α = 1 (used when |α − 1| < 1e-9; (1 − r^(α−1))/(α−1) is evaluated
/// with `exp_m1` so the formula stays accurate close to α = 1).
pub(crate) fn bounded_pareto_mean(shape: f64, l: f64, h: f64) -> f64 {
    let r = l / h;
    let ln_r = ln(r);
    let denom = 1.0 - powf(r, shape);
    let a1 = shape - 1.0;
    let ratio = if a1.abs() < 1e-9 {
        -ln_r
    } else {
        -exp_m1(a1 * ln_r) / a1
    };
    shape * l * ratio / denom
}

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

fn non_negative(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

impl SizeDist {
    /// One sample (see the module table for the draws it makes).
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            SizeDist::Constant { value } => *value,
            SizeDist::Uniform { min, max } => min + (max - min) * unit(rng),
            SizeDist::Exponential { mean } => {
                let e: f64 = rng.sample(Exp1);
                mean * e
            }
            SizeDist::Lognormal { mu, sigma } => {
                let z: f64 = rng.sample(StandardNormal);
                exp(mu + sigma * z)
            }
            SizeDist::BoundedPareto { shape, min, max } => {
                bounded_pareto_inverse(unit(rng), *shape, *min, *max)
            }
            SizeDist::Empirical(cdf) => inverse_cdf(&cdf.points, unit(rng)),
        }
    }

    /// Analytic mean (empirical: exact mean of the piecewise-linear CDF).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Constant { value } => *value,
            SizeDist::Uniform { min, max } => 0.5 * (min + max),
            SizeDist::Exponential { mean } => *mean,
            SizeDist::Lognormal { mu, sigma } => exp(mu + 0.5 * sigma * sigma),
            SizeDist::BoundedPareto { shape, min, max } => bounded_pareto_mean(*shape, *min, *max),
            SizeDist::Empirical(cdf) => cdf.mean(),
        }
    }

    /// Check the parameters; the reason names the parameter (tested texts in `validate_*`).
    pub fn validate(&self) -> Result<(), String> {
        match self {
            SizeDist::Constant { value } => {
                if !non_negative(*value) {
                    return Err(format!("value must be a finite number ≥ 0, got {value}"));
                }
            }
            SizeDist::Uniform { min, max } => {
                if !non_negative(*min) {
                    return Err(format!("min must be a finite number ≥ 0, got {min}"));
                }
                if !max.is_finite() {
                    return Err(format!("max must be finite, got {max}"));
                }
                if min > max {
                    return Err(format!("min ({min}) must not exceed max ({max})"));
                }
            }
            SizeDist::Exponential { mean } => {
                if !positive(*mean) {
                    return Err(format!("mean must be positive, got {mean}"));
                }
            }
            SizeDist::Lognormal { mu, sigma } => {
                if !mu.is_finite() {
                    return Err(format!("mu must be finite, got {mu}"));
                }
                if !positive(*sigma) {
                    return Err(format!("sigma must be positive, got {sigma}"));
                }
            }
            SizeDist::BoundedPareto { shape, min, max } => {
                if !positive(*shape) {
                    return Err(format!("shape must be > 0, got {shape}"));
                }
                if !positive(*min) {
                    return Err(format!("min must be > 0, got {min}"));
                }
                if !max.is_finite() {
                    return Err(format!("max must be finite, got {max}"));
                }
                if min >= max {
                    return Err(format!("min ({min}) must be below max ({max})"));
                }
            }
            SizeDist::Empirical(cdf) => cdf.validate()?,
        }
        Ok(())
    }
}
