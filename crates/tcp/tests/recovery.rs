//! Fast retransmit and fast recovery (ESTABLISHED / FIN-WAIT-1 senders): one and two losses in
//! a window, Reno (RFC 5681) and NewReno (RFC 6582), with cwnd and ssthresh computed by hand.
//!
//! Common scenario: d = 50 ms (RTT 100 ms), request 100 B, response 20·MSS (MSS 1460; segment
//! i starts at 1 + (i−1)·1460, so seg 8 = 10221, seg 10 = 13141, end 29201, FIN 29201), IW 2,
//! an ACK per segment, receive window 65535 (= initial ssthresh). Loss-free, the server sends
//! seg 1–2 at 150 ms, 3–6 at 250 ms and 7–14 at 350 ms (cwnd 11680 = 8 MSS by then).

mod util;

use tcp::{FullAck, TcpConfig, TxKind, Variant};
use units::SimTime;
use util::*;

const SEG8: u64 = 10221;
const SEG10: u64 = 13141;

fn cfg(variant: Variant) -> TcpConfig {
    TcpConfig {
        variant,
        ..TcpConfig::default()
    }
}

fn lose(seqs: &[u64]) -> Vec<DropRule> {
    seqs.iter()
        .map(|&seq| DropRule::Seq {
            side: SERVER,
            seq,
            kind: Some(TxKind::New),
            times: 1,
        })
        .collect()
}

fn run(c: TcpConfig, seqs: &[u64]) -> Pipe {
    let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, 20 * MSS, lose(seqs));
    p.run();
    p
}

/// (time in ms, seq) of every data segment the server sent.
fn data_log(p: &Pipe) -> Vec<(u64, u64)> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0)
        .map(|s| (s.t.as_nanos() / 1_000_000, s.seg.seq))
        .collect()
}

