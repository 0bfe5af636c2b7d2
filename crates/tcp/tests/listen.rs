//! LISTEN and SYN-RECEIVED: the server's half of the handshake, lost SYN-ACKs, duplicate SYNs
//! and the SYN-ACK retry limit.
//!
//! Defaults unless stated: MSS 1460, IW 2, initial RTO 3 s, min RTO 1 s, tick 10 ms,
//! max_syn_retries 6, one-way delay 50 ms.

mod util;

use tcp::{AppEvent, Endpoint, State, TcpConfig, TxKind};
use units::{SimDuration, SimTime};
use util::*;

#[test]
fn listen_syn_gets_syn_ack_and_starts_the_timer() {
    let mut s = Endpoint::listen(TcpConfig::default());
    assert!(drain(&mut s, ms(0)).is_empty());
    s.on_segment(ms(50), &seg(0, 0, 0, SYN));
    assert_eq!(s.state(), State::SynReceived);
    let out = drain(&mut s, ms(50));
    assert_eq!(
        out.iter().map(sal).collect::<Vec<_>>(),
        vec![(0, 1, 0, SYN_ACK)]
    );
    assert_eq!(
        (out[0].wnd, out[0].kind, out[0].cwnd_hint),
        (65535, TxKind::New, 0)
    );
    assert_eq!(s.next_deadline(), Some(ms(3050)));
    assert!(events(&mut s).is_empty());
}

#[test]
fn listen_ignores_anything_but_a_syn() {
    let mut s = Endpoint::listen(TcpConfig::default());
    s.on_segment(ms(1), &seg(1, 1, 0, ACK));
    s.on_segment(ms(2), &seg(1, 1, 100, ACK));
    s.on_segment(ms(3), &seg(0, 1, 0, SYN_ACK));
    assert!(drain(&mut s, ms(3)).is_empty());
    assert_eq!(s.state(), State::Listen);
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn listen_close_closes_at_once() {
    let mut s = Endpoint::listen(TcpConfig::default());
    s.close();
    assert_eq!(s.state(), State::Closed);
    assert_eq!(events(&mut s), vec![AppEvent::Closed]);
}

#[test]
fn syn_received_ack_establishes_with_an_rtt_sample() {
    // SYN-ACK sent at 0, ACK at 100 ms: SRTT 100 ms, RTTVAR 50 ms, RTO = max(1 s, 300 ms).
    let s = server_established(TcpConfig::default());
    assert_eq!(s.srtt(), Some(SimDuration::from_millis(100)));
    assert_eq!(s.rttvar(), SimDuration::from_millis(50));
    assert_eq!(s.rto(), SimDuration::from_secs(1));
    assert_eq!(s.cwnd(), 2 * MSS);
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn syn_received_data_with_the_handshake_ack_is_delivered() {
    let mut s = Endpoint::listen(TcpConfig::default());
    s.on_segment(ms(0), &seg(0, 0, 0, SYN));
    drain(&mut s, ms(0));
    s.on_segment(ms(100), &seg(1, 1, 300, ACK));
    assert_eq!(
        events(&mut s),
        vec![AppEvent::Connected, AppEvent::Data { total: 300 }]
    );
    assert_eq!(
        drain(&mut s, ms(100)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 301, 0, ACK)]
    );
}

#[test]
fn syn_received_duplicate_syn_resends_syn_ack_and_restarts_the_timer() {
    let mut s = Endpoint::listen(TcpConfig::default());
    s.on_segment(ms(0), &seg(0, 0, 0, SYN));
    drain(&mut s, ms(0));
    s.on_segment(ms(2900), &seg(0, 0, 0, SYN));
    let out = drain(&mut s, ms(2900));
    assert_eq!(
        out.iter().map(sal).collect::<Vec<_>>(),
        vec![(0, 1, 0, SYN_ACK)]
    );
    assert_eq!(out[0].kind, TxKind::Retransmit);
    assert_eq!(s.stats().syn_retransmits, 1);
    // Timer restarted from 2.9 s with the unchanged RTO of 3 s.
    assert_eq!(s.next_deadline(), Some(ms(5900)));
    // The handshake ACK: no RTT sample (Karn), IW = 1 MSS (RFC 5681 §3.1).
    s.on_segment(ms(3000), &seg(1, 1, 0, ACK));
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.srtt(), None);
    assert_eq!(s.cwnd(), MSS);
}

