//! SACK (RFC 2018 option and blocks, RFC 6675 recovery): negotiation, the receiver's block
//! order under a scripted out-of-order arrival pattern, the scoreboard during recovery, its
//! clearing at a timeout (or, `sack_on_timeout = "keep"`, its keeping: only the holes are
//! resent), and the NewReno fallback when the peer does not agree.

mod util;

use tcp::{Endpoint, SackOnTimeout, TcpConfig, TxKind, Variant};
use util::*;

fn sack() -> TcpConfig {
    TcpConfig {
        variant: Variant::Sack,
        ..TcpConfig::default()
    }
}

fn s_of(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

#[test]
fn sack_is_negotiated_only_between_two_sack_ends() {
    let mut p = Pipe::http(sack(), dms(10), 100, 3 * MSS);
    p.run();
    assert!(p.sent(CLIENT)[0].seg.sack_ok && p.sent(SERVER)[0].seg.sack_ok);
    assert!(p.eps[CLIENT].sack_enabled() && p.eps[SERVER].sack_enabled());
    // SACK client, NewReno server: the SYN offers, the SYN-ACK does not accept.
    let mut p = Pipe::http_with(sack(), TcpConfig::default(), dms(10), 100, 3 * MSS, vec![]);
    p.run();
    assert!(p.sent(CLIENT)[0].seg.sack_ok && !p.sent(SERVER)[0].seg.sack_ok);
    assert!(!p.eps[CLIENT].sack_enabled() && !p.eps[SERVER].sack_enabled());
    // NewReno client, SACK server: nothing offered, nothing accepted.
    let mut p = Pipe::http_with(TcpConfig::default(), sack(), dms(10), 100, 3 * MSS, vec![]);
    p.run();
    assert!(!p.sent(CLIENT)[0].seg.sack_ok && !p.sent(SERVER)[0].seg.sack_ok);
    assert!(!p.eps[SERVER].sack_enabled());
}

/// A SACK client in ESTABLISHED (peer's SYN-ACK with SACK-permitted at 100 ms).
fn sack_client() -> Endpoint {
    let mut c = Endpoint::connect(sack(), ms(0));
    let syn = drain(&mut c, ms(0));
    assert!(syn[0].sack_ok);
    let mut sa = seg(0, 1, 0, SYN_ACK);
    sa.sack_ok = true;
    c.on_segment(ms(100), &sa);
    drain(&mut c, ms(100));
    assert!(c.sack_enabled());
    c
}

#[test]
fn sack_receiver_reports_the_newest_block_first() {
    // 100-byte segments from the peer: n is [1 + 100(n−1), 1 + 100n). Arrival order 1, 3, 5, 7,
    // 9, 4, 2, 8, 6. RFC 2018 §4: the first block holds the segment that triggered the ACK
    // (unless it advanced the cumulative ACK), then the most recently reported other blocks,
    // at most 3 (seed 001 Table 2).
    let b = |n: u64, m: u64| (1 + 100 * (n - 1), 1 + 100 * m);
    type Ack = (u64, u64, Vec<(u64, u64)>); // (segment arriving, ACK, blocks)
    let expect: [Ack; 9] = [
        (1, 101, vec![]),
        (3, 101, vec![b(3, 3)]),
        (5, 101, vec![b(5, 5), b(3, 3)]),
        (7, 101, vec![b(7, 7), b(5, 5), b(3, 3)]),
        // Four ranges: the oldest (3) no longer fits.
        (9, 101, vec![b(9, 9), b(7, 7), b(5, 5)]),
        // 4 joins 3 and 5: that block first, at its new extent; then 9, 7.
        (4, 101, vec![b(3, 5), b(9, 9), b(7, 7)]),
        // 2 advances the ACK to 501 (1–5): the remaining blocks by recency, 9 then 7.
        (2, 501, vec![b(9, 9), b(7, 7)]),
        // 8 joins 7 and 9.
        (8, 501, vec![b(7, 9)]),
        // 6 fills the last hole: no blocks, ACK 901.
        (6, 901, vec![]),
    ];
    let mut c = sack_client();
    for (k, (n, ack, blocks)) in expect.into_iter().enumerate() {
        let t = ms(200 + k as u64);
        c.on_segment(t, &seg(1 + 100 * (n - 1), 1, 100, ACK));
        let out = drain(&mut c, t);
        assert_eq!(out.len(), 1, "segment {n}: one immediate ACK");
        assert_eq!(out[0].ack, ack, "segment {n}");
        assert_eq!(out[0].sack.as_slice(), blocks.as_slice(), "segment {n}");
        // 40-byte header + 2 + 8 per block (ns-2 FullTcp/Sack sizes).
        let opt = if blocks.is_empty() {
            0
        } else {
            2 + 8 * blocks.len() as u32
        };
        assert_eq!(out[0].wire_bytes(), 40 + opt);
    }
}

#[test]
fn sack_timeout_clears_the_scoreboard_and_goes_back_n() {
    // Response 20 segments, segment 8 lost and its fast retransmission lost too.
    // 350: 7–14 out (cwnd 8 MSS). 400: ACK S(8) for 7, then 6 dupACKs SACKing 9…14.
    // 450: ACK S(8): cwnd 9 MSS = 13140, sends 15, 16. DupACK 3: FlightSize S(17)−S(8) = 9 MSS
    //   → ssthresh = cwnd = 6570; resend 8 (lost again), HighRxt = S(9). pipe = 1 (8, resent)
    //   + 5 (12–16 not SACKed, not lost) = 6 MSS; dupACKs 4, 5, 6 leave 5, 4, 3 MSS: only at 3
    //   MSS is pipe + MSS = 5840 ≤ 6570 → new segment 17.
    // 550: dupACKs for 15, 16, 17 keep pipe at 3 MSS after each → new 18, 19, 20 (+FIN).
    // 650: dupACKs for 18–20: nothing lost below HighSACK beyond HighRxt, no data left.
    // 1450 (fast retransmit at 450 + RTO 1 s): timeout in recovery. ssthresh stays 6570
    //   (min with FlightSize/2 = 9490), cwnd 1 MSS, the scoreboard [S(9), S(21)) is cleared
    //   (RFC 6675 §5.1), segment 8 goes again. 1500: the client has everything.
    let c = sack();
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: s_of(8),
        kind: None,
        times: 2,
    }];
    let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, 20 * MSS, drops);
    p.run_until(ms(1449));
    assert_eq!(p.eps[SERVER].sacked(), &[(s_of(9), s_of(21))]);
    assert!(p.eps[SERVER].in_recovery());
    // pipe: 8 resent (1 MSS) and nothing else unSACKed.
    assert_eq!(p.eps[SERVER].pipe(), MSS);
    p.run_until(ms(1450));
    assert!(p.eps[SERVER].sacked().is_empty());
    assert!(!p.eps[SERVER].in_recovery());
    p.run();
    let data: Vec<(u64, u64, TxKind)> = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0 && s.t >= ms(450))
        .map(|s| {
            (
                s.t.as_nanos() / 1_000_000,
                (s.seg.seq - 1) / MSS + 1,
                s.seg.kind,
            )
        })
        .collect();
    use TxKind::{New, Retransmit as Rtx};
    assert_eq!(
        data,
        vec![
            (450, 15, New),
            (450, 16, New),
            (450, 8, Rtx),
            (450, 17, New),
            (550, 18, New),
            (550, 19, New),
            (550, 20, New),
            (1450, 8, Rtx),
        ]
    );
    assert_eq!(p.completed, Some(ms(1500)));
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.data_retransmits),
        (1, 1, 2)
    );
    assert_eq!(p.eps[SERVER].ssthresh(), 6570);
}

