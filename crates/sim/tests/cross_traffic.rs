//! Unresponsive cross traffic (CBR datagrams), two-way traffic on the dumbbell, and the parking
//! lot's routes and per-link loads. Every expected number is worked out in the comments.

mod common;

use aqm::{PacketClass, QueueDisc};
use common::*;
use sim::{DatagramStats, HostPlacement, Topology};
use traffic::{Arrival, DatagramFlow, SizeDist, WorkloadConfig};
use units::{SimDuration, SimTime};

fn cbr(rate_bps: u64, bytes: u32, start_ms: u64, stop_ms: u64) -> WorkloadConfig {
    WorkloadConfig::Cbr(DatagramFlow {
        rate_bps,
        packet_bytes: bytes,
        start: SimTime::from_millis(start_ms),
        stop: Some(SimTime::from_millis(stop_ms)),
        client: 0,
        server: 0,
    })
}

fn link_bytes(out: &sim::RunOutput, name: &str) -> u64 {
    out.link_stats.iter().find(|l| l.0 == name).unwrap().2
}

#[test]
fn cbr_alone_delivers_exactly_rate_times_time() {
    // 1 Mbps of 1000 B packets for 10 s: one packet every 8 ms, 1250 packets, 1.25 MB.
    // Path: 80 µs + 1 ms (access) + 800 µs + 10 ms (bottleneck) + 80 µs + 1 ms = 12.96 ms.
    // With a 5 s warm-up, packet k counts if 8k ms + 12.96 ms ≥ 5000 ms, i.e. k ≥ 624:
    // 1250 − 624 = 626 packets = 626 000 B measured.
    let db = dumbbell(1, 10, droptail(50), None);
    let exp = experiment(db, vec![cbr(1_000_000, 1000, 0, 10_000)], 5, 6, 1);
    let out = run(&exp);
    assert_conservation(&out);
    assert_eq!(
        out.datagrams[0],
        DatagramStats {
            sent_packets: 1250,
            sent_bytes: 1_250_000,
            delivered_packets: 1250,
            delivered_bytes: 1_250_000,
            delivered_bytes_measured: 626_000,
        }
    );
    assert_eq!(link_bytes(&out, "bottleneck_fwd"), 1_250_000);
    assert_eq!(link_bytes(&out, "bottleneck_rev"), 0); // no ACKs: unresponsive
    assert_eq!(out.engine.connections, 0);
}

#[test]
fn cbr_overload_drops_are_class_other() {
    // 12 Mbps of 1000 B packets into a 10 Mbps bottleneck for 10 s: 15 000 packets arrive
    // (one per 666.7 µs), the link sends one per 800 µs: ≈ 12 500 leave by the last arrival,
    // plus the 50 waiting in the drop-tail queue → ≈ 2450 drops, all of class Other.
    let db = dumbbell(1, 10, droptail(50), None);
    let exp = experiment(db, vec![cbr(12_000_000, 1000, 0, 10_000)], 0, 12, 1);
    let out = run(&exp);
    assert_conservation(&out);
    let st = out.bottleneck_queue.stats();
    let other: u64 = st.drops_by_class[PacketClass::Other as usize].iter().sum();
    assert_eq!(other, st.drops());
    assert_eq!(st.arrivals, 15_000);
    let d = &out.datagrams[0];
    assert_eq!(d.sent_packets, 15_000);
    assert_eq!(d.sent_packets - d.delivered_packets, other);
    assert!((2447..=2453).contains(&other), "drops {other}");
}

fn web(rate: f64, n: u32) -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival: Arrival::Poisson { rate },
        request_bytes: SizeDist::Constant { value: 300.0 },
        response_bytes: SizeDist::Constant { value: 10_000.0 },
        clients: n,
        servers: n,
    }
}

#[test]
fn reverse_workload_loads_the_reverse_bottleneck() {
    // 40 responses/s of 10 000 B (3.2 Mbps of payload) with clients on the server side: the
    // responses cross bottleneck_rev; bottleneck_fwd carries only SYNs, 300 B requests, ACKs
    // and FINs (≈ 300 + 10·40 B per response). Per completed response the reverse link carries
    // the 10 000 B plus 7 segment headers + SYN-ACK + FIN + ACKs: between 10 000 and 10 600 B.
    let db = dumbbell(2, 10, droptail(100), None);
    let mut exp = experiment(db, vec![web(40.0, 2)], 0, 30, 3);
    exp.placements = vec![HostPlacement::Reverse];
    let out = run(&exp);
    assert_conservation(&out);
    let n = out.requests.iter().filter(|r| r.completed).count() as u64;
    assert!(n > 1000, "{n} responses");
    let (rev, fwd) = (
        link_bytes(&out, "bottleneck_rev"),
        link_bytes(&out, "bottleneck_fwd"),
    );
    let open = out.requests.len() as u64;
    assert!(
        rev >= n * 10_000 && rev <= open * 10_600,
        "rev {rev} for {n} responses"
    );
    assert!(fwd < open * 800, "fwd {fwd}");
    // The same workload placed forward loads the forward link instead.
    exp.placements = vec![HostPlacement::Default];
    let out = run(&exp);
    assert!(link_bytes(&out, "bottleneck_fwd") > 10 * link_bytes(&out, "bottleneck_rev"));
}

fn groups(clients: &str, servers: &str) -> HostPlacement {
    HostPlacement::Groups {
        clients: clients.into(),
        servers: servers.into(),
    }
}

