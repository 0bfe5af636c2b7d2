//! Portable transcendental functions: every `exp`, `ln`, `powf` and `exp_m1` of aqmlab goes
//! through here, so samples are bit-identical on any machine (ARCHITECTURE.md, Determinism).
//!
//! `f64::exp` and friends call the platform's C math library, whose last-bit rounding differs
//! between systems (glibc, macOS, musl). rand_distr 0.4.3 builds `num-traits` with `libm` and
//! without `std`, so `num_traits::Float` is the pure-Rust `libm` port — the same functions
//! rand_distr's own `LogNormal`/`Exp1` use (`dist::tests::lognormal_matches_rand_distr` checks
//! bit equality). If some crate ever enables `num-traits/std`, these silently become the
//! platform functions again; `cargo tree -e features -i num-traits` shows which is in use.
//!
//! Validation: `math::tests::known_values`.

use rand_distr::num_traits::Float;

#[inline]
pub fn exp(x: f64) -> f64 {
    <f64 as Float>::exp(x)
}

#[inline]
pub fn exp_m1(x: f64) -> f64 {
    <f64 as Float>::exp_m1(x)
}

#[inline]
pub fn ln(x: f64) -> f64 {
    <f64 as Float>::ln(x)
}

#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    <f64 as Float>::powf(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(powf(2.0, 10.0), 1024.0);
        assert_eq!(powf(0.25, 0.5), 0.5);
        assert!((exp(1.0) - std::f64::consts::E).abs() < 1e-15);
        assert!((exp_m1(1e-10) - 1.00000000005e-10).abs() < 1e-24);
    }
}
