//! The four scenarios of Fall & Floyd 1996 ("Simulation-based comparisons of Tahoe, Reno, and
//! SACK TCP", CCR 26(3)): one flow, 1, 2, 3 or 4 packets dropped from one window of data, for
//! Tahoe, Reno, NewReno and SACK. Every expected value below was derived by hand from the
//! algorithms' definitions (congestion/*.rs, scoreboard.rs) before running the code.
//!
//! Scenario. d = 50 ms one way (RTT 100 ms), no serialization time, request 100 B, response 64
//! segments of MSS 1460 (segment i is [S(i), S(i+1)), S(i) = 1 + (i−1)·1460), IW 2, an ACK per
//! segment, receive window 65535 (= initial ssthresh; never limiting below). Loss-free slow
//! start: seg 1–2 at 150 ms, 3–6 at 250, 7–14 at 350, 15–30 at 450 ms (cwnd 16 MSS; each of the
//! 8 ACKs at 450 adds 1 MSS and frees 1 → 2 segments per ACK). The k lost segments are the first
//! k of that window: 15 … 14+k (k = 1…4), first transmission only.
//!
//! Common start. 500 ms: the client holds 15+k … 30 and sends 16−k duplicate ACKs of S(15).
//! 550 ms: FlightSize at the 3rd dupACK is 16 segments (23360 B), so every variant sets
//! ssthresh = 11680 (8 MSS) there. RTO = 1 s throughout (every RTT sample is 100 ms:
//! SRTT + 4·RTTVAR ≤ 300 ms < min RTO); samples on retransmitted data are never taken.
//!
//! TAHOE (cwnd = 1 MSS at the 3rd dupACK, go back to SND.UNA, no fast recovery; dupACKs with
//! ACK ≤ recover = S(31) never trigger again):
//!  k=1: 550 resend 15. 650 ACK S(31): cwnd 2 MSS, new 31, 32.
//!  k=2: 550 resend 15. 650 ACK S(16): cwnd 2, resend 16 and 17 (17 was received: go-back-N).
//!       700: 16 → ACK S(31), 17 → duplicate ACK S(31). 750 ACK S(31): cwnd 3 MSS.
//!  k=3: as k=2 to 650 (16, 17 both needed). 700: ACK S(17), ACK S(31). 750: ACK S(17) → cwnd 3,
//!       SND.NXT = S(18), 1 segment out → resend 18, 19 (both already held); ACK S(31) → cwnd 4.
//!  k=4: 700: ACK S(17), S(18). 750: ACK S(17) → cwnd 3, resend 18, 19; ACK S(18) → cwnd 4,
//!       resend 20, 21. 800: ACK S(31) + 3 duplicates (19–21), ignored (≤ recover). 850: ACK
//!       S(31): cwnd 5 MSS.
//!  No timeout in any case; the window is repaired after 1, 2, 2, 3 RTTs with 0, 1, 2, 3
//!  needless retransmissions; ssthresh 11680 and cwnd 2, 3, 4, 5 MSS at the repairing ACK.
//!
//! RENO (RFC 5681; FlightSize-based eq. 4 at every fast retransmit; any new ACK ends recovery
//! with cwnd = ssthresh). At 550 the 3rd dupACK sets cwnd 11 MSS and resends 15; dupACKs 4…16−k
//! inflate to (24−k) MSS, and dupACKs 9…16−k each release one new segment: 31 … 38−k.
//!  k=1: 600: ACK S(31) and 7 more. 650: ACK S(31) ends recovery: cwnd = ssthresh = 11680.
//!  k=2: 650: ACK S(16) ends recovery (cwnd 11680), FlightSize S(37)−S(16) = 21 segments;
//!       6 dupACKs (31–36): 2nd fast retransmit of 16 with ssthresh = 21·1460/2 = 15330,
//!       cwnd 15330 + 3·1460 → 24090 after 6 dupACKs, still < 21 segments: nothing new.
//!       750: ACK S(37) ends recovery: cwnd = ssthresh = 15330. No timeout, 2 fast retransmits.
//!  k=3: 650: ACK S(16) ends recovery, 20 segments out; 5 dupACKs: 2nd fast retransmit of 16,
//!       ssthresh 14600. 750: ACK S(17) ends recovery (cwnd 14600 < 19 segments out) and no
//!       segment is left in flight to make dupACKs: the timer (restarted at 750) fires at 1750:
//!       ssthresh = 19·1460/2 = 13870, cwnd 1 MSS, resend 17. 1850: ACK S(36): cwnd 2 MSS.
//!  k=4: 650: 19 segments out, 4 dupACKs: 2nd fast retransmit of 16, ssthresh 13870. 750: ACK
//!       S(17) stalls (18 segments out); 1750 timeout: ssthresh 18·1460/2 = 13140, resend 17.
//!       1850: ACK S(18): cwnd 2, resend 18 and 19 (19 needless). 1950: ACK S(35): cwnd 3 MSS.
//!
//! NEWRENO (RFC 6582, recover = S(31), partial ACKs resend the next hole, deflate by the bytes
//! acknowledged and add back 1 MSS): one lost segment resent per RTT, never a timeout.
//!  k=2: 650: partial ACK S(16): cwnd stays 22 MSS, resend 16, new 37; 6 dupACKs → 38–43.
//!       750: ACK S(37) ≥ recover: cwnd = ssthresh = 11680.
//!  k=3: 650: resend 16, new 36–41; 750: partial ACK S(17): resend 17, new 42–48; 850: full ACK.
//!  k=4: 650: resend 16, new 35–39; 750: resend 17, new 40–45; 850: resend 18, new 46–52
//!       (35 segments out: 51100 B < 65535); 950: full ACK S(46).
//!  So the window is repaired after k RTTs (650, 750, 850, 950), cwnd = ssthresh = 11680.
//!
//! SACK (RFC 6675: cwnd = ssthresh = 8 MSS at the 3rd dupACK, pipe-limited sending; a hole is
//! lost once 3 segments above it are SACKed). After dupACK j (3 ≤ j ≤ 16−k) the SACKed segments
//! are 15+k … 14+k+j; pipe = r (holes resent) + 16−k−j (unSACKed tail). Sending needs pipe + 1
//! ≤ 8: the remaining holes are resent first (rule 1), then new data (rule 2):
//!  k=1: resend 15 at j=3; new 31–37 at j=9…15.   k=2: 15 at j=3, 16 at j=8; new 31–36.
//!  k=3: 15, then 16 at j=7, 17 at j=8; new 31–35. k=4: 15, 16 (j=6), 17 (j=7), 18 (j=8); 31–34.
//!  600: the client fills every hole. 650: partial ACKs each free one segment (pipe 7 → new
//!  data), then ACK S(31) ends recovery with cwnd = ssthresh = 11680. Every case: all losses
//!  resent within the first RTT, window repaired at 650 ms, no timeout.
//!
//! CUBIC (RFC 9438 window, NewReno recovery): as NewReno, except ssthresh = round(0.7 ·
//! FlightSize) = round(0.7 · 23360) = 16352 B at the 3rd dupACK and cwnd = 16352 + 3·1460 =
//! 20732 B while recovering; the holes are resent one per RTT at 550 + 100·i ms exactly as
//! NewReno's (the larger window only adds new segments: at most 31 + 44 − 1 segments are ever
//! out, the 65535-B receive window), the full ACK at 550 + 100·k ms sets cwnd = 16352.
//!
//! CUBIC WITH SACK (`cubic_sack`, Linux's pair: RFC 9438's reduction, RFC 6675's recovery): at the
//! 3rd dupACK ssthresh = cwnd = round(0.7 · 23360) = 16352 B (11.2 MSS), no inflation. Sending
//! needs pipe + 1 MSS ≤ cwnd, a looser bound than SACK's 8 MSS, so as for SACK every hole is
//! resent at 550 ms as soon as it is lost (3 segments SACKed above it), the client fills every
//! hole at 600, and the ACK of S(31) = RecoveryPoint at 650 ends recovery with cwnd = ssthresh =
//! 16352 B. Every case: all losses resent within the first RTT, no timeout, one loss event.
//!
//! Loss events (TcpStats): every case starts with one at cwnd = 16 MSS = 23360 B. Reno k=3 has
//! two more: the 2nd fast retransmit at 650 (cwnd = ssthresh 11680 after the ACK of S(16)
//! ended the first recovery) and the timeout at 1750 (cwnd = ssthresh 14600 after the ACK of
//! S(17) ended the second); Reno k=2: the 2nd fast retransmit at cwnd 11680; Reno k=4:
//! 11680, then the timeout at cwnd 13870.
//!
//! Validation of the paper's findings: Tahoe always recovers but slow-starts and resends data the
//! receiver holds; Reno survives 1 and 2 losses by fast retransmit (two for k=2) but needs a
//! timeout for 3 and 4; NewReno survives all, one loss per RTT; SACK survives all within one RTT.
//! (Fall & Floyd's Reno halves cwnd twice at k=2; with RFC 5681's FlightSize the second
//! "halving" is of 21 outstanding segments and raises ssthresh to 15330 — a documented
//! difference from ns-2's cwnd-based rule, congestion/mod.rs.)

