//! PackMime-HTTP random variables as ns-2.35 implements them, restated in
//! reference/packmime/MODEL.md (section numbers below are that file's). Own code; only the
//! model's numbers and tables (data/packmime/*.csv, copied unchanged from the reference folder)
//! are reused.
//!
//! - [`Fx`] — the table interpolator of §2.1: piecewise linear with linear extrapolation of the
//!   end segments, no clamping.
//! - [`Farima`] — the long-range-dependent Gaussian driver of §2.2: FARIMA(0,d,0) by the
//!   Durbin–Levinson recursion truncated at N lags (coefficients frozen after step N−1), MA(1)
//!   smoothing `y_t = x_t + x_{t−1}`, N+1 warm-up steps, then `g = σ_ε·y + √r·Z'` with standard
//!   normal marginal; `r = logitinv2(c0 + c1·log2(rate))`.
//! - [`FlowArrive`] (§3.1, seconds), [`RequestSize`] (§3.2, bytes), [`ResponseSize`] (§3.3,
//!   bytes), [`Xmit`] (§3.8, milliseconds, RTT/2 as ns-2 returns it).
//! - `http11.rs`: the server delay (§3.4) and the HTTP/1.1 variables (§3.5–3.7).
//! - [`expectation`]: expected sizes per connection by quadrature of the inverse CDFs (§8).
//! - [`rtt_cdf_s`]: the marginal of the full RTT of one side in **seconds** as an
//!   [`EmpiricalCdf`], for `sim::DelayBoxConfig::Distribution` (see its doc for what that
//!   loses).
//!
//! Deviations (none changes a marginal distribution or the dependence structure):
//! - one `&mut Rng` per workload instead of one MRG32k3a stream per variable, so numbers are not
//!   ns-2's; normals are rand_distr `StandardNormal` (ziggurat), not Kinderman–Monahan;
//! - the discarded extra normal at FARIMA step 0 is not drawn, and the FARIMA object ns-2
//!   creates (and warms up) for responses but never reads is not created;
//! - `1 − Φ(g)` is computed as `Φ(−g)` (same number in exact arithmetic, no cancellation);
//!   Φ is Hart's double-precision rational approximation (see [`phi`]), lnΓ the 6-term Lanczos series of `rng_constants.csv`;
//! - a tail probability that underflows to 0 (|g| > 37, probability < 1e-300) is replaced by
//!   the smallest positive f64 so that no value is infinite.
//!
//! Validation: `workload::tests::packmime` (see its header): helper functions against known
//! values, table end values and rate-dependent parameters against MODEL.md's printed numbers,
//! the frozen FARIMA innovation variance (1.0004 at d = 0.33, N = 300), 100,000-draw quantiles
//! against MODEL.md §8/§3.8, and Kolmogorov–Smirnov distances of 100,000 draws of each sampler
//! against the model CDF.

pub mod expectation;
mod http11;

pub use http11::*;

use crate::distribution::{unit, EmpiricalCdf};
use rand::Rng as _;
use rand_distr::StandardNormal;
use units::math::{exp, ln, powf};
use units::Rng;

/// ln 2 as the ns-2 source writes it (tools/rng.h `LOG2`, MODEL.md §0).
// Deliberately the source's 10-digit value, not `std::f64::consts::LN_2`.
#[allow(clippy::approx_constant)]
pub const LOG2: f64 = 0.6931471806;

/// log2(x) = ln(x)/LOG2 (§0).
pub fn log2(x: f64) -> f64 {
    ln(x) / LOG2
}

/// 2^y = exp(LOG2·y) (§0).
pub fn pow2(y: f64) -> f64 {
    exp(LOG2 * y)
}

/// Base-2 inverse logit 2^x/(1+2^x) (§0).
pub fn logitinv2(x: f64) -> f64 {
    let e = pow2(x);
    e / (1.0 + e)
}

/// lnΓ(x), x > 0: the 6-term Lanczos series of rng_constants.csv (relative error < 2e-10).
pub fn ln_gamma(x: f64) -> f64 {
    const COF: [f64; 6] = [
        76.18009172947146,
        -86.50532032941677,
        24.01409824083091,
        -1.231739572450155,
        0.1208650973866179e-2,
        -0.5395239384953e-5,
    ];
    let mut tmp = x + 5.5;
    tmp -= (x + 0.5) * ln(tmp);
    let mut ser = 1.000000000190015;
    let mut y = x;
    for c in COF {
        y += 1.0;
        ser += c / y;
    }
    -tmp + ln(2.5066282746310005 * ser / x)
}

