//! Closed-loop tests of the RED family on the engine: long-lived bulk TCP flows through a
//! 10 Mbps bottleneck with Adaptive RED (aqm::ared).
//!
//! ARED on 10 Mbps with 1500-byte packets and a 5 ms target: C = 10⁷/(8·1500) = 833 packets/s,
//! target_delay·C/2 = 2.1 → min_th = 5, max_th = 15, target band (9, 11). The count rule is
//! ns-2's wait rule, as in seed 001's ns-2 runs: at constant p_b the drop gap is uniform on
//! [1/p_b, 2/p_b), so the drop rate is ≈ p_b/1.5, and with avg at the band centre (10) p_b =
//! max_p/2, i.e. drop rate ≈ max_p/3.
//!
//! Path RTT ≈ 2·(1 + 10 + 1) ms = 24 ms, a pipe of 20 packets. With 2 flows each window is
//! ≈ (20 + 10)/2 = 15 packets, which TCP sustains at a loss rate of about (1.22/15)² ≈ 0.007:
//! ARED must bring max_p down to ≈ 0.02, below its initial 0.1. With 20 flows windows are ≈ 1.5
//! packets, where TCP (timeouts included) runs at several percent loss: max_p must go above
//! 0.1. In both runs the controller holds the mean queue near the band.

mod common;
use aqm::{AredParams, Discipline, DisciplineParams, QueueDisc};
use common::*;
use traffic::{BulkFlow, WorkloadConfig};
use units::SimTime;

fn ared_bulk(flows: u32, seed: u64) -> sim::RunOutput {
    let q = DisciplineParams::Ared(AredParams {
        mean_pktsize: 1500,
        limit: 200,
        count_rule: aqm::CountRule::Ns2Wait, // seed 001 ran ns-2 (wait_ true)
        ..Default::default()
    });
    let w = WorkloadConfig::Bulk {
        flows: (0..flows)
            .map(|i| BulkFlow {
                // Staggered starts (1 ms apart) so the flows do not slow-start in lockstep.
                start: SimTime::from_millis(i as u64),
                client: i,
                server: i,
                bytes: None,
            })
            .collect(),
    };
    let mut exp = experiment(dumbbell(flows, 10, q, None), vec![w], 20, 60, seed);
    exp.tcp.receive_window = 1 << 30;
    run(&exp)
}

fn final_ared(out: &sim::RunOutput) -> &aqm::Ared {
    match &out.bottleneck_queue {
        Discipline::Ared(a) => a,
        other => panic!("bottleneck is not ARED: {other:?}"),
    }
}

#[test]
fn ared_holds_avg_between_thresholds_and_moves_max_p_with_load() {
    let few = ared_bulk(2, 1);
    let many = ared_bulk(20, 1);
    for out in [&few, &many] {
        assert_conservation(out);
        let a = final_ared(out);
        let p = a.red_params();
        assert_eq!((p.min_th, p.max_th), (5.0, 15.0));
        // Mean of the queue sampled every 3 ms over the 60 measured seconds.
        let mean_q = out.summary.mean_qlen;
        assert!(
            mean_q >= p.min_th && mean_q <= p.max_th,
            "mean queue {mean_q} outside [{}, {}]",
            p.min_th,
            p.max_th
        );
        // …and near the target band (9, 11), the point of the adaptation.
        assert!((mean_q - 10.0).abs() < 1.5, "mean queue {mean_q}");
        assert!(a.max_p() >= 0.01 && a.max_p() <= 0.5);
        // The queue's own counters satisfy their identities at the end of the run.
        a.stats().check_identities(a.len_packets() as u64).unwrap();
        // No overflow: the 200-packet buffer is far above 2·max_th = 30.
        assert_eq!(a.stats().overflow_drops, 0);
    }
    // Two flows keep the link full; twenty lose some capacity to timeouts.
    assert!(
        few.summary.utilization > 0.95,
        "{}",
        few.summary.utilization
    );
    assert!(
        many.summary.utilization > 0.85,
        "{}",
        many.summary.utilization
    );
    // Loss: ≈ 0.007 needed by two 15-packet windows; several percent for twenty.
    let loss = |o: &sim::RunOutput| {
        let s = final_ared(o).stats();
        s.drops() as f64 / s.arrivals as f64
    };
    assert!(loss(&few) > 0.003 && loss(&few) < 0.015, "{}", loss(&few));
    assert!(loss(&many) > 0.03, "{}", loss(&many));
    let (p2, p20) = (final_ared(&few).max_p(), final_ared(&many).max_p());
    let (inc2, dec2) = final_ared(&few).adaptations();
    let (inc20, dec20) = final_ared(&many).adaptations();
    assert!(
        p2 < 0.1 && dec2 > inc2,
        "2 flows: max_p {p2}, steps +{inc2} −{dec2}"
    );
    assert!(
        p20 > 0.1 && inc20 > dec20,
        "20 flows: max_p {p20}, steps +{inc20} −{dec20}"
    );
    // 80 s of timer: 160 adaptation opportunities, each either a step or a hold.
    assert!(inc2 + dec2 <= 160 && inc20 + dec20 <= 160);
}
