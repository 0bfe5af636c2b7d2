//! ECN (RFC 3168, src/ecn.rs): negotiation, ECT only on new data, the receiver's ECE echo until
//! CWR, one window reduction per window of data, CWR after every reduction.
//!
//! Scenario unless stated: d = 50 ms, request 100 B, IW 2, MSS 1460 (segment i starts at
//! S(i) = 1 + (i−1)·1460), an ACK per segment, NewReno, `ecn` on both ends. Loss-free slow
//! start: segments 1–2 at 150 ms, 3–6 at 250, 7–14 at 350 (cwnd 8 MSS = 11680 after 350).
//! Congestion avoidance adds ⌊1460²/cwnd⌋ = ⌊2131600/cwnd⌋ per ACK.

mod util;

use tcp::{Ecn, Flags, TcpConfig, TxKind, Variant};
use util::*;

fn s_of(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

fn ecn() -> TcpConfig {
    TcpConfig {
        ecn: true,
        ..TcpConfig::default()
    }
}

fn mark(i: u64) -> DropRule {
    DropRule::Seq {
        side: SERVER,
        seq: s_of(i),
        kind: Some(TxKind::New),
        times: 1,
    }
}

fn ece_acks(p: &Pipe) -> Vec<u64> {
    p.sent(CLIENT)
        .iter()
        .filter(|s| s.seg.flags.contains(Flags::ECE) && !s.seg.flags.contains(SYN))
        .map(|s| s.seg.ack)
        .collect()
}

fn cwr_segments(p: &Pipe) -> Vec<u64> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.flags.contains(Flags::CWR))
        .map(|s| s.seg.seq)
        .collect()
}

#[test]
fn ecn_is_negotiated_only_when_both_ends_want_it() {
    // Both: SYN carries ECE+CWR, SYN-ACK ECE alone (RFC 3168 §6.1.1); data is ECT.
    let mut p = Pipe::http(ecn(), dms(10), 100, 3 * MSS);
    p.run();
    let syn = p.sent(CLIENT)[0].seg;
    let syn_ack = p.sent(SERVER)[0].seg;
    assert_eq!(syn.flags, SYN | Flags::ECE | Flags::CWR);
    assert_eq!(syn_ack.flags, SYN_ACK | Flags::ECE);
    assert!(
        syn.ecn == Ecn::NotEct && syn_ack.ecn == Ecn::NotEct,
        "SYNs are never ECT"
    );
    assert!(p.eps[CLIENT].ecn_enabled() && p.eps[SERVER].ecn_enabled());
    let ect: Vec<bool> = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0)
        .map(|s| s.seg.ecn == Ecn::Ect0)
        .collect();
    assert_eq!(ect, vec![true; 3]);
    // The request (client data) is ECT too; pure ACKs and the client's lone FIN are not.
    let client: Vec<(u32, bool)> = p
        .sent(CLIENT)
        .iter()
        .map(|s| (s.seg.len, s.seg.ecn == Ecn::Ect0))
        .collect();
    assert!(client.contains(&(100, true)));
    assert!(client.iter().all(|&(len, e)| e == (len > 0)));
    // Only the client wants it: the SYN-ACK has no ECE, nothing is ECT.
    let mut p = Pipe::http_with(ecn(), TcpConfig::default(), dms(10), 100, 3 * MSS, vec![]);
    p.run();
    assert_eq!(p.sent(SERVER)[0].seg.flags, SYN_ACK);
    assert!(!p.eps[CLIENT].ecn_enabled() && !p.eps[SERVER].ecn_enabled());
    assert!(p.log.iter().all(|s| s.seg.ecn == Ecn::NotEct));
    // Only the server: the SYN offers nothing.
    let mut p = Pipe::http_with(TcpConfig::default(), ecn(), dms(10), 100, 3 * MSS, vec![]);
    p.run();
    assert_eq!(p.sent(CLIENT)[0].seg.flags, SYN);
    assert_eq!(p.sent(SERVER)[0].seg.flags, SYN_ACK);
    assert!(!p.eps[SERVER].ecn_enabled());
}