/// Γ(x), x > 0.
pub fn gamma(x: f64) -> f64 {
    exp(ln_gamma(x))
}

/// Standard normal CDF Φ(x): for |x| < 7.07 Hart's (1968) double-precision rational
/// approximation as published by G. West ("Better approximations to cumulative normal
/// functions", 2005); beyond, Laplace's continued fraction of the Mills ratio to 20 terms.
pub fn phi(x: f64) -> f64 {
    let a = x.abs();
    let lower = if a > 37.0 {
        0.0
    } else {
        let e = exp(-a * a / 2.0);
        if a < 7.071_067_811_865_47 {
            const NUM: [f64; 7] = [
                0.035_262_496_599_891_1,
                0.700_383_064_443_688,
                6.373_962_203_531_65,
                33.912_866_078_383,
                112.079_291_497_871,
                221.213_596_169_931,
                220.206_867_912_376,
            ];
            const DEN: [f64; 8] = [
                0.088_388_347_648_318_4,
                1.755_667_163_182_64,
                16.064_177_579_207,
                86.780_732_202_946_1,
                296.564_248_779_674,
                637.333_633_378_831,
                793.826_512_519_948,
                440.413_735_824_752,
            ];
            let horner = |c: &[f64]| c.iter().fold(0.0, |acc, &k| acc * a + k);
            e * horner(&NUM) / horner(&DEN)
        } else {
            // Laplace's continued fraction for the Mills ratio, 20 terms deep.
            let b = (1..=20).rev().fold(a, |cf, k| a + k as f64 / cf);
            e / b / 2.506_628_274_631_000_5
        }
    };
    if x > 0.0 {
        1.0 - lower
    } else {
        lower
    }
}

/// Φ(−g) kept away from 0 (module doc): the upper-tail probability 1 − Φ(g).
fn upper_tail(g: f64) -> f64 {
    phi(-g).max(f64::MIN_POSITIVE)
}

/// Weibull sample λ·(−ln U)^(1/k) (§0); U in (0, 1].
pub fn weibull(rng: &mut Rng, shape: f64, scale: f64) -> f64 {
    let u = 1.0 - unit(rng);
    scale * powf(-ln(u), 1.0 / shape)
}

/// Piecewise-linear interpolator of §2.1 (ns-2 class FX): linear extrapolation of the first
/// segment below x₀ and of the last above x_{n−1}.
#[derive(Clone, Debug, PartialEq)]
pub struct Fx {
    x: Vec<f64>,
    y: Vec<f64>,
}

impl Fx {
    /// From knots; needs n ≥ 2 and strictly increasing x.
    pub fn new(x: Vec<f64>, y: Vec<f64>) -> Fx {
        assert!(x.len() == y.len() && x.len() >= 2, "FX needs ≥ 2 knots");
        assert!(x.windows(2).all(|w| w[0] < w[1]), "FX knots must increase");
        Fx { x, y }
    }

    /// Parse an embedded `i,x,y` CSV with one header line.
    fn from_csv(text: &str) -> Fx {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let c: Vec<f64> = line
                .split(',')
                .map(|s| s.trim().parse().expect("numeric PackMime table"))
                .collect();
            x.push(c[1]);
            y.push(c[2]);
        }
        Fx::new(x, y)
    }

    /// Value at `v` by the rule of §2.1.
    pub fn eval(&self, v: f64) -> f64 {
        let n = self.x.len();
        let i = (0..n - 2).find(|&i| v < self.x[i + 1]);
        let seg = |i: usize| (self.y[i + 1] - self.y[i]) / (self.x[i + 1] - self.x[i]);
        match i {
            Some(i) => self.y[i] + seg(i) * (v - self.x[i]),
            None => self.y[n - 1] + seg(n - 2) * (v - self.x[n - 1]),
        }
    }

    /// The knots (x, y).
    pub fn knots(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.x.iter().copied().zip(self.y.iter().copied())
    }
}

