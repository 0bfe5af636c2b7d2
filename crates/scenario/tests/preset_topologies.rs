//! The seed 002 parking-lot preset and the seed 003 standard dumbbell preset: they load with
//! the seeds' numbers, and a scaled-down run of each conserves packets and loads the links the
//! way the seeds describe.

use aqm::{DisciplineParams, QueueDisc};
use sim::{HostPlacement, Topology};
use std::path::Path;
use units::{Rate, SimDuration};

fn load(rel: &str) -> Vec<scenario::NamedExperiment> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    scenario::load(&root.join(rel)).expect("the preset loads")
}

fn conserve(out: &sim::RunOutput) {
    let e = &out.engine;
    assert_eq!(
        e.packets_created,
        e.packets_delivered + e.packets_dropped + e.packets_in_flight,
        "{e:?}"
    );
}

#[test]
fn pisa_standard_has_seed_003_numbers_and_runs() {
    let exps = load("scenarios/pisa/standard.toml");
    let names: Vec<&str> = exps.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["pi", "pisa", "pimc", "droptail"]);
    let mut exp = exps[0].experiment.clone();
    let Topology::Dumbbell(d) = &exp.topology else {
        panic!("dumbbell")
    };
    // §4.7: 10 Mbps / 10 ms bottleneck, 35 Mbps client side, 30 Mbps server side, 45 ms.
    assert_eq!(d.bottleneck_rate, Rate::from_mbps(10));
    assert_eq!(d.bottleneck_delay, SimDuration::from_millis(10));
    assert_eq!(d.access_rate, Rate::from_mbps(35));
    assert_eq!(d.server_access_rate, Some(Rate::from_mbps(30)));
    assert_eq!(d.access_delay, SimDuration::from_millis(45));
    let DisciplineParams::Pi(pi) = &d.forward_queue else {
        panic!("PI forward")
    };
    assert_eq!((pi.a, pi.b), (1.822e-5, 1.816e-5));
    assert_eq!(exp.placements[2], HostPlacement::Reverse);
    // 20 s instead of 500 s.
    exp.duration = SimDuration::from_secs(20);
    let out = sim::run(&exp, &mut |_, _| {}).expect("run");
    conserve(&out);
    // The CBR (1 Mbps, 1000 B from t = 0) crosses the reverse bottleneck: 125 packets/s,
    // sent at 0, 8, …, 20 000 ms (the run processes events at its end time too): 2501 packets.
    // One-way latency 0.229 + 45 + 0.8 + 10 + 0.267 + 45 = 101.3 ms (+ a little queueing behind
    // ACKs on the reverse link), so packet k arrives by 20 s iff 8k ≤ 19 898.7 ms: k ≤ 2487,
    // 2488 packets (the count only changes if the latency moves by more than ±3 ms).
    let cbr = &out.datagrams[2];
    assert_eq!(cbr.sent_packets, 2501);
    assert_eq!(cbr.delivered_packets, 2488, "{cbr:?}");
    // The forward bottleneck is PI's and busy with FTP + web traffic.
    assert!(out.summary.utilization > 0.8, "{}", out.summary.utilization);
    assert!(out.bottleneck_queue.stats().arrivals > 10_000);
}

#[test]
fn parking_lot_preset_has_seed_002_layout_and_runs() {
    let exps = load("scenarios/weigle_multi/parking_lot_2congested.toml");
    assert_eq!(exps.len(), 2);
    let mix = &exps[1].experiment;
    let Topology::ParkingLot(p) = &mix.topology else {
        panic!("parking lot")
    };
    assert_eq!(p.routers, 8);
    assert_eq!(p.link_rate, Rate::from_mbps(10));
    assert_eq!(p.link_queues.len(), 14);
    let kind = |n: &str| {
        matches!(
            p.link_queues.iter().find(|q| q.0 == n).unwrap().1,
            DisciplineParams::Pi(_)
        )
    };
    assert!(kind("r1_r2") && kind("r2_r1") && kind("r3_r4") && !kind("r2_r3"));
    let mut exp = exps[0].experiment.clone();
    exp.warmup = SimDuration::from_secs(2);
    exp.duration = SimDuration::from_secs(8);
    let out = sim::run(&exp, &mut |_, _| {}).expect("run");
    conserve(&out);
    // Cross traffic enters at r1_r2 and r3_r4 only, so those carry more than r2_r3.
    let bytes = |n: &str| out.link_stats.iter().find(|l| l.0 == n).unwrap().2;
    assert!(bytes("r1_r2") > bytes("r2_r3"));
    assert!(bytes("r3_r4") > bytes("r2_r3"));
    assert!(bytes("r5_r6") > 0);
}
