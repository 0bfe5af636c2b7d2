//! Simulated-time arithmetic saturates instead of panicking or wrapping (issue 15): a link
//! delay or DelayBox RTT too large for the clock (the scenario loader refuses these; the engine
//! must still not misbehave when built directly) delays its packets past the end of the run;
//! the connections it touches never complete and report a saturated base RTT (u64::MAX), while
//! every other connection runs exactly as without it.

mod common;
use common::*;
use sim::DelayBoxConfig;
use traffic::{Arrival, SizeDist, WorkloadConfig};
use units::SimDuration;

/// Two clients, two servers; each client alternates between the servers (user u on client
/// u % 2, the servers chosen uniformly), 0.2 s think times.
fn users() -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival: Arrival::Users {
            users: 4,
            think_s: SizeDist::Constant { value: 0.2 },
        },
        request_bytes: SizeDist::Constant { value: 300.0 },
        response_bytes: SizeDist::Constant { value: 5000.0 },
        clients: 2,
        servers: 2,
    }
}

fn ms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}

#[test]
fn a_delaybox_cell_beyond_the_clock_saturates_only_its_pair() {
    let matrix = DelayBoxConfig::Matrix {
        rtt: vec![vec![ms(10), SimDuration::MAX], vec![ms(10), ms(10)]],
    };
    let exp = experiment(
        dumbbell(2, 10, droptail(100), Some(matrix)),
        vec![users()],
        0,
        10,
        1,
    );
    let out = run(&exp);
    assert_conservation(&out);
    let (far, near): (Vec<_>, Vec<_>) = out
        .requests
        .iter()
        .partition(|r| (r.client, r.server) == (0, 1));
    assert!(
        !far.is_empty() && near.len() > 20,
        "{} {}",
        far.len(),
        near.len()
    );
    for r in &far {
        assert_eq!(r.base_rtt_ns, u64::MAX, "{r:?}");
        assert!(!r.completed);
    }
    // 2 × (1 + 10 + 1) ms propagation + the 10-ms box.
    for r in near.iter().filter(|r| r.completed) {
        assert_eq!(r.base_rtt_ns, 34_000_000, "{r:?}");
    }
    assert!(near.iter().filter(|r| r.completed).count() > 20);
}

#[test]
fn a_huge_sampled_rtt_saturates_instead_of_wrapping() {
    // 1e30 s: `from_secs_f64` saturates to SimDuration::MAX; before, base_rtt_ns wrapped.
    let rtt = DelayBoxConfig::Distribution {
        rtt_s: SizeDist::Constant { value: 1e30 },
    };
    let exp = experiment(
        dumbbell(2, 10, droptail(100), Some(rtt)),
        vec![users()],
        0,
        5,
        1,
    );
    let out = run(&exp);
    assert_conservation(&out);
    assert!(!out.requests.is_empty());
    assert!(out
        .requests
        .iter()
        .all(|r| r.base_rtt_ns == u64::MAX && !r.completed));
}

#[test]
fn a_link_delay_beyond_the_clock_never_delivers_and_never_panics() {
    let mut db = dumbbell(2, 10, droptail(100), None);
    db.bottleneck_delay = SimDuration::MAX;
    let out = run(&experiment(db, vec![users()], 0, 5, 1));
    assert_conservation(&out);
    // Four users each open one connection whose SYN never arrives.
    assert_eq!(out.requests.len(), 4);
    assert!(out
        .requests
        .iter()
        .all(|r| r.base_rtt_ns == u64::MAX && !r.completed));
    assert_eq!(out.engine.packets_delivered, 0);
}
