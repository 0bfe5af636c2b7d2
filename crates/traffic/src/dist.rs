//! Size and time distributions — interface; implementation being written.

/// An empirical distribution given by CDF points (value, cumulative probability), sampled by
/// inverse-CDF with linear interpolation between points.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// (value, cdf) pairs, value ascending, cdf non-decreasing ending at 1.
    pub points: Vec<(f64, f64)>,
}

/// A non-negative random quantity (bytes, or seconds for think times).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Constant { value: f64 },
    Exponential { mean: f64 },
    /// exp(N(mu, sigma²)).
    Lognormal { mu: f64, sigma: f64 },
    /// Pareto with shape `shape` on [min, max] (truncated density).
    BoundedPareto { shape: f64, min: f64, max: f64 },
    Empirical(EmpiricalCdf),
}
