//! Connection-trace replay (`WorkloadConfig::Replay`): a run's own connections, written as a
//! trace and replayed, give that run again connection for connection — the same start and end
//! times, bytes, server delays, base RTTs, retransmissions — on a congested link, with the
//! DelayBox RTTs taken from the trace instead of drawn; and a trace's box RTTs are held at the
//! client's and the server's routers, half per direction, as a workload `delaybox` does.

mod common;
use common::*;
use sim::{BoxRtt, HostPlacement, Topology, WorkloadDelayBox};
use traffic::{parse_replay_csv, WorkloadConfig};

/// Seconds with nine decimals: the exact nanosecond count, read back by `parse_replay_csv`.
fn secs(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

#[test]
fn a_run_replayed_from_its_own_trace_is_the_same_run() {
    // PackMime HTTP/1.0 at 60 connections/s each way over a 10 Mbps dumbbell with a 40-packet
    // drop-tail queue: loss, retransmissions and timeouts happen. The forward workload has a
    // client-side PackMime DelayBox, so its base RTT minus the propagation (2 × 12 ms) is
    // exactly the client box's drawn RTT (the box holds RTT/2 each way, in whole ns).
    let pm = |rate| WorkloadConfig::PackMime {
        rate,
        clients: 2,
        servers: 2,
        http: traffic::HttpVersion::Http10,
    };
    let mut exp = experiment(
        dumbbell(2, 10, droptail(40), None),
        vec![pm(60.0), pm(60.0)],
        0,
        40,
        3,
    );
    exp.placements = vec![HostPlacement::Default, HostPlacement::Reverse];
    exp.delayboxes = vec![WorkloadDelayBox {
        client: Some(BoxRtt::PackMime {
            side: traffic::packmime::RttSide::Client,
            rate: 60.0,
        }),
        server: None,
    }];
    let a = run(&exp);
    assert!(
        a.summary.drops > 50,
        "the link must be congested: {:?}",
        a.summary
    );
    let retx: u32 = a.requests.iter().map(|r| r.data_retx + r.syn_retx).sum();
    assert!(retx > 50, "retransmissions {retx}");

    let prop_rtt = 2 * (1_000_000 + 10_000_000 + 1_000_000);
    let trace = |w: u32| -> String {
        let mut s = String::from(
            "# one line per connection\nstart_s,request_bytes,response_bytes,server_delay_s,\
             client_rtt_s,server_rtt_s\n",
        );
        for r in a.requests.iter().filter(|r| r.workload == w) {
            s += &format!(
                "{},{},{},{},{},0\n",
                secs(r.start_ns),
                r.request_bytes,
                r.response_bytes,
                secs(r.server_delay_ns),
                secs(r.base_rtt_ns - prop_rtt),
            );
        }
        s
    };
    let mut b = exp.clone();
    b.workloads = (0..2)
        .map(|w| WorkloadConfig::Replay {
            conns: parse_replay_csv(&trace(w)).expect("the trace parses"),
            clients: 2,
            servers: 2,
        })
        .collect();
    b.delayboxes = Vec::new();
    let b = run(&b);
    assert_conservation(&b);
    // A run's records also hold the connections still open at the end; the replay opens the
    // same ones, so the two lists match one to one.
    assert_eq!(a.requests.len(), b.requests.len());
    for (x, y) in a.requests.iter().zip(&b.requests) {
        assert_eq!(x, y);
    }
    assert_eq!(a.summary.drops, b.summary.drops);
}

#[test]
fn trace_box_rtts_are_held_at_the_client_and_server_routers() {
    // The parking lot of tests/delaybox.rs: clients on the right (r7), servers on the left
    // (r0), 4 Mbps / 1 ms access and seven 100 Mbps / 1 ms router links. One connection with a
    // client box of 40 ms and a server box of 100 ms: each of its four one-way trips (SYN,
    // SYN-ACK, request with the handshake's ACK, one-segment response) gains 20 + 50 ms; its
    // 25 ms server delay is added once.
    let mut exp = experiment(dumbbell(1, 10, droptail(10), None), Vec::new(), 0, 5, 1);
    exp.topology = Topology::ParkingLot(parking_lot(100, droptail(200)));
    exp.placements = vec![HostPlacement::Groups {
        clients: "right".into(),
        servers: "left".into(),
    }];
    let csv = "start_s,request_bytes,response_bytes,server_delay_s,client_rtt_s,server_rtt_s\n\
               0.5,100,1000,0.025,0.040,0.100\n";
    exp.workloads = vec![WorkloadConfig::Replay {
        conns: parse_replay_csv(csv).unwrap(),
        clients: 1,
        servers: 1,
    }];
    let out = run(&exp);
    assert_eq!(out.requests.len(), 1);
    let r = &out.requests[0];
    assert!(r.completed);
    let mut p = vec![(4_000_000, 1_000_000)];
    p.extend([(100_000_000, 1_000_000); 7]);
    p.push((4_000_000, 1_000_000));
    let plain = 2 * one_way_ns(40, &p) + one_way_ns(140, &p) + one_way_ns(1040, &p);
    assert_eq!(r.start_ns, 500_000_000);
    assert_eq!(r.server_delay_ns, 25_000_000);
    assert_eq!(r.end_ns - r.start_ns, plain + 4 * 70_000_000 + 25_000_000);
    // 2 × (9 links × 1 ms) propagation + the two boxes' 140 ms.
    assert_eq!(r.base_rtt_ns, 18_000_000 + 140_000_000);
}
