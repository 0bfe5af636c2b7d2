//! The retransmission timer (RFC 6298) seen from ESTABLISHED and FIN-WAIT-1 senders: RTO
//! arithmetic by hand, tick-counted samples, Karn's rule, exponential backoff with its cap,
//! and the retry limit.
//!
//! Defaults unless stated: min RTO 1 s, max RTO 60 s, tick G = 10 ms, max_retries 15.

mod util;

use tcp::{AppEvent, State, TcpConfig, TxKind};
use units::{SimDuration, SimTime};
use util::*;

fn us(x: u64) -> SimDuration {
    SimDuration::from_micros(x)
}

#[test]
fn rto_follows_rfc6298_sample_by_sample() {
    // Case 9, min RTO 200 ms so the formula shows.
    // Sample 1 (handshake, SYN-ACK at 0, ACK at 100 ms): R = 100 → SRTT 100, RTTVAR 50,
    //   RTO = 100 + max(10, 4·50) = 300 ms.
    let cfg = TcpConfig {
        min_rto: SimDuration::from_millis(200),
        ..TcpConfig::default()
    };
    let mut s = server_established(cfg);
    assert_eq!(
        (s.srtt(), s.rttvar(), s.rto()),
        (Some(dms(100)), dms(50), dms(300))
    );
    // Sample 2: 1 MSS sent at 100 ms, ACK at 285 ms: tick boundaries 11..28 crossed = 18 ticks
    //   → R = 180 ms. RTTVAR = 3/4·50 + 1/4·|100 − 180| = 57.5; SRTT = 7/8·100 + 1/8·180 =
    //   110; RTO = 110 + 230 = 340 ms.
    s.send(MSS);
    drain(&mut s, ms(100));
    assert_eq!(s.next_deadline(), Some(ms(400)));
    s.on_segment(ms(285), &seg(1, 1 + MSS, 0, ACK));
    assert_eq!(
        (s.srtt(), s.rttvar(), s.rto()),
        (Some(dms(110)), us(57_500), dms(340))
    );
    assert_eq!(s.next_deadline(), None);
    // Sample 3: sent 300 ms, ACK 350 ms → R = 50. RTTVAR = (3·57.5 + 60)/4 = 58.125;
    //   SRTT = (7·110 + 50)/8 = 102.5; RTO = 102.5 + 232.5 = 335 ms.
    s.send(MSS);
    drain(&mut s, ms(300));
    s.on_segment(ms(350), &seg(1, 1 + 2 * MSS, 0, ACK));
    assert_eq!(
        (s.srtt(), s.rttvar(), s.rto()),
        (Some(us(102_500)), us(58_125), dms(335))
    );
    // Karn: sent 400 ms, timer 735 ms; it expires, the RTO doubles to 670 ms, the ACK of the
    //   retransmission (800 ms) gives no sample and keeps the backoff.
    s.send(MSS);
    drain(&mut s, ms(400));
    assert_eq!(s.next_deadline(), Some(ms(735)));
    s.on_timeout(ms(735));
    let out = drain(&mut s, ms(735));
    assert_eq!((out.len(), out[0].kind), (1, TxKind::Retransmit));
    assert_eq!(s.next_deadline(), Some(ms(1405)));
    s.on_segment(ms(800), &seg(1, 1 + 3 * MSS, 0, ACK));
    assert_eq!(
        (s.srtt(), s.rttvar(), s.rto()),
        (Some(us(102_500)), us(58_125), dms(670))
    );
    // A new segment (sent 800 ms, timer 800 + 670) acknowledged at 900 ms: R = 100 ends the
    //   backoff. RTTVAR = (3·58.125 + 2.5)/4 = 44.21875; SRTT = (7·102.5 + 100)/8 = 102.1875;
    //   RTO = 102.1875 + 176.875 = 279.0625 ms.
    s.send(MSS);
    drain(&mut s, ms(800));
    assert_eq!(s.next_deadline(), Some(ms(1470)));
    s.on_segment(ms(900), &seg(1, 1 + 4 * MSS, 0, ACK));
    assert_eq!(s.srtt(), Some(SimDuration::from_nanos(102_187_500)));
    assert_eq!(s.rttvar(), SimDuration::from_nanos(44_218_750));
    assert_eq!(s.rto(), SimDuration::from_nanos(279_062_500));
}

