//! Pass-through links (`crates/sim/src/pass_through.rs`) change how much work a run costs, not
//! what it computes: the same run with them (the default) and without them (an experiment that
//! may stop early simulates every link event by event) gives the same rows, summary, per-link
//! counters and packet counts; only the number of events differs. The run is two-way web
//! traffic with slow, short-buffered server access links, so the pass-through links (every
//! server's down link, fed only by the reverse bottleneck) queue and drop; their round rates
//! (4 Mbps up and down) make equal-time events at the hosts common, which the release of
//! far-end arrivals must order as the event-by-event engine does.

mod common;
use common::*;
use sim::{DelayBoxConfig, HostPlacement};
use traffic::SizeDist;
use units::Rate;

fn two_way(stop_early: bool) -> sim::Experiment {
    let mut db = dumbbell(
        5,
        10,
        droptail(60),
        Some(DelayBoxConfig::Distribution {
            rtt_s: SizeDist::Uniform {
                min: 0.0,
                max: 0.1,
            },
        }),
    );
    db.server_access_rate = Some(Rate::from_mbps(4));
    db.access_queue = droptail(8);
    let mut exp = experiment(db, vec![web(60.0, 5), web(60.0, 5)], 2, 20, 3);
    exp.placements = vec![HostPlacement::Default, HostPlacement::Reverse];
    if stop_early {
        // Never reached, but it switches pass-through links off (the end is not known).
        exp.stop_after_responses = Some(u64::MAX);
    }
    exp
}

#[test]
fn pass_through_links_give_the_event_by_event_results() {
    let fast = run(&two_way(false));
    let full = run(&two_way(true));
    // The first differing request, if any, rather than two 2,700-record dumps.
    assert_eq!(fast.requests.len(), full.requests.len());
    if let Some(i) = (0..fast.requests.len()).find(|&i| fast.requests[i] != full.requests[i]) {
        panic!(
            "request {i} differs:\n{:?}\n{:?}",
            fast.requests[i], full.requests[i]
        );
    }
    assert_eq!(fast.queue, full.queue);
    assert_eq!(fast.links, full.links);
    assert_eq!(fast.summary, full.summary);
    assert_eq!(fast.link_stats, full.link_stats);
    assert_eq!(fast.datagrams, full.datagrams);
    let (mut a, mut b) = (fast.engine.clone(), full.engine.clone());
    assert!(a.events < b.events, "{} vs {}", a.events, b.events);
    (a.events, b.events) = (0, 0);
    assert_eq!(a, b);
    assert_conservation(&fast);
    // The server down links did queue and drop, so the drop path was taken.
    let server_down_drops: u64 = fast
        .link_stats
        .iter()
        .filter(|(name, _, _)| name.starts_with("server") && name.ends_with("_down"))
        .map(|(_, st, _)| st.overflow_drops)
        .sum();
    assert!(server_down_drops > 0, "no drop on the server down links");
}