/// The six inverse-CDF tables of §4, embedded from data/packmime/.
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    /// Response, cache-validation state: bytes vs probability.
    pub fsize0_a: Fx,
    /// Response, download state: log2(bytes) vs log2(1 − p).
    pub fsize0_b: Fx,
    /// Request, lower half: bytes vs p/0.5.
    pub fsize1_a: Fx,
    /// Request, upper half: log2(bytes) vs log2(1 − q).
    pub fsize1_b: Fx,
    /// Client-side RTT: RTT_ms^(1/5) vs −log10(1 − p).
    pub short_rtt: Fx,
    /// Server-side RTT: RTT_ms^(1/3) vs −log10(1 − p).
    pub long_rtt: Fx,
}

impl Tables {
    /// The ns-2.35 tables.
    pub fn ns2() -> Tables {
        macro_rules! t {
            ($f:literal) => {
                Fx::from_csv(include_str!(concat!("../../data/packmime/", $f)))
            };
        }
        Tables {
            fsize0_a: t!("fsize0_invcdf_a.csv"),
            fsize0_b: t!("fsize0_invcdf_b.csv"),
            fsize1_a: t!("fsize1_invcdf_a.csv"),
            fsize1_b: t!("fsize1_invcdf_b.csv"),
            short_rtt: t!("short_rtt_invcdf.csv"),
            long_rtt: t!("long_rtt_invcdf.csv"),
        }
    }
}

/// The LRD standard-normal driver of §2.2 (a)–(d).
#[derive(Clone, Debug)]
pub struct Farima {
    d: f64,
    n: usize,
    /// Noise share r.
    r: f64,
    /// σ_ε = √((1−r)/Var(y)).
    sigma_eps: f64,
    /// φ_{t,1..t} (index j−1), frozen once t = N−1.
    phi: Vec<f64>,
    /// Innovation variance v of the current step.
    v: f64,
    /// Past x values, newest first, in a ring of N slots written twice (at `i` and `i + N`), so
    /// the last `k ≤ N` values are always the contiguous slice `hist[newest .. newest + k]`.
    hist: Vec<f64>,
    /// Index in `0..N` of the newest value in `hist`.
    newest: usize,
    /// Values stored so far, at most N.
    stored: usize,
    /// Next step index t.
    t: usize,
    warmed: bool,
}

impl Farima {
    /// Driver with fractional differencing `d`, `n` lags, noise share `r` (0 < r < 1). Nothing
    /// is drawn until the first [`next`](Self::next) (ns-2 creates it lazily).
    pub fn new(d: f64, n: usize, r: f64) -> Farima {
        assert!(n >= 1, "FARIMA needs at least one lag");
        let var_y = Farima::var_x(d) * (2.0 + 2.0 * d / (1.0 - d));
        Farima {
            d,
            n,
            r,
            sigma_eps: ((1.0 - r) / var_y).sqrt(),
            phi: Vec::with_capacity(n),
            v: Farima::var_x(d),
            hist: vec![0.0; 2 * n],
            newest: 0,
            stored: 0,
            t: 0,
            warmed: false,
        }
    }

    /// Stationary variance of the fractional noise x: Γ(1−2d)/Γ(1−d)².
    pub fn var_x(d: f64) -> f64 {
        exp(ln_gamma(1.0 - 2.0 * d) - 2.0 * ln_gamma(1.0 - d))
    }