#[test]
fn rto_min_rto_dominates_short_paths() {
    // Default min RTO 1 s: a 100 ms path gets RTO = max(1 s, 300 ms) = 1 s.
    let s = server_established(TcpConfig::default());
    assert_eq!(s.rto(), SimDuration::from_secs(1));
}

#[test]
fn rto_only_one_segment_is_timed_at_a_time() {
    // Two segments at 100 ms; only the first (seq 1) is timed. One cumulative ACK of both at
    // 400 ms gives one sample, R = 300 ms: SRTT = 7/8·100 + 1/8·300 = 125;
    // RTTVAR = 3/4·50 + 1/4·200 = 87.5. A later ACK gives none until a new segment is timed.
    let cfg = TcpConfig {
        min_rto: SimDuration::from_millis(200),
        ..TcpConfig::default()
    };
    let mut s = server_established(cfg);
    s.send(2 * MSS);
    assert_eq!(drain(&mut s, ms(100)).len(), 2);
    s.on_segment(ms(400), &seg(1, 1 + 2 * MSS, 0, ACK));
    assert_eq!((s.srtt(), s.rttvar()), (Some(dms(125)), us(87_500)));
}

#[test]
fn rto_consecutive_timeouts_double_the_rto() {
    // Case 6. Response 1 MSS (+FIN) lost 4 times. Server RTO 1 s (SRTT 100 ms): sent at
    // 0.15 s, again at 0.15 + 1 = 1.15, + 2 = 3.15, + 4 = 7.15, + 8 = 15.15 s; arrives 15.2 s.
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: 1,
        kind: None,
        times: 4,
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
    assert_eq!(
        p.send_times(SERVER, 1),
        vec![ms(150), ms(1150), ms(3150), ms(7150), ms(15150)]
    );
    assert_eq!(p.completed, Some(ms(15200)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (
            st.timeouts,
            st.data_retransmits,
            st.fin_retransmits,
            st.fast_retransmits
        ),
        (4, 4, 4, 0)
    );
    // RFC 5681: ssthresh set on the first expiry (max(1460/2, 2920) = 2920) and kept; cwnd 1 MSS
    // + 1 MSS for the ACK. Karn: the ACK of a retransmission ends no backoff: RTO still 16 s.
    assert_eq!(
        (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
        (2920, 2 * MSS)
    );
    assert_eq!(p.eps[SERVER].rto(), SimDuration::from_secs(16));
}

#[test]
fn rto_backoff_is_capped_at_max_rto() {
    // max RTO 5 s, 5 losses: 0.15, 1.15 (+1), 3.15 (+2), 7.15 (+4), 12.15 (+5, capped),
    // 17.15 (+5) s; arrives 17.2 s.
    let c = TcpConfig {
        max_rto: SimDuration::from_secs(5),
        ..TcpConfig::default()
    };
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: 1,
        kind: None,
        times: 5,
    }];
    let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, MSS, drops);
    p.run();
    assert_eq!(
        p.send_times(SERVER, 1),
        vec![ms(150), ms(1150), ms(3150), ms(7150), ms(12150), ms(17150)]
    );
    assert_eq!(p.completed, Some(ms(17200)));
}

#[test]
fn rto_gives_up_after_max_retries() {
    // max_retries 3, the response is always lost: 0.15, 1.15, 3.15, 7.15 s; the 4th expiry at
    // 7.15 + 8 = 15.15 s aborts (RTO 1 s, doubled 3 times).
    let c = TcpConfig {
        max_retries: 3,
        ..TcpConfig::default()
    };
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: 1,
        kind: None,
        times: usize::MAX,
    }];
    let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, MSS, drops);
    p.run();
    assert_eq!(
        p.send_times(SERVER, 1),
        vec![ms(150), ms(1150), ms(3150), ms(7150)]
    );
    assert_eq!(p.event_time(SERVER, AppEvent::Aborted), Some(ms(15150)));
    assert_eq!(p.eps[SERVER].state(), State::Closed);
    assert_eq!(p.eps[SERVER].next_deadline(), None);
    let st = p.eps[SERVER].stats();
    assert_eq!((st.timeouts, st.data_retransmits), (4, 3));
    assert_eq!(p.completed, None);
}

