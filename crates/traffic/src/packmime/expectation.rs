//! Expectations per HTTP/1.0 connection of PackMime's request and response sizes, by quadrature
//! of the implemented inverse CDFs (MODEL.md §3.2–3.3, §8), as the workload draws them (whole
//! bytes: floor, 0 → 1). Used for the offered load a connection rate gives (issue 34: a load
//! calibrated to the model's expectation, not to one finite run of its heavy tail) and by the
//! PackMime validation (`workload::tests::packmime_ns2`).
//!
//! - [`mean_linear`], [`mean_tail`]: the two quadrature rules (midpoint in u; midpoint in
//!   ln(1 − u) down to a power-law tail).
//! - [`cache_share`]: the long-run share of cache-validation responses at a rate.
//! - [`expected_per_connection`]: E[g(request)] and E[g(response)] for any function g of the
//!   size in bytes (g = identity: payload; g = min(·, cap): a light-tailed check; g =
//!   ⌈·/MSS⌉: data segments).

use super::{log2, request_size_at};
use super::{pow2, response_size_at, ResponseSize, Tables};

/// Smallest upper-tail probability 1 − U that aqmlab's uniforms give (`distribution::unit`:
/// 53-bit uniforms), hence the cut of the download-state response tail the workload can draw.
pub const AQMLAB_TAIL_FLOOR: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Cells of the midpoint rules of [`expected_per_connection`]: the values reproduce MODEL.md §8
/// to < 5e-4 (`workload::tests::packmime_ns2::expected_bytes_per_connection`).
const CELLS_LINEAR: usize = 200_000;
const CELLS_TAIL: usize = 500_000;

/// ∫₀¹ q(u) du by the midpoint rule on `n` equal cells (for a quantile function of u that is
/// piecewise linear, or bounded, in u).
pub fn mean_linear(q: impl Fn(f64) -> f64, n: usize) -> f64 {
    (0..n).map(|i| q((i as f64 + 0.5) / n as f64)).sum::<f64>() / n as f64
}

/// ∫ q(t) dt over the upper-tail probability t = 1 − u in (`t_min`, 1), by the midpoint rule in
/// ln t on `n` cells (for a quantile that grows as a power of 1/t). When `t_min` is 0, the part
/// below t_cut = 2⁻⁶⁰ is added exactly for the power law q(t) = c·t^s through q(t_cut) and
/// q(t_cut/2): c·t_cut^(s+1)/(s+1) (needs s > −1, a finite mean).
pub fn mean_tail(q: impl Fn(f64) -> f64, t_min: f64, n: usize) -> f64 {
    let t_cut = 2f64.powi(-60);
    let lo = t_min.max(t_cut).ln();
    let h = -lo / n as f64;
    let body: f64 = (0..n)
        .map(|i| {
            let t = (lo + (i as f64 + 0.5) * h).exp();
            q(t) * t * h
        })
        .sum();
    if t_min > 0.0 {
        return body;
    }
    let (t1, t2) = (t_cut, t_cut / 2.0);
    let s = (q(t2) / q(t1)).ln() / (t2 / t1).ln();
    let c = q(t1) / t1.powf(s);
    body + c * t_cut.powf(s + 1.0) / (s + 1.0)
}

/// Long-run share of cache-validation responses at `rate` (conn/s): E[L₀]/(E[L₀] + E[L₁]) for
/// the Weibull run lengths W rounded up, E[⌈W⌉] = Σ_{j≥0} P(W > j) (MODEL.md §3.3).
pub fn cache_share(rate: f64) -> f64 {
    let r = ResponseSize::new(rate);
    let e: Vec<f64> = (0..2)
        .map(|s| {
            (0..10_000)
                .map(|j| (-(j as f64 / r.scale[s]).powf(r.shape[s])).exp())
                .sum()
        })
        .collect();
    e[0] / (e[0] + e[1])
}

/// Whole bytes as the workload sends a size: floor, 0 → 1.
fn whole(x: f64) -> f64 {
    x.floor().max(1.0)
}