    /// One FARIMA step: returns y_t = x_t + x_{t−1}; one normal draw.
    fn step(&mut self, rng: &mut Rng) -> f64 {
        let t = self.t;
        if t > 0 && t < self.n {
            let ptt = self.d / (t as f64 - self.d);
            // Durbin–Levinson: φ_{t,j} = φ_{t−1,j} − φ_{t,t} φ_{t−1,t−j}, done in place on the
            // pairs (j, t−j) with the same arithmetic as from a copy.
            for j in 1..=t / 2 {
                let (a, b) = (j - 1, t - j - 1);
                let (oa, ob) = (self.phi[a], self.phi[b]);
                self.phi[a] = oa - ptt * ob;
                if a != b {
                    self.phi[b] = ob - ptt * oa;
                }
            }
            self.phi.push(ptt);
            self.v *= 1.0 - ptt * ptt;
        }
        // x_t = Σ_j φ_j x_{t−j} + √v Z.
        let k = self.phi.len();
        debug_assert!(k <= self.stored);
        let past = &self.hist[self.newest..self.newest + k];
        let s = dot8(&self.phi, past);
        let z: f64 = rng.sample(StandardNormal);
        let x = s + self.v.sqrt() * z;
        let prev = if self.stored > 0 {
            self.hist[self.newest]
        } else {
            0.0
        };
        // x becomes the newest value, one slot down the ring (both copies).
        self.newest = if self.newest == 0 {
            self.n - 1
        } else {
            self.newest - 1
        };
        self.hist[self.newest] = x;
        self.hist[self.newest + self.n] = x;
        self.stored = (self.stored + 1).min(self.n);
        self.t += 1;
        x + prev
    }

    /// Next g_t ~ N(0,1) (marginally): at the first call, N+1 warm-up steps are discarded.
    pub fn next(&mut self, rng: &mut Rng) -> f64 {
        if !self.warmed {
            self.warmed = true;
            for _ in 0..=self.n {
                self.step(rng);
            }
        }
        let y = self.step(rng);
        let z: f64 = rng.sample(StandardNormal);
        self.sigma_eps * y + self.r.sqrt() * z
    }

    /// Innovation variance v (after freezing: of step N−1).
    pub fn innovation_var(&self) -> f64 {
        self.v
    }
}

/// Σ a_i b_i over the common length, in eight interleaved partial sums (term i goes to sum
/// i mod 8; the sums are added pairwise, then the tail in order). The fixed order keeps it
/// deterministic on every machine; unlike one running sum, the additions do not wait on each
/// other, which makes the 1000–5000-lag FARIMA steps several times faster. Rounding differs from
/// a single running sum by about 1e-16 relative (the test bounds it).
#[inline]
pub fn dot8(a: &[f64], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, checked just above.
        return unsafe { dot8_avx(a, b) };
    }
    dot8_lanes(a, b)
}

/// [`dot8`] with AVX: the eight partial sums in two 256-bit registers instead of four 128-bit
/// ones (the compiler's own AVX build kept 128-bit vectors). The same operations in the same
/// order (a multiply, then an add, per term and partial sum; no fused multiply-add), so the
/// same bits (`dot8_with_avx_gives_the_same_bits`). Safety: the CPU must have AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn dot8_avx(a: &[f64], b: &[f64]) -> f64 {
    use std::arch::x86_64::_mm256_storeu_pd;
    use std::arch::x86_64::{_mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_setzero_pd};
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ar, br) = (ac.remainder(), bc.remainder());
    let (mut lo, mut hi) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    for (x, y) in ac.zip(bc) {
        // SAFETY: `x` and `y` are 8 f64 each; unaligned loads of 4 at offsets 0 and 4.
        unsafe {
            let p = _mm256_mul_pd(_mm256_loadu_pd(x.as_ptr()), _mm256_loadu_pd(y.as_ptr()));
            let q = _mm256_mul_pd(
                _mm256_loadu_pd(x.as_ptr().add(4)),
                _mm256_loadu_pd(y.as_ptr().add(4)),
            );
            lo = _mm256_add_pd(lo, p);
            hi = _mm256_add_pd(hi, q);
        }
    }
    let mut acc = [0.0f64; 8];
    // SAFETY: `acc` holds 8 f64: two unaligned stores of 4.
    unsafe {
        _mm256_storeu_pd(acc.as_mut_ptr(), lo);
        _mm256_storeu_pd(acc.as_mut_ptr().add(4), hi);
    }
    dot8_end(&acc, ar, br)
}

/// The body of [`dot8`], inlined into each build of it.
#[inline(always)]
fn dot8_lanes(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 8];
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (x, y) in ac.zip(bc) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    dot8_end(&acc, ar, br)
}

/// The end of [`dot8`], shared by both builds: the eight partial sums added pairwise, then the
/// tail terms `ar[i]·br[i]` in order.
#[inline(always)]
fn dot8_end(acc: &[f64; 8], ar: &[f64], br: &[f64]) -> f64 {
    let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (x, y) in ar.iter().zip(br) {
        s += x * y;
    }
    s
}

