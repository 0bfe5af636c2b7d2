//! Bad parameters are rejected with the documented reason; derived quantities.

use super::*;
use crate::distribution::SizeDist;

fn http(
    arrival: Arrival,
    req: SizeDist,
    resp: SizeDist,
    clients: u32,
    servers: u32,
) -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival,
        request_bytes: req,
        response_bytes: resp,
        clients,
        servers,
    }
}

fn c300() -> SizeDist {
    SizeDist::Constant { value: 300.0 }
}

fn pw(flows: u32, shape: f64, min: f64, max: f64) -> WorkloadConfig {
    WorkloadConfig::ParetoWeb {
        flows,
        sizes: ParetoSizes::Pareto,
        shape,
        mean_bytes: 10_000.0,
        min_bytes: min,
        max_bytes: max,
        off_time: SimDuration::from_millis(500),
        clients: 1,
        servers: 1,
    }
}

fn err(cfg: WorkloadConfig) -> String {
    Workload::new(cfg).unwrap_err()
}

#[test]
fn http10_reasons() {
    let p = Arrival::Poisson { rate: 5.0 };
    assert_eq!(
        err(http(p.clone(), c300(), c300(), 0, 1)),
        "clients must be ≥ 1, got 0"
    );
    assert_eq!(
        err(http(p.clone(), c300(), c300(), 1, 0)),
        "servers must be ≥ 1, got 0"
    );
    assert_eq!(
        err(http(Arrival::Poisson { rate: 0.0 }, c300(), c300(), 1, 1)),
        "arrival.rate (connections/s) must be a finite number > 0, got 0"
    );
    assert_eq!(
        err(http(
            Arrival::Users {
                users: 0,
                think_s: c300()
            },
            c300(),
            c300(),
            1,
            1
        )),
        "arrival.users must be ≥ 1, got 0"
    );
    assert_eq!(
        err(http(
            Arrival::Users {
                users: 3,
                think_s: SizeDist::Exponential { mean: 0.0 }
            },
            c300(),
            c300(),
            1,
            1
        )),
        "arrival.think_s: mean must be positive, got 0"
    );
    assert_eq!(
        err(http(
            p.clone(),
            c300(),
            SizeDist::Lognormal {
                mu: 8.0,
                sigma: 0.0
            },
            1,
            1
        )),
        "response_bytes: sigma must be positive, got 0"
    );
    assert_eq!(
        err(http(
            p,
            SizeDist::BoundedPareto {
                shape: 1.2,
                min: 2000.0,
                max: 1000.0
            },
            c300(),
            1,
            1
        )),
        "request_bytes: min (2000) must be below max (1000)"
    );
}

#[test]
fn pareto_web_reasons() {
    assert_eq!(err(pw(0, 1.2, 1e3, 2e6)), "flows must be ≥ 1, got 0");
    assert_eq!(
        err(pw(1, 1.0, 1e3, 2e6)),
        "shape must be > 1 (a Pareto with shape ≤ 1 has no mean), got 1"
    );
    assert_eq!(
        err(pw(1, 1.2, 0.0, 2e6)),
        "min_bytes must be a finite number > 0, got 0"
    );
    assert_eq!(
        err(pw(1, 1.2, 2e6, 1e3)),
        "min_bytes (2000000) must be below max_bytes (1000)"
    );
    assert!(Workload::new(pw(100, 1.2, 1e3, 2e6)).is_ok());
}

#[test]
fn bulk_reasons() {
    assert_eq!(
        err(WorkloadConfig::Bulk { flows: vec![] }),
        "flows: at least one flow is required"
    );
    let f = |bytes| BulkFlow {
        start: SimTime::ZERO,
        client: 0,
        server: 0,
        bytes,
    };
    assert_eq!(
        err(WorkloadConfig::Bulk {
            flows: vec![f(None), f(Some(0))]
        }),
        "flows[1].bytes must be at least 1 (None = endless)"
    );
}

#[test]
fn offered_load_of_open_loop_http() {
    // 225/s × 8 × (E[resp] + E[req]) = 1800 × (4688.478131685436 + 300) = 8,979,260.637 bit/s
    // (E[resp] of the bounded Pareto(1.2, 1 KB, 2 MB): distribution::tests::mean_bounded_pareto_hand_computed).
    let bp = SizeDist::BoundedPareto {
        shape: 1.2,
        min: 1000.0,
        max: 2e6,
    };
    let cfg = http(Arrival::Poisson { rate: 225.0 }, c300(), bp.clone(), 10, 10);
    let bps = cfg.offered_load_bps().unwrap();
    assert!((bps - 8_979_260.637).abs() < 0.01, "{bps}");
    assert_eq!(
        http(
            Arrival::Users {
                users: 1,
                think_s: c300()
            },
            c300(),
            bp,
            1,
            1
        )
        .offered_load_bps(),
        None
    );
    assert_eq!(pw(1, 1.2, 1e3, 2e6).offered_load_bps(), None);
}

#[test]
fn before_start_nothing_happens() {
    let mut w = Workload::new(http(Arrival::Poisson { rate: 5.0 }, c300(), c300(), 1, 1)).unwrap();
    let mut r = rng("pre");
    let mut out = Vec::new();
    assert_eq!(w.next_deadline(), None);
    w.on_timeout(secs(100), &mut r, &mut out);
    w.on_response_complete(secs(100), 0, &mut r, &mut out);
    assert!(out.is_empty());
    // A second start is ignored.
    w.start(SimTime::ZERO, &mut r, &mut out);
    let d = w.next_deadline();
    w.start(SimTime::ZERO, &mut r, &mut out);
    assert_eq!(w.next_deadline(), d);
}
