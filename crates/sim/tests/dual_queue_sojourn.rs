//! Per-queue sojourns of a coupled dual queue (issue 33): each packet DualPI2 hands over for the
//! wire counts its time since enqueue in the queue it left (`sim::lanes`, `metrics::sojourn`),
//! and the run summary reports the L and C figures of the forward bottleneck after the warm-up.
//!
//! - A scripted sequence through DualPI2 itself, the sojourns computed by hand (the scheduler
//!   serves L first while its credit is ≤ 0, RFC 9332 §4.2.2 as Linux).
//! - Web traffic, half of it TCP Prague (ECT(1): the L queue, kept near its 1 ms step
//!   threshold) and half CUBIC (Not-ECT: the C queue, held near the 15 ms target by p'²): the
//!   L queue's p99 sojourn is below the C queue's; a drop-tail run has no such keys.

mod common;
use aqm::{
    DisciplineParams, DropTail, DropTailParams, DualPi2, DualPi2Params, Ecn, PacketClass,
    PacketMeta, QueueDisc,
};
use common::*;
use metrics::LaneSojourns;
use sim::lanes::record_departure;
use tcp::{TcpConfig, Variant};
use units::SimTime;

fn pkt(id: u32, ecn: Ecn) -> PacketMeta {
    PacketMeta {
        id,
        size_bytes: 1500,
        ecn,
        class: PacketClass::Http,
        cwnd_hint: 0,
        flow: id,
        enqueued_at: SimTime::ZERO,
    }
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

#[test]
fn scripted_departures_count_in_their_own_queue_with_hand_computed_sojourns() {
    // p' stays 0 (no controller update runs), so only the step threshold (1 ms) acts.
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    let mut rng = units::stream(1, "lanes");
    let mut lanes = LaneSojourns::default();
    let mut dropped = Vec::new();
    // t = 0: L1 (ECT(1)), C1 (Not-ECT), C2 (ECT(0): Classic without any_ect); t = 0.5 ms: L2.
    for (t, id, ecn) in [
        (0, 1, Ecn::Ect1),
        (0, 11, Ecn::NotEct),
        (0, 12, Ecn::Ect0),
        (500, 2, Ecn::Ect1),
    ] {
        q.enqueue(us(t), pkt(id, ecn), &mut rng);
    }
    // Departures at 1, 2, 3 and 4.2 ms: L1, L2 (credit −120 000, then −105 000), C1, C2.
    let mut left = Vec::new();
    for t in [1000, 2000, 3000, 4200] {
        let p = q.dequeue(us(t), &mut dropped).expect("a packet waits");
        record_departure(&mut lanes, &q, &p, us(t));
        left.push((p.id, p.ecn));
    }
    assert!(q.dequeue(us(5000), &mut dropped).is_none() && dropped.is_empty());
    // L2 waited 1.5 ms > the step: it leaves CE-marked, still counted in L.
    assert_eq!(
        left,
        [
            (1, Ecn::Ect1),
            (2, Ecn::Ce),
            (11, Ecn::NotEct),
            (12, Ecn::Ect0)
        ]
    );
    // L sojourns 1.0 and 1.5 ms; C sojourns 3.0 and 4.2 ms.
    let s = lanes.summary();
    assert_eq!((s.l_departures, s.c_departures), (2, 2));
    assert_eq!((s.l_sojourn_p50_ms, s.l_sojourn_p99_ms), (1.0, 1.5));
    assert_eq!((s.l_sojourn_mean_ms, s.l_sojourn_max_ms), (1.25, 1.5));
    assert_eq!((s.c_sojourn_p50_ms, s.c_sojourn_p99_ms), (3.0, 4.2));
    assert_eq!(s.c_sojourn_mean_ms, 3.6);

    // A discipline without lanes records nothing.
    let mut dt = DropTail::new(DropTailParams::default()).unwrap();
    dt.enqueue(us(0), pkt(1, Ecn::Ect1), &mut rng);
    let p = dt.dequeue(us(700), &mut dropped).unwrap();
    record_departure(&mut lanes, &dt, &p, us(700));
    assert_eq!((lanes.l.len(), lanes.c.len()), (2, 2));
}

fn web_half_prague(queue: DisciplineParams) -> sim::Experiment {
    // 10 Mbps, two web workloads of 100 conn/s (mean response ≈ 5 kB: ≈ 80 % load), the first
    // CUBIC, the second Prague; 5 s warm-up, 20 s measured.
    let mut exp = experiment(
        dumbbell(2, 10, queue, None),
        vec![web(100.0, 2), web(100.0, 2)],
        5,
        20,
        1,
    );
    let tcp = |variant| TcpConfig {
        variant,
        ..TcpConfig::default()
    };
    exp.tcp = tcp(Variant::Cubic);
    exp.workload_tcp = vec![None, Some(tcp(Variant::Prague))];
    exp
}

#[test]
fn under_web_load_the_l_queue_p99_is_below_the_c_queues() {
    let out = run(&web_half_prague(DisciplineParams::DualPi2(
        DualPi2Params::default(),
    )));
    assert_conservation(&out);
    let s = out.summary.dual_queue.expect("DualPI2 at the bottleneck");
    eprintln!("DualPI2, half Prague web traffic: {s:?}");
    assert!(s.l_departures > 1000 && s.c_departures > 1000, "{s:?}");
    assert!(s.l_sojourn_p99_ms < s.c_sojourn_p99_ms, "{s:?}");
    // Every departure of the measured window is counted once, in one queue or the other.
    let fwd_rows = out.queue.iter().filter(|r| r.link == "bottleneck_fwd");
    let measured: u64 = fwd_rows
        .filter(|r| r.t_ns > 5_000_000_000)
        .map(|r| r.forwarded)
        .sum();
    assert_eq!(s.l_departures + s.c_departures, measured);

    let dt = run(&web_half_prague(droptail(100)));
    assert_eq!(dt.summary.dual_queue, None);
}
