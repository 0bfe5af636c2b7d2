//! TCP variants and ECN through the engine: CE marks set by a queue reach the receiver and come
//! back as window reductions; every loss-recovery variant keeps a bulk flow at the bottleneck
//! rate with packets conserved.

mod common;

use aqm::{DisciplineParams, RedParams};
use common::*;
use tcp::Variant;
use traffic::{BulkFlow, WorkloadConfig};
use units::SimTime;

fn bulk() -> WorkloadConfig {
    WorkloadConfig::Bulk {
        flows: vec![BulkFlow {
            start: SimTime::ZERO,
            client: 0,
            server: 0,
            bytes: None,
        }],
    }
}

fn red_ecn(ecn: bool) -> DisciplineParams {
    DisciplineParams::Red(RedParams {
        min_th: 5.0,
        max_th: 15.0,
        w_q: 0.002,
        max_p: 0.1,
        limit: 100,
        mean_pktsize: 1500,
        ecn,
        ..Default::default()
    })
}

#[test]
fn ecn_marks_reach_the_sender_as_window_reductions() {
    // One long flow through RED with ECN: RED marks the (ECT) data packets instead of dropping
    // them early; each mark is echoed and the sender reduces at most once per window.
    let mut exp = experiment(dumbbell(1, 10, red_ecn(true), None), vec![bulk()], 5, 20, 1);
    exp.tcp.receive_window = 1 << 30;
    exp.tcp.ecn = true;
    let out = run(&exp);
    assert_conservation(&out);
    assert!(out.summary.marks > 0, "RED marked nothing");
    let r = &out.requests[0];
    assert!(r.ecn_reductions > 0, "{r:?}");
    // Reductions happen at most once per window, and only in answer to a mark.
    assert!(r.ecn_reductions as u64 <= out.summary.marks, "{r:?}");
    assert!(out.summary.utilization > 0.8, "{}", out.summary.utilization);
    // Without ECN at the ends, RED cannot mark (nothing is ECT): it drops instead.
    exp.tcp.ecn = false;
    let out = run(&exp);
    assert_eq!(out.summary.marks, 0);
    assert_eq!(out.requests[0].ecn_reductions, 0);
    assert!(out.summary.drops > 0);
}

#[test]
fn every_variant_keeps_a_bulk_flow_at_the_bottleneck_rate() {
    for v in [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
    ] {
        let mut exp = experiment(dumbbell(1, 10, droptail(20), None), vec![bulk()], 5, 20, 1);
        exp.tcp.receive_window = 1 << 30;
        exp.tcp.variant = v;
        let out = run(&exp);
        assert_conservation(&out);
        assert!(out.summary.drops > 0, "{v:?}");
        assert!(
            out.summary.utilization > 0.9 && out.summary.utilization <= 1.0,
            "{v:?}: {}",
            out.summary.utilization
        );
        assert!(
            out.requests[0].fast_retx > 0,
            "{v:?}: {:?}",
            out.requests[0]
        );
    }
}
