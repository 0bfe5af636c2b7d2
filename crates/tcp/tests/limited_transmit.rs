//! Web-sized responses and Limited Transmit (RFC 3042): which short responses can recover from a
//! loss by fast retransmit and which must wait for the retransmission timer.
//!
//! Setup: d = 50 ms, request 100 B, response k = 1…4 segments of MSS 1460 (segment i starts at
//! S(i) = 1 + (i−1)·1460; the FIN rides on segment k), IW 2, an ACK per segment, dupACK
//! threshold 3, server SRTT 100 ms → RTO 1 s (min RTO). The server sends 1–2 at 150 ms.
//!
//! By hand, with IW 2:
//! - Last segment lost: no segment follows it, so no duplicate ACK can exist — with or without
//!   Limited Transmit, every k ends in a timeout. The timer runs from the last ACK of new
//!   data: k = 1: armed at 150 → 1150; k = 2, 3: ACK S(2) / S(3) at 250 → 1250; k = 4: seg 3
//!   and 4 leave at 250, ACK S(4) at 350 → 1350. Completion 50 ms after the retransmission.
//! - First segment lost: IW 2 lets only segment 2 follow it: one dupACK at 250 ms. Without
//!   Limited Transmit cwnd never opens (no new ACK) — timeout at 1150 for every k. With it,
//!   each of the first two dupACKs releases one new segment (outstanding ≤ cwnd + 2 MSS):
//!   k = 2: nothing left to send → timeout. k = 3: dupACK 1 (250) releases 3, whose dupACK
//!   (350) finds nothing left → 2 dupACKs only → timeout at 1150, but the rest of the
//!   response is already there: complete at 1200 instead of 1300. k = 4: dupACK 1 releases 3,
//!   dupACK 2 (350) releases 4, dupACK 3 (450) triggers fast retransmit of 1 — FlightSize
//!   without the 2 Limited-Transmit segments = 2 MSS → ssthresh = max(1460, 2920) = 2920 —
//!   and the response is complete at 500 ms, no timeout.
//!
//! So with IW 2 Limited Transmit rescues a first-segment loss only from 4 segments on, and
//! never a last-segment loss.

mod util;

use tcp::{TcpConfig, TxKind, Variant};
use util::*;

fn s_of(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

fn run(variant: Variant, lt: bool, k: u64, lost: u64) -> Pipe {
    let c = TcpConfig {
        variant,
        limited_transmit: lt,
        ..TcpConfig::default()
    };
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: s_of(lost),
        kind: Some(TxKind::New),
        times: 1,
    }];
    let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, k * MSS, drops);
    p.run();
    assert_eq!(p.eps[CLIENT].bytes_received(), k * MSS);
    p
}

fn retransmissions(p: &Pipe) -> Vec<(u64, u64)> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0 && s.seg.kind == TxKind::Retransmit)
        .map(|s| (s.t.as_nanos() / 1_000_000, (s.seg.seq - 1) / MSS + 1))
        .collect()
}

const VARIANTS: [Variant; 4] = [
    Variant::Tahoe,
    Variant::Reno,
    Variant::NewReno,
    Variant::Sack,
];

#[test]
fn web_last_segment_lost_always_times_out() {
    for v in VARIANTS {
        for lt in [false, true] {
            for (k, rtx_at) in [(1u64, 1150u64), (2, 1250), (3, 1250), (4, 1350)] {
                let p = run(v, lt, k, k);
                let st = p.eps[SERVER].stats();
                assert_eq!(
                    (st.timeouts, st.fast_retransmits),
                    (1, 0),
                    "{v:?} lt={lt} k={k}"
                );
                assert_eq!(
                    retransmissions(&p),
                    vec![(rtx_at, k)],
                    "{v:?} lt={lt} k={k}"
                );
                assert_eq!(p.completed, Some(ms(rtx_at + 50)), "{v:?} lt={lt} k={k}");
            }
        }
    }
}

