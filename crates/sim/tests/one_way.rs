//! `tcp.handshake = false` in the engine (ns-2's one-way agents): on an uncongested dumbbell,
//! one Pareto web source with a long off time has each object to itself, so every object takes
//! exactly the time of its handshake run minus the three 40-byte trips of SYN, SYN-ACK and the
//! handshake ACK (the data then flows identically: same IW, no losses), and the sizes are the
//! same sequence (one draw per object, in order).

mod common;
use common::*;
use traffic::{ParetoSizes, WorkloadConfig};
use units::SimDuration;

const ACCESS: (u64, u64) = (100_000_000, 1_000_000);
const BOTTLENECK: (u64, u64) = (10_000_000, 10_000_000);
const PATH: [(u64, u64); 3] = [ACCESS, BOTTLENECK, ACCESS];

fn records(handshake: bool) -> Vec<metrics::RequestRecord> {
    let web = WorkloadConfig::ParetoWeb {
        flows: 1,
        sizes: ParetoSizes::Pareto,
        shape: 1.2,
        mean_bytes: 10_000.0,
        min_bytes: 1_000.0,
        max_bytes: 200_000.0,
        off_time: SimDuration::from_secs(5),
        clients: 1,
        servers: 1,
    };
    let mut exp = experiment(dumbbell(1, 10, droptail(1000), None), vec![web], 0, 120, 3);
    exp.tcp.handshake = handshake;
    let out = run(&exp);
    assert_eq!(out.summary.drops, 0);
    assert_conservation(&out);
    out.requests.into_iter().filter(|r| r.completed).collect()
}

#[test]
fn one_way_objects_save_exactly_the_handshake() {
    let (with, without) = (records(true), records(false));
    assert!(with.len() >= 15, "{} objects", with.len());
    assert!(without.len() >= with.len());
    let handshake_ns = 3 * one_way_ns(40, &PATH);
    for (a, b) in with.iter().zip(&without) {
        assert_eq!(a.response_bytes, b.response_bytes, "same size sequence");
        let (ta, tb) = (a.end_ns - a.start_ns, b.end_ns - b.start_ns);
        assert_eq!(ta - tb, handshake_ns, "object of {} B", a.response_bytes);
        assert_eq!((b.syn_retx, b.fin_retx, b.data_retx), (0, 0, 0));
    }
}