#[cfg(all(test, target_arch = "x86_64"))]
mod dot8_tests {
    /// The AVX build and the portable one give the same bits on values whose products and
    /// sums round (a FARIMA-like decaying series against noise-like values), at lengths
    /// around the 8-lane chunks.
    #[test]
    fn dot8_with_avx_gives_the_same_bits() {
        if !std::is_x86_feature_detected!("avx") {
            return;
        }
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        for n in [0usize, 3, 8, 13, 64, 1000, 4999] {
            let a: Vec<f64> = (1..=n).map(|i| 0.4 / (i as f64).powf(0.6)).collect();
            let b: Vec<f64> = (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
                })
                .collect();
            // SAFETY: AVX checked above.
            let avx = unsafe { super::dot8_avx(&a, &b) };
            assert_eq!(
                avx.to_bits(),
                super::dot8_lanes(&a, &b).to_bits(),
                "n = {n}"
            );
        }
    }
}

/// §3.1 connection inter-arrival times in seconds; mean exactly 1/rate.
#[derive(Clone, Debug)]
pub struct FlowArrive {
    /// Weibull shape k.
    pub shape: f64,
    /// Weibull scale λ (s).
    pub scale: f64,
    driver: Farima,
}

impl FlowArrive {
    pub fn new(rate: f64) -> FlowArrive {
        let l = log2(rate);
        let shape = logitinv2(0.352 + 0.388 * l);
        FlowArrive {
            shape,
            scale: 1.0 / (rate * gamma(1.0 + 1.0 / shape)),
            driver: Farima::new(0.33, 1000, logitinv2(0.333 + 0.414 * l)),
        }
    }

    /// Quantile at upper-tail probability `tail` = 1 − p: λ·(−ln tail)^(1/k).
    pub fn from_tail(&self, tail: f64) -> f64 {
        self.scale * powf(-ln(tail), 1.0 / self.shape)
    }

    pub fn sample(&mut self, rng: &mut Rng) -> f64 {
        let g = self.driver.next(rng);
        self.from_tail(upper_tail(g))
    }
}

/// Request size of §3.2 before flooring, from p = Φ(g) given as (p, 1 − p).
pub fn request_size_at(t: &Tables, p: f64, tail: f64) -> f64 {
    if p <= 0.5 {
        t.fsize1_a.eval(p / 0.5)
    } else {
        // 1 − q = (1 − p)/0.5
        pow2(t.fsize1_b.eval(log2(tail / 0.5)))
    }
}

/// §3.2 request sizes (bytes, floored; 0 → 1 is applied by the workload).
#[derive(Clone, Debug)]
pub struct RequestSize {
    driver: Farima,
}

impl RequestSize {
    pub fn new(rate: f64) -> RequestSize {
        RequestSize {
            driver: Farima::new(0.31, 5000, logitinv2(0.123 + 0.494 * log2(rate))),
        }
    }

    pub fn sample(&mut self, t: &Tables, rng: &mut Rng) -> f64 {
        let g = self.driver.next(rng);
        request_size_at(t, phi(g), upper_tail(g)).floor()
    }
}

/// Response size of §3.3 in `state` (0 cache validation, 1 download) at uniform `u`, unfloored.
pub fn response_size_at(t: &Tables, state: u8, u: f64) -> f64 {
    if state == 0 {
        t.fsize0_a.eval(u)
    } else {
        pow2(t.fsize0_b.eval(log2(1.0 - u)))
    }
}

/// §3.3 response sizes: alternating run-length process; bytes, floored.
#[derive(Clone, Debug)]
pub struct ResponseSize {
    /// Run-length Weibull shapes (k₀, k₁).
    pub shape: [f64; 2],
    /// Run-length Weibull scales (λ₀, λ₁) = (0.775, 3.11).
    pub scale: [f64; 2],
    state: u8,
    left: u64,
}

impl ResponseSize {
    pub fn new(rate: f64) -> ResponseSize {
        let l = log2(rate);
        ResponseSize {
            shape: [logitinv2(0.718 + 0.357 * l), logitinv2(1.293 + 0.316 * l)],
            scale: [0.775, 3.11],
            state: 0,
            left: 0,
        }
    }

