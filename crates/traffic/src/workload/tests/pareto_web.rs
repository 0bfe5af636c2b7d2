//! Seed 003's Pareto web sources.

use super::*;
use crate::workload::pareto_web::pareto_web_size as size;

/// Seed 003 §4.7: shape 1.2, mean 10 KB, min 1 KB, max 2 MB, off time 0.5 s.
fn seed_cfg(flows: u32, off_time: SimDuration) -> WorkloadConfig {
    WorkloadConfig::ParetoWeb {
        flows,
        sizes: ParetoSizes::Pareto,
        shape: 1.2,
        mean_bytes: 10_000.0,
        min_bytes: 1_000.0,
        max_bytes: 2_000_000.0,
        off_time,
        clients: 7,
        servers: 5,
    }
}

// k = 10,000·0.2/1.2 = 1666.667 B > min, so m = k; (k/H)^0.2 = (1/1200)^0.2 = 0.2421746;
// E = k + (k − H·(k/H)^1.2)/0.2 = k + (k/0.2)·(1 − (k/H)^0.2) = 1666.667 + 8333.333·0.7578254
//   = 7981.715 B.
const SEED_MEAN: f64 = 7981.714943193794;

#[test]
fn pareto_web_mean_formula_hand_values() {
    assert!(
        (pareto_web_mean_bytes(ParetoSizes::Pareto, 1.2, 10_000.0, 1_000.0, 2e6) - SEED_MEAN).abs()
            < 1e-6
    );
    // Floor binds: α = 2, mean 2000 → k = 1000; min 1500, max 10⁶:
    // E = 1500 + ∫_1500^10⁶ (1000/x)² dx = 1500 + 10⁶·(1/1500 − 1/10⁶) = 2165.667.
    let e = pareto_web_mean_bytes(ParetoSizes::Pareto, 2.0, 2000.0, 1500.0, 1e6);
    assert!((e - (1500.0 + 1e6 / 1500.0 - 1.0)).abs() < 1e-9, "{e}");
    // k ≥ max: every object is max.
    assert_eq!(
        pareto_web_mean_bytes(ParetoSizes::Pareto, 2.0, 2000.0, 1.0, 500.0),
        500.0
    );
    assert_eq!(
        seed_cfg(1, SimDuration::ZERO).mean_response_bytes(),
        Some(pareto_web_mean_bytes(
            ParetoSizes::Pareto,
            1.2,
            1e4,
            1e3,
            2e6
        ))
    );
}

#[test]
fn pareto_web_all_flows_start_at_zero_in_flow_order() {
    let mut w = Workload::new(seed_cfg(12, SimDuration::from_millis(500))).unwrap();
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut rng("pw-start"), &mut out);
    assert_eq!(out.len(), 12);
    for (f, r) in out.iter().enumerate() {
        let f = f as u32;
        assert_eq!(
            (r.user, r.client, r.server, r.request_bytes, r.kind),
            (f, f % 7, f % 5, 0, FlowKind::Http)
        );
    }
    assert_eq!(w.next_deadline(), None, "every source is transferring");
}

#[test]
fn pareto_web_off_time_is_exact() {
    // The engine completes a transfer after size / 1.25 MB/s (10 Mbps) plus 100 ms.
    let transfer = |r: &Request| SimDuration::from_nanos(r.response_bytes * 800 + 100_000_000);
    let off = SimDuration::from_millis(500);
    let mut w = Workload::new(seed_cfg(10, off)).unwrap();
    let log = drive(&mut w, &mut rng("pw-off"), secs(200), |r| Some(transfer(r)));
    for f in 0..10u32 {
        let mine: Vec<&(SimTime, Request)> = log.iter().filter(|(_, r)| r.user == f).collect();
        assert!(mine.len() > 100, "flow {f}: {}", mine.len());
        assert_eq!(mine[0].0, SimTime::ZERO);
        for p in mine.windows(2) {
            let (t0, r0) = p[0];
            assert_eq!(p[1].0, *t0 + transfer(r0) + off, "flow {f}");
        }
    }
}