#[test]
fn web_first_segment_lost_recovers_by_fast_retransmit_only_with_limited_transmit_and_four_segments()
{
    for v in VARIANTS {
        // Without Limited Transmit: one dupACK, timeout at 1150 ms, then the rest in slow
        // start: k = 1, 2 complete at 1200 (segment 2 was already there), k = 3, 4 at 1300.
        for (k, done) in [(1u64, 1200u64), (2, 1200), (3, 1300), (4, 1300)] {
            let p = run(v, false, k, 1);
            let st = p.eps[SERVER].stats();
            assert_eq!((st.timeouts, st.fast_retransmits), (1, 0), "{v:?} k={k}");
            assert_eq!(p.completed, Some(ms(done)), "{v:?} k={k}");
            assert_eq!(retransmissions(&p)[0], (1150, 1), "{v:?} k={k}");
        }
        // With it: k = 1, 2, 3 still time out (at 1150, everything else already delivered →
        // complete at 1200); k = 4 recovers by fast retransmit at 450 ms, complete at 500.
        for k in 1..=3u64 {
            let p = run(v, true, k, 1);
            let st = p.eps[SERVER].stats();
            assert_eq!((st.timeouts, st.fast_retransmits), (1, 0), "{v:?} LT k={k}");
            assert_eq!(retransmissions(&p), vec![(1150, 1)], "{v:?} LT k={k}");
            assert_eq!(p.completed, Some(ms(1200)), "{v:?} LT k={k}");
        }
        let p = run(v, true, 4, 1);
        let st = p.eps[SERVER].stats();
        assert_eq!((st.timeouts, st.fast_retransmits), (0, 1), "{v:?} LT k=4");
        assert_eq!(retransmissions(&p), vec![(450, 1)], "{v:?} LT k=4");
        assert_eq!(p.completed, Some(ms(500)), "{v:?} LT k=4");
        let sent: Vec<(u64, u64)> = p
            .sent(SERVER)
            .iter()
            .filter(|s| s.seg.len > 0 && s.seg.kind == TxKind::New)
            .map(|s| (s.t.as_nanos() / 1_000_000, (s.seg.seq - 1) / MSS + 1))
            .collect();
        assert_eq!(sent, vec![(150, 1), (150, 2), (250, 3), (350, 4)], "{v:?}");
        assert_eq!(p.eps[SERVER].ssthresh(), 2920, "{v:?}");
    }
}

#[test]
fn limited_transmit_segments_are_not_part_of_flightsize() {
    // Fall & Floyd k = 1 (tests/fall_floyd.rs: response 64 segments, segment 15 of the 16-segment
    // window 15–30 lost) with NewReno and Limited Transmit. 550 ms: dupACK 1 and 2 each release
    // one new segment (31, 32: outstanding 17, 18 ≤ cwnd 16 + 2). DupACK 3: FlightSize counts
    // without them (RFC 5681 §3.2 step 2): 16 segments → ssthresh 11680 (not 18/2 = 13140),
    // cwnd 11 MSS, resend 15, recover = S(33). DupACKs 4…15 inflate to (8 + j) MSS against 18
    // out: new segments from j = 11: 33–37. 650: ACK S(33) is the full ACK: cwnd = 11680.
    let c = TcpConfig {
        limited_transmit: true,
        ..TcpConfig::default()
    };
    let drops = vec![DropRule::Seq {
        side: SERVER,
        seq: s_of(15),
        kind: Some(TxKind::New),
        times: 1,
    }];
    let mut p = Pipe::http_with(c.clone(), c, dms(50), 100, 64 * MSS, drops);
    p.run();
    let at550: Vec<(u64, TxKind)> = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0 && s.t == ms(550))
        .map(|s| ((s.seg.seq - 1) / MSS + 1, s.seg.kind))
        .collect();
    let mut expect = vec![
        (31, TxKind::New),
        (32, TxKind::New),
        (15, TxKind::Retransmit),
    ];
    expect.extend((33..=37).map(|i| (i, TxKind::New)));
    assert_eq!(at550, expect);
    let tr = p
        .trace
        .iter()
        .find(|t| t.side == SERVER && t.snd_una >= s_of(31))
        .unwrap();
    assert_eq!(
        (tr.t, tr.snd_una, tr.ssthresh, tr.cwnd),
        (ms(650), s_of(33), 11680, 11680)
    );
    let st = p.eps[SERVER].stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.data_retransmits),
        (0, 1, 1)
    );
}
