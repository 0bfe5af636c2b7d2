//! The timestamps option (RFC 7323): negotiation, wire size, which TSval is echoed (§4.3) and
//! RTT measurement from every ACK that advances SND.UNA (§4.1), by hand-scripted segments.
//!
//! Defaults unless stated: MSS 1460, IW 2, min RTO 1 s, tick G = 10 ms (samples are whole
//! ticks; every time below is a multiple of 10 ms so samples are exact), RFC 6298 gains 1/8
//! and 1/4 on every sample.

mod util;

use tcp::{Endpoint, Segment, TcpConfig, Timestamps};
use units::SimDuration;
use util::*;

fn ts_cfg() -> TcpConfig {
    TcpConfig {
        timestamps: true,
        ..TcpConfig::default()
    }
}

fn ns(t_ms: u64) -> u64 {
    t_ms * 1_000_000
}

/// A peer segment with the option TSval = `val_ms`, TSecr = `ecr_ms`.
fn tseg(seq: u64, ack: u64, len: u32, flags: tcp::Flags, val_ms: u64, ecr_ms: u64) -> Segment {
    Segment {
        ts: Some(Timestamps {
            val: ns(val_ms),
            ecr: ns(ecr_ms),
        }),
        ..seg(seq, ack, len, flags)
    }
}

/// Server: SYN (TSval 0) at 0, handshake ACK at 100 ms echoing the SYN-ACK's TSval 0.
/// Sample 100 ms → SRTT 100, RTTVAR 50, RTO max(1 s, 300 ms) = 1 s.
fn ts_server(cfg: TcpConfig, with_ts: bool) -> Endpoint {
    let mk = |seq, ack, flags| {
        if with_ts {
            tseg(seq, ack, 0, flags, 0, 0)
        } else {
            seg(seq, ack, 0, flags)
        }
    };
    let mut s = Endpoint::listen(cfg);
    s.on_segment(ms(0), &mk(0, 0, SYN));
    let synack = drain(&mut s, ms(0));
    assert_eq!(synack.len(), 1);
    let ack = if with_ts {
        tseg(1, 1, 0, ACK, 100, 0)
    } else {
        seg(1, 1, 0, ACK)
    };
    s.on_segment(ms(100), &ack);
    drain(&mut s, ms(100));
    assert_eq!(s.srtt(), Some(dms(100)));
    s
}

#[test]
fn timestamps_negotiated_only_when_both_ends_want_them() {
    // Both on: every segment of the exchange carries the option and is 12 bytes longer.
    let mut p = Pipe::http(ts_cfg(), dms(50), 100, 10 * MSS);
    p.run();
    assert!(p.eps[CLIENT].timestamps_enabled() && p.eps[SERVER].timestamps_enabled());
    assert!(p.log.iter().all(|s| s.seg.ts.is_some()));
    for s in &p.log {
        assert_eq!(s.seg.wire_bytes(), s.seg.len + 40 + 12);
    }
    // Timing is unchanged by the option (no serialization time): 8d = 400 ms as without it
    // (established.rs case 2).
    assert_eq!(p.completed, Some(ms(400)));
    // Only the client wants them: its SYN offers the option (52 bytes), nothing else has it.
    let mut p = Pipe::http_with(
        ts_cfg(),
        TcpConfig::default(),
        dms(50),
        100,
        2 * MSS,
        vec![],
    );
    p.run();
    assert!(!p.eps[CLIENT].timestamps_enabled() && !p.eps[SERVER].timestamps_enabled());
    let with: Vec<_> = p.log.iter().filter(|s| s.seg.ts.is_some()).collect();
    assert_eq!(with.len(), 1);
    assert!(with[0].seg.flags == SYN && with[0].seg.wire_bytes() == 52);
    // Only the server: the client's SYN has no option, so neither does anything else.
    let mut p = Pipe::http_with(
        TcpConfig::default(),
        ts_cfg(),
        dms(50),
        100,
        2 * MSS,
        vec![],
    );
    p.run();
    assert!(p.log.iter().all(|s| s.seg.ts.is_none()));
}

#[test]
fn timestamps_syn_ack_echo_gives_the_first_sample() {
    // Client SYN at 0 (TSval 0); the SYN-ACK at 100 ms echoes 0 → sample 100 ms: SRTT 100,
    // RTTVAR 50. The handshake ACK carries TSval 100 ms and echoes the SYN-ACK's TSval 40 ms.
    let mut c = Endpoint::connect(ts_cfg(), ms(0));
    let syn = drain(&mut c, ms(0));
    assert_eq!(syn[0].ts, Some(Timestamps { val: 0, ecr: 0 }));
    c.on_segment(ms(100), &tseg(0, 1, 0, SYN_ACK, 40, 0));
    let out = drain(&mut c, ms(100));
    assert_eq!(
        out[0].ts,
        Some(Timestamps {
            val: ns(100),
            ecr: ns(40)
        })
    );
    assert_eq!((c.srtt(), c.rttvar()), (Some(dms(100)), dms(50)));
}

