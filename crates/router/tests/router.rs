//! Both directions with a fake clock: the SYN-keyed DelayBox shared by both directions,
//! conservation, monitor rows and summary totals; the spec built from scenario files.

mod common;

use common::*;
use experiment::{DelayBoxConfig, MonitorConfig};
use router::{Direction, Router, RouterSpec};
use std::path::Path as FsPath;
use traffic::SizeDist;
use units::{SimDuration, SimTime};

fn spec(delaybox: Option<DelayBoxConfig>) -> RouterSpec {
    let mut rev = path_spec(10, 10, droptail(100));
    rev.name = "bottleneck_rev".into();
    RouterSpec {
        fwd: path_spec(10, 10, droptail(100)),
        rev,
        delaybox,
        workload_boxes: Vec::new(),
        client_hosts: Vec::new(),
        server_hosts: Vec::new(),
        seed: 1,
        pcap_dir: None,
        monitor: MonitorConfig::default(),
        warmup: SimDuration::from_millis(500),
        epoch: None,
        spin: router::DEFAULT_SPIN,
    }
}

#[test]
fn syn_draw_of_the_delaybox_applies_half_each_way_to_both_directions() {
    // Constant 40 ms extra RTT: 20 ms each way. A 40 B SYN takes 32 µs at 10 Mbps.
    let db = DelayBoxConfig::Distribution {
        rtt_s: SizeDist::Constant { value: 0.040 },
    };
    let mut r = Router::new(&spec(Some(db))).unwrap();
    let syn = tcp(CLIENT, 40000, SERVER, 80, SYN, 0, 40);
    r.offer(SimTime::ZERO, Direction::Rev, syn);
    // 0.032 + 10 + 20 = 30.032 ms.
    assert_eq!(r.next_wakeup(), SimTime::from_micros(32));
    assert!(r
        .poll(SimTime::from_micros(30_031), Direction::Rev)
        .is_none());
    let d = r
        .poll(SimTime::from_micros(30_032), Direction::Rev)
        .unwrap();
    assert_eq!(d.release, SimTime::from_micros(30_032));
    // The SYN-ACK back at that instant: 30.032 + 0.032 + 10 + 20 = 60.064 ms.
    let synack = tcp(SERVER, 80, CLIENT, 40000, SYN | ACK, 0, 40);
    r.offer(d.release, Direction::Fwd, synack);
    let t = SimTime::from_micros(60_064);
    assert!(r
        .poll(SimTime::from_micros(60_063), Direction::Fwd)
        .is_none());
    assert_eq!(r.poll(t, Direction::Fwd).unwrap().release, t);
    // A UDP packet gets no box: 0.032 + 10 ms.
    r.offer(t, Direction::Fwd, udp(40));
    let t2 = t + SimDuration::from_micros(10_032);
    assert_eq!(r.poll(t2, Direction::Fwd).unwrap().release, t2);
    assert_eq!(r.delaybox_draws(), 1);
    let rep = r.finish(SimTime::from_secs(1));
    assert_eq!(
        (rep.fwd.in_packets, rep.fwd.out_packets, rep.rev.out_packets),
        (2, 2, 1)
    );
    assert_eq!(rep.delaybox_draws, 1);
}

