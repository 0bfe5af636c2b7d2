//! `validation/ns2/pi_rem_side_by_side.toml` (the aqmlab half of the PI/REM side-by-side with
//! ns-2) parses to exactly the experiments `crates/sim/tests/aqm_pi_rem.rs` builds in Rust.

use aqm::{DisciplineParams, PiParams, RemParams};
use sim::Topology;
use std::path::Path;
use traffic::WorkloadConfig;
use units::{Rate, SimDuration, SimTime};

#[test]
fn side_by_side_scenario_matches_the_engine_test() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/ns2/pi_rem_side_by_side.toml");
    let exps = scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = exps.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["pi", "rem", "rem_1000"]);
    let pi = PiParams {
        q_ref: 100.0,
        limit: 400,
        ..Default::default()
    };
    let rem = |mean_pktsize| RemParams {
        b_star: 20.0,
        mean_pktsize,
        limit: 200,
        ..Default::default()
    };
    let queues = [
        DisciplineParams::Pi(pi),
        DisciplineParams::Rem(rem(1500)),
        DisciplineParams::Rem(rem(1000)),
    ];
    for (e, q) in exps.iter().zip(queues) {
        let x = &e.experiment;
        assert_eq!(
            (x.warmup, x.duration),
            (SimDuration::from_secs(60), SimDuration::from_secs(180))
        );
        assert!(x.tcp.receive_window >= 1_000_000_000);
        let Topology::Dumbbell(d) = &x.topology else {
            panic!("expected a dumbbell");
        };
        assert_eq!((d.clients, d.servers), (20, 20));
        assert_eq!(
            (d.bottleneck_rate, d.bottleneck_delay),
            (Rate::from_mbps(10), SimDuration::from_millis(50))
        );
        assert_eq!(
            (d.access_rate, d.access_delay),
            (Rate::from_mbps(100), SimDuration::from_millis(1))
        );
        assert_eq!(d.forward_queue, q);
        let [WorkloadConfig::Bulk { flows }] = x.workloads.as_slice() else {
            panic!("one bulk workload expected")
        };
        assert_eq!(flows.len(), 20);
        for (i, f) in flows.iter().enumerate() {
            assert_eq!(
                (f.start, f.client, f.server, f.bytes),
                (
                    SimTime::from_millis(50 * i as u64),
                    i as u32,
                    i as u32,
                    None
                )
            );
        }
    }
}
