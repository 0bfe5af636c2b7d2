//! `handshake = false`: ns-2's one-way agents (`Agent/TCP` sending to a `TCPSink`, ns-2
//! `tcp/tcp.cc`, `tcp/tcp-sink.cc`): no SYN, SYN-ACK or FIN; the server's data leaves when the
//! connection opens, the client ACKs every segment, and an end that closed finishes once all
//! it sent is acknowledged. Also `initial_ssthresh`, which the one-way open shares with the
//! handshake.
//!
//! Defaults unless stated: MSS 1460, IW 2, receive window 65535, initial RTO 3 s, NewReno, an
//! ACK per segment, one-way delay d = 50 ms, no serialization time.

mod util;

use tcp::{AppEvent, Endpoint, State, TcpConfig};
use util::*;

fn one_way() -> TcpConfig {
    TcpConfig {
        handshake: false,
        ..TcpConfig::default()
    }
}

/// A pipe of one-way agents: the client "connects" at 0, the server (already ESTABLISHED with
/// `Connected` pending) is serviced at once and writes its response, as the engine does.
fn one_way_pipe(cfg: TcpConfig, response: u64, drops: Vec<DropRule>) -> Pipe {
    let mut p = Pipe::http_with(cfg.clone(), cfg, dms(50), 0, response, drops);
    p.service(SERVER);
    p
}

/// Times (ms) at which the server sent payload, one entry per data segment.
fn server_data_times(p: &Pipe) -> Vec<u64> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0)
        .map(|s| s.t.as_nanos() / 1_000_000)
        .collect()
}

#[test]
fn one_way_open_is_established_with_nothing_sent() {
    let mut c = Endpoint::connect(one_way(), ms(0));
    let mut s = Endpoint::listen(one_way());
    for e in [&mut c, &mut s] {
        assert_eq!(e.state(), State::Established);
        assert!(drain(e, ms(0)).is_empty(), "no SYN, no SYN-ACK");
        assert_eq!(events(e), vec![AppEvent::Connected]);
        assert_eq!(
            e.send_sequence(),
            (1, 1, 1),
            "data starts at sequence number 1"
        );
        assert_eq!(e.rcv_nxt(), 1);
        // IW 2, ssthresh = the advertised window (ns-2: ssthresh_ = window_ in reset()).
        assert_eq!((e.cwnd(), e.ssthresh()), (2 * MSS, 65535));
    }
    // The server's first data segment leaves at once: seq 1, a full MSS.
    s.send(3 * MSS);
    let out = drain(&mut s, ms(0));
    assert_eq!(
        out.iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 1460, ACK), (1461, 1, 1460, ACK)]
    );
}

#[test]
fn one_way_ten_segment_response_saves_the_handshake() {
    // No handshake: rounds of 2 (t = 0), 4 (2d) and 4 (4d); the last byte reaches the client at
    // 5d = 250 ms, against 8d with the handshake and the request (established.rs case 2).
    let mut p = one_way_pipe(one_way(), 10 * MSS, vec![]);
    p.run();
    assert_eq!(p.completed, Some(ms(250)));
    assert_eq!(
        server_data_times(&p),
        vec![0, 0, 100, 100, 100, 100, 200, 200, 200, 200]
    );
    // The client finishes on its close at 5d (nothing of its own to send), the server when
    // the ACK of the last segment arrives at 6d; neither sends a SYN or a FIN.
    assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(250)));
    assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(300)));
    assert!(p
        .log
        .iter()
        .all(|s| !s.seg.flags.contains(SYN) && !s.seg.flags.contains(FIN)));
    // Client: 10 pure ACKs (TCPSink, an ACK per packet); server: the 10 data segments.
    assert_eq!(p.eps[CLIENT].stats().segments_sent, 10);
    assert_eq!(p.eps[SERVER].stats().segments_sent, 10);
    assert_eq!(p.eps[SERVER].bytes_acked(), 10 * MSS);
}

