//! SYN-SENT: the client's handshake, lost SYNs, RFC 6298 §5.7 and the SYN retry limit.
//!
//! Defaults unless stated: MSS 1460, IW 2, initial RTO 3 s, min RTO 1 s, max RTO 60 s, tick
//! 10 ms, max_syn_retries 6, one-way delay d = 50 ms (RTT 100 ms), no serialization time.

mod util;

use tcp::{AppEvent, Endpoint, State, TcpConfig, TxKind};
use units::{SimDuration, SimTime};
use util::*;

#[test]
fn syn_sent_syn_ack_establishes_after_one_rtt() {
    // Case 1. SYN at 0 → server at 50 ms answers SYN-ACK → client ESTABLISHED at 100 ms; the
    // handshake ACK rides on the 100-byte request queued before the handshake completed.
    let mut p = Pipe::http(TcpConfig::default(), dms(50), 100, 1000);
    assert_eq!(p.eps[CLIENT].state(), State::SynSent);
    p.run_until(ms(99));
    assert_eq!(p.eps[CLIENT].state(), State::SynSent);
    assert_eq!(p.eps[SERVER].state(), State::SynReceived);
    p.run_until(ms(100));
    assert_eq!(p.eps[CLIENT].state(), State::Established);
    let l = &p.log;
    assert_eq!(
        (l[0].t, l[0].side, sal(&l[0].seg)),
        (ms(0), CLIENT, (0, 0, 0, SYN))
    );
    assert_eq!(
        (l[1].t, l[1].side, sal(&l[1].seg)),
        (ms(50), SERVER, (0, 1, 0, SYN_ACK))
    );
    assert_eq!(
        (l[2].t, l[2].side, sal(&l[2].seg)),
        (ms(100), CLIENT, (1, 1, 100, ACK))
    );
    assert_eq!(l.len(), 3);
    for s in &l[..2] {
        assert_eq!(
            (s.seg.wnd, s.seg.kind, s.seg.cwnd_hint),
            (65535, TxKind::New, 0)
        );
    }
    // Client cwnd = IW = 2 MSS: the request segment's hint is 2.
    assert_eq!(l[2].seg.cwnd_hint, 2);
    assert_eq!(p.event_time(CLIENT, AppEvent::Connected), Some(ms(100)));
    // Server ESTABLISHED when the request (which carries the handshake ACK) arrives, 150 ms.
    p.run();
    assert_eq!(p.event_time(SERVER, AppEvent::Connected), Some(ms(150)));
    // SRTT from the SYN: 100 ms (10 ticks); RTO = max(1 s, 100 + max(10, 4·50)) = 1 s.
    assert_eq!(p.eps[CLIENT].srtt(), Some(dms(100)));
}

#[test]
fn syn_sent_without_data_sends_pure_ack() {
    let mut c = Endpoint::connect(TcpConfig::default(), ms(0));
    let syn = drain(&mut c, ms(0));
    assert_eq!(
        syn.iter().map(sal).collect::<Vec<_>>(),
        vec![(0, 0, 0, SYN)]
    );
    assert_eq!(c.next_deadline(), Some(ms(3000)));
    c.on_segment(ms(100), &seg(0, 1, 0, SYN_ACK));
    assert_eq!(
        drain(&mut c, ms(100)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 0, ACK)]
    );
    assert_eq!(events(&mut c), vec![AppEvent::Connected]);
    assert_eq!(c.next_deadline(), None);
    assert_eq!(c.cwnd(), 2 * MSS);
    // ssthresh starts at the peer's advertised window.
    assert_eq!(c.ssthresh(), 65535);
}

#[test]
fn syn_sent_wrong_ack_or_plain_ack_is_ignored() {
    let mut c = Endpoint::connect(TcpConfig::default(), ms(0));
    drain(&mut c, ms(0));
    c.on_segment(ms(10), &seg(0, 5, 0, SYN_ACK));
    c.on_segment(ms(20), &seg(0, 1, 0, ACK));
    assert!(drain(&mut c, ms(20)).is_empty());
    assert_eq!(c.state(), State::SynSent);
    assert!(events(&mut c).is_empty());
}

#[test]
fn syn_sent_early_wakeup_does_nothing_then_syn_is_retransmitted_at_rto() {
    // Case 10 for the SYN timer: deadline 3 s; a wake-up at 2.999999999 s emits nothing.
    let mut c = Endpoint::connect(TcpConfig::default(), ms(0));
    drain(&mut c, ms(0));
    c.on_timeout(SimTime::from_nanos(2_999_999_999));
    assert!(drain(&mut c, SimTime::from_nanos(2_999_999_999)).is_empty());
    assert!(events(&mut c).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(3000)));
    c.on_timeout(ms(3000));
    let s = drain(&mut c, ms(3000));
    assert_eq!(s.iter().map(sal).collect::<Vec<_>>(), vec![(0, 0, 0, SYN)]);
    assert_eq!(s[0].kind, TxKind::Retransmit);
    // Backed off: next expiry 3 + 6 = 9 s.
    assert_eq!(c.next_deadline(), Some(ms(9000)));
    assert_eq!(c.stats().syn_retransmits, 1);
}

