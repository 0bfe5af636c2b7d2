//! FIN-WAIT-1, FIN-WAIT-2, CLOSING, CLOSE-WAIT, LAST-ACK, TIME-WAIT and CLOSED: the FIN
//! exchange, lost FINs and lost final ACKs, and when `Closed` fires.
//!
//! Lone-endpoint fixtures use SRTT 100 ms (RTO 1 s); pipes use d = 50 ms.

mod util;

use tcp::{AppEvent, Endpoint, State, TcpConfig, TxKind};
use util::*;

/// Server that sent 100 B (acknowledged at 200 ms) and then closed: FIN-WAIT-1, FIN drained.
fn fin_wait_1() -> Endpoint {
    let mut s = server_established(TcpConfig::default());
    s.send(100);
    drain(&mut s, ms(100));
    s.on_segment(ms(200), &seg(1, 101, 0, ACK));
    s.close();
    assert_eq!(s.state(), State::FinWait1);
    let out = drain(&mut s, ms(200));
    assert_eq!(
        out.iter().map(sal).collect::<Vec<_>>(),
        vec![(101, 1, 0, FIN_ACK)]
    );
    assert_eq!(out[0].cwnd_hint, 0);
    s
}

#[test]
fn established_close_puts_the_fin_on_the_last_data_segment() {
    let mut s = server_established(TcpConfig::default());
    s.send(100);
    s.close();
    assert_eq!(
        drain(&mut s, ms(100)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 100, FIN_ACK)]
    );
}

#[test]
fn fin_wait_1_ack_of_fin_then_peer_fin_goes_through_fin_wait_2_to_time_wait() {
    let mut s = fin_wait_1();
    s.on_segment(ms(300), &seg(1, 102, 0, ACK));
    assert_eq!(s.state(), State::FinWait2);
    assert!(drain(&mut s, ms(300)).is_empty());
    assert_eq!(s.next_deadline(), None);
    s.on_segment(ms(400), &seg(1, 102, 0, FIN_ACK));
    assert_eq!(s.state(), State::TimeWait);
    assert_eq!(events(&mut s), vec![AppEvent::PeerClosed, AppEvent::Closed]);
    assert_eq!(
        drain(&mut s, ms(400)).iter().map(sal).collect::<Vec<_>>(),
        vec![(102, 2, 0, ACK)]
    );
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn fin_wait_1_peer_fin_first_goes_through_closing() {
    let mut s = fin_wait_1();
    // Simultaneous close: the peer's FIN does not acknowledge ours.
    s.on_segment(ms(250), &seg(1, 101, 0, FIN_ACK));
    assert_eq!(s.state(), State::Closing);
    assert_eq!(events(&mut s), vec![AppEvent::PeerClosed]);
    assert_eq!(
        drain(&mut s, ms(250)).iter().map(sal).collect::<Vec<_>>(),
        vec![(102, 2, 0, ACK)]
    );
    s.on_segment(ms(300), &seg(2, 102, 0, ACK));
    assert_eq!(s.state(), State::TimeWait);
    assert_eq!(events(&mut s), vec![AppEvent::Closed]);
}

#[test]
fn fin_wait_1_fin_acknowledged_by_the_peer_fin_goes_straight_to_time_wait() {
    let mut s = fin_wait_1();
    s.on_segment(ms(300), &seg(1, 102, 0, FIN_ACK));
    assert_eq!(s.state(), State::TimeWait);
    assert_eq!(events(&mut s), vec![AppEvent::PeerClosed, AppEvent::Closed]);
}

#[test]
fn fin_wait_1_lost_fin_is_retransmitted_after_the_rto() {
    // FIN at 200 ms, timer 1.2 s (RTO 1 s): a lone FIN again, marked as a retransmission.
    let mut s = fin_wait_1();
    assert_eq!(s.next_deadline(), Some(ms(1200)));
    s.on_timeout(ms(1200));
    let out = drain(&mut s, ms(1200));
    assert_eq!(
        out.iter().map(sal).collect::<Vec<_>>(),
        vec![(101, 1, 0, FIN_ACK)]
    );
    assert_eq!(out[0].kind, TxKind::Retransmit);
    assert_eq!(
        (s.stats().fin_retransmits, s.stats().data_retransmits),
        (1, 0)
    );
    assert_eq!(s.next_deadline(), Some(ms(3200)));
}

#[test]
fn close_wait_close_goes_to_last_ack_then_closed() {
    let mut c = client_established(TcpConfig::default());
    c.on_segment(ms(200), &seg(1, 1, 50, FIN_ACK));
    assert_eq!(c.state(), State::CloseWait);
    assert_eq!(
        events(&mut c),
        vec![AppEvent::Data { total: 50 }, AppEvent::PeerClosed]
    );
    assert_eq!(
        drain(&mut c, ms(200)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 52, 0, ACK)]
    );
    c.close();
    assert_eq!(c.state(), State::LastAck);
    assert_eq!(
        drain(&mut c, ms(200)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 52, 0, FIN_ACK)]
    );
    c.on_segment(ms(300), &seg(52, 2, 0, ACK));
    assert_eq!(c.state(), State::Closed);
    assert_eq!(events(&mut c), vec![AppEvent::Closed]);
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn closed_ignores_every_segment() {
    let mut c = client_established(TcpConfig::default());
    c.on_segment(ms(200), &seg(1, 1, 0, FIN_ACK));
    drain(&mut c, ms(200));
    c.close();
    drain(&mut c, ms(200));
    c.on_segment(ms(300), &seg(2, 2, 0, ACK));
    assert_eq!(c.state(), State::Closed);
    events(&mut c);
    for s in [
        seg(1, 2, 0, FIN_ACK),
        seg(2, 2, 100, ACK),
        seg(0, 0, 0, SYN),
    ] {
        c.on_segment(ms(400), &s);
        assert!(drain(&mut c, ms(400)).is_empty());
        assert!(events(&mut c).is_empty());
    }
    c.on_timeout(ms(10_000));
    assert!(drain(&mut c, ms(10_000)).is_empty());
}

