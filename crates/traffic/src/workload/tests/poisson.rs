//! Open-loop Poisson arrivals.

use super::*;
use crate::distribution::SizeDist;
use rand::Rng as _;
use rand_distr::Exp1;

fn cfg(rate: f64, req: f64, resp: f64) -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival: Arrival::Poisson { rate },
        request_bytes: SizeDist::Constant { value: req },
        response_bytes: SizeDist::Constant { value: resp },
        clients: 4,
        servers: 3,
    }
}

#[test]
fn poisson_count_and_interarrival_cv() {
    // N(10,000 s) ~ Poisson(5·10,000 = 50,000): σ = √50,000 = 223.6, 4σ = 894.4.
    // Gaps ~ Exp(5/s): CV = 1; the CV estimate from 50,000 gaps has SE ≈ 0.006, so ±0.02 > 3 SE.
    let mut w = Workload::new(cfg(5.0, 300.0, 1000.0)).unwrap();
    let log = drive(&mut w, &mut rng("poisson"), secs(10_000), |_| None);
    let n = log.len() as f64;
    assert!((n - 50_000.0).abs() <= 4.0 * 50_000f64.sqrt(), "count {n}");
    let gaps: Vec<f64> = log
        .windows(2)
        .map(|p| (p[1].0 - p[0].0).as_secs_f64())
        .collect();
    let m = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var = gaps.iter().map(|g| (g - m) * (g - m)).sum::<f64>() / (gaps.len() - 1) as f64;
    let cv = var.sqrt() / m;
    assert!((cv - 1.0).abs() <= 0.02, "cv {cv}");
    // Every request: user 0, Http, hosts in range, sizes as configured.
    for (_, r) in &log {
        assert_eq!(
            (r.user, r.kind, r.request_bytes, r.response_bytes),
            (0, FlowKind::Http, 300, 1000)
        );
        assert!(r.client < 4 && r.server < 3);
    }
    // Client 0 is chosen with p = 1/4: Binomial sd = √(n·¼·¾).
    let c0 = log.iter().filter(|(_, r)| r.client == 0).count() as f64;
    assert!(
        (c0 - n / 4.0).abs() <= 4.0 * (n * 0.25 * 0.75).sqrt(),
        "client 0: {c0} of {n}"
    );
}

#[test]
fn poisson_first_arrival_is_one_gap_after_start() {
    let mut r = rng("first");
    let mut replay = r.clone();
    let e: f64 = replay.sample(Exp1);
    let mut w = Workload::new(cfg(5.0, 300.0, 1000.0)).unwrap();
    let mut out = Vec::new();
    let start = secs(3);
    w.start(start, &mut r, &mut out);
    assert!(out.is_empty());
    assert_eq!(
        w.next_deadline(),
        Some(start + SimDuration::from_secs_f64(e / 5.0))
    );
    assert_eq!(r, replay, "start draws exactly one Exp1");
}

#[test]
fn poisson_early_timeout_emits_nothing_late_emits_all_due() {
    let mut w = Workload::new(cfg(5.0, 300.0, 1000.0)).unwrap();
    let mut r = rng("late");
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    // Reference: fire each of the first 5 deadlines exactly on time.
    let (mut w_ref, mut r_ref) = (w.clone(), r.clone());
    let mut ref_out = Vec::new();
    let mut t5 = SimTime::ZERO;
    for _ in 0..5 {
        t5 = w_ref.next_deadline().unwrap();
        w_ref.on_timeout(t5, &mut r_ref, &mut ref_out);
    }
    assert_eq!(ref_out.len(), 5);
    // Early: nothing, deadline unchanged.
    let d1 = w.next_deadline().unwrap();
    w.on_timeout(SimTime(d1.0 - 1), &mut r, &mut out);
    assert!(out.is_empty());
    assert_eq!(w.next_deadline(), Some(d1));
    // Late: one call at t5 emits the same five requests, and the process continues unshifted.
    w.on_timeout(t5, &mut r, &mut out);
    assert_eq!(out, ref_out);
    assert_eq!(w.next_deadline(), w_ref.next_deadline());
    assert_eq!(r, r_ref);
}

#[test]
fn sizes_round_to_whole_bytes() {
    assert_eq!(request_bytes(0.4), 0);
    assert_eq!(request_bytes(0.5), 1);
    assert_eq!(request_bytes(299.5), 300);
    assert_eq!(request_bytes(f64::NAN), 0);
    assert_eq!(request_bytes(1e30), u64::MAX - 1);
    assert_eq!(response_bytes(0.2), 1);
    assert_eq!(response_bytes(0.0), 1);
    assert_eq!(response_bytes(1499.4), 1499);
    assert_eq!(response_bytes(1e30), u64::MAX - 1);
    // Through the workload: request 0.4 → 0 B, response 0.2 → 1 B.
    let mut w = Workload::new(cfg(1000.0, 0.4, 0.2)).unwrap();
    let log = drive(&mut w, &mut rng("round"), secs(1), |_| None);
    assert!(!log.is_empty());
    assert!(log
        .iter()
        .all(|(_, r)| r.request_bytes == 0 && r.response_bytes == 1));
}