fn seq_of(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

// One loss: seg 8 of the 8-segment window sent at 350 ms.
// 400 ms: the client ACKs seg 7 (ACK 10221) and sends 6 duplicates (seg 9–14).
// 450 ms: ACK 10221 → slow start, cwnd 13140; FlightSize 10220 → seg 15, 16 (flight 13140).
//   3rd dupACK → ssthresh = 13140/2 = 6570, cwnd = 6570 + 3·1460 = 10950, seg 8 again
//   (cwnd hint ⌊10950/1460⌋ = 7); dupACKs 4–6 → 12410, 13870, 15330: seg 17 fits (14600).
// 500 ms: client: seg 15, 16 → 2 dupACKs; seg 8 fills the hole → ACK 23361; seg 17 → 24821.
// 550 ms: 2 dupACKs → 16790, 18250 → seg 18, seg 19. ACK 23361 = recover (SND.MAX at the 3rd
//   dupACK) → recovery ends, cwnd = ssthresh = 6570 (Reno: first new ACK; NewReno: full ACK,
//   option 2). Flight 4380 → seg 20 + FIN. ACK 24821: congestion avoidance,
//   1460²/6570 = 324.4 → 6894.
// 600 ms: last byte at the client (1 RTT later than loss-free). 650 ms: ACKs 26281, 27741,
//   29202 → +309 (2131600/6894), +295 (/7203), +284 (/7498) → cwnd 7782.
const ONE_LOSS_LOG: [(u64, u64); 21] = [
    (150, 1),
    (150, 1461),
    (250, 2921),
    (250, 4381),
    (250, 5841),
    (250, 7301),
    (350, 8761),
    (350, 10221),
    (350, 11681),
    (350, 13141),
    (350, 14601),
    (350, 16061),
    (350, 17521),
    (350, 18981),
    (450, 20441),
    (450, 21901),
    (450, 10221),
    (450, 23361),
    (550, 24821),
    (550, 26281),
    (550, 27741),
];

#[test]
fn recovery_reno_one_loss_is_repaired_by_fast_retransmit() {
    let p = run(cfg(Variant::Reno), &[SEG8]);
    assert_eq!(data_log(&p), ONE_LOSS_LOG.to_vec());
    assert_eq!(p.completed, Some(ms(600)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.data_retransmits),
        (0, 1, 1)
    );
    assert_eq!(
        (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
        (6570, 7782)
    );
    let rtx: Vec<_> = p
        .sent(SERVER)
        .into_iter()
        .filter(|s| s.seg.kind == TxKind::Retransmit)
        .collect();
    assert_eq!(rtx.len(), 1);
    assert_eq!(
        (rtx[0].t, rtx[0].seg.seq, rtx[0].seg.cwnd_hint),
        (ms(450), SEG8, 7)
    );
}

#[test]
fn recovery_newreno_one_loss_is_repaired_by_fast_retransmit() {
    // With a single loss the first new ACK is the full ACK: NewReno = Reno here.
    let p = run(cfg(Variant::NewReno), &[SEG8]);
    assert_eq!(data_log(&p), ONE_LOSS_LOG.to_vec());
    assert_eq!(p.completed, Some(ms(600)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.data_retransmits),
        (0, 1, 1)
    );
    assert_eq!(
        (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
        (6570, 7782)
    );
    assert!(!p.eps[SERVER].in_recovery());
}

#[test]
fn recovery_newreno_full_ack_flightsize_rule() {
    // RFC 6582 option 1 at the full ACK (550 ms): FlightSize after it = 27741 − 23361 = 4380,
    // cwnd = min(6570, max(4380, 1460) + 1460) = 5840 — seg 20 still fits (4380 + 1460).
    // ACK 24821: 5840 < ssthresh → slow start +1460 = 7300. 650 ms: +292 (2131600/7300),
    // +280 (/7592), +270 (/7872) → 8142. Same segment times as option 2.
    let c = TcpConfig {
        newreno_full_ack: FullAck::FlightSize,
        ..cfg(Variant::NewReno)
    };
    let p = run(c, &[SEG8]);
    assert_eq!(data_log(&p), ONE_LOSS_LOG.to_vec());
    assert_eq!(
        (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
        (6570, 8142)
    );
}

#[test]
fn recovery_newreno_two_losses_recover_without_timeout() {
    // Case 4, NewReno: seg 8 and seg 10 lost.
    // 400 ms: ACK 10221 + 5 dupACKs (seg 9, 11–14).
    // 450 ms: cwnd 13140 → seg 15, 16; 3rd dupACK → ssthresh 6570, cwnd 10950, seg 8 again,
    //   recover = 23361; 4th, 5th → 13870 (flight 13140: seg 17 would need 14600).
    // 500 ms: client: seg 15, 16 → 2 dupACKs; seg 8 → ACK 13141 (seg 9 was buffered).
    // 550 ms: dupACKs → 15330 (seg 17), 16790 (seg 18). ACK 13141 < recover: partial ACK of
    //   2920 B → cwnd = 16790 − 2920 + 1460 = 15330, seg 10 again, timer restarted (first
    //   partial); flight 26281 − 13141 = 13140 → seg 19 fits (14600 ≤ 15330).
    // 600 ms: client: seg 17, 18 → 2 dupACKs; seg 10 → ACK 26281 (seg 11–18 buffered);
    //   seg 19 → 27741.
    // 650 ms: dupACK → 16790: seg 20 + FIN (flight 14600 + 1460); dupACK → 18250. ACK 26281 ≥
    //   recover → full ACK, cwnd = ssthresh = 6570. ACK 27741: +324 → 6894.
    // 700 ms: last byte. 750 ms: ACK 29202: +309 → 7203.
    let p = run(cfg(Variant::NewReno), &[SEG8, SEG10]);
    let mut expect: Vec<(u64, u64)> = ONE_LOSS_LOG[..14].to_vec();
    expect.extend([(450, seq_of(15)), (450, seq_of(16)), (450, SEG8)]);
    expect.extend([
        (550, seq_of(17)),
        (550, seq_of(18)),
        (550, SEG10),
        (550, seq_of(19)),
    ]);
    expect.push((650, seq_of(20)));
    assert_eq!(data_log(&p), expect);
    assert_eq!(p.completed, Some(ms(700)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.data_retransmits),
        (0, 1, 2)
    );
    assert_eq!(
        (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
        (6570, 7203)
    );
}

#[test]
fn recovery_reno_two_losses_end_in_a_timeout() {
    // Case 4, Reno: same losses. Up to 550 ms as NewReno, but ACK 13141 ends Reno's recovery
    // (RFC 5681 §3.2 step 6: any ACK of new data), cwnd = ssthresh = 6570, nothing is
    // retransmitted, and the timer restarts: 550 ms + RTO 1 s (SRTT 100 ms from 4 samples,
    // RTTVAR 21.09 ms → 184 ms → min RTO). Flight 13140 > 6570: nothing new either.
    // 600 ms: seg 17, 18 (sent during inflation) give only 2 dupACKs at 650 ms — fewer than
    // 3, and Reno has no partial-ACK rule: no second fast retransmit is possible.
    // 1.55 s: timeout. First expiry for seg 10: ssthresh = max(13140/2, 2920) = 6570, cwnd =
    //   1460, go back to 13141: seg 10 again (the receiver holds 11–18).
    // 1.60 s: ACK 26281. 1.65 s: slow start → 2920: seg 19 and seg 20 + FIN.
    // 1.70 s: last byte. 1.75 s: ACKs 27741, 29202 → 4380, 5840 (slow start).
    let p = run(cfg(Variant::Reno), &[SEG8, SEG10]);
    let mut expect: Vec<(u64, u64)> = ONE_LOSS_LOG[..14].to_vec();
    expect.extend([(450, seq_of(15)), (450, seq_of(16)), (450, SEG8)]);
    expect.extend([(550, seq_of(17)), (550, seq_of(18))]);
    expect.extend([(1550, SEG10), (1650, seq_of(19)), (1650, seq_of(20))]);
    assert_eq!(data_log(&p), expect);
    assert_eq!(p.completed, Some(ms(1700)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.data_retransmits),
        (1, 1, 2)
    );
    assert_eq!(
        (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
        (6570, 5840)
    );
    // seg 19 was timed at 1.65 s and acknowledged at 1.75 s: the backoff ended.
    assert_eq!(p.eps[SERVER].rto(), units::SimDuration::from_secs(1));
}

#[test]
fn recovery_needs_three_dupacks_so_a_lost_last_segment_times_out() {
    // Case 8. Response of k = 1, 2, 3 segments, last one (with the FIN) lost: at most k − 1
    // ≤ 2 segments follow nothing, so no duplicate ACK can reach 3 (no Limited Transmit).
    // Server SRTT 100 ms → RTO 1 s.
    // k = 1: seg 1 + FIN at 150 ms, timer 1.15 s → retransmitted at 1.15 s, last byte 1.2 s.
    // k = 2: seg 1, 2 at 150 ms; ACK 1461 at 250 ms restarts the timer → 1.25 s → 1.3 s.
    // k = 3: seg 1, 2 at 150; at 250 ms ACK 1461 releases seg 3 + FIN (lost), ACK 2921
    //   restarts the timer → 1.25 s → 1.3 s.
    for (k, rtx_at, done_at) in [(1u64, 1150u64, 1200u64), (2, 1250, 1300), (3, 1250, 1300)] {
        let last = seq_of(k);
        let mut p = Pipe::http_with(
            TcpConfig::default(),
            TcpConfig::default(),
            dms(50),
            100,
            k * MSS,
            lose(&[last]),
        );
        p.run();
        let rtx: Vec<_> = p
            .sent(SERVER)
            .into_iter()
            .filter(|s| s.seg.kind == TxKind::Retransmit)
            .collect();
        assert_eq!(rtx.len(), 1, "k = {k}");
        assert_eq!(
            (rtx[0].t, rtx[0].seg.seq, sal(&rtx[0].seg).3),
            (ms(rtx_at), last, FIN_ACK),
            "k = {k}"
        );
        assert_eq!(p.completed, Some(ms(done_at)), "k = {k}");
        let st = p.eps[SERVER].stats();
        assert_eq!(
            (
                st.timeouts,
                st.fast_retransmits,
                st.data_retransmits,
                st.fin_retransmits
            ),
            (1, 0, 1, 1)
        );
        // ssthresh = max(FlightSize/2, 2·MSS) = 2920 (flight is 1 segment); cwnd 1 MSS, then
        // +1 MSS for the ACK of the retransmission (slow start).
        assert_eq!(
            (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
            (2920, 2 * MSS),
            "k = {k}"
        );
        assert!(p.completed.unwrap() > SimTime::from_secs(1));
    }
}

#[test]
fn recovery_timeout_during_recovery_keeps_ssthresh() {
    // Seg 8 and its fast retransmission are both lost. Up to 450 ms as the one-loss case
    // (ssthresh 6570, seg 17 sent on the 6th dupACK, timer restarted at the fast retransmit:
    // 1.45 s). 550 ms: 3 dupACKs (seg 15–17) → 16790, 18250, 19710: seg 18, 19, 20 + FIN.
    // 650 ms: 3 more dupACKs → 24090, nothing left to send; no ACK can advance.
    // 1.45 s: timeout during recovery. RFC 5681 eq. 4 would give FlightSize/2 =
    // (29201 − 10221)/2 = 9490 — more than the 6570 already chosen for this loss; we keep 6570
    // (min of the two), cwnd 1460, go back to seg 8. 1.5 s: ACK 29202 (everything, FIN
    // included); 1.55 s: slow start → 2920.
    for v in [Variant::NewReno, Variant::Reno] {
        let mut drops = lose(&[SEG8]);
        drops.push(DropRule::Seq {
            side: SERVER,
            seq: SEG8,
            kind: Some(TxKind::Retransmit),
            times: 1,
        });
        let c = cfg(v);
        let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, 20 * MSS, drops);
        p.run();
        assert_eq!(
            p.send_times(SERVER, SEG8),
            vec![ms(350), ms(450), ms(1450)],
            "{v:?}"
        );
        let tail: Vec<_> = data_log(&p)
            .into_iter()
            .filter(|x| x.1 >= seq_of(17))
            .collect();
        assert_eq!(
            tail,
            vec![
                (450, seq_of(17)),
                (550, seq_of(18)),
                (550, seq_of(19)),
                (550, seq_of(20))
            ]
        );
        assert_eq!(p.completed, Some(ms(1500)), "{v:?}");
        let st = p.eps[SERVER].stats();
        assert_eq!(
            (st.timeouts, st.fast_retransmits, st.data_retransmits),
            (1, 1, 2),
            "{v:?}"
        );
        assert_eq!(
            (p.eps[SERVER].ssthresh(), p.eps[SERVER].cwnd()),
            (6570, 2920),
            "{v:?}"
        );
    }
}
