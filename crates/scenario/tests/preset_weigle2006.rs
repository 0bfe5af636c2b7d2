//! The seed 001 preset (`scenarios/weigle2006/dumbbell.toml`): it holds the seed's numbers
//! (Table 2's TCP, §5.1's network, Tables 1/3's queues), and its calibrated rate gives the
//! offered load the study's calibration says (studies/weigle2006/README.md: 136.2 conn/s per
//! cloud per unit of load, so the preset's 109 conn/s each way is 80 % = 8 Mbit/s each way on
//! an unconstrained link).

use aqm::DisciplineParams;
use sim::Topology;
use std::path::Path;
use units::{Rate, SimDuration};

fn load() -> Vec<scenario::NamedExperiment> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    scenario::load(&root.join("scenarios/weigle2006/dumbbell.toml")).expect("the preset loads")
}

#[test]
fn weigle2006_preset_has_the_seed_001_settings() {
    let exps = load();
    let names: Vec<&str> = exps.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "DT-111q",
            "DT-148q",
            "ARED-5ms",
            "ARED-60ms",
            "ARED-ECN-5ms",
            "ARED-ECN-60ms",
            "RED-5-15",
            "RED-30-90"
        ]
    );
    let exp = &exps[0].experiment;
    // §5.4: 120 s warm-up, 250,000 request/response pairs.
    assert_eq!(exp.warmup, SimDuration::from_secs(120));
    assert_eq!(exp.stop_after_responses, Some(250_000));
    // Table 2 (footnote 2): Reno, MSS 1420 B, 10 ms tick, min RTO 1 s, initial RTO 6 s, no
    // delayed ACK, no timestamps, window = BDP = 74 segments.
    let t = &exp.tcp;
    assert_eq!(t.mss, 1420);
    assert_eq!(t.receive_window, 74 * 1420);
    assert_eq!(t.min_rto, SimDuration::from_secs(1));
    assert_eq!(t.initial_rto, SimDuration::from_secs(6));
    assert_eq!(t.clock_granularity, SimDuration::from_millis(10));
    assert_eq!(t.delayed_ack, None);
    assert!(!t.timestamps && !t.ecn);
    let Topology::Dumbbell(d) = &exp.topology else {
        panic!("dumbbell")
    };
    assert_eq!(d.bottleneck_rate, Rate::from_mbps(10));
    assert_eq!(d.access_rate, Rate::from_mbps(20));
    assert!(d.delaybox.is_some(), "RTTs come from the DelayBox");
    // Table 1: drop-tail 1.5 × BDP = 111 packets.
    let DisciplineParams::DropTail(q) = &d.forward_queue else {
        panic!("drop-tail")
    };
    assert_eq!(q.limit, 111);
    // ARED-ECN variants turn ECN on in TCP too.
    assert!(exps[4].experiment.tcp.ecn);
}

#[test]
fn weigle2006_rate_gives_eight_mbps_each_way_unconstrained() {
    // 109 conn/s per cloud on a 100 Mbps bottleneck: the calibration's 0.80 × 10 Mbit/s each
    // way (responses one way + requests and ACKs of the other cloud's connections). PackMime's
    // heavy-tailed, long-range-dependent sizes scatter single 30-minute means by ±8 %
    // (studies/weigle2006/README.md), so the mean of three 15-minute runs must land within 12 %
    // of 8 Mbit/s (measured 2026-11-24: 8.37, 8.45, 8.79 → 8.54).
    let base = load()[0].experiment.clone();
    let mut mbps = Vec::new();
    for seed in 1..=3 {
        let mut exp = base.clone();
        exp.seed = seed;
        exp.warmup = SimDuration::from_secs(20);
        exp.duration = SimDuration::from_secs(900);
        exp.stop_after_responses = None;
        let Topology::Dumbbell(d) = &mut exp.topology else {
            panic!("dumbbell")
        };
        d.bottleneck_rate = Rate::from_mbps(100);
        let out = sim::run(&exp, &mut |_, _| {}).expect("run");
        mbps.push(out.summary.kb_per_s * 8.0 / 1000.0);
    }
    let mean = mbps.iter().sum::<f64>() / mbps.len() as f64;
    eprintln!("forward Mbit/s per seed {mbps:?}, mean {mean:.3}");
    assert!((mean - 8.0).abs() < 0.12 * 8.0, "{mbps:?} → {mean}");
}
