//! ESTABLISHED: loss-free transfers timed by hand, delayed ACKs, segment sizes and cwnd hints,
//! the receiver's ACK policy, and early/stale wake-ups.
//!
//! Defaults unless stated: MSS 1460, IW 2, receive window 65535, min RTO 1 s, tick 10 ms,
//! NewReno, delayed ACKs off, one-way delay d, no serialization time.

mod util;

use tcp::{AppEvent, State, TcpConfig, TxKind};
use units::SimTime;
use util::*;

/// Times at which the server sent payload, one entry per data segment.
fn server_data_times(p: &Pipe) -> Vec<u64> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0)
        .map(|s| s.t.as_nanos() / 1_000_000)
        .collect()
}

#[test]
fn established_ten_segment_response_completes_after_four_rtts() {
    // Case 2. Request 100 B, response 10·MSS, IW 2, an ACK per segment. Handshake 2d; request
    // at the server 3d; slow start sends rounds of 2 (3d), 4 (5d: each of 2 ACKs adds 1 MSS and
    // frees 1 → 2 segments per ACK) and 4 (7d, the rest; cwnd would allow 8): the last byte
    // reaches the client at 8d. For d = 50 ms: 400 ms; d = 37 ms: 296 ms.
    for (d, rounds) in [(50u64, [150u64, 250, 350]), (37, [111, 185, 259])] {
        let mut p = Pipe::http(TcpConfig::default(), dms(d), 100, 10 * MSS);
        p.run();
        assert_eq!(p.completed, Some(ms(8 * d)));
        let mut expect = vec![rounds[0]; 2];
        expect.extend([rounds[1]; 4]);
        expect.extend([rounds[2]; 4]);
        assert_eq!(server_data_times(&p), expect);
        // Server cwnd: 2 MSS + 1 MSS per data ACK (10 ACKs, slow start below 65535) = 12 MSS.
        assert_eq!(p.eps[SERVER].cwnd(), 12 * MSS);
        assert_eq!(p.eps[SERVER].bytes_acked(), 10 * MSS);
        assert_eq!(p.eps[CLIENT].bytes_received(), 10 * MSS);
        // Both closed: server TIME-WAIT at 9d (client FIN), client CLOSED at 10d.
        assert_eq!(p.eps[SERVER].state(), State::TimeWait);
        assert_eq!(p.eps[CLIENT].state(), State::Closed);
        assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(9 * d)));
        assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(10 * d)));
        // Segments: client SYN, request, 10 ACKs, FIN = 13; server SYN-ACK, ACK of the request,
        // 10 data (FIN on the last), ACK of the client FIN = 13.
        assert_eq!(p.eps[CLIENT].stats().segments_sent, 13);
        assert_eq!(p.eps[SERVER].stats().segments_sent, 13);
        let st = p.eps[SERVER].stats();
        assert_eq!(
            (st.timeouts, st.fast_retransmits, st.data_retransmits),
            (0, 0, 0)
        );
    }
}

#[test]
fn established_delayed_acks_make_the_ten_segment_response_take_five_rtts() {
    // Case 2 with delayed ACKs (200 ms, longer than the RTT so the timer never fires), d = 50.
    // The request is acknowledged by the response itself (piggyback). Client ACKs every second
    // full segment (2·1460 bytes unacknowledged):
    // 150 ms: server sends 2 → 200: client ACKs once (2921).
    // 250: ACK of 2 segments adds min(2920, MSS) = 1 MSS → cwnd 3 MSS → 3 segments.
    // 300: seg 3, 4 → ACK 5841; seg 5 waits (delayed-ACK timer for 500 ms).
    // 350: cwnd 4 MSS, 1 in flight → 3 segments (6, 7, 8).
    // 400: seg 6 makes 2 unacknowledged → ACK 8761; seg 7, 8 → ACK 11681.
    // 450: cwnd 5 then 6 MSS; the last 2 segments (9, 10 + FIN) leave after the first ACK.
    // 500: seg 9 waits, seg 10 carries the FIN → immediate ACK: last byte at 10d = 500 ms.
    let cfg = TcpConfig {
        delayed_ack: Some(dms(200)),
        ..TcpConfig::default()
    };
    let mut p = Pipe::http(cfg, dms(50), 100, 10 * MSS);
    p.run();
    assert_eq!(p.completed, Some(ms(500)));
    assert_eq!(
        server_data_times(&p),
        vec![150, 150, 250, 250, 250, 350, 350, 350, 450, 450]
    );
    let client_acks: Vec<(u64, u64)> = p
        .sent(CLIENT)
        .iter()
        .filter(|s| s.seg.len == 0 && s.seg.flags == ACK)
        .map(|s| (s.t.as_nanos() / 1_000_000, s.seg.ack))
        .collect();
    assert_eq!(
        client_acks,
        vec![
            (200, 2921),
            (300, 5841),
            (400, 8761),
            (400, 11681),
            (500, 14602)
        ]
    );
    // The server never sent a pure ACK for the request: only SYN-ACK, 10 data, final ACK.
    assert_eq!(p.eps[SERVER].stats().segments_sent, 12);
    // cwnd: 2 MSS + 1 MSS per ACK of new data (5 ACKs) = 7 MSS.
    assert_eq!(p.eps[SERVER].cwnd(), 7 * MSS);
}