#[test]
fn sack_falls_back_to_newreno_when_the_peer_refuses() {
    // Fall & Floyd k = 2 (tests/fall_floyd.rs) with a SACK server and a NewReno client: no
    // blocks on the client's ACKs, and the server recovers as NewReno does — segment 15 at
    // 550 ms, 16 at 650 ms (one per RTT) — not as SACK (both at 550 ms).
    let drops = [15u64, 16]
        .iter()
        .map(|&i| DropRule::Seq {
            side: SERVER,
            seq: s_of(i),
            kind: Some(TxKind::New),
            times: 1,
        })
        .collect();
    let mut p = Pipe::http_with(TcpConfig::default(), sack(), dms(50), 100, 64 * MSS, drops);
    p.run();
    assert!(p.sent(CLIENT).iter().all(|s| s.seg.sack.is_empty()));
    let rtx: Vec<(u64, u64)> = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.kind == TxKind::Retransmit && s.seg.len > 0)
        .map(|s| (s.t.as_nanos() / 1_000_000, s.seg.seq))
        .collect();
    assert_eq!(rtx, vec![(550, s_of(15)), (650, s_of(16))]);
}

/// A SACK server (`cfg`) in ESTABLISHED: SYN with SACK-permitted at 0, handshake ACK at 100 ms
/// (SRTT 100 ms, RTO 1 s).
fn sack_server(cfg: TcpConfig) -> Endpoint {
    let mut s = Endpoint::listen(cfg);
    let mut syn = seg(0, 0, 0, SYN);
    syn.sack_ok = true;
    s.on_segment(ms(0), &syn);
    assert!(drain(&mut s, ms(0))[0].sack_ok);
    s.on_segment(ms(100), &seg(1, 1, 0, ACK));
    assert!(s.sack_enabled());
    s
}