mod util;

use tcp::{TcpConfig, TxKind, Variant};
use units::SimTime;
use util::*;

const N: u64 = 64;

fn seg_no(seq: u64) -> u64 {
    (seq - 1) / MSS + 1
}

fn s_of(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

struct Outcome {
    /// (ms, segment number) of every data retransmission by the server.
    rtx: Vec<(u64, u64)>,
    timeouts: u32,
    fast_retransmits: u32,
    /// When the first ACK ≥ S(31) reached the server (the window is repaired).
    repaired_ms: u64,
    /// ssthresh and cwnd right after that ACK.
    ssthresh: u64,
    cwnd: u64,
    /// Server loss events: count, sum of cwnd before each (bytes), the first four.
    loss: (u32, u64, [u64; 4]),
}

fn run(variant: Variant, k: u64) -> Outcome {
    run_with(
        TcpConfig {
            variant,
            ..TcpConfig::default()
        },
        k,
    )
}

fn run_with(cfg: TcpConfig, k: u64) -> Outcome {
    let variant = cfg.variant;
    let drops = (15..15 + k)
        .map(|i| DropRule::Seq {
            side: SERVER,
            seq: s_of(i),
            kind: Some(TxKind::New),
            times: 1,
        })
        .collect();
    let mut p = Pipe::http_with(cfg.clone(), cfg, dms(50), 100, N * MSS, drops);
    p.run();
    assert_eq!(p.eps[CLIENT].bytes_received(), N * MSS, "{variant:?} k={k}");
    assert!(p.completed.is_some());
    assert_eq!(
        p.eps[SERVER].sack_enabled(),
        variant.uses_sack(),
        "negotiation"
    );
    let rtx = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0 && s.seg.kind == TxKind::Retransmit)
        .map(|s| (s.t.as_nanos() / 1_000_000, seg_no(s.seg.seq)))
        .collect();
    let tr = p
        .trace
        .iter()
        .find(|t| t.side == SERVER && t.snd_una >= s_of(31))
        .copied()
        .expect("window repaired");
    let st = p.eps[SERVER].stats();
    Outcome {
        rtx,
        timeouts: st.timeouts,
        fast_retransmits: st.fast_retransmits,
        repaired_ms: tr.t.as_nanos() / 1_000_000,
        ssthresh: tr.ssthresh,
        cwnd: tr.cwnd,
        loss: (st.loss_events, st.loss_cwnd_sum, st.loss_cwnd),
    }
}