#[test]
fn established_transfer_with_serialization_time_adds_each_hop_exactly() {
    // 10 Mb/s both ways = 800 ns per wire byte (payload + 40), d = 50 ms, request 100 B,
    // response 2 MSS. SYN 40 B: sent 0, on the wire 32 µs, arrives 50.032 ms. SYN-ACK: arrives
    // 100.064 ms. Request 140 B (112 µs): arrives 150.176 ms. The server sends its ACK (32 µs)
    // then two 1500-B segments (1.2 ms each) back to back: the last leaves the link at
    // 150.176 + 0.032 + 2.4 = 152.608 ms and arrives at 202.608 ms.
    let mut p = Pipe::http_full(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        800,
        100,
        2 * MSS,
        vec![],
    );
    p.run();
    assert_eq!(
        p.event_time(CLIENT, AppEvent::Connected),
        Some(SimTime::from_micros(100_064))
    );
    assert_eq!(
        p.event_time(SERVER, AppEvent::Connected),
        Some(SimTime::from_micros(150_176))
    );
    assert_eq!(p.completed, Some(SimTime::from_micros(202_608)));
}

#[test]
fn established_segments_are_full_mss_except_the_last_and_carry_the_cwnd_hint() {
    // Server with SRTT 100 ms sends 3000 B at 100 ms: IW 2 → 1460 + 1460 (hint 2); the ACK of the
    // first at 200 ms makes cwnd 3 MSS and the last 80 B go out (hint 3).
    let mut s = server_established(TcpConfig::default());
    s.send(3000);
    let out = drain(&mut s, ms(100));
    assert_eq!(
        out.iter()
            .map(|x| (sal(x), x.cwnd_hint))
            .collect::<Vec<_>>(),
        vec![((1, 1, 1460, ACK), 2), ((1461, 1, 1460, ACK), 2)]
    );
    assert_eq!(s.next_deadline(), Some(ms(1100)));
    s.on_segment(ms(200), &seg(1, 1461, 0, ACK));
    let out = drain(&mut s, ms(200));
    assert_eq!(
        out.iter()
            .map(|x| (sal(x), x.cwnd_hint))
            .collect::<Vec<_>>(),
        vec![((2921, 1, 80, ACK), 3)]
    );
    // The ACK of new data restarted the timer: 200 ms + 1 s.
    assert_eq!(s.next_deadline(), Some(ms(1200)));
    s.on_segment(ms(300), &seg(1, 3001, 0, ACK));
    assert_eq!(s.next_deadline(), None);
    assert_eq!(s.bytes_acked(), 3000);
}

#[test]
fn established_endless_send_is_window_limited() {
    // u64::MAX/4 bytes queued costs nothing: 2 segments (IW), 2 more per ACK in slow start.
    let mut s = server_established(TcpConfig::default());
    s.send(u64::MAX / 4);
    assert_eq!(drain(&mut s, ms(100)).len(), 2);
    s.on_segment(ms(200), &seg(1, 1461, 0, ACK));
    assert_eq!(drain(&mut s, ms(200)).len(), 2);
    // The receive window caps the flight: with cwnd grown past 65535, at most
    // floor(65535/1460) = 44 full segments are outstanding.
    let mut now = 200;
    let mut acked = 1461;
    for _ in 0..200 {
        now += 1;
        acked += 1460;
        s.on_segment(ms(now), &seg(1, acked, 0, ACK));
        drain(&mut s, ms(now));
    }
    let (una, nxt, _) = s.send_sequence();
    assert_eq!((nxt - una) / 1460, 44);
}