#[test]
fn pareto_web_sizes_bounds_mean_and_quantiles() {
    // 200,000 objects from 100 sources (off time 0, instant completion: time stays at 0).
    const N: usize = 200_000;
    let mut w = Workload::new(seed_cfg(100, SimDuration::ZERO)).unwrap();
    let mut r = rng("pw-sizes");
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    let mut sizes = Vec::with_capacity(N);
    let mut next = Vec::new();
    while sizes.len() < N {
        for q in out.drain(..) {
            sizes.push(q.response_bytes as f64);
            w.on_response_complete(SimTime::ZERO, q.user, &mut r, &mut next);
        }
        std::mem::swap(&mut out, &mut next);
    }
    sizes.truncate(N);
    // Bounds: the 1 KB floor never binds because k = 1666.67 B; the smallest object is 1667 B.
    assert!(sizes.iter().all(|&s| (1667.0..=2e6).contains(&s)));
    // Mean: Var = E[X²] − E² with E[X²] = k² + 2k^α(H^(2−α) − k^(2−α))/(2−α) = 2.014118e9,
    // so sd = 44,163 B and SE = sd/√N = 98.75 B; ±4 SE = ±395 B. (Rounding moves E by < 0.5 B.)
    let mean = sizes.iter().sum::<f64>() / N as f64;
    assert!(
        (mean - SEED_MEAN).abs() <= 4.0 * 98.75,
        "mean {mean}, expected {SEED_MEAN}"
    );
    // ECDF P(X ≤ x) = 1 − (k/x)^1.2: x = 2000 → 0.196506, 10⁴ → 0.883529, 10⁵ → 0.992651.
    for (x, f) in [
        (2000.0, 0.196506),
        (10_000.0, 0.883529),
        (100_000.0, 0.992651),
    ] {
        let ecdf = sizes.iter().filter(|&&s| s <= x).count() as f64 / N as f64;
        assert!(
            (ecdf - f).abs() <= 0.005,
            "ECDF({x}) = {ecdf}, expected {f}"
        );
    }
    // Mass at the 2 MB cap: (k/H)^1.2 = 2.0183e-4 → 40.4 expected, Poisson sd 6.35: within 4 sd.
    let capped = sizes.iter().filter(|&&s| s == 2e6).count() as f64;
    assert!(
        (capped - 40.37).abs() <= 4.0 * 40.37f64.sqrt(),
        "capped {capped}"
    );
}

#[test]
fn pareto_web_size_function_clamps() {
    let k = 10_000.0 * 0.2 / 1.2;
    assert_eq!(size(ParetoSizes::Pareto, 0.0, 1.2, k, 1000.0, 2e6), k); // u = 0 → scale
    assert_eq!(
        size(ParetoSizes::Pareto, 0.0, 1.2, 500.0, 1000.0, 2e6),
        1000.0
    ); // floor
    assert_eq!(
        size(ParetoSizes::Pareto, 1.0 - 1e-12, 1.2, k, 1000.0, 2e6),
        2e6
    ); // cap
       // u = 1 − 2^−1.2 → (1 − u)^(−1/1.2) = 2 → 2k.
    let u = 1.0 - 2f64.powf(-1.2);
    assert!((size(ParetoSizes::Pareto, u, 1.2, k, 1000.0, 2e6) - 2.0 * k).abs() < 1e-9);
}

#[test]
fn pareto_web_stale_completion_is_ignored() {
    let mut w = Workload::new(seed_cfg(2, SimDuration::from_millis(500))).unwrap();
    let mut r = rng("pw-stale");
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    out.clear();
    w.on_response_complete(secs(1), 0, &mut r, &mut out);
    assert_eq!(w.next_deadline(), Some(SimTime::from_millis(1500)));
    let before = r.clone();
    w.on_response_complete(secs(1), 0, &mut r, &mut out); // duplicate
    w.on_response_complete(secs(1), 9, &mut r, &mut out); // no such flow
    assert!(out.is_empty());
    assert_eq!(
        (w.next_deadline(), &r),
        (Some(SimTime::from_millis(1500)), &before)
    );
}

// ---- sizes = "pareto_ii": ns-2 RandomVariable/ParetoII (Lomax), issue 34 item 6 ----

/// The seed configuration with ns-2 `ParetoII` sizes.
fn seed_cfg_ii(flows: u32) -> WorkloadConfig {
    match seed_cfg(flows, SimDuration::ZERO) {
        WorkloadConfig::ParetoWeb {
            flows,
            shape,
            mean_bytes,
            min_bytes,
            max_bytes,
            off_time,
            clients,
            servers,
            ..
        } => WorkloadConfig::ParetoWeb {
            flows,
            sizes: ParetoSizes::ParetoII,
            shape,
            mean_bytes,
            min_bytes,
            max_bytes,
            off_time,
            clients,
            servers,
        },
        _ => unreachable!(),
    }
}

