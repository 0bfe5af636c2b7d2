//! PackMime-HTTP server delay (§3.4) and HTTP/1.1 (§3.5–3.7) against
//! reference/packmime/MODEL.md. Every statistic uses 100,000 draws; tolerances are 4 standard
//! errors (computed from the model's own moments, stated in each test) unless said otherwise.
//!
//! - `server_delay_cdf_matches_section34`: the closed-form CDF gives §3.4's atom 0.1096 and
//!   quartiles 0.001952 / 0.005866 / 0.02369 s.
//! - `server_delay_draws_match_section34`: atom share, mean 0.02195 s (§8), quartiles, KS
//!   distance of the continuous part.
//! - `persistent_pages_objects_match_section36`: Bernoulli 0.09, P(1 page) = 0.82,
//!   E[pages | > 1] = 2.1, P(1 object | multi-page) = 0.69, E[objects | ≥ 2] = 3.1305, one-page
//!   connections have ≥ 2 objects.
//! - `gamma_has_mean_one_and_variance_one_over_shape`: the Marsaglia–Tsang sampler.
//! - `persist_rsp_size_is_hierarchical`: log2 sizes across connections have mean 10.62 and
//!   variance 0.94 + 2.43 = 3.37; within a connection variance 2.43·s averages 2.43.
//! - `gaps_match_section37`: run hyper-parameters (means/variances of loc_B, s_B, loc_W, s_W)
//!   and, within one run, gaps log-normal (base 2) with that run's location and scale.
//! - `workload11_exchanges_match_section8`: ~100,000 connections at rate 100: 9 % persistent,
//!   E[exchanges | persistent] = 3.1946, E[exchanges per connection] = 1.1975; same request
//!   size on every exchange; responses repeat R1 when R1 ≤ 275 B.
//! - `workload11_draw_order_and_determinism`: the emitted connections equal the §3.9 draw order
//!   replayed by hand on the same stream; same stream → same run.

use super::*;
use crate::packmime::*;

const N: usize = 100_000;

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, var)
}

fn assert_near(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} ± {tol}"
    );
}

/// 4 standard errors of a proportion p over n draws.
fn tol_p(p: f64, n: usize) -> f64 {
    4.0 * (p * (1.0 - p) / n as f64).sqrt()
}

#[test]
fn server_delay_cdf_matches_section34() {
    // MODEL.md §3.4: P(delay = 0.1 s) = 1 − exp(−(10/305)^0.63) = 0.1096; quartiles.
    assert_near("atom", 1.0 - server_delay_cdf(0.1 - 1e-12), 0.1096, 5e-5);
    assert_near("F(q25)", server_delay_cdf(0.001952), 0.25, 1e-3);
    assert_near("F(median)", server_delay_cdf(0.005866), 0.5, 1e-3);
    assert_near("F(q75)", server_delay_cdf(0.02369), 0.75, 1e-3);
    assert_eq!(server_delay_cdf(0.1), 1.0);
}