#[test]
fn established_early_and_stale_wakeups_do_nothing() {
    // Case 10. Server (RTO 1 s) sends 3 MSS at 100 ms: 2 segments, timer 1.1 s. The ACK of the
    // first at 200 ms restarts the timer (1.2 s) and releases the third segment.
    let mut s = server_established(TcpConfig::default());
    s.send(3 * MSS);
    assert_eq!(drain(&mut s, ms(100)).len(), 2);
    s.on_segment(ms(200), &seg(1, 1461, 0, ACK));
    assert_eq!(drain(&mut s, ms(200)).len(), 1);
    assert_eq!(s.next_deadline(), Some(ms(1200)));
    // Stale wake-up for the old deadline, and an early one: nothing.
    for t in [ms(1100), SimTime::from_nanos(1_199_999_999)] {
        s.on_timeout(t);
        assert!(drain(&mut s, t).is_empty());
        assert!(events(&mut s).is_empty());
        assert_eq!(s.next_deadline(), Some(ms(1200)));
        assert_eq!(s.stats().timeouts, 0);
    }
    // On time: go back to the first unacknowledged byte.
    s.on_timeout(ms(1200));
    let out = drain(&mut s, ms(1200));
    assert_eq!(
        out.iter().map(sal).collect::<Vec<_>>(),
        vec![(1461, 1, 1460, ACK)]
    );
    assert_eq!(out[0].kind, TxKind::Retransmit);
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn established_retransmitted_syn_ack_is_acknowledged_again() {
    let mut c = client_established(TcpConfig::default());
    c.on_segment(ms(3050), &seg(0, 1, 0, SYN_ACK));
    assert_eq!(
        drain(&mut c, ms(3050)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 0, ACK)]
    );
    assert!(events(&mut c).is_empty());
}

#[test]
fn established_out_of_order_segments_get_immediate_duplicate_acks() {
    // Even with delayed ACKs on: out of order → duplicate ACK now; filling the hole → ACK now.
    let cfg = TcpConfig {
        delayed_ack: Some(dms(200)),
        ..TcpConfig::default()
    };
    let mut c = client_established(cfg);
    c.on_segment(ms(200), &seg(1461, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(200)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 0, ACK)]
    );
    assert!(events(&mut c).is_empty());
    c.on_segment(ms(201), &seg(2921, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(201)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 0, ACK)]
    );
    c.on_segment(ms(202), &seg(1, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(202)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 4381, 0, ACK)]
    );
    assert_eq!(events(&mut c), vec![AppEvent::Data { total: 3 * MSS }]);
    // A duplicate (already received) segment is acknowledged at once too.
    c.on_segment(ms(203), &seg(1, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(203)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 4381, 0, ACK)]
    );
}

#[test]
fn established_delayed_ack_timer_fires_after_exactly_the_delay() {
    let cfg = TcpConfig {
        delayed_ack: Some(dms(200)),
        ..TcpConfig::default()
    };
    let mut c = client_established(cfg);
    // One small in-order segment at 150 ms: no ACK yet, deadline 350 ms.
    c.on_segment(ms(150), &seg(1, 1, 500, ACK));
    assert!(drain(&mut c, ms(150)).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(350)));
    // A second small segment does not move the timer and 1000 B < 2·MSS: still nothing.
    c.on_segment(ms(200), &seg(501, 1, 500, ACK));
    assert!(drain(&mut c, ms(200)).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(350)));
    c.on_timeout(ms(349));
    assert!(drain(&mut c, ms(349)).is_empty());
    c.on_timeout(ms(350));
    assert_eq!(
        drain(&mut c, ms(350)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1001, 0, ACK)]
    );
    assert_eq!(c.next_deadline(), None);
    // Two full segments: the second triggers the ACK, the timer is cancelled.
    c.on_segment(ms(400), &seg(1001, 1, 1460, ACK));
    assert!(drain(&mut c, ms(400)).is_empty());
    c.on_segment(ms(401), &seg(2461, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(401)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 3921, 0, ACK)]
    );
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn established_without_delayed_acks_every_segment_is_acked() {
    let mut c = client_established(TcpConfig::default());
    c.on_segment(ms(150), &seg(1, 1, 500, ACK));
    assert_eq!(
        drain(&mut c, ms(150)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 501, 0, ACK)]
    );
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn established_ack_for_unsent_data_is_answered_and_dropped() {
    let mut s = server_established(TcpConfig::default());
    s.on_segment(ms(150), &seg(1, 5000, 10, ACK));
    assert_eq!(
        drain(&mut s, ms(150)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 0, ACK)]
    );
    assert!(events(&mut s).is_empty());
    assert_eq!(s.bytes_received(), 0);
}

#[test]
fn established_zero_request_server_responds_on_connect() {
    // Request size 0: the server writes on Connected, when the client's pure handshake ACK
    // reaches it at 3d = 150 ms (d = 50); the 1-segment response arrives at 4d = 200 ms.
    let mut p = Pipe::http(TcpConfig::default(), dms(50), 0, 1000);
    p.run();
    assert_eq!(p.event_time(SERVER, AppEvent::Connected), Some(ms(150)));
    assert_eq!(p.completed, Some(ms(200)));
    // The client's handshake ACK was a pure ACK.
    assert_eq!(sal(&p.sent(CLIENT)[1].seg), (1, 1, 0, ACK));
}