fn check(variant: Variant, k: u64, o: &Outcome, expect: (&[(u64, u64)], u32, u32, u64, u64, u64)) {
    let (rtx, to, fr, repaired, ssthresh, cwnd) = expect;
    assert_eq!(o.rtx, rtx.to_vec(), "{variant:?} k={k}: retransmissions");
    assert_eq!(
        (o.timeouts, o.fast_retransmits),
        (to, fr),
        "{variant:?} k={k}: (timeouts, fast retransmits)"
    );
    assert_eq!(o.repaired_ms, repaired, "{variant:?} k={k}: repaired at");
    assert_eq!(
        (o.ssthresh, o.cwnd),
        (ssthresh, cwnd),
        "{variant:?} k={k}: (ssthresh, cwnd) at repair"
    );
}

#[test]
fn fall_floyd_tahoe_always_slow_starts_and_resends_held_data() {
    let m = MSS;
    type Case<'a> = (&'a [(u64, u64)], u64, u64); // (retransmissions, repaired at, cwnd)
    let cases: [Case; 4] = [
        (&[(550, 15)], 650, 2 * m),
        (&[(550, 15), (650, 16), (650, 17)], 750, 3 * m),
        (
            &[(550, 15), (650, 16), (650, 17), (750, 18), (750, 19)],
            750,
            4 * m,
        ),
        (
            &[
                (550, 15),
                (650, 16),
                (650, 17),
                (750, 18),
                (750, 19),
                (750, 20),
                (750, 21),
            ],
            850,
            5 * m,
        ),
    ];
    for (k, (rtx, repaired, cwnd)) in (1..=4).zip(cases) {
        let o = run(Variant::Tahoe, k);
        check(Variant::Tahoe, k, &o, (rtx, 0, 1, repaired, 11680, cwnd));
    }
}