#[test]
fn timestamps_sample_every_ack_while_karn_timing_samples_once_per_rtt() {
    // Server sends 2 segments at 100 ms (TSval 100, TSecr = the handshake ACK's TSval 100).
    // ACK 1461 at 180 ms echoes 100 → R = 80: RTTVAR = 3/4·50 + 1/4·20 = 42.5, SRTT = 7/8·100 +
    // 80/8 = 97.5. ACK 2921 at 200 ms echoes 100 → R = 100: RTTVAR = 3/4·42.5 + 1/4·2.5 =
    // 32.5, SRTT = 7/8·97.5 + 100/8 = 97.8125 ms.
    let mut s = ts_server(ts_cfg(), true);
    s.send(2 * MSS);
    let out = drain(&mut s, ms(100));
    assert_eq!(out.len(), 2);
    for d in &out {
        assert_eq!(
            d.ts,
            Some(Timestamps {
                val: ns(100),
                ecr: ns(100)
            })
        );
    }
    s.on_segment(ms(180), &tseg(1, 1461, 0, ACK, 180, 100));
    assert_eq!(
        (s.srtt(), s.rttvar()),
        (Some(dms(97) + us(500)), dms(42) + us(500))
    );
    s.on_segment(ms(200), &tseg(1, 2921, 0, ACK, 200, 100));
    assert_eq!(
        (s.srtt(), s.rttvar()),
        (
            Some(dms(97) + us(812) + SimDuration(500)),
            dms(32) + us(500)
        )
    );
    // Without timestamps only the first segment is timed: the same two ACKs give one sample.
    let mut s = ts_server(TcpConfig::default(), false);
    s.send(2 * MSS);
    assert_eq!(drain(&mut s, ms(100)).len(), 2);
    s.on_segment(ms(180), &seg(1, 1461, 0, ACK));
    s.on_segment(ms(200), &seg(1, 2921, 0, ACK));
    assert_eq!(
        (s.srtt(), s.rttvar()),
        (Some(dms(97) + us(500)), dms(42) + us(500))
    );
}

fn us(x: u64) -> SimDuration {
    SimDuration::from_micros(x)
}

#[test]
fn timestamps_sample_a_retransmission_and_end_the_backoff() {
    // One segment at 100 ms is lost; the timer (RTO 1 s) fires at 1100 ms: RTO doubles to 2 s
    // and the segment is resent with TSval 1100. Its ACK at 1200 ms echoes 1100 → R = 100:
    // RTTVAR = 3/4·50 + 0 = 37.5, SRTT 100, backoff cleared → RTO = max(1 s, 100 + 150) = 1 s.
    let mut s = ts_server(ts_cfg(), true);
    s.send(MSS);
    assert_eq!(drain(&mut s, ms(100)).len(), 1);
    assert_eq!(s.next_deadline(), Some(ms(1100)));
    s.on_timeout(ms(1100));
    let rtx = drain(&mut s, ms(1100));
    assert_eq!(rtx[0].ts.map(|t| t.val), Some(ns(1100)));
    assert_eq!(s.rto(), SimDuration::from_secs(2));
    s.on_segment(ms(1200), &tseg(1, 1461, 0, ACK, 1150, 1100));
    assert_eq!((s.srtt(), s.rttvar()), (Some(dms(100)), dms(37) + us(500)));
    assert_eq!(s.rto(), SimDuration::from_secs(1));
    // Without timestamps Karn's rule forbids the sample: SRTT stays, the backoff stays (2 s).
    let mut s = ts_server(TcpConfig::default(), false);
    s.send(MSS);
    drain(&mut s, ms(100));
    s.on_timeout(ms(1100));
    drain(&mut s, ms(1100));
    s.on_segment(ms(1200), &seg(1, 1461, 0, ACK));
    assert_eq!((s.srtt(), s.rttvar()), (Some(dms(100)), dms(50)));
    assert_eq!(s.rto(), SimDuration::from_secs(2));
}

#[test]
fn timestamps_receiver_echoes_per_rfc7323_section_4_3() {
    // Client with delayed ACKs (200 ms). Handshake: SYN-ACK TSval 50 → TS.Recent 50.
    let cfg = TcpConfig {
        delayed_ack: Some(dms(200)),
        ..ts_cfg()
    };
    let mut c = Endpoint::connect(cfg, ms(0));
    drain(&mut c, ms(0));
    c.on_segment(ms(100), &tseg(0, 1, 0, SYN_ACK, 50, 0));
    drain(&mut c, ms(100));
    assert_eq!(c.ts_recent(), ns(50));
    let echo = |out: &[Segment]| {
        out.iter()
            .map(|s| (s.ack, s.ts.unwrap().ecr / 1_000_000))
            .collect::<Vec<_>>()
    };
    // Seg 1 (TSval 150) at 200: SEQ 1 ≤ Last.ACK.sent 1 → TS.Recent 150; the ACK is delayed.
    c.on_segment(ms(200), &tseg(1, 1, 1460, ACK, 150, 100));
    assert!(drain(&mut c, ms(200)).is_empty());
    // Seg 2 (TSval 160) at 210: SEQ 1461 > Last.ACK.sent → not taken; the delayed ACK for
    // both echoes the earlier segment's 150 (the RTT then includes the ACK delay).
    c.on_segment(ms(210), &tseg(1461, 1, 1460, ACK, 160, 100));
    assert_eq!(echo(&drain(&mut c, ms(210))), vec![(2921, 150)]);
    // Seg 4 (TSval 170) out of order: SEQ 4381 > 2921 → TS.Recent stays 150 on the dupACK.
    c.on_segment(ms(220), &tseg(4381, 1, 1460, ACK, 170, 100));
    assert_eq!(echo(&drain(&mut c, ms(220))), vec![(2921, 150)]);
    // Seg 3 (TSval 180) fills the hole: SEQ 2921 ≤ 2921 → its TSval is echoed.
    c.on_segment(ms(230), &tseg(2921, 1, 1460, ACK, 180, 100));
    assert_eq!(echo(&drain(&mut c, ms(230))), vec![(5841, 180)]);
    // An old duplicate with a smaller TSval (120 < 180) never moves TS.Recent back.
    c.on_segment(ms(240), &tseg(1, 1, 1460, ACK, 120, 100));
    assert_eq!(echo(&drain(&mut c, ms(240))), vec![(5841, 180)]);
}
