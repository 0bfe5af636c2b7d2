//! BBR (tcp congestion/bbr.rs) in a closed loop: one endless BBR flow alone through a 10 Mbps
//! bottleneck with a 40 ms base RTT (access 1 ms + bottleneck 18 ms + access 1 ms each way).
//! BBR's model (Cardwell et al. 2016): after STARTUP it keeps the bottleneck busy (≥ 90 %)
//! with a standing queue of about one BDP at cwnd gain 2 at most (BDP = 10 Mbit/s · 40 ms =
//! 50 kB ≈ 33 packets of 1500 B), far below a large drop-tail buffer's limit, and it needs no
//! loss to do so.

mod common;

use aqm::{CodelParams, DisciplineParams};
use common::*;
use tcp::Variant;
use traffic::{BulkFlow, WorkloadConfig};
use units::{SimDuration, SimTime};

fn one_flow(queue: DisciplineParams, seed: u64) -> sim::RunOutput {
    let mut db = dumbbell(1, 10, queue, None);
    db.bottleneck_delay = SimDuration::from_millis(18);
    let bulk = WorkloadConfig::Bulk {
        flows: vec![BulkFlow {
            start: SimTime::ZERO,
            client: 0,
            server: 0,
            bytes: None,
        }],
    };
    // Warm-up 5 s covers STARTUP and DRAIN (a few round trips); 30 s measured include two
    // PROBE_RTT episodes (every 10 s).
    let mut exp = experiment(db, vec![bulk], 5, 30, seed);
    exp.tcp.receive_window = 1 << 30;
    exp.tcp.variant = Variant::Bbr;
    let out = run(&exp);
    assert_conservation(&out);
    out
}

#[test]
fn bbr_alone_through_droptail_fills_the_link_with_a_small_queue() {
    let out = one_flow(droptail(1000), 1);
    let s = &out.summary;
    eprintln!(
        "drop-tail 1000: utilization {:.4}, mean queue {:.2} pkts, max {}, drops {}",
        s.utilization, s.mean_qlen, s.max_qlen, s.drops
    );
    assert!(s.utilization >= 0.90, "{}", s.utilization);
    // Standing queue: at most about one BDP (33 packets) on average, never near the limit.
    assert!(s.mean_qlen <= 33.0, "{}", s.mean_qlen);
    assert!(s.max_qlen < 200, "{}", s.max_qlen);
    assert_eq!(s.drops, 0);
}

#[test]
fn bbr_alone_through_codel_keeps_the_link_busy() {
    let out = one_flow(DisciplineParams::Codel(CodelParams::default()), 1);
    let s = &out.summary;
    eprintln!(
        "CoDel: utilization {:.4}, mean queue {:.2} pkts, max {}, drops {}",
        s.utilization, s.mean_qlen, s.max_qlen, s.drops
    );
    assert!(s.utilization >= 0.90, "{}", s.utilization);
    assert!(s.mean_qlen <= 33.0, "{}", s.mean_qlen);
}

#[test]
fn bbr_runs_are_deterministic() {
    let a = one_flow(droptail(1000), 7);
    let b = one_flow(droptail(1000), 7);
    // Debug text: the summary's NaN response-time fields (no responses) never compare equal.
    assert_eq!(format!("{:?}", a.summary), format!("{:?}", b.summary));
    assert_eq!(a.queue, b.queue);
    assert_eq!(format!("{:?}", a.requests), format!("{:?}", b.requests));
}
