//! Per-workload DelayBoxes (seed 002 §III-B) on the parking lot: a connection's packets are
//! held at its client host's router and at its server host's router, half the drawn RTT in each
//! direction, so one uncongested exchange takes exactly its no-DelayBox time plus one box
//! crossing per packet trip; a workload without boxes is untouched; base RTTs include every
//! link's propagation delay.

mod common;
use common::*;
use sim::{BoxRtt, HostPlacement, Topology, WorkloadDelayBox};
use traffic::{Arrival, SizeDist, WorkloadConfig};

/// Path between a left host and a right host: 4 Mbps / 1 ms access, seven 100 Mbps / 1 ms
/// router links, 4 Mbps / 1 ms access.
fn path() -> Vec<(u64, u64)> {
    let mut p = vec![(4_000_000, 1_000_000)];
    p.extend([(100_000_000, 1_000_000); 7]);
    p.push((4_000_000, 1_000_000));
    p
}

fn one_user() -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival: Arrival::Users {
            users: 1,
            think_s: SizeDist::Constant { value: 0.5 },
        },
        request_bytes: SizeDist::Constant { value: 100.0 },
        response_bytes: SizeDist::Constant { value: 1000.0 },
        clients: 1,
        servers: 1,
    }
}

fn constant_ms(ms: f64) -> Option<BoxRtt> {
    Some(BoxRtt::Dist(SizeDist::Constant { value: ms / 1000.0 }))
}

#[test]
fn each_trip_is_held_at_both_routers_for_half_of_each_box_rtt() {
    // Clients on the right (r7), servers on the left (r0), client box 40 ms, server box
    // 100 ms: every one-way trip of the connection's packets gains 20 + 50 = 70 ms. The same
    // run without boxes gives the plain times.
    let mut exp = experiment(
        dumbbell(1, 10, droptail(10), None),
        vec![one_user()],
        0,
        10,
        1,
    );
    exp.topology = Topology::ParkingLot(parking_lot(100, droptail(200)));
    exp.placements = vec![HostPlacement::Groups {
        clients: "right".into(),
        servers: "left".into(),
    }];
    let bare = run(&exp);
    exp.delayboxes = vec![WorkloadDelayBox {
        client: constant_ms(40.0),
        server: constant_ms(100.0),
    }];
    let boxed = run(&exp);
    // SYN, SYN-ACK, the request (140 B on the wire) with the handshake's ACK, the one-segment
    // response (1040 B): four one-way trips.
    let p = path();
    let plain = 2 * one_way_ns(40, &p) + one_way_ns(140, &p) + one_way_ns(1040, &p);
    for (out, held, base) in [
        (&bare, 0, 18_000_000),
        (&boxed, 4 * 70_000_000, 158_000_000),
    ] {
        assert_conservation(out);
        assert_eq!(out.summary.drops, 0);
        let done: Vec<_> = out.requests.iter().filter(|r| r.completed).collect();
        for r in &done {
            assert_eq!(r.end_ns - r.start_ns, plain + held, "{r:?}");
            // 2 × (9 links × 1 ms) propagation + 2 × 70 ms held.
            assert_eq!(r.base_rtt_ns, base);
        }
        // 10 s of exchanges separated by 0.5 s think times.
        let per = (plain + held) as f64 / 1e9 + 0.5;
        assert!(
            done.len() as f64 >= (10.0 / per).floor() - 1.0,
            "{} done",
            done.len()
        );
    }
    assert!(bare.requests.len() > boxed.requests.len());
}

#[test]
fn cross_traffic_boxes_sit_at_its_own_routers() {
    // Clients at r2 (cloud y1), servers at r1 (x1): 100 Mbps / 1 ms access, one router link.
    // A client box of 30 ms and no server box: +15 ms per trip.
    let mut exp = experiment(
        dumbbell(1, 10, droptail(10), None),
        vec![one_user()],
        0,
        3,
        1,
    );
    exp.topology = Topology::ParkingLot(parking_lot(100, droptail(200)));
    exp.placements = vec![HostPlacement::Groups {
        clients: "y1".into(),
        servers: "x1".into(),
    }];
    exp.delayboxes = vec![WorkloadDelayBox {
        client: constant_ms(30.0),
        server: None,
    }];
    let out = run(&exp);
    let p = [(100_000_000, 1_000_000); 3];
    let plain = 2 * one_way_ns(40, &p) + one_way_ns(140, &p) + one_way_ns(1040, &p);
    let r = &out.requests[0];
    assert!(r.completed);
    assert_eq!(r.end_ns - r.start_ns, plain + 4 * 15_000_000);
    assert_eq!(r.base_rtt_ns, 6_000_000 + 30_000_000);
}