#[test]
fn server_delay_draws_match_section34() {
    let mut r = rng("pm11-delay");
    let mut v: Vec<f64> = (0..N).map(|_| server_delay_s(&mut r)).collect();
    assert!(v.iter().all(|&d| d > 0.0 && d <= 0.1));
    let atom = v.iter().filter(|&&d| d == 0.1).count() as f64 / N as f64;
    assert_near("P(0.1 s)", atom, 0.1096, tol_p(0.1096, N));
    let (m, var) = mean_var(&v);
    assert_near("mean", m, 0.02195, 4.0 * (var / N as f64).sqrt());
    v.sort_by(f64::total_cmp);
    // Quantiles: F(empirical p-quantile) within 4 standard errors of p.
    for p in [0.25, 0.5, 0.75] {
        let q = v[(p * N as f64) as usize - 1];
        assert_near(&format!("F(q{p})"), server_delay_cdf(q), p, tol_p(p, N));
    }
    // KS over the continuous part (x < 0.1): 1 % critical value 1.628/√n = 0.00515.
    let n = N as f64;
    let d = v
        .iter()
        .enumerate()
        .filter(|(_, &x)| x < 0.1)
        .map(|(i, &x)| {
            let f = server_delay_cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max);
    assert!(d < 0.00515, "KS {d}");
}

#[test]
fn persistent_pages_objects_match_section36() {
    let mut r = rng("pm11-pages");
    let pers = (0..N).filter(|_| persistent(&mut r)).count() as f64 / N as f64;
    assert_near("P(persistent)", pers, 0.09, tol_p(0.09, N));

    let pg: Vec<u32> = (0..N).map(|_| pages(&mut r)).collect();
    let one = pg.iter().filter(|&&p| p == 1).count();
    assert_near("P(1 page)", one as f64 / N as f64, 0.82, tol_p(0.82, N));
    assert!(pg.iter().all(|&p| p == 1 || p >= 2));
    let multi: Vec<f64> = pg.iter().filter(|&&p| p > 1).map(|&p| p as f64).collect();
    // Given > 1 page: 2 + geometric with ratio q = e^(−1/0.417) = 0.09089, mean 2.1 (§3.6),
    // variance q/(1−q)² = 0.110.
    let se = (0.110 / multi.len() as f64).sqrt();
    assert_near("E[pages | >1]", mean_var(&multi).0, 2.1, 4.0 * se);

    let ob: Vec<u32> = (0..N).map(|_| objects(&mut r, true)).collect();
    let one = ob.iter().filter(|&&o| o == 1).count();
    assert_near("P(1 object)", one as f64 / N as f64, 0.69, tol_p(0.69, N));
    // Given ≥ 2 objects: 2 + geometric with ratio e^(−1/1.578) = 0.53062, mean 3.1305 (§3.6),
    // variance q/(1−q)² = 2.408.
    let multi: Vec<f64> = ob.iter().filter(|&&o| o > 1).map(|&o| o as f64).collect();
    let se = (2.408 / multi.len() as f64).sqrt();
    assert_near("E[objs | ≥2]", mean_var(&multi).0, 3.1305, 4.0 * se);
    let single: Vec<f64> = (0..N).map(|_| objects(&mut r, false) as f64).collect();
    assert!(single.iter().all(|&o| o >= 2.0));
    let se = (2.408 / N as f64).sqrt();
    assert_near("E[objs | 1 page]", mean_var(&single).0, 3.1305, 4.0 * se);
}

#[test]
fn gamma_has_mean_one_and_variance_one_over_shape() {
    let mut r = rng("pm11-gamma");
    for a in [1.85, 2.35, 3.22] {
        let v: Vec<f64> = (0..N).map(|_| gamma_mean_one(&mut r, a)).collect();
        let (m, var) = mean_var(&v);
        // Var(sample variance) ≈ σ⁴(2 + 6/a)/n (Gamma excess kurtosis 6/a).
        let s4 = 1.0 / (a * a);
        assert_near("mean", m, 1.0, 4.0 * (1.0 / a / N as f64).sqrt());
        assert_near(
            "var",
            var,
            1.0 / a,
            4.0 * (s4 * (2.0 + 6.0 / a) / N as f64).sqrt(),
        );
    }
}

#[test]
fn persist_rsp_size_is_hierarchical() {
    let mut r = rng("pm11-rsp");
    let mut p = PersistRspSize::default();
    // One size per connection: log2 ~ loc + √(2.43 s)·Z, mean 10.62, variance 0.94 + 2.43.
    let v: Vec<f64> = (0..N)
        .map(|_| {
            p.reset();
            p.sample_log2(&mut r)
        })
        .collect();
    let (m, var) = mean_var(&v);
    assert_near("mean log2", m, 10.62, 4.0 * (3.37 / N as f64).sqrt());
    // Var(sample variance) ≈ (μ4 − σ⁴)/n with μ4 = 3·E[(0.94 + 2.43 s)²] = 39.57, σ⁴ = 11.36.
    assert_near(
        "var log2",
        var,
        3.37,
        4.0 * ((39.57 - 11.36) / N as f64).sqrt(),
    );
    // Five sizes per connection: the within-connection variance is 2.43·s, mean 2.43; its
    // sample estimate per connection has variance 2.43²·(E[s²]·E[(χ²₄/4)²] − 1) = 5.70.
    let k = N / 5;
    let within: Vec<f64> = (0..k)
        .map(|_| {
            p.reset();
            let x: Vec<f64> = (0..5).map(|_| p.sample_log2(&mut r)).collect();
            mean_var(&x).1
        })
        .collect();
    assert_near(
        "within var",
        mean_var(&within).0,
        2.43,
        4.0 * (5.70 / k as f64).sqrt(),
    );
    // Sizes are ⌊2^log2⌋.
    p.reset();
    let mut r1 = rng("pm11-rsp-floor");
    let mut r2 = rng("pm11-rsp-floor");
    let mut q = p.clone();
    assert_eq!(p.sample(&mut r1), pow2(q.sample_log2(&mut r2)).floor());
}

#[test]
fn gaps_match_section37() {
    let mut r = rng("pm11-gaps");
    let g: Vec<Gaps> = (0..N).map(|_| Gaps::new(&mut r)).collect();
    let n = N as f64;
    // Normal locations: se of the mean √(σ²/n), of the variance σ²·√(2/n).
    for (what, v, mu, s2) in [
        (
            "loc_B",
            g.iter().map(|x| x.loc_between).collect::<Vec<_>>(),
            3.22,
            0.73,
        ),
        (
            "loc_W",
            g.iter().map(|x| x.loc_within).collect(),
            -4.15,
            3.12,
        ),
    ] {
        let (m, var) = mean_var(&v);
        assert_near(what, m, mu, 4.0 * (s2 / n).sqrt());
        assert_near(what, var, s2, 4.0 * s2 * (2.0 / n).sqrt());
    }
    // Gamma scales s = sd²/c, mean 1, variance 1/a.
    for (what, v, a) in [
        (
            "s_B",
            g.iter()
                .map(|x| x.sd_between.powi(2) / 1.21)
                .collect::<Vec<_>>(),
            1.85,
        ),
        (
            "s_W",
            g.iter().map(|x| x.sd_within.powi(2) / 1.57).collect(),
            2.35,
        ),
    ] {
        let (m, var) = mean_var(&v);
        assert_near(what, m, 1.0, 4.0 * (1.0 / a / n).sqrt());
        let s4 = 1.0 / (a * a);
        assert_near(what, var, 1.0 / a, 4.0 * (s4 * (2.0 + 6.0 / a) / n).sqrt());
    }
    // Within one run, log2 of gaps is normal with the run's location and sd.
    let run = g[0];
    assert_eq!(run.sample(&mut r, 0, 0), 0.0);
    for (page, obj, mu, sd) in [
        (1, 0, run.loc_between, run.sd_between),
        (0, 1, run.loc_within, run.sd_within),
        (3, 2, run.loc_within, run.sd_within),
    ] {
        let v: Vec<f64> = (0..N)
            .map(|_| log2(run.sample(&mut r, page, obj)))
            .collect();
        let (m, var) = mean_var(&v);
        assert_near("run mean", m, mu, 4.0 * sd / n.sqrt());
        assert_near("run var", var, sd * sd, 4.0 * sd * sd * (2.0 / n).sqrt());
    }
}

fn pm11(rate: f64) -> Workload {
    Workload::new(WorkloadConfig::PackMime {
        rate,
        clients: 2,
        servers: 2,
        http: HttpVersion::Http11,
    })
    .unwrap()
}

#[test]
fn workload11_exchanges_match_section8() {
    let mut w = pm11(100.0);
    let log = drive(&mut w, &mut rng("pm11-wl"), secs(1000), |_| None);
    let n = log.len();
    assert!(n > 95_000, "{n} connections");
    let ex: Vec<f64> = log.iter().map(|(_, r)| 1.0 + r.more.len() as f64).collect();
    let pers: Vec<f64> = ex.iter().copied().filter(|&e| e > 1.0).collect();
    // Every persistent connection has ≥ 2 exchanges (one page has ≥ 2 objects), so the share
    // of multi-exchange connections is P(persistent) = 0.09.
    assert_near(
        "persistent",
        pers.len() as f64 / n as f64,
        0.09,
        tol_p(0.09, n),
    );
    let (m, var) = mean_var(&pers);
    assert_near(
        "E[exchanges | persistent]",
        m,
        3.1946,
        4.0 * (var / pers.len() as f64).sqrt(),
    );
    let (m, var) = mean_var(&ex);
    assert_near("E[exchanges]", m, 1.1975, 4.0 * (var / n as f64).sqrt());
    let (mut repeated, mut redrawn) = (0, 0);
    for (_, r) in &log {
        assert!(r.server_delay > SimDuration::ZERO);
        for x in &r.more {
            assert_eq!(x.request_bytes, r.request_bytes);
            assert!(x.response_bytes >= 1 && x.server_delay > SimDuration::ZERO);
            assert!(x.gap > SimDuration::ZERO);
        }
        if r.more.is_empty() {
            continue;
        }
        if r.response_bytes <= 275 {
            assert!(r.more.iter().all(|x| x.response_bytes == r.response_bytes));
            repeated += 1;
        } else if r.more.iter().any(|x| x.response_bytes != r.response_bytes) {
            redrawn += 1;
        }
    }
    // ~9,000 persistent connections; R1 is in the cache-validation state ≈ 28 % of the time.
    assert!(repeated > 1000 && redrawn > 5000, "{repeated} {redrawn}");
}

#[test]
fn workload11_draw_order_and_determinism() {
    let rate = 50.0;
    let log = drive(&mut pm11(rate), &mut rng("pm11-order"), secs(20), |_| None);
    let t = Tables::ns2();
    let mut r = rng("pm11-order");
    let gaps = Gaps::new(&mut r);
    let (mut fa, mut rq, mut rs) = (
        FlowArrive::new(rate),
        RequestSize::new(rate),
        ResponseSize::new(rate),
    );
    let mut prs = PersistRspSize::default();
    let b = |x: f64| x.max(1.0) as u64;
    let dur = |x: f64| SimDuration::from_secs_f64(x);
    let mut at = SimTime::ZERO;
    let mut persistent_seen = 0;
    for (time, req) in &log {
        assert_eq!(*time, at);
        at += dur(fa.sample(&mut r));
        let mut want: Vec<(u64, u64, SimDuration)> = Vec::new(); // (req, rsp, gap)
        if persistent(&mut r) {
            persistent_seen += 1;
            let np = pages(&mut r);
            let objs: Vec<u32> = (0..np).map(|_| objects(&mut r, np > 1)).collect();
            let q = b(rq.sample(&t, &mut r));
            let r1 = b(rs.sample(&t, &mut r).0);
            for (i, &k) in objs.iter().enumerate() {
                for j in 0..k {
                    let g = gaps.sample(&mut r, i as u32, j);
                    want.push((q, r1, dur(g)));
                }
            }
            if r1 > 275 {
                prs.reset();
                for x in want.iter_mut().skip(1) {
                    x.1 = b(prs.sample(&mut r));
                }
            }
        } else {
            let q = b(rq.sample(&t, &mut r));
            want.push((q, b(rs.sample(&t, &mut r).0), SimDuration::ZERO));
        }
        let delays: Vec<SimDuration> = want.iter().map(|_| dur(server_delay_s(&mut r))).collect();
        assert_eq!(req.more.len() + 1, want.len());
        assert_eq!(
            (req.request_bytes, req.response_bytes, req.server_delay),
            (want[0].0, want[0].1, delays[0])
        );
        for (k, x) in req.more.iter().enumerate() {
            let w = want[k + 1];
            assert_eq!(
                (x.request_bytes, x.response_bytes, x.gap, x.server_delay),
                (w.0, w.1, w.2, delays[k + 1])
            );
        }
    }
    assert!(
        log.len() > 900 && persistent_seen > 50,
        "{} {persistent_seen}",
        log.len()
    );
    let again = drive(&mut pm11(rate), &mut rng("pm11-order"), secs(20), |_| None);
    assert_eq!(log, again);
    let other = drive(&mut pm11(rate), &mut rng("pm11-other"), secs(20), |_| None);
    assert_ne!(log, other);
}
