//! Tests of `SizeDist` and `EmpiricalCdf`. Expected values are computed by hand from the
//! definitions (shown in the comments), never read back from the code.

use super::*;
use rand_distr::{Distribution, Exp, LogNormal};

const N: usize = 200_000;

fn rng(name: &str) -> Rng {
    units::stream(2024, name)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

/// Mean of `N` draws must lie within 4 standard errors, SE = sd/√N from the analytic sd.
fn assert_sample_mean(d: &SizeDist, mean: f64, sd: f64, stream: &str) {
    let mut r = rng(stream);
    let sum: f64 = (0..N).map(|_| d.sample(&mut r)).sum();
    let m = sum / N as f64;
    let se = sd / (N as f64).sqrt();
    assert!(
        (m - mean).abs() <= 4.0 * se,
        "{d:?}: sample mean {m}, expected {mean} ± {}",
        4.0 * se
    );
}

// ----- analytic means ------------------------------------------------------------------------

#[test]
fn mean_constant_uniform_exponential_lognormal() {
    assert_eq!(SizeDist::Constant { value: 300.0 }.mean(), 300.0);
    // (200 + 1500) / 2
    assert_eq!(
        SizeDist::Uniform {
            min: 200.0,
            max: 1500.0
        }
        .mean(),
        850.0
    );
    assert_eq!(SizeDist::Exponential { mean: 5.0 }.mean(), 5.0);
    // exp(8 + 1/2) = e^8.5 = 4914.768840299134
    assert!(close(
        SizeDist::Lognormal {
            mu: 8.0,
            sigma: 1.0
        }
        .mean(),
        4914.768840299134,
        1e-12
    ));
}

#[test]
fn mean_bounded_pareto_hand_computed() {
    // α = 1.2, L = 1000, H = 2e6, r = L/H = 5e-4:
    // r^0.2 = exp(0.2·ln 5e-4) = exp(−1.52018) = 0.2186724; r^1.2 = 5e-4 · r^0.2 = 1.0933622e-4;
    // E = α/(α−1)·L·(1 − r^0.2)/(1 − r^1.2) = 6·1000·0.7813276/0.99989066 = 4688.4781.
    let d = SizeDist::BoundedPareto {
        shape: 1.2,
        min: 1000.0,
        max: 2e6,
    };
    assert!(close(d.mean(), 4688.478131685436, 1e-9), "{}", d.mean());
    // α = 2, L = 1, H = 3: density 2x⁻³/(1 − 1/9) on [1, 3]; E = (9/8)·2·(1 − 1/3) = 1.5.
    assert!(close(
        SizeDist::BoundedPareto {
            shape: 2.0,
            min: 1.0,
            max: 3.0
        }
        .mean(),
        1.5,
        1e-12
    ));
    // α = 1 (limit), L = 1, H = e: E = L·ln(H/L)/(1 − L/H) = 1/(1 − 1/e) = e/(e − 1).
    let e = std::f64::consts::E;
    let want = e / (e - 1.0);
    assert!(close(
        SizeDist::BoundedPareto {
            shape: 1.0,
            min: 1.0,
            max: e
        }
        .mean(),
        want,
        1e-12
    ));
    // Just off α = 1 the formula must approach the limit continuously.
    assert!(close(
        SizeDist::BoundedPareto {
            shape: 1.0 + 1e-7,
            min: 1.0,
            max: e
        }
        .mean(),
        want,
        1e-6
    ));
}

// ----- sampling ------------------------------------------------------------------------------

#[test]
fn sample_constant_is_exact_and_draws_nothing() {
    let mut r = rng("constant");
    let before = r.clone();
    assert_eq!(SizeDist::Constant { value: 300.0 }.sample(&mut r), 300.0);
    assert_eq!(r, before, "Constant must not consume randomness");
}

#[test]
fn sample_mean_uniform() {
    // sd = (max − min)/√12
    assert_sample_mean(
        &SizeDist::Uniform {
            min: 200.0,
            max: 1500.0,
        },
        850.0,
        1300.0 / 12f64.sqrt(),
        "uniform",
    );
}

#[test]
fn sample_mean_exponential() {
    // sd = mean
    assert_sample_mean(&SizeDist::Exponential { mean: 5.0 }, 5.0, 5.0, "exp");
}

#[test]
fn sample_mean_lognormal() {
    // Var = (e^σ² − 1)·e^(2μ+σ²) = (e − 1)·e^17 → sd = 6442.4387
    let sd = ((1f64.exp() - 1.0) * 17f64.exp()).sqrt();
    assert_sample_mean(
        &SizeDist::Lognormal {
            mu: 8.0,
            sigma: 1.0,
        },
        4914.768840299134,
        sd,
        "lognormal",
    );
}

#[test]
fn bounded_pareto_quantiles() {
    // Heavy tail: a quantile test instead of a mean test. F(x) = (1 − (L/x)^α)/(1 − (L/H)^α):
    // F(2000) = (1 − 0.5^1.2)/(1 − 1.0933622e-4) = 0.5647865
    // F(10⁴)  = (1 − 0.1^1.2)/(…) = (1 − 0.0630957)/(…) = 0.9370067
    // F(10⁵)  = (1 − 0.01^1.2)/(…) = (1 − 0.0039811)/(…) = 0.9961278
    // ECDF SE ≤ 0.5/√200000 = 0.0011, so ±0.005 is > 4 SE.
    let d = SizeDist::BoundedPareto {
        shape: 1.2,
        min: 1000.0,
        max: 2e6,
    };
    let mut r = rng("bpareto");
    let xs: Vec<f64> = (0..N).map(|_| d.sample(&mut r)).collect();
    assert!(xs.iter().all(|&x| (1000.0..=2e6).contains(&x)));
    for (x, f) in [
        (2000.0, 0.5647865),
        (10_000.0, 0.9370067),
        (100_000.0, 0.9961278),
    ] {
        assert!((bounded_pareto_cdf(x, 1.2, 1000.0, 2e6) - f).abs() < 1e-6);
        let ecdf = xs.iter().filter(|&&v| v <= x).count() as f64 / N as f64;
        assert!(
            (ecdf - f).abs() <= 0.005,
            "ECDF({x}) = {ecdf}, expected {f}"
        );
    }
}

#[test]
fn bounded_pareto_inverse_matches_ns2_formula() {
    // ns-2 paretoBd: x = (−(u·Hᵅ − u·Lᵅ − Hᵅ)/(Hᵅ·Lᵅ))^(−1/α)
    let (a, l, h): (f64, f64, f64) = (1.2, 1000.0, 2e6);
    for u in [0.0, 0.1, 0.5, 0.9, 0.999, 0.999_999] {
        let ns2 =
            (-(u * h.powf(a) - u * l.powf(a) - h.powf(a)) / (h.powf(a) * l.powf(a))).powf(-1.0 / a);
        let ours = bounded_pareto_inverse(u, a, l, h);
        assert!(close(ours, ns2, 1e-10), "u={u}: {ours} vs {ns2}");
    }
    assert_eq!(bounded_pareto_inverse(0.0, a, l, h), l);
}

#[test]
fn lognormal_matches_rand_distr() {
    let (mut a, mut b) = (rng("ln"), rng("ln"));
    let ln = LogNormal::new(8.0, 1.5).unwrap();
    let d = SizeDist::Lognormal {
        mu: 8.0,
        sigma: 1.5,
    };
    for _ in 0..1000 {
        assert_eq!(d.sample(&mut a), ln.sample(&mut b));
    }
    let (mut a, mut b) = (rng("exp"), rng("exp"));
    let ex = Exp::new(1.0 / 5.0).unwrap();
    let d = SizeDist::Exponential { mean: 5.0 };
    for _ in 0..1000 {
        assert!(close(d.sample(&mut a), ex.sample(&mut b), 1e-14));
    }
}

// ----- empirical -----------------------------------------------------------------------------

fn table() -> Vec<(f64, f64)> {
    // atom 0.25 at 100; uniform mass 0.5 on [100, 200]; uniform mass 0.25 on [200, 1000]
    vec![(100.0, 0.25), (200.0, 0.75), (1000.0, 1.0)]
}

#[test]
fn inverse_cdf_interpolates_between_points() {
    let p = table();
    assert_eq!(inverse_cdf(&p, 0.0), 100.0); // inside the first-point atom
    assert_eq!(inverse_cdf(&p, 0.2), 100.0);
    assert_eq!(inverse_cdf(&p, 0.25), 100.0); // start of the first segment
    assert_eq!(inverse_cdf(&p, 0.5), 150.0); // 100 + (0.25/0.5)·100
    assert_eq!(inverse_cdf(&p, 0.75), 200.0);
    assert_eq!(inverse_cdf(&p, 0.875), 600.0); // 200 + (0.125/0.25)·800
    assert_eq!(inverse_cdf(&p, 1.0), 1000.0);
    assert_eq!(inverse_cdf(&[], 0.5), 0.0);
}

#[test]
fn inverse_cdf_gaps_and_atoms() {
    // Flat cdf between 10 and 20: no mass there, u = 0.5 jumps to 20.
    let gap = [(0.0, 0.0), (10.0, 0.5), (20.0, 0.5), (30.0, 1.0)];
    assert_eq!(inverse_cdf(&gap, 0.25), 5.0);
    assert_eq!(inverse_cdf(&gap, 0.5), 20.0);
    assert_eq!(inverse_cdf(&gap, 0.75), 25.0);
    // Repeated value 10 with the cdf rising 0.5 → 0.8: an atom of 0.3 at 10.
    let atom = [(0.0, 0.0), (10.0, 0.5), (10.0, 0.8), (20.0, 1.0)];
    assert_eq!(inverse_cdf(&atom, 0.6), 10.0);
    assert_eq!(inverse_cdf(&atom, 0.79), 10.0);
    assert_eq!(inverse_cdf(&atom, 0.9), 15.0);
}

#[test]
fn empirical_mean_exact_and_sampled() {
    // 0.25·100 + 0.5·150 + 0.25·600 = 250
    let d = SizeDist::Empirical(EmpiricalCdf { points: table() });
    assert_eq!(d.mean(), 250.0);
    // E[X²] = 0.25·100² + 0.5·(100²+100·200+200²)/3 + 0.25·(200²+200·1000+1000²)/3
    //       = 2500 + 11666.67 + 103333.33 = 117500 → Var = 117500 − 250² = 55000.
    assert_sample_mean(&d, 250.0, 55_000f64.sqrt(), "empirical");
}

#[test]
fn csv_header_comments_and_blank_lines() {
    let c = EmpiricalCdf::from_csv_str(
        "value,cdf\n# a comment\n100, 0.25  # trailing\n\n200,0.75\n1000,1\n",
    )
    .unwrap();
    assert_eq!(c.points, table());
    assert!(c.validate().is_ok());
}

#[test]
fn csv_columns_found_by_name_in_any_order() {
    let swapped = EmpiricalCdf::from_csv_str("cdf,value\n0.25,100\n0.75,200\n1,1000\n").unwrap();
    assert_eq!(swapped.points, table());
    // Same table, same draws, whichever order the columns come in.
    let straight = EmpiricalCdf::from_csv_str("value,cdf\n100,0.25\n200,0.75\n1000,1\n").unwrap();
    let draws = |c: EmpiricalCdf| {
        let d = SizeDist::Empirical(c);
        let mut r = rng("csv-order");
        (0..1000).map(|_| d.sample(&mut r)).collect::<Vec<f64>>()
    };
    let (a, b) = (draws(swapped), draws(straight));
    assert_eq!(a, b);
    assert!(a.iter().all(|&x| (100.0..=1000.0).contains(&x)));
    // `value_UNIT` names the value column (the Mah tables); with count and cdf the cdf is used.
    let t = EmpiricalCdf::from_csv_str("cdf,count,value_bytes\n0.25,4,0\n1,12,81\n").unwrap();
    assert_eq!(t.points, vec![(0.0, 0.25), (81.0, 1.0)]);
}

#[test]
fn csv_counts_become_the_running_share() {
    // Counts 1, 2, 1 of 4: cdf 1/4, 3/4, 4/4 at 100, 200, 1000 (= `table()`).
    let c = EmpiricalCdf::from_csv_str("count,value\n1,100\n2,200\n1,1000\n").unwrap();
    assert_eq!(c.points, table());
    let err = |t: &str| EmpiricalCdf::from_csv_str(t).unwrap_err();
    assert_eq!(
        err("value,count\n1,-2\n"),
        "line 2: count -2 must be a finite number ≥ 0"
    );
    assert_eq!(
        err("value,count\n1,0\n2,0\n"),
        "the counts must add up to a finite number > 0, got 0"
    );
}

#[test]
fn csv_header_other_than_value_and_cdf_or_count_is_refused() {
    let err = |t: &str| EmpiricalCdf::from_csv_str(t).unwrap_err();
    let expected = |cols: &str| {
        format!(
            "line 1: the header names the columns \"{cols}\"; expected value,cdf or value,count \
             (in any order; `value` may be `value_UNIT`), or value,count,cdf"
        )
    };
    // Read by position, the third column would have been the CDF (issue 30).
    assert_eq!(err("value,cdf,x\n1000,1,0.5\n"), expected("value,cdf,x"));
    assert_eq!(err("value,value,cdf\n1,1,1\n"), expected("value,value,cdf"));
    assert_eq!(err("value\n1\n"), expected("value"));
    // No header: the first line is read as one and refused.
    assert_eq!(err("100,0.5\n1000,1\n"), expected("100,0.5"));
}

#[test]
fn csv_errors_name_the_line() {
    let err = |t: &str| EmpiricalCdf::from_csv_str(t).unwrap_err();
    assert_eq!(
        err("value,cdf\n100,0.5\n50,0.9\n"),
        "line 3: values must be non-decreasing (50 after 100)"
    );
    assert_eq!(
        err("# c\nvalue,cdf\n100,0.5\n200,0.4\n"),
        "line 4: CDF must be non-decreasing and end at 1 (0.4 after 0.5)"
    );
    assert_eq!(
        err("value,cdf\n100,0.5,3\n"),
        "line 2: expected 2 columns as the header names, found 3"
    );
    assert_eq!(
        err("value,cdf\n100,abc\n"),
        "line 2: \"100,abc\" is not numbers"
    );
    assert_eq!(
        err("value,cdf\n100,0.5\n200,0.9\n\n"),
        "line 3: CDF must be non-decreasing and end at 1 (ends at 0.9)"
    );
    assert_eq!(
        err("value,cdf\n-1,1\n"),
        "line 2: value -1 must be a finite number ≥ 0"
    );
    assert_eq!(
        err("value,cdf\n1,1.5\n"),
        "line 2: cdf 1.5 must lie in [0, 1]"
    );
    assert_eq!(err("value,cdf\n# nothing\n"), "no data lines");
    assert_eq!(err(""), "no data lines");
}

#[test]
fn csv_from_path() {
    let dir = std::env::temp_dir().join(format!("traffic-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.csv");
    let bad = dir.join("bad.csv");
    std::fs::write(&ok, "value,cdf\n100,0.25\n200,0.75\n1000,1\n").unwrap();
    std::fs::write(&bad, "value,cdf\n100,0.25\n50,1\n").unwrap();
    assert_eq!(EmpiricalCdf::from_path(&ok).unwrap().points, table());
    let e = EmpiricalCdf::from_path(&bad).unwrap_err();
    assert_eq!(
        e,
        format!(
            "{}: line 3: values must be non-decreasing (50 after 100)",
            bad.display()
        )
    );
    let e = EmpiricalCdf::from_path(dir.join("missing.csv")).unwrap_err();
    assert!(e.starts_with("cannot read "), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ----- validation ----------------------------------------------------------------------------

#[test]
fn validate_reason_texts() {
    let v = |d: SizeDist| d.validate().unwrap_err();
    assert_eq!(
        v(SizeDist::Lognormal {
            mu: 8.0,
            sigma: 0.0
        }),
        "sigma must be positive, got 0"
    );
    assert_eq!(
        v(SizeDist::Lognormal {
            mu: f64::NAN,
            sigma: 1.0
        }),
        "mu must be finite, got NaN"
    );
    assert_eq!(
        v(SizeDist::Uniform {
            min: 2000.0,
            max: 1000.0
        }),
        "min (2000) must not exceed max (1000)"
    );
    assert_eq!(
        v(SizeDist::Uniform {
            min: -1.0,
            max: 1000.0
        }),
        "min must be a finite number ≥ 0, got -1"
    );
    assert_eq!(
        v(SizeDist::BoundedPareto {
            shape: 1.2,
            min: 2000.0,
            max: 1000.0
        }),
        "min (2000) must be below max (1000)"
    );
    assert_eq!(
        v(SizeDist::BoundedPareto {
            shape: 0.0,
            min: 1.0,
            max: 2.0
        }),
        "shape must be > 0, got 0"
    );
    assert_eq!(
        v(SizeDist::BoundedPareto {
            shape: 1.2,
            min: 0.0,
            max: 2.0
        }),
        "min must be > 0, got 0"
    );
    assert_eq!(
        v(SizeDist::Exponential { mean: 0.0 }),
        "mean must be positive, got 0"
    );
    assert_eq!(
        v(SizeDist::Constant {
            value: f64::INFINITY
        }),
        "value must be a finite number ≥ 0, got inf"
    );
    let emp = |p: Vec<(f64, f64)>| SizeDist::Empirical(EmpiricalCdf { points: p });
    assert_eq!(
        v(emp(vec![(1.0, 0.5), (2.0, 0.4), (3.0, 1.0)])),
        "point 1: CDF must be non-decreasing and end at 1 (0.4 after 0.5)"
    );
    assert_eq!(
        v(emp(vec![(1.0, 0.5), (2.0, 0.9)])),
        "CDF must be non-decreasing and end at 1 (ends at 0.9)"
    );
    assert_eq!(v(emp(vec![])), "CDF has no points");
}

#[test]
fn validate_accepts_good_parameters() {
    for d in [
        SizeDist::Constant { value: 0.0 },
        SizeDist::Uniform { min: 0.0, max: 0.0 },
        SizeDist::Uniform {
            min: 0.0,
            max: 0.15,
        },
        SizeDist::Exponential { mean: 5.0 },
        SizeDist::Lognormal {
            mu: -1.0,
            sigma: 2.0,
        },
        SizeDist::BoundedPareto {
            shape: 1.2,
            min: 1000.0,
            max: 2e6,
        },
        SizeDist::Empirical(EmpiricalCdf { points: table() }),
        SizeDist::Empirical(EmpiricalCdf {
            points: vec![(1.0, 0.0), (2.0, 0.999_999_5)],
        }),
    ] {
        assert_eq!(d.validate(), Ok(()), "{d:?}");
    }
}