#[test]
fn rto_timeout_goes_back_n_from_the_first_unacknowledged_byte() {
    // Server sends 4 MSS at 100 ms with cwnd 2 → seg 1, 2; nothing is acknowledged. At 1.1 s:
    // ssthresh = max(2920/2, 2920) = 2920, cwnd 1460, seg 1 again only. Its ACK (1.2 s, ACK
    // 1461) → slow start 2920 → seg 2 (retransmission, 1461 < SND.MAX) and seg 3 (new).
    let mut s = server_established(TcpConfig::default());
    s.send(4 * MSS);
    assert_eq!(drain(&mut s, ms(100)).len(), 2);
    s.on_timeout(ms(1100));
    let out = drain(&mut s, ms(1100));
    assert_eq!(
        out.iter().map(|x| (x.seq, x.kind)).collect::<Vec<_>>(),
        vec![(1, TxKind::Retransmit)]
    );
    assert_eq!((s.ssthresh(), s.cwnd()), (2920, 1460));
    // Backoff: 2 s.
    assert_eq!(s.next_deadline(), Some(ms(3100)));
    s.on_segment(ms(1200), &seg(1, 1461, 0, ACK));
    let out = drain(&mut s, ms(1200));
    assert_eq!(
        out.iter().map(|x| (x.seq, x.kind)).collect::<Vec<_>>(),
        vec![(1461, TxKind::Retransmit), (2921, TxKind::New)]
    );
    assert_eq!(s.stats().data_retransmits, 2);
    // Timer restarted by the ACK with the kept backoff (Karn): 1.2 + 2 = 3.2 s.
    assert_eq!(s.next_deadline(), Some(ms(3200)));
    // If the original seg 2 arrives late and the ACK covers seg 3 too, SND.NXT jumps ahead.
    s.on_segment(ms(1250), &seg(1, 4381, 0, ACK));
    let out = drain(&mut s, ms(1250));
    assert_eq!(
        out.iter().map(|x| (x.seq, x.kind)).collect::<Vec<_>>(),
        vec![(4381, TxKind::New)]
    );
    assert!(s.next_deadline().unwrap() > SimTime::from_millis(1250));
}

#[test]
fn rto_bsd_rules_time_out_data_at_1_5_s_on_a_sub_tick_path() {
    // Seed 000's FreeBSD profile: 500 ms tick, min RTO 1 s. Every sample here is an 80 ms RTT
    // that crosses no tick boundary. BSD rules: R = 1 tick each time, SRTT and RTTVAR shrink
    // towards 0, and the RTO stays at its floor R + 2 ticks = 1.5 s. RFC 6298 rules: R = 1 tick
    // = 500 ms each time, RTTVAR → 0, RTO → 500 + max(G, 4·RTTVAR) → 1 s. So a segment sent at
    // 12.1 s and lost times out at 13.6 s (BSD) or 13.1 s (RFC 6298).
    let bsd = TcpConfig {
        rto_rules: tcp::RtoRules::Bsd,
        clock_granularity: SimDuration::from_millis(500),
        ..TcpConfig::default()
    };
    let rfc = TcpConfig {
        rto_rules: tcp::RtoRules::Rfc6298,
        ..bsd.clone()
    };
    for (cfg, expiry) in [(bsd, 13_600), (rfc, 13_100)] {
        let mut s = server_established(cfg);
        // The handshake's first sample: both give 1.5 s.
        assert_eq!(s.rto(), dms(1500));
        for k in 1..=11u64 {
            s.send(MSS);
            drain(&mut s, ms(1000 * k + 100));
            s.on_segment(ms(1000 * k + 180), &seg(1, 1 + k * MSS, 0, ACK));
        }
        s.send(MSS);
        drain(&mut s, ms(12_100));
        assert_eq!(s.next_deadline(), Some(ms(expiry)));
    }
}