/// Segment numbers and times (ms) of the server's data segments sent at `t`.
fn data_at(p: &Pipe, t: u64) -> Vec<u64> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0 && s.t == ms(t))
        .map(|s| (s.seg.seq - 1) / MSS + 1)
        .collect()
}

#[test]
fn ecn_one_mark_halves_once_without_retransmission() {
    // Segment 8 (of the window 7–14 sent at 350 ms) is CE-marked.
    // 400: the client sees CE on 8: ACK S(8) (for 7) is plain, ACKs S(9)…S(15) carry ECE.
    // 450: ACK S(8): slow start → 13140, sends 15, 16. ACK S(9) (ECE): +1460 → 14600, then
    //   the reduction: FlightSize S(17)−S(9) = 8 MSS → ssthresh = cwnd = 5840; recover for ECN
    //   = SND.MAX = S(17). ACKs S(10)…S(15) carry ECE but do not pass S(17): ignored; each adds
    //   ⌊2131600/cwnd⌋: 365, 343, 325, 310, 296, 285 → 6205, 6548, 6873, 7183, 7479, 7764.
    //   Sending resumes at ACK S(14) (3 MSS out + 1 ≤ 7479): 17 — with CWR — and 18; ACK
    //   S(15): 19.
    // 500: the client gets 15, 16 (still echoing: ACKs S(16), S(17) with ECE), then 17 with
    //   CWR: echo off, ACKs S(18)… plain. 550: ECE on S(16), S(17) does not pass S(17): one
    //   reduction in all.
    let mut p = Pipe::http_with(ecn(), ecn(), dms(50), 100, 20 * MSS, vec![]);
    p.marks = vec![mark(8)];
    p.run();
    let st = p.eps[SERVER].stats();
    assert_eq!(st.ecn_reductions, 1);
    assert_eq!(
        (st.data_retransmits, st.timeouts, st.fast_retransmits),
        (0, 0, 0)
    );
    assert_eq!(ece_acks(&p), (9..=17).map(s_of).collect::<Vec<_>>());
    assert_eq!(cwr_segments(&p), vec![s_of(17)]);
    assert_eq!(data_at(&p, 450), vec![15, 16, 17, 18, 19]);
    let after_450 = p
        .trace
        .iter()
        .rev()
        .find(|t| t.side == SERVER && t.t == ms(450))
        .unwrap();
    assert_eq!((after_450.ssthresh, after_450.cwnd), (5840, 7764));
    let red = p
        .trace
        .iter()
        .find(|t| t.side == SERVER && t.snd_una == s_of(9))
        .unwrap();
    assert_eq!((red.ssthresh, red.cwnd), (5840, 5840));
}

#[test]
fn ecn_two_marks_in_one_window_reduce_once_a_mark_in_the_next_window_again() {
    // Segments 8 and 12 marked: the client's echo is already on when 12 arrives, and every ECE
    // up to S(17) is within the window of the first reduction — the same run as one mark.
    let mut one = Pipe::http_with(ecn(), ecn(), dms(50), 100, 40 * MSS, vec![]);
    one.marks = vec![mark(8)];
    one.run();
    let mut two = Pipe::http_with(ecn(), ecn(), dms(50), 100, 40 * MSS, vec![]);
    two.marks = vec![mark(8), mark(12)];
    two.run();
    assert_eq!(two.eps[SERVER].stats().ecn_reductions, 1);
    assert_eq!(ece_acks(&two), ece_acks(&one));
    let times = |p: &Pipe| -> Vec<(u64, u64)> {
        p.sent(SERVER)
            .iter()
            .map(|s| (s.t.as_nanos(), s.seg.seq))
            .collect()
    };
    assert_eq!(times(&two), times(&one));
    // Segment 17, the CWR segment (sent after the reduction, beyond its recover point S(17)),
    // marked too: the client clears the echo for CWR, then sets it for CE, so ACK S(18) and
    // the following carry ECE. 550 ms (cwnd 7764 from the first test): ACK S(16): +274 →
    // 8038, sends 20; ACK S(17): +265 → 8303, sends 21; ACK S(18) passes S(17): +256 → 8559,
    // then FlightSize S(22)−S(18) = 4 MSS → ssthresh = cwnd = max(2920, 2·1460) = 2920.
    let mut p = Pipe::http_with(ecn(), ecn(), dms(50), 100, 40 * MSS, vec![]);
    p.marks = vec![mark(8), mark(17)];
    p.run();
    assert_eq!(p.eps[SERVER].stats().ecn_reductions, 2);
    assert_eq!(data_at(&p, 550)[..2], [20, 21]);
    let red = p
        .trace
        .iter()
        .find(|t| t.side == SERVER && t.snd_una == s_of(18))
        .unwrap();
    assert_eq!((red.t, red.ssthresh, red.cwnd), (ms(550), 2920, 2920));
    // The second CWR is on the first new segment after that reduction.
    let cwr = cwr_segments(&p);
    assert_eq!(cwr.len(), 2);
    assert_eq!(cwr[0], s_of(17));
    assert!(cwr[1] >= s_of(22));
    assert_eq!(p.eps[SERVER].stats().data_retransmits, 0);
}