#[test]
fn syn_received_duplicate_syn_at_the_instant_of_a_timer_retransmission_is_not_answered_twice() {
    // Engine order at a tie: the server's timer (armed at 0) fires at 3 s before the client's
    // repeated SYN (sent later) is delivered at 3 s. One SYN-ACK only.
    let mut s = Endpoint::listen(TcpConfig::default());
    s.on_segment(ms(0), &seg(0, 0, 0, SYN));
    drain(&mut s, ms(0));
    s.on_timeout(ms(3000));
    assert_eq!(drain(&mut s, ms(3000)).len(), 1);
    s.on_segment(ms(3000), &seg(0, 0, 0, SYN));
    assert!(drain(&mut s, ms(3000)).is_empty());
    // Backed-off timer: 3 + 6 = 9 s.
    assert_eq!(s.next_deadline(), Some(ms(9000)));
    assert_eq!(s.stats().syn_retransmits, 1);
}

#[test]
fn syn_received_lost_syn_ack_gives_both_ends_an_initial_window_of_one_segment() {
    // SYN at 0 reaches the server at 50 ms; its SYN-ACK is lost. The client's timer fires first
    // (3 s): SYN again, at the server 3.05 s → duplicate SYN → SYN-ACK again at 3.05 s (the
    // server's own timer, due at 3.05 s too, was restarted by it) → client ESTABLISHED 3.1 s,
    // server 3.15 s. Both retransmitted their handshake segment, so both start with IW 1 MSS.
    let drops = vec![DropRule::Nth { side: SERVER, k: 1 }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        3 * MSS,
        drops,
    );
    p.run_until(ms(3150));
    assert_eq!(p.event_time(CLIENT, AppEvent::Connected), Some(ms(3100)));
    assert_eq!(p.event_time(SERVER, AppEvent::Connected), Some(ms(3150)));
    let srv = p.sent(SERVER);
    assert_eq!(
        (srv[1].t, sal(&srv[1].seg), srv[1].seg.kind),
        (ms(3050), (0, 1, 0, SYN_ACK), TxKind::Retransmit)
    );
    // Server at 3.15 s: pure ACK of the request, then 1 segment (IW 1, hint 1).
    assert_eq!(p.eps[SERVER].stats().syn_retransmits, 1);
    let at_3150: Vec<_> = srv
        .iter()
        .filter(|s| s.t == ms(3150))
        .map(|s| (sal(&s.seg), s.seg.cwnd_hint))
        .collect();
    assert_eq!(
        at_3150,
        vec![((1, 101, 0, ACK), 0), ((1, 101, 1460, ACK), 1)]
    );
    // Response of 3 segments at IW 1: 1 segment at 3.15 s, 2 at 3.25 s (slow start +1 MSS),
    // last byte at the client 3.3 s. RTO 3 s for data (no samples), so no timeout fires.
    p.run();
    assert_eq!(p.completed, Some(ms(3300)));
    assert_eq!(p.eps[SERVER].stats().timeouts, 0);
    assert_eq!(p.eps[CLIENT].stats().syn_retransmits, 1);
}

#[test]
fn syn_received_gives_up_after_max_syn_retries() {
    // No client answer at all: SYN-ACKs at 0, 3, 9, 21, 45, 93, 153 s; Aborted at 213 s.
    let mut s = Endpoint::listen(TcpConfig::default());
    s.on_segment(ms(0), &seg(0, 0, 0, SYN));
    let mut now = ms(0);
    let mut times = vec![];
    loop {
        for _ in drain(&mut s, now) {
            times.push(now.as_nanos() / 1_000_000_000);
        }
        let ev = events(&mut s);
        if !ev.is_empty() {
            assert_eq!(ev, vec![AppEvent::Aborted]);
            break;
        }
        now = s.next_deadline().unwrap();
        s.on_timeout(now);
    }
    assert_eq!(times, vec![0, 3, 9, 21, 45, 93, 153]);
    assert_eq!(now, SimTime::from_secs(213));
    assert_eq!(s.state(), State::Closed);
    assert_eq!(s.stats().syn_retransmits, 6);
}