#[test]
fn parking_lot_unconstrained_link_loads_follow_the_workload_rates() {
    // 100 Mbps router links (unconstrained). For 10 s: end-to-end CBR left → right 3 Mbps
    // (1000 B: 3750 packets = 3.75 MB on every forward link), right → left 1 Mbps (1.25 MB on
    // every reverse link), cross traffic x1 → y1 5 Mbps (6.25 MB on r1_r2 only) and
    // x3 → y3 2 Mbps (2.5 MB on r3_r4 only).
    let mut exp = experiment(
        dumbbell(1, 10, droptail(10), None),
        vec![
            cbr(3_000_000, 1000, 0, 10_000),
            cbr(1_000_000, 1000, 0, 10_000),
            cbr(5_000_000, 1000, 0, 10_000),
            cbr(2_000_000, 1000, 0, 10_000),
        ],
        0,
        11,
        1,
    );
    exp.topology = Topology::ParkingLot(parking_lot(100, droptail(200)));
    exp.placements = vec![
        groups("right", "left"),
        groups("left", "right"),
        groups("y1", "x1"),
        groups("y3", "x3"),
    ];
    let out = run(&exp);
    assert_conservation(&out);
    for i in 0..7 {
        let extra = match i {
            1 => 6_250_000,
            3 => 2_500_000,
            _ => 0,
        };
        assert_eq!(
            link_bytes(&out, &format!("r{i}_r{}", i + 1)),
            3_750_000 + extra
        );
        assert_eq!(link_bytes(&out, &format!("r{}_r{i}", i + 1)), 1_250_000);
    }
    assert_eq!(out.engine.packets_dropped, 0);
    // The summary reports r1_r2: 10 MB in 11 s at 100 Mbps.
    assert!((out.summary.utilization - 10e6 * 8.0 / 11.0 / 100e6).abs() < 1e-9);
    // A workload without named clouds is rejected on a parking lot.
    exp.placements.pop();
    let e = sim::run(&exp, &mut |_, _| {}).unwrap_err();
    assert_eq!(e.key, "workload[3]");
}

#[test]
fn parking_lot_carries_tcp_both_ways_with_conservation() {
    // HTTP end to end in both directions over a congested r1_r2 (10 Mbps links, 6 Mbps of
    // cross CBR on r1_r2): everything is accounted for and responses complete both ways.
    let mut exp = experiment(
        dumbbell(1, 10, droptail(10), None),
        vec![web(20.0, 2), web(20.0, 2), cbr(6_000_000, 1000, 0, 20_000)],
        0,
        20,
        5,
    );
    exp.topology = Topology::ParkingLot(parking_lot(10, droptail(200)));
    exp.placements = vec![
        groups("right", "left"),
        groups("left", "right"),
        groups("y1", "x1"),
    ];
    let out = run(&exp);
    assert_conservation(&out);
    for w in 0..2 {
        let done = out
            .requests
            .iter()
            .filter(|r| r.workload == w && r.completed)
            .count();
        assert!(done > 300, "workload {w}: {done} responses of ≈ 400");
    }
    // r1_r2 carried the forward responses (≈ 20/s · 10 kB = 1.6 Mbps) plus the CBR.
    assert!(link_bytes(&out, "r1_r2") > link_bytes(&out, "r0_r1"));
}

#[test]
fn onoff_through_the_engine_delivers_exactly_what_the_generator_emits() {
    // The engine draws workload i from the stream (seed, "workload:{i}"); replaying the same
    // generator on that stream gives the packets it must send. On an idle 10 Mbps dumbbell
    // with a 50 s stop and a 60 s run, every one of them is delivered, byte for byte (the
    // long-run rate itself is checked in traffic's `onoff` tests).
    let cfg = WorkloadConfig::OnOff {
        flow: DatagramFlow {
            rate_bps: 1_000_000,
            packet_bytes: 1000,
            start: SimTime::ZERO,
            stop: Some(SimTime::from_secs(50)),
            client: 0,
            server: 0,
        },
        on_mean: SimDuration::from_millis(100),
        off_mean: SimDuration::from_millis(100),
        shape: 1.5,
    };
    let mut gen = traffic::Workload::new(cfg.clone()).unwrap();
    let mut rng = units::stream(9, "workload:0");
    let mut out = Vec::new();
    gen.start(SimTime::ZERO, &mut rng, &mut out);
    while let Some(t) = gen.next_deadline() {
        gen.on_timeout(t, &mut rng, &mut out);
    }
    let n = out.len() as u64;
    assert!(n > 1000, "{n}");
    let exp = experiment(dumbbell(1, 10, droptail(50), None), vec![cfg], 0, 60, 9);
    let out = run(&exp);
    assert_conservation(&out);
    let d = &out.datagrams[0];
    assert_eq!((d.sent_packets, d.delivered_packets), (n, n));
    assert_eq!(d.delivered_bytes, n * 1000);
    assert_eq!(link_bytes(&out, "bottleneck_fwd"), n * 1000);
}

#[test]
fn parking_lot_runs_are_deterministic() {
    let mk = || {
        let mut exp = experiment(
            dumbbell(1, 10, droptail(10), None),
            vec![web(30.0, 2), cbr(6_000_000, 1000, 0, 10_000)],
            0,
            10,
            11,
        );
        exp.topology = Topology::ParkingLot(parking_lot(10, droptail(50)));
        exp.placements = vec![groups("right", "left"), groups("y1", "x1")];
        run(&exp)
    };
    let (a, b) = (mk(), mk());
    assert_eq!(a.engine, b.engine);
    assert_eq!(a.requests, b.requests);
    assert_eq!(a.link_stats, b.link_stats);
    assert_eq!(a.datagrams, b.datagrams);
}