#[test]
fn closing_lost_client_fin_is_retransmitted_and_both_sides_close() {
    // Case 7. Request 100 B, response 1 MSS with the FIN: server at 150 ms; client at 200 ms
    // ACKs it (1462) and closes: FIN seq 101, lost. Client RTO 1 s (SRTT 100 ms from the SYN
    // and the request) → FIN again at 1.2 s → server TIME-WAIT at 1.25 s (it was in FIN-WAIT-2
    // since 250 ms) → its ACK reaches the client at 1.3 s: CLOSED.
    let drops = vec![DropRule::Fin {
        side: CLIENT,
        times: 1,
    }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        MSS,
        drops,
    );
    p.run_until(ms(1000));
    assert_eq!(p.eps[SERVER].state(), State::FinWait2);
    assert_eq!(p.eps[CLIENT].state(), State::LastAck);
    p.run();
    let fins: Vec<_> = p
        .sent(CLIENT)
        .into_iter()
        .filter(|s| s.seg.flags.contains(FIN))
        .collect();
    assert_eq!(
        fins.iter()
            .map(|s| (s.t, sal(&s.seg), s.seg.kind))
            .collect::<Vec<_>>(),
        vec![
            (ms(200), (101, 1462, 0, FIN_ACK), TxKind::New),
            (ms(1200), (101, 1462, 0, FIN_ACK), TxKind::Retransmit)
        ]
    );
    assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(1250)));
    assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(1300)));
    assert_eq!(p.completed, Some(ms(200)));
    let st = p.eps[CLIENT].stats();
    assert_eq!(
        (st.fin_retransmits, st.timeouts, st.data_retransmits),
        (1, 1, 0)
    );
}

#[test]
fn closing_lost_server_fin_is_retransmitted_with_the_data() {
    // The server's FIN rides on its only data segment; both lost once. RTO 1 s from 150 ms:
    // data + FIN again at 1.15 s; client complete at 1.2 s, its FIN reaches the server at 1.25 s
    // (TIME-WAIT, Closed), the final ACK the client at 1.3 s.
    let drops = vec![DropRule::Fin {
        side: SERVER,
        times: 1,
    }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        MSS,
        drops,
    );
    p.run();
    assert_eq!(p.completed, Some(ms(1200)));
    assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(1250)));
    assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(1300)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.fin_retransmits, st.data_retransmits, st.timeouts),
        (1, 1, 1)
    );
}

#[test]
fn time_wait_acknowledges_a_retransmitted_fin() {
    // The server's ACK of the client's FIN (its 4th segment: SYN-ACK, ACK of the request,
    // data + FIN, this ACK) is lost. The server entered TIME-WAIT (Closed) at 250 ms; the
    // client repeats its FIN at 200 ms + 1 s = 1.2 s and the server, still in TIME-WAIT,
    // answers: client CLOSED at 1.3 s.
    let drops = vec![DropRule::Nth { side: SERVER, k: 4 }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        MSS,
        drops,
    );
    p.run();
    assert_eq!(p.event_time(SERVER, AppEvent::Closed), Some(ms(250)));
    assert_eq!(p.eps[SERVER].state(), State::TimeWait);
    let acks: Vec<_> = p
        .sent(SERVER)
        .iter()
        .skip(3)
        .map(|s| (s.t, sal(&s.seg), s.dropped))
        .collect();
    assert_eq!(
        acks,
        vec![
            (ms(250), (1462, 102, 0, ACK), true),
            (ms(1250), (1462, 102, 0, ACK), false)
        ]
    );
    assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(1300)));
    // Closed fired once per side.
    assert_eq!(
        p.events.iter().filter(|e| e.2 == AppEvent::Closed).count(),
        2
    );
}

#[test]
fn closing_fin_out_of_order_is_held_until_the_data_before_it_arrives() {
    // Response of 3 segments, the 2nd lost: the 3rd carries the FIN and arrives first, so
    // PeerClosed waits for the hole to be filled (by the timeout retransmission: the one
    // segment after the hole yields a single dupACK).
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: 1461,
        kind: Some(TxKind::New),
        times: 1,
    }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        3 * MSS,
        drops,
    );
    p.run();
    let peer_closed = p.event_time(CLIENT, AppEvent::PeerClosed).unwrap();
    assert_eq!(Some(peer_closed), p.completed);
    // Seg 1, 2 at 150 ms; ACK 1461 at 250 ms releases seg 3 + FIN and restarts the timer
    // (1.25 s): seg 2 again at 1.25 s, hole filled at 1.3 s.
    assert_eq!(peer_closed, ms(1300));
}