#[test]
fn ecn_retransmissions_are_not_ect_and_a_fast_retransmit_sets_cwr() {
    // tests/recovery.rs one-loss case (response 20 segments, segment 8 lost) with ECN on both
    // ends: the same segments at the same times; the retransmission of 8 at 450 ms is not ECT
    // and has no CWR; the first new segment after the fast retransmit (17, on the 6th dupACK)
    // carries CWR (RFC 3168 §6.1.2: any window reduction). No ECE: no ECN reduction.
    let lose8 = vec![mark(8)];
    let mut with = Pipe::http_with(ecn(), ecn(), dms(50), 100, 20 * MSS, lose8.clone());
    with.run();
    let mut without = Pipe::http_with(
        TcpConfig::default(),
        TcpConfig::default(),
        dms(50),
        100,
        20 * MSS,
        lose8,
    );
    without.run();
    let times = |p: &Pipe| -> Vec<(u64, u64)> {
        p.sent(SERVER)
            .iter()
            .map(|s| (s.t.as_nanos(), s.seg.seq))
            .collect()
    };
    assert_eq!(times(&with), times(&without));
    let rtx: Vec<_> = with
        .sent(SERVER)
        .into_iter()
        .filter(|s| s.seg.kind == TxKind::Retransmit)
        .collect();
    assert_eq!(rtx.len(), 1);
    assert_eq!((rtx[0].t, rtx[0].seg.seq), (ms(450), s_of(8)));
    assert!(rtx[0].seg.ecn == Ecn::NotEct && !rtx[0].seg.flags.contains(Flags::CWR));
    assert_eq!(cwr_segments(&with), vec![s_of(17)]);
    assert_eq!(with.eps[SERVER].stats().ecn_reductions, 0);
    assert!(with
        .log
        .iter()
        .all(|s| !s.seg.flags.contains(Flags::ECE) || s.seg.flags.contains(SYN)));
}

#[test]
fn ecn_sack_and_tahoe_share_the_rules() {
    // The one-mark case with SACK and with Tahoe: no loss, so recovery never starts and the
    // ECN response is identical to NewReno's (same segments at the same times).
    let run = |v: Variant| {
        let c = TcpConfig {
            variant: v,
            ..ecn()
        };
        let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, 20 * MSS, vec![]);
        p.marks = vec![mark(8)];
        p.run();
        p
    };
    let base = run(Variant::NewReno);
    for v in [Variant::Sack, Variant::Tahoe, Variant::Reno] {
        let p = run(v);
        assert_eq!(p.eps[SERVER].stats().ecn_reductions, 1, "{v:?}");
        assert_eq!(data_at(&p, 450), data_at(&base, 450), "{v:?}");
        assert_eq!(cwr_segments(&p), vec![s_of(17)], "{v:?}");
    }
}