/// Expected values per connection of a function of PackMime's HTTP/1.0 sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerConnection {
    /// E[g(request bytes)] (MODEL.md §3.2; rate-independent).
    pub request: f64,
    /// E[g(response bytes)]: the cache-validation / download mixture at `cache_share`.
    pub response: f64,
    /// E[g] of the cache-validation state alone.
    pub response_cache: f64,
    /// E[g] of the download state alone, its tail cut at `response_tail_floor`.
    pub response_download: f64,
    /// Share of cache-validation responses at the rate ([`cache_share`]).
    pub cache_share: f64,
}

impl PerConnection {
    /// E[g(request)] + E[g(response)].
    pub fn total(&self) -> f64 {
        self.request + self.response
    }
}

/// E[g(size)] per connection at `rate` (conn/s) for g a non-decreasing function of a size in
/// whole bytes, by quadrature: requests over the model's whole tail (the workload's normal
/// driver reaches tails below 1e-300), download-state responses down to the upper-tail
/// probability `response_tail_floor` ([`AQMLAB_TAIL_FLOOR`] for aqmlab's draws; ns-2's
/// MRG32k3a uniforms stop at 1/4294967088; 0 for the model without a cut).
pub fn expected_per_connection(
    rate: f64,
    response_tail_floor: f64,
    g: impl Fn(f64) -> f64,
) -> PerConnection {
    let t = Tables::ns2();
    // The download state as a function of the tail probability itself (response_size_at takes
    // U and computes 1 − U; the same rule 2^FX(log2(1 − U)) without the rounding of 1 − U).
    let download = |tail: f64| g(whole(pow2(t.fsize0_b.eval(log2(tail)))));
    let e0 = mean_linear(|u| g(whole(response_size_at(&t, 0, u))), CELLS_LINEAR);
    let e1 = mean_tail(download, response_tail_floor, CELLS_TAIL);
    // Requests: the lower half linear in p, the upper half a tail in 1 − q = 2(1 − p).
    let req_body = mean_linear(
        |u| g(whole(request_size_at(&t, 0.5 * u, 1.0 - 0.5 * u))),
        CELLS_LINEAR,
    );
    let req_tail = mean_tail(
        |tail| g(whole(request_size_at(&t, 1.0 - 0.5 * tail, 0.5 * tail))),
        0.0,
        CELLS_TAIL,
    );
    let pi0 = cache_share(rate);
    PerConnection {
        request: 0.5 * req_body + 0.5 * req_tail,
        response: pi0 * e0 + (1.0 - pi0) * e1,
        response_cache: e0,
        response_download: e1,
        cache_share: pi0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoint_rule_on_a_step_function() {
        // ∫₀¹ ⌊1000u⌋ du = (0 + 1 + … + 999)/1000 = 499.5 exactly with 1000·k cells.
        let m = mean_linear(|u| (1000.0 * u).floor(), 20_000);
        assert!((m - 499.5).abs() < 1e-9, "{m}");
    }

    #[test]
    fn tail_rule_on_pareto_two() {
        // q(t) = t^(−1/2) (Pareto, shape 2, minimum 1): mean 2, all of it from the rule's body
        // and its power-law remainder below 2⁻⁶⁰ (2·2⁻³⁰).
        let m = mean_tail(|t| t.powf(-0.5), 0.0, 500_000);
        assert!((m - 2.0).abs() < 1e-6, "{m}");
        // Floored: ∫₀¹ ⌊t^(−1/2)⌋ dt = Σ_k k·(1/k² − 1/(k+1)²) = Σ_k 1/k² = π²/6.
        let f = mean_tail(|t| t.powf(-0.5).floor(), 0.0, 500_000);
        let want = std::f64::consts::PI.powi(2) / 6.0;
        assert!((f - want).abs() < 1e-3, "{f} vs {want}");
        // Cut at t_min: ∫_{t_min}^1 t^(−1/2) dt = 2 − 2√t_min.
        let c = mean_tail(|t| t.powf(-0.5), 1e-6, 500_000);
        assert!((c - (2.0 - 2e-3)).abs() < 1e-6, "{c}");
    }
}