#[test]
fn fall_floyd_reno_survives_two_losses_but_times_out_on_three_and_four() {
    let o = run(Variant::Reno, 1);
    check(
        Variant::Reno,
        1,
        &o,
        (&[(550, 15)], 0, 1, 650, 11680, 11680),
    );
    let o = run(Variant::Reno, 2);
    check(
        Variant::Reno,
        2,
        &o,
        (&[(550, 15), (650, 16)], 0, 2, 750, 15330, 15330),
    );
    let o = run(Variant::Reno, 3);
    check(
        Variant::Reno,
        3,
        &o,
        (
            &[(550, 15), (650, 16), (1750, 17)],
            1,
            2,
            1850,
            13870,
            2 * MSS,
        ),
    );
    let o = run(Variant::Reno, 4);
    check(
        Variant::Reno,
        4,
        &o,
        (
            &[(550, 15), (650, 16), (1750, 17), (1850, 18), (1850, 19)],
            1,
            2,
            1950,
            13140,
            3 * MSS,
        ),
    );
}

#[test]
fn fall_floyd_reno_with_ns2_ssthresh_rule_gives_ns2s_windows() {
    // `ssthresh = "ns2"`: ssthresh = max(⌊W/2⌋, 2) segments of the window W, on every fast
    // retransmit and timeout. The retransmissions and repair times stay those above (both
    // simulators agree on them); cwnd and ssthresh at the repair become ns-2.35's own
    // (validation/ns2/README.md, "TCP: the Fall & Floyd cases": Reno 2: 4, 4; Reno 3: 2, 2;
    // Reno 4: cwnd 2.5, ssthresh 2 segments). By hand, k = 2: 550 ms ssthresh ⌊16/2⌋ = 8,
    // cwnd 11; 650 ACK S(16) ends recovery with cwnd 8; 2nd fast retransmit ssthresh 4; 750
    // ACK S(37): cwnd = ssthresh = 4. k = 3, 4: the timeout at 1750 ms halves cwnd 4 → ssthresh
    // 2; k = 3: 1850 ACK S(31) slow-starts cwnd 1 → 2; k = 4: 1850 ACK S(18) → cwnd 2 (resend
    // 18, 19), 1950 ACK S(35) in congestion avoidance: 2 + 1/2 segments.
    let cfg = TcpConfig {
        variant: Variant::Reno,
        ssthresh_rule: tcp::SsthreshRule::Ns2,
        ..TcpConfig::default()
    };
    // (retransmissions, timeouts, repaired at, ssthresh, cwnd)
    type Case<'a> = (&'a [(u64, u64)], u32, u64, u64, u64);
    let cases: [Case; 4] = [
        (&[(550, 15)], 0, 650, 8 * MSS, 8 * MSS),
        (&[(550, 15), (650, 16)], 0, 750, 4 * MSS, 4 * MSS),
        (
            &[(550, 15), (650, 16), (1750, 17)],
            1,
            1850,
            2 * MSS,
            2 * MSS,
        ),
        (
            &[(550, 15), (650, 16), (1750, 17), (1850, 18), (1850, 19)],
            1,
            1950,
            2 * MSS,
            2 * MSS + MSS / 2,
        ),
    ];
    for (k, (rtx, to, repaired, ssthresh, cwnd)) in (1..=4).zip(cases) {
        let o = run_with(cfg.clone(), k);
        let fr = if k == 1 { 1 } else { 2 };
        check(
            Variant::Reno,
            k,
            &o,
            (rtx, to, fr, repaired, ssthresh, cwnd),
        );
    }
}

#[test]
fn fall_floyd_newreno_resends_one_loss_per_rtt_without_timeout() {
    for k in 1..=4u64 {
        let o = run(Variant::NewReno, k);
        let rtx: Vec<(u64, u64)> = (0..k).map(|i| (550 + 100 * i, 15 + i)).collect();
        check(
            Variant::NewReno,
            k,
            &o,
            (&rtx, 0, 1, 550 + 100 * k, 11680, 11680),
        );
    }
}