// λ = mean·(α − 1) = 2000 B (ns-2 ranvar.cc: paretoII(avg_·(shape_−1), shape_)).
// E = min + λ·((1 + min/λ)^(1−α) − (1 + max/λ)^(1−α))/(α − 1)
//   = 1000 + 2000·(1.5^(−0.2) − 1001^(−0.2))/0.2 = 1000 + 10⁴·(0.9221079 − 0.2511564)
//   = 7709.695 B.
const SEED_MEAN_II: f64 = 7709.694759388497;

#[test]
fn pareto_ii_mean_formula_hand_values() {
    let e = pareto_web_mean_bytes(ParetoSizes::ParetoII, 1.2, 10_000.0, 1_000.0, 2e6);
    assert!((e - SEED_MEAN_II).abs() < 1e-6, "{e}");
    // Almost no clamp: α = 2, mean 2000 → λ = 2000, min 1 B, max 10¹² B:
    // E = 1 + 2000·(2000/2001 − 2000/(2000 + 10¹²)) = 2000.000496 (→ the mean 2000).
    let e = pareto_web_mean_bytes(ParetoSizes::ParetoII, 2.0, 2000.0, 1.0, 1e12);
    assert!((e - 2000.000495750125).abs() < 1e-6, "{e}");
    let m = seed_cfg_ii(1).mean_response_bytes().unwrap();
    assert!(
        (m - SEED_MEAN_II).abs() < 1e-6,
        "the config's analytic mean: {m}"
    );
    assert!((ParetoSizes::ParetoII.scale(1.2, 10_000.0) - 2000.0).abs() < 1e-9);
}

#[test]
fn pareto_ii_size_function_quantiles() {
    let l = 2000.0;
    let s = |u: f64| size(ParetoSizes::ParetoII, u, 1.2, l, 1000.0, 2e6);
    // u = 0 → λ·(1 − 1) = 0, raised to the 1 KB floor (ns-2 Pareto's smallest is its scale).
    assert_eq!(s(0.0), 1000.0);
    // Median: λ·(2^(1/1.2) − 1) = 2000·0.7817974 = 1563.595 B.
    assert!((s(0.5) - 1563.594872561357).abs() < 1e-6, "{}", s(0.5));
    // u = 1 − 2^(−1.2): (1 − u)^(−1/1.2) = 2 → λ·(2 − 1) = λ.
    assert!((s(1.0 - 2f64.powf(-1.2)) - l).abs() < 1e-9);
    // Floor quantile: x < 1000 iff u < 1 − 1.5^(−1.2) = 0.3852614.
    assert_eq!(s(0.385), 1000.0);
    assert!(s(0.3853) > 1000.0);
    assert_eq!(s(1.0 - 1e-12), 2e6); // cap
}

#[test]
fn pareto_ii_sizes_floor_share_and_mean() {
    const N: usize = 200_000;
    let mut w = Workload::new(seed_cfg_ii(100)).unwrap();
    let mut r = rng("pw2-sizes");
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    let mut sizes = Vec::with_capacity(N);
    let mut next = Vec::new();
    while sizes.len() < N {
        for q in out.drain(..) {
            sizes.push(q.response_bytes as f64);
            w.on_response_complete(SimTime::ZERO, q.user, &mut r, &mut next);
        }
        std::mem::swap(&mut out, &mut next);
    }
    sizes.truncate(N);
    assert!(sizes.iter().all(|&s| (1000.0..=2e6).contains(&s)));
    // Share at the floor: 1 − 1.5^(−1.2) = 0.3852614; binomial sd √(p(1−p)/N) = 0.00109.
    let floor = sizes.iter().filter(|&&s| s == 1000.0).count() as f64 / N as f64;
    assert!(
        (floor - 0.3852614).abs() <= 4.0 * 0.00109,
        "floor share {floor}"
    );
    // Median 1563.6 B: P(X ≤ 1563) = 1 − (1 + 1563/2000)^(−1.2) = 0.49990.
    let below = sizes.iter().filter(|&&s| s <= 1563.0).count() as f64 / N as f64;
    assert!((below - 0.4999).abs() <= 0.005, "P(X ≤ 1563) = {below}");
    // Mean: E[Y²] = min² + 2λ²·[t^(2−α)/(2−α) − t^(1−α)/(1−α)] from t = 1.5 to 1001
    // = 2.474225e9, sd = 49,140 B, SE = sd/√N = 109.9 B; ±4 SE.
    let mean = sizes.iter().sum::<f64>() / N as f64;
    assert!(
        (mean - SEED_MEAN_II).abs() <= 4.0 * 109.9,
        "mean {mean}, expected {SEED_MEAN_II}"
    );
}