/// The client's ACK `ack` with SACK blocks.
fn sack_ack(ack: u64, blocks: &[(u64, u64)]) -> tcp::Segment {
    let mut a = seg(1, ack, 0, ACK);
    a.sack = blocks.iter().copied().collect();
    a
}

/// Segment numbers (1-based, MSS-sized) of the data segments in `out`.
fn seg_numbers(out: &[tcp::Segment]) -> Vec<u64> {
    out.iter()
        .filter(|s| s.len > 0)
        .map(|s| (s.seq - 1) / MSS + 1)
        .collect()
}

#[test]
fn sack_timeout_with_keep_resends_only_the_holes() {
    // IW 10, 10 segments at 100 ms; segments 1–8 lost, 9 and 10 SACKed at 200 ms (one dupACK,
    // 2 segments SACKed: IsLost(1) needs more than 2 MSS, so no recovery). RTO at 1100 ms:
    // cwnd 1 MSS, then slow start, one ACK per 100 ms covering what was resent.
    // keep (Linux tcp_timeout_mark_lost): 1–8 are lost, 9–10 stay SACKed: 1 | 2, 3 | 4, 5, 6 |
    // 7, 8 and nothing more at 1400 ms (cwnd 4 MSS, pipe 2 MSS, no hole left, no new data).
    // clear (RFC 6675 §5.1, go back N): the same until 1400 ms, where cwnd 4 MSS from SND.UNA 7
    // sends 7, 8, 9, 10 — two segments the receiver holds.
    for (rule, at_1400) in [
        (SackOnTimeout::Keep, vec![7, 8]),
        (SackOnTimeout::Clear, vec![7, 8, 9, 10]),
    ] {
        let cfg = TcpConfig {
            initial_window: 10,
            sack_on_timeout: rule,
            ..sack()
        };
        let mut s = sack_server(cfg);
        s.send(10 * MSS);
        assert_eq!(
            seg_numbers(&drain(&mut s, ms(100))),
            (1..=10).collect::<Vec<_>>()
        );
        s.on_segment(ms(200), &sack_ack(1, &[(s_of(9), s_of(11))]));
        assert!(drain(&mut s, ms(200)).is_empty());
        assert!(!s.in_recovery());
        assert_eq!(s.next_deadline(), Some(ms(1100)));
        s.on_timeout(ms(1100));
        assert_eq!(s.cwnd(), MSS);
        let kept = rule == SackOnTimeout::Keep;
        assert_eq!(s.sacked().len(), kept as usize, "{rule:?}");
        assert_eq!(seg_numbers(&drain(&mut s, ms(1100))), vec![1], "{rule:?}");
        let script = [
            (1200, 2, vec![2, 3]),
            (1300, 4, vec![4, 5, 6]),
            (1400, 7, at_1400),
        ];
        for (t, k, want) in script {
            s.on_segment(ms(t), &sack_ack(s_of(k), &[(s_of(9), s_of(11))]));
            assert_eq!(
                seg_numbers(&drain(&mut s, ms(t))),
                want,
                "{rule:?} at {t} ms"
            );
        }
        s.on_segment(ms(1500), &sack_ack(s_of(11), &[]));
        assert_eq!(s.flight_size(), 0);
        assert_eq!(s.stats().data_retransmits, if kept { 8 } else { 10 });
    }
}