#[test]
fn fall_floyd_sack_resends_every_loss_within_one_rtt() {
    for k in 1..=4u64 {
        let o = run(Variant::Sack, k);
        let rtx: Vec<(u64, u64)> = (0..k).map(|i| (550, 15 + i)).collect();
        check(Variant::Sack, k, &o, (&rtx, 0, 1, 650, 11680, 11680));
    }
}

#[test]
fn fall_floyd_cubic_resends_one_loss_per_rtt_with_beta_0_7() {
    for k in 1..=4u64 {
        let o = run(Variant::Cubic, k);
        let rtx: Vec<(u64, u64)> = (0..k).map(|i| (550 + 100 * i, 15 + i)).collect();
        check(
            Variant::Cubic,
            k,
            &o,
            (&rtx, 0, 1, 550 + 100 * k, 16352, 16352),
        );
        assert_eq!(o.loss, (1, 23360, [23360, 0, 0, 0]), "cubic k={k}");
    }
}

#[test]
fn fall_floyd_cubic_sack_resends_every_loss_within_one_rtt_with_beta_0_7() {
    for k in 1..=4u64 {
        let o = run(Variant::CubicSack, k);
        let rtx: Vec<(u64, u64)> = (0..k).map(|i| (550, 15 + i)).collect();
        check(Variant::CubicSack, k, &o, (&rtx, 0, 1, 650, 16352, 16352));
        assert_eq!(o.loss, (1, 23360, [23360, 0, 0, 0]), "cubic_sack k={k}");
    }
}

#[test]
fn fall_floyd_loss_events_record_cwnd_before_each_reduction() {
    for v in [Variant::Tahoe, Variant::NewReno, Variant::Sack] {
        for k in 1..=4 {
            assert_eq!(run(v, k).loss, (1, 23360, [23360, 0, 0, 0]), "{v:?} k={k}");
        }
    }
    assert_eq!(run(Variant::Reno, 1).loss, (1, 23360, [23360, 0, 0, 0]));
    assert_eq!(
        run(Variant::Reno, 2).loss,
        (2, 23360 + 11680, [23360, 11680, 0, 0])
    );
    assert_eq!(
        run(Variant::Reno, 3).loss,
        (3, 23360 + 11680 + 14600, [23360, 11680, 14600, 0])
    );
    assert_eq!(
        run(Variant::Reno, 4).loss,
        (3, 23360 + 11680 + 13870, [23360, 11680, 13870, 0])
    );
}

#[test]
fn fall_floyd_sack_sends_new_data_exactly_as_derived() {
    // The new segments sent during SACK recovery at 550 ms (pipe-limited), k = 1…4:
    // 31–37, 31–36, 31–35, 31–34 — i.e. 8 − k, the same count Reno's inflation allows. At
    // 650 ms the k − 1 partial ACKs each release one more (39−k … 37), the ACK of S(31) one
    // (FlightSize 7 → 8 = cwnd: segment 38), and the 8 − k ACKs of 31 … 38−k one each in
    // congestion avoidance (their increments, 182 + 179 + … < 1460 B, never add a segment):
    // 39 … 46−k. In all: 39−k … 46−k.
    for k in 1..=4u64 {
        let cfg = TcpConfig {
            variant: Variant::Sack,
            ..TcpConfig::default()
        };
        let drops = (15..15 + k)
            .map(|i| DropRule::Seq {
                side: SERVER,
                seq: s_of(i),
                kind: Some(TxKind::New),
                times: 1,
            })
            .collect();
        let mut p = Pipe::http_with(cfg.clone(), cfg, dms(50), 100, N * MSS, drops);
        p.run_until(SimTime::from_millis(650));
        let new_at = |t: u64| -> Vec<u64> {
            p.sent(SERVER)
                .iter()
                .filter(|s| s.t == ms(t) && s.seg.len > 0 && s.seg.kind == TxKind::New)
                .map(|s| seg_no(s.seg.seq))
                .collect()
        };
        assert_eq!(new_at(550), (31..=38 - k).collect::<Vec<_>>(), "k={k}");
        assert_eq!(new_at(650), (39 - k..=46 - k).collect::<Vec<_>>(), "k={k}");
    }
}