#[test]
fn syn_sent_lost_syn_costs_exactly_the_initial_rto() {
    // Case 5. SYN at 0 lost; retransmitted at 3 s; SYN-ACK at the server 3.05 s; client
    // ESTABLISHED at 3 s + 1 RTT = 3.1 s. RFC 5681 §3.1: IW = 1 MSS for the client that
    // retransmitted its SYN. The server never saw the first SYN: its IW stays 2 MSS.
    let drops = vec![DropRule::Nth { side: CLIENT, k: 1 }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        2 * MSS,
        drops,
    );
    p.run_until(ms(3100));
    assert_eq!(p.event_time(CLIENT, AppEvent::Connected), Some(ms(3100)));
    assert_eq!(p.eps[CLIENT].cwnd(), MSS);
    // RFC 6298 §5.7 and Karn: no sample from the retransmitted SYN; data starts with RTO 3 s
    // (not the backed-off 6 s): the request sent at 3.1 s times out at 6.1 s at the earliest.
    assert_eq!(p.eps[CLIENT].srtt(), None);
    assert_eq!(p.eps[CLIENT].rto(), SimDuration::from_secs(3));
    assert_eq!(p.eps[CLIENT].next_deadline(), Some(ms(6100)));
    let c = p.sent(CLIENT);
    assert_eq!(
        (c[1].t, sal(&c[1].seg), c[1].seg.kind),
        (ms(3000), (0, 0, 0, SYN), TxKind::Retransmit)
    );
    // The request carries cwnd hint 1.
    assert_eq!(
        (c[2].t, sal(&c[2].seg), c[2].seg.cwnd_hint),
        (ms(3100), (1, 1, 100, ACK), 1)
    );
    p.run();
    assert_eq!(p.eps[SERVER].stats().syn_retransmits, 0);
    // Server: SRTT from its SYN-ACK (3.05 → 3.15 s), IW 2: the 2-segment response leaves at
    // 3.15 s in one flight and completes at 3.2 s.
    assert_eq!(p.completed, Some(ms(3200)));
    let st = p.eps[CLIENT].stats();
    assert_eq!(
        (st.syn_retransmits, st.timeouts, st.data_retransmits),
        (1, 1, 0)
    );
}

#[test]
fn syn_sent_every_syn_lost_aborts_after_the_sum_of_backed_off_rtos() {
    // Case 11. 7 SYNs at 0, 3, 9, 21, 45, 93, 153 s (RTO 3, 6, 12, 24, 48, then capped at 60);
    // the 7th expiry, at 153 + 60 = 213 s, gives up: 3+6+12+24+48+60+60 = 213.
    let drops = vec![DropRule::Seq {
        side: CLIENT,
        seq: 0,
        kind: None,
        times: usize::MAX,
    }];
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        1000,
        drops,
    );
    p.run();
    let times: Vec<u64> = p
        .sent(CLIENT)
        .iter()
        .map(|s| s.t.as_nanos() / 1_000_000_000)
        .collect();
    assert_eq!(times, vec![0, 3, 9, 21, 45, 93, 153]);
    assert_eq!(
        p.event_time(CLIENT, AppEvent::Aborted),
        Some(SimTime::from_secs(213))
    );
    assert_eq!(p.eps[CLIENT].state(), State::Closed);
    assert_eq!(p.eps[CLIENT].next_deadline(), None);
    let st = p.eps[CLIENT].stats();
    assert_eq!((st.syn_retransmits, st.timeouts), (6, 7));
    assert_eq!(p.eps[SERVER].state(), State::Listen);
}

#[test]
fn syn_sent_abort_honours_max_syn_retries() {
    // max_syn_retries = 2, initial RTO 1 s, max RTO 3 s: SYNs at 0, 1, 3; abort at 3 + 3 = 6 s
    // (1 + 2 + min(4, 3)).
    let cfg = TcpConfig {
        max_syn_retries: 2,
        initial_rto: SimDuration::from_secs(1),
        max_rto: SimDuration::from_secs(3),
        ..TcpConfig::default()
    };
    let mut c = Endpoint::connect(cfg, ms(0));
    let mut sent = vec![];
    let mut now = ms(0);
    loop {
        for s in drain(&mut c, now) {
            sent.push((now, s.kind));
        }
        let ev = events(&mut c);
        if ev == vec![AppEvent::Aborted] {
            break;
        }
        assert!(ev.is_empty());
        now = c.next_deadline().expect("a timer");
        c.on_timeout(now);
    }
    assert_eq!(
        sent,
        vec![
            (ms(0), TxKind::New),
            (ms(1000), TxKind::Retransmit),
            (ms(3000), TxKind::Retransmit)
        ]
    );
    assert_eq!(now, ms(6000));
    // CLOSED ignores everything and sends nothing.
    c.on_segment(ms(6100), &seg(0, 1, 0, SYN_ACK));
    assert!(drain(&mut c, ms(6100)).is_empty());
    assert!(events(&mut c).is_empty());
}

#[test]
fn syn_sent_close_before_handshake_sends_fin_after_it() {
    // close() in SYN-SENT waits for the handshake, then FIN-WAIT-1 with the FIN after the data.
    let mut c = Endpoint::connect(TcpConfig::default(), ms(0));
    c.send(10);
    c.close();
    drain(&mut c, ms(0));
    c.on_segment(ms(100), &seg(0, 1, 0, SYN_ACK));
    assert_eq!(c.state(), State::FinWait1);
    let out: Vec<_> = drain(&mut c, ms(100)).iter().map(sal).collect();
    assert_eq!(out, vec![(1, 1, 10, FIN_ACK)]);
}