#[test]
fn one_way_first_segment_lost_waits_the_initial_rto() {
    // Segment 1 lost, segment 2 arrives (one duplicate ACK, below the threshold of 3). No RTT
    // sample yet, so the timer set at t = 0 runs the initial RTO: retransmission at 3 s (ns-2
    // `rtxcur_init_` 3.0 in ns-2.35), completion at 3.05 s. With the 2004 ns-2 value (6.0):
    // 6.05 s.
    for (rto, done) in [(3u64, 3050u64), (6, 6050)] {
        let cfg = TcpConfig {
            initial_rto: units::SimDuration::from_secs(rto),
            ..one_way()
        };
        let drop = DropRule::Nth { side: SERVER, k: 1 };
        let mut p = one_way_pipe(cfg, 2 * MSS, vec![drop]);
        p.run();
        assert_eq!(p.completed, Some(ms(done)));
        let st = p.eps[SERVER].stats();
        assert_eq!((st.timeouts, st.data_retransmits), (1, 1));
        assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(done + 50)));
    }
}

#[test]
fn one_way_receiver_that_finished_still_acks_a_retransmission() {
    // One segment; the client's ACK of it is lost. The client has completed and closed (it
    // finished at 50 ms), yet still acknowledges the retransmission at 3 s (the initial RTO),
    // so the server finishes at 3.1 s instead of retrying until it gives up.
    let drop = DropRule::Nth { side: CLIENT, k: 1 };
    let mut p = one_way_pipe(one_way(), MSS, vec![drop]);
    p.run();
    assert_eq!(p.completed, Some(ms(50)));
    assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(50)));
    assert_eq!(p.eps[CLIENT].state(), State::TimeWait);
    assert_eq!(server_data_times(&p), vec![0, 3000]);
    assert_eq!(
        p.sent(CLIENT)
            .iter()
            .map(|s| sal(&s.seg))
            .collect::<Vec<_>>(),
        vec![(1, 1461, 0, ACK), (1, 1461, 0, ACK)]
    );
    assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(3100)));
    assert!(!p.events.iter().any(|e| e.2 == AppEvent::Aborted));
}

#[test]
fn initial_ssthresh_sets_the_threshold_in_segments() {
    // Handshake and one-way open alike: ssthresh = initial_ssthresh · MSS (seed 003 §4.7: 50).
    let cfg = TcpConfig {
        initial_ssthresh: Some(50),
        ..TcpConfig::default()
    };
    assert_eq!(server_established(cfg.clone()).ssthresh(), 50 * MSS);
    assert_eq!(client_established(cfg.clone()).ssthresh(), 50 * MSS);
    let ow = TcpConfig {
        handshake: false,
        ..cfg
    };
    assert_eq!(Endpoint::listen(ow).ssthresh(), 50 * MSS);
}

#[test]
fn initial_ssthresh_at_the_initial_window_starts_in_congestion_avoidance() {
    // initial_ssthresh 2 = IW: every ACK adds MSS²/cwnd (RFC 5681 eq. 3, integer bytes).
    // t = 0: 2 segments. 2d: ACK 1 → cwnd 2920 + 730 = 3650, flight 1460 → 1 segment;
    // ACK 2 → 3650 + 584 = 4234, flight 1460 → 1 segment. 4d: ACK 3 → 4234 + 503 = 4737,
    // flight 1460 → 2 segments (the rest). Last byte at 5d = 250 ms; slow start (ssthresh
    // 65535) sends the 4 remaining at 2d and finishes at 3d = 150 ms.
    let cfg = TcpConfig {
        initial_ssthresh: Some(2),
        ..one_way()
    };
    let mut p = one_way_pipe(cfg, 6 * MSS, vec![]);
    p.run();
    assert_eq!(server_data_times(&p), vec![0, 0, 100, 100, 200, 200]);
    assert_eq!(p.completed, Some(ms(250)));
    let mut q = one_way_pipe(one_way(), 6 * MSS, vec![]);
    q.run();
    assert_eq!(server_data_times(&q), vec![0, 0, 100, 100, 100, 100]);
    assert_eq!(q.completed, Some(ms(150)));
}

#[test]
fn one_way_refuses_what_is_agreed_on_the_syn() {
    for (cfg, what) in [
        (
            TcpConfig {
                variant: tcp::Variant::Sack,
                ..one_way()
            },
            "a SACK variant",
        ),
        (
            TcpConfig {
                ecn: true,
                ..one_way()
            },
            "ECN",
        ),
        (
            TcpConfig {
                timestamps: true,
                ..one_way()
            },
            "timestamps",
        ),
        (
            TcpConfig {
                ns2_fulltcp: true,
                ..one_way()
            },
            "ns2_fulltcp",
        ),
    ] {
        let e = cfg.validate().unwrap_err();
        assert_eq!(e.key, "handshake");
        assert!(e.reason.contains(what), "{}", e.reason);
    }
    assert!(one_way().validate().is_ok());
}
