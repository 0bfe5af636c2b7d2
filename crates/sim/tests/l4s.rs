//! L4S closed loop (issue 32): DualPI2 (RFC 9332, Linux defaults) with TCP Prague on a dumbbell
//! with a 100 Mbps / 10 ms bottleneck and 1 Gbps / 1 ms access links (base RTT 24 ms, BDP
//! 200 packets of 1500 B), endless bulk flows, 5 s warm-up then 20 s measured.
//!
//! - One Prague flow alone: its packets are all ECT(1), so all in the L queue, whose step
//!   threshold (1 ms, 8.3 packets at 100 Mbps) marks them; the mean queue delay (mean sampled
//!   queue length × 0.12 ms per packet, Little's law with the link busy) stays near the step,
//!   ≤ 2 ms, at ≥ 95 % utilisation.
//! - One Prague and one CUBIC flow at equal RTT: the coupling (k = 2, p_L = 2·p', p_C = p'²)
//!   is designed for equal rates of a scalable and a classic flow (RFC 9332 §2.1: W_L/W_C ≈
//!   1.19 with k = 2 for Reno-friendly flows); public L4S suites measured more than 2:1 for
//!   Prague over CUBIC. The test asserts the ratio lies in [1/3, 3] — wide enough for the
//!   model differences (NewReno recovery, CUBIC's own friendliness region), narrow enough to
//!   catch a broken coupling (without it CUBIC is starved: p' would stay at 0 while the step
//!   keeps the queue short) — and prints the measured figure (docs/queue-disciplines.md): 2.00
//!   with Prague unpaced, 1.30 paced (2026-11-29). The pair's utilisation is held to ≥ 0.90:
//!   unpaced it was ≥ 0.95, paced 0.918 — why pacing costs the pair 4 % of the link is open
//!   (docs/open-questions.md).

mod common;
use aqm::{DisciplineParams, DualPi2Params};
use common::*;
use sim::{DumbbellConfig, Experiment};
use tcp::{TcpConfig, Variant};
use traffic::{BulkFlow, WorkloadConfig};
use units::{Rate, SimTime};

/// ms per 1500-byte packet at 100 Mbps.
const PKT_MS: f64 = 0.12;

fn net() -> DumbbellConfig {
    let mut db = dumbbell(
        2,
        100,
        DisciplineParams::DualPi2(DualPi2Params::default()),
        None,
    );
    db.access_rate = Rate::from_mbps(1000);
    db
}

fn tcp(variant: Variant) -> TcpConfig {
    TcpConfig {
        variant,
        receive_window: 1 << 30,
        ..TcpConfig::default()
    }
}

/// One endless flow from server `i` to client `i`.
fn flow(i: u32) -> WorkloadConfig {
    WorkloadConfig::Bulk {
        flows: vec![BulkFlow {
            start: SimTime::from_millis(10 * i as u64),
            client: i,
            server: i,
            bytes: None,
        }],
    }
}

fn experiment(workloads: Vec<WorkloadConfig>, per: Vec<Option<TcpConfig>>) -> Experiment {
    let mut exp = common::experiment(net(), workloads, 5, 20, 1);
    exp.tcp = tcp(Variant::Cubic);
    exp.workload_tcp = per;
    exp
}

#[test]
fn one_prague_flow_keeps_the_l_queue_near_the_step_at_full_rate() {
    let exp = experiment(vec![flow(0)], vec![Some(tcp(Variant::Prague))]);
    let out = run(&exp);
    assert_conservation(&out);
    let delay = out.summary.mean_qlen * PKT_MS;
    let util = out.summary.utilization;
    eprintln!(
        "Prague alone through DualPI2: mean queue delay {delay:.3} ms, utilisation {util:.4}"
    );
    assert!(delay <= 2.0, "mean queue delay {delay} ms");
    assert!(util >= 0.95, "utilisation {util}");
    // Marks, no drops: the L queue is controlled by ECN alone.
    let fwd = out
        .link_stats
        .iter()
        .find(|l| l.0 == "bottleneck_fwd")
        .unwrap();
    assert!(fwd.1.marks > 0 && fwd.1.drops() == 0, "{:?}", fwd.1);
}

#[test]
fn prague_and_cubic_at_equal_rtt_share_by_the_coupling() {
    let exp = experiment(
        vec![flow(0), flow(1)],
        vec![Some(tcp(Variant::Prague)), None],
    );
    let out = run(&exp);
    assert_conservation(&out);
    let sent = |name: &str| out.link_stats.iter().find(|l| l.0 == name).unwrap().2 as f64;
    let ratio = sent("server0_up") / sent("server1_up");
    let util = out.summary.utilization;
    eprintln!(
        "Prague/CUBIC through DualPI2: throughput ratio {ratio:.3}, utilisation {util:.4}, \
         mean queue {:.2} packets",
        out.summary.mean_qlen
    );
    assert!(
        (1.0 / 3.0..=3.0).contains(&ratio),
        "Prague/CUBIC ratio {ratio}"
    );
    assert!(util >= 0.90, "utilisation {util}");
}