    /// Next size in bytes and the state it came from. Draws: if the run is exhausted, one
    /// uniform for the new run length (state flipped first); then one uniform for the size.
    pub fn sample(&mut self, t: &Tables, rng: &mut Rng) -> (f64, u8) {
        if self.left == 0 {
            self.state ^= 1;
            let s = self.state as usize;
            self.left = weibull(rng, self.shape[s], self.scale[s]).ceil() as u64;
        }
        self.left = self.left.saturating_sub(1);
        let u = unit(rng);
        (response_size_at(t, self.state, u).floor(), self.state)
    }
}

/// Which DelayBox side an RTT is for (§3.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSide {
    /// Xmit type 0: "short" table, exponent 5, d = 0.31, r = logitinv2(−0.445 + 0.554·log2 rate).
    Client,
    /// Xmit type 1: "long" table, exponent 3, d = 0.32, r = logitinv2(−0.053 + 0.396·log2 rate).
    Server,
}

/// Full RTT in ms of `side` at upper-tail probability `tail` = 1 − p: FX(−log10 tail)^exp.
pub fn rtt_ms_at(t: &Tables, side: RttSide, tail: f64) -> f64 {
    let x = -ln(tail) / ln(10.0);
    match side {
        RttSide::Client => powf(t.short_rtt.eval(x), 5.0),
        RttSide::Server => powf(t.long_rtt.eval(x), 3.0),
    }
}

/// §3.8 `PackMimeHTTPXmit`: one draw per new flow, returns **RTT/2 in milliseconds** as ns-2
/// does (a symmetric DelayBox applies it in each direction).
#[derive(Clone, Debug)]
pub struct Xmit {
    side: RttSide,
    driver: Farima,
}

impl Xmit {
    pub fn new(rate: f64, side: RttSide) -> Xmit {
        let l = log2(rate);
        let driver = match side {
            RttSide::Client => Farima::new(0.31, 1000, logitinv2(-0.445 + 0.554 * l)),
            RttSide::Server => Farima::new(0.32, 1000, logitinv2(-0.053 + 0.396 * l)),
        };
        Xmit { side, driver }
    }

    /// RTT/2 in ms.
    pub fn sample_half_ms(&mut self, t: &Tables, rng: &mut Rng) -> f64 {
        let g = self.driver.next(rng);
        rtt_ms_at(t, self.side, upper_tail(g)) / 2.0
    }
}

/// Marginal CDF of one side's **full** RTT in **seconds** (the value
/// `sim::DelayBoxConfig::Distribution { rtt_s }` expects: extra round-trip time per connection,
/// applied half per direction — ns-2's RTT/2 in each direction). Knots at x = −log10(1−p) every
/// 0.01 from 0 to the table's last knot, at p every 0.001, and at the table's knots, so the piecewise-linear
/// interpolation in p differs from the model's curve by far less than the sampling error of any
/// run; the last point carries the remaining tail mass (1e-4 server, 5e-6 client), i.e. the
/// extrapolated tail beyond the last knot is cut there. What this loses against ns-2: draws are
/// i.i.d. (no FARIMA dependence), and ns-2's pm-delaybox example adds a client-side **and** a
/// server-side RTT per connection, which one distribution cannot express — use
/// [`Xmit`] twice for that.
pub fn rtt_cdf_s(side: RttSide) -> EmpiricalCdf {
    let t = Tables::ns2();
    let table = match side {
        RttSide::Client => &t.short_rtt,
        RttSide::Server => &t.long_rtt,
    };
    let last = table.knots().last().expect("knots").0;
    let mut xs: Vec<f64> = (0..)
        .map(|i| i as f64 * 0.01)
        .take_while(|&x| x < last)
        .chain((1..1000).map(|i| -ln(1.0 - i as f64 * 0.001) / ln(10.0)))
        .chain(table.knots().map(|(x, _)| x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    let mut points: Vec<(f64, f64)> = xs
        .iter()
        .map(|&x| {
            let tail = powf(10.0, -x);
            (rtt_ms_at(&t, side, tail) / 1000.0, 1.0 - tail)
        })
        .collect();
    if let Some(p) = points.last_mut() {
        p.1 = 1.0;
    }
    EmpiricalCdf { points }
}