#[test]
fn monitors_rows_and_totals_follow_the_simulators_schedule() {
    let mut r = Router::new(&spec(None)).unwrap();
    // 10 full packets forward at t = 0 (before the 0.5 s warm-up) and 5 at t = 0.6 s.
    for _ in 0..10 {
        r.offer(SimTime::ZERO, Direction::Fwd, data(1500, 0));
    }
    for _ in 0..5 {
        r.offer(SimTime::from_millis(600), Direction::Fwd, data(1500, 0));
    }
    // A non-IPv4 packet is discarded and counted apart.
    assert!(r
        .offer(SimTime::from_millis(600), Direction::Rev, vec![0x60; 48])
        .is_none());
    let mut t = SimTime::from_millis(600);
    while t < SimTime::from_secs(2) {
        t = r.next_wakeup().min(SimTime::from_secs(2));
        while r.poll(t, Direction::Fwd).is_some() {}
        while r.poll(t, Direction::Rev).is_some() {}
    }
    let rep = r.finish(SimTime::from_secs(2));
    rep.fwd.check().unwrap();
    rep.rev.check().unwrap();
    assert_eq!(rep.not_ipv4, 1);
    assert_eq!(
        (rep.fwd.in_packets, rep.fwd.out_packets, rep.fwd.out_bytes),
        (15, 15, 22_500)
    );
    // Queue rows every 100 ms for each direction: 20 intervals × 2 links.
    assert_eq!(rep.queue_rows.len(), 40);
    let fwd_rows: Vec<_> = rep
        .queue_rows
        .iter()
        .filter(|q| q.link == "bottleneck_fwd")
        .collect();
    // First 100 ms: 10 packets forwarded (at 0, 1.2, …, 10.8 ms), max queue 9 (after the 10th
    // arrival, one on the wire), queue empty at the end of it.
    assert_eq!(
        (
            fwd_rows[0].t_ns,
            fwd_rows[0].forwarded,
            fwd_rows[0].max_qlen,
            fwd_rows[0].min_qlen
        ),
        (100_000_000, 10, 9, 0)
    );
    // The row at 600 ms closes before the arrivals at 600 ms: they fall in (600, 700] ms.
    assert_eq!((fwd_rows[5].forwarded, fwd_rows[6].forwarded), (0, 5));
    // Link rows every 1 s: 10 + 5 packets in the first second, none in the second.
    let fwd_links: Vec<_> = rep
        .link_rows
        .iter()
        .filter(|l| l.link == "bottleneck_fwd")
        .map(|l| (l.t_ns, l.bytes, l.packets))
        .collect();
    assert_eq!(
        fwd_links,
        vec![(1_000_000_000, 22_500, 15), (2_000_000_000, 0, 0)]
    );
    // Totals from the warm-up (0.5 s) to the end (2 s): the 5 later packets only.
    assert_eq!(rep.totals.fwd_bytes, 7_500);
    assert_eq!(rep.totals.drops.arrivals, 5);
    assert_eq!(rep.totals.measured_ns, 1_500_000_000);
    assert_eq!(rep.totals.bottleneck_bps, 10_000_000);
}

#[test]
fn spec_from_the_quickstart_has_the_simulators_parameters() {
    let root = FsPath::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
    let exps = scenario::load(&root).unwrap();
    let red = exps.iter().find(|e| e.name == "red").unwrap();
    let s = RouterSpec::from_experiment(&red.experiment).unwrap();
    assert_eq!(s.fwd.rate.bps, 10_000_000);
    assert_eq!(s.fwd.delay, SimDuration::from_millis(10));
    assert_eq!(s.fwd.access_delay, SimDuration::from_millis(2));
    assert_eq!(
        (s.fwd.name.as_str(), s.rev.name.as_str()),
        ("bottleneck_fwd", "bottleneck_rev")
    );
    assert_eq!(s.fwd.queue.name(), "red");
    assert_eq!(s.rev.queue, s.fwd.queue);
    assert_eq!(s.seed, 1);
    assert_eq!(s.warmup, SimDuration::from_secs(60));
    match &s.delaybox {
        Some(DelayBoxConfig::Distribution {
            rtt_s: SizeDist::Uniform { min, max },
        }) => {
            assert_eq!((*min, *max), (0.0, 0.150));
        }
        other => panic!("delaybox {other:?}"),
    }
    Router::new(&s).unwrap();
}

#[test]
fn a_parking_lot_is_refused_with_the_reason() {
    let root = FsPath::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/weigle_multi/parking_lot_1congested.toml");
    let exps = scenario::load(&root).unwrap();
    let e = RouterSpec::from_experiment(&exps[0].experiment).unwrap_err();
    assert!(e.contains("dumbbell") && e.contains("parking lot"), "{e}");
}

#[test]
fn a_dual_queues_sojourns_in_the_totals_count_from_the_warm_up() {
    let mut s = spec(None);
    s.fwd.queue = aqm::DisciplineParams::DualPi2(aqm::DualPi2Params::default());
    let mut r = Router::new(&s).unwrap();
    // Before the 0.5 s warm-up: 4 L packets (forgotten at the warm-up). After: 2 C packets at
    // 0.6 s, sojourns 0 and 1.2 ms (1500 B at 10 Mbps).
    for _ in 0..4 {
        r.offer(SimTime::ZERO, Direction::Fwd, data(1500, ECT1));
    }
    for _ in 0..2 {
        r.offer(SimTime::from_millis(600), Direction::Fwd, data(1500, 0));
    }
    let mut t = SimTime::from_millis(600);
    while t < SimTime::from_secs(1) {
        t = r.next_wakeup().min(SimTime::from_secs(1));
        while r.poll(t, Direction::Fwd).is_some() {}
        while r.poll(t, Direction::Rev).is_some() {}
    }
    let d = r.finish(SimTime::from_secs(1)).totals.dual_queue.unwrap();
    assert_eq!((d.l_departures, d.c_departures), (0, 2));
    assert_eq!((d.c_sojourn_mean_ms, d.c_sojourn_max_ms), (0.6, 1.2));
    // A drop-tail bottleneck has no such keys.
    let plain = Router::new(&spec(None))
        .unwrap()
        .finish(SimTime::from_secs(1));
    assert!(plain.totals.dual_queue.is_none());
}
