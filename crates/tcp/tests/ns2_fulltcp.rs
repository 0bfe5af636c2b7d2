//! `ns2_fulltcp` (issue 11): the packet sequence of ns-2.35's Full-TCP as PackMime drives it,
//! against the default (RFC) sequence, for one HTTP/1.0 exchange over a lossless path.
//!
//! The rules (tcp/tcp-full.cc, ns-2.35; config.rs has the line-level sources):
//! (a) on the SYN-ACK the client sends a pure ACK of its own, then its request;
//! (b) the server's FIN rides on its last data segment only if, when that segment is first sent,
//!     everything sent before it is acknowledged (`quiet`); otherwise the FIN goes alone once an
//!     ACK covers all the data;
//! (c) PackMime's client never closes: on the server's FIN the client's TCP (halfclose_ false)
//!     sends a pure ACK, then its own FIN;
//! (d) with delayed ACKs off (the twins' `segsperack_ 1`, `interval_ 0.1`), in-order data is
//!     acknowledged at once when ≥ 1 MSS is unacknowledged, otherwise at the next multiple of
//!     100 ms of simulated time (Full-TCP's periodic delayed-ACK tick);
//! (e) a last byte that would go alone (a size ≡ 1 mod MSS) waits until everything before it
//!     is acknowledged, then leaves with the FIN.
//!
//! Pipes use d = 30 ms one way (RTT 60 ms, so no arrival falls on a 100 ms tick), MSS 1460,
//! request 300 B, and `engine_order` (the application runs before the segments are drained, as
//! `sim/src/world.rs` does). Sequence numbers: SYNs at 0, the client's request 1..301, the
//! server's data from 1.

mod util;

use tcp::{AppEvent, Flags, State, TcpConfig};
use util::*;

fn ns2() -> TcpConfig {
    TcpConfig {
        ns2_fulltcp: true,
        ..TcpConfig::default()
    }
}

/// (time ms, side, seq, ack, len, flags) of every transmission.
type Row = (u64, usize, u64, u64, u32, Flags);

fn exchange(cfg: TcpConfig, response: u64) -> (Pipe, Vec<Row>) {
    let mut p = Pipe::http(cfg, dms(30), 300, response);
    p.engine_order = true;
    p.run();
    assert_eq!(p.eps[CLIENT].state(), State::Closed);
    assert_eq!(p.eps[SERVER].state(), State::TimeWait);
    let rows = p
        .log
        .iter()
        .map(|s| {
            (
                s.t.as_nanos() / 1_000_000,
                s.side,
                s.seg.seq,
                s.seg.ack,
                s.seg.len,
                s.seg.flags,
            )
        })
        .collect();
    (p, rows)
}

const C: usize = CLIENT;
const S: usize = SERVER;

#[test]
fn one_segment_response_default_sequence() {
    // 0 SYN; 30 SYN-ACK; 60 request carrying the handshake ACK; 90 the 1000 B response with
    // the FIN on it; 120 the client closes on completion: its FIN carries the ACK of data and
    // FIN (1 + 1000 + 1 = 1002); 150 the server's last ACK (301 + FIN = 302). 6 packets.
    let (_, rows) = exchange(TcpConfig::default(), 1000);
    assert_eq!(
        rows,
        vec![
            (0, C, 0, 0, 0, SYN),
            (30, S, 0, 1, 0, SYN_ACK),
            (60, C, 1, 1, 300, ACK),
            (90, S, 1, 301, 1000, FIN_ACK),
            (120, C, 301, 1002, 0, FIN_ACK),
            (150, S, 1002, 302, 0, ACK),
        ]
    );
}

#[test]
fn one_segment_response_ns2_sequence() {
    // (a) 60: pure ACK, then the request. 90: the server has the handshake ACK (SND.UNA =
    // SND.MAX = 1: quiet), so the FIN rides on the one data segment (b); the 300 B request
    // (< 1 MSS) armed the tick at 100 ms, but the response carries the ACK first. (c) 120: the
    // client ACKs data + FIN, then sends its FIN alone. 150: the ACK of the server's FIN moves
    // it to FIN-WAIT-2; the client's FIN then gets the last ACK. 8 packets (2 more).
    let (p, rows) = exchange(ns2(), 1000);
    assert_eq!(
        rows,
        vec![
            (0, C, 0, 0, 0, SYN),
            (30, S, 0, 1, 0, SYN_ACK),
            (60, C, 1, 1, 0, ACK),
            (60, C, 1, 1, 300, ACK),
            (90, S, 1, 301, 1000, FIN_ACK),
            (120, C, 301, 1002, 0, ACK),
            (120, C, 301, 1002, 0, FIN_ACK),
            (150, S, 1002, 302, 0, ACK),
        ]
    );
    assert_eq!(p.completed, Some(ms(120)));
}

#[test]
fn two_segment_response_default_sequence() {
    // 2000 B = 1460 + 540. 90: both segments, the FIN on the second. 120: the first is ACKed
    // at once (delayed ACKs off); the second completes the response and the client's FIN
    // carries ACK 2002. 150: the server's last ACK. 7 packets.
    let (_, rows) = exchange(TcpConfig::default(), 2000);
    assert_eq!(
        rows,
        vec![
            (0, C, 0, 0, 0, SYN),
            (30, S, 0, 1, 0, SYN_ACK),
            (60, C, 1, 1, 300, ACK),
            (90, S, 1, 301, 1460, ACK),
            (90, S, 1461, 301, 540, FIN_ACK),
            (120, C, 301, 1461, 0, ACK),
            (120, C, 301, 2002, 0, FIN_ACK),
            (150, S, 2002, 302, 0, ACK),
        ]
    );
}

#[test]
fn two_segment_response_ns2_sequence_separate_fin() {
    // 90: the second segment leaves while the first is unacknowledged (not quiet): no FIN (b).
    // 120: the full segment is ACKed at once (1460 ≥ 1 MSS); the 540 B one waits for the
    // 100 ms tick after 120, i.e. 200 (d). 150: ACK 1461 leaves 2001 outstanding: nothing.
    // 200: ACK 2001. 230: all data acknowledged: the FIN alone. 260: ACK 2002, then the
    // client's FIN (c). 290: the last ACK. 11 packets (4 more); completion unchanged at 120.
    let (p, rows) = exchange(ns2(), 2000);
    assert_eq!(
        rows,
        vec![
            (0, C, 0, 0, 0, SYN),
            (30, S, 0, 1, 0, SYN_ACK),
            (60, C, 1, 1, 0, ACK),
            (60, C, 1, 1, 300, ACK),
            (90, S, 1, 301, 1460, ACK),
            (90, S, 1461, 301, 540, ACK),
            (120, C, 301, 1461, 0, ACK),
            (200, C, 301, 2001, 0, ACK),
            (230, S, 2001, 301, 0, FIN_ACK),
            (260, C, 301, 2002, 0, ACK),
            (260, C, 301, 2002, 0, FIN_ACK),
            (290, S, 2002, 302, 0, ACK),
        ]
    );
    assert_eq!(p.completed, Some(ms(120)));
    assert_eq!(p.event_time(CLIENT, AppEvent::Closed), Some(ms(320)));
}

#[test]
fn ns2_last_lone_byte_waits_for_the_ack_of_everything_before_it() {
    // 4381 B = 3 × 1460 + 1. Default: 90 segments 1 and 2 (IW 2), ACKed by the client at 120;
    // 150 those ACKs open cwnd: segment 3 and the last byte with the FIN; complete at 180.
    // ns2_fulltcp (e): at 150 only segment 3 (the last byte waits: 1461, then 2921, are not all
    // of 4381); 210 the ACK of segment 3 covers everything before the byte: it leaves with the
    // FIN; complete at 240, one RTT later — what ns-2.35 does (validation/ns2/README.md,
    // "Paired twins": every loss-free mismatch had a size ≡ 1 mod MSS). 4380 B and 4382 B are
    // not held.
    let lone = |rows: &[Row]| -> Vec<Row> {
        rows.iter()
            .filter(|r| r.1 == S && r.2 == 4381)
            .copied()
            .collect()
    };
    let (p, rows) = exchange(TcpConfig::default(), 4381);
    assert_eq!(lone(&rows), vec![(150, S, 4381, 301, 1, FIN_ACK)]);
    assert_eq!(p.completed, Some(ms(180)));
    let (p, rows) = exchange(ns2(), 4381);
    assert_eq!(lone(&rows), vec![(210, S, 4381, 301, 1, FIN_ACK)]);
    assert_eq!(p.completed, Some(ms(240)));
    for other in [4380, 4382] {
        let (p, _) = exchange(ns2(), other);
        assert_eq!(p.completed, Some(ms(180)), "{other} B");
    }
}

#[test]
fn ns2_lost_lone_fin_is_retransmitted_alone() {
    // The first FIN (230 ms) is lost; the retransmission timer brings it back, alone, and the
    // connection closes normally.
    let mut p = Pipe::http_with(
        ns2(),
        ns2(),
        dms(30),
        300,
        2000,
        vec![DropRule::Fin {
            side: SERVER,
            times: 1,
        }],
    );
    p.engine_order = true;
    p.run();
    let fins: Vec<_> = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.flags.contains(FIN))
        .map(|s| sal(&s.seg))
        .collect();
    assert_eq!(fins, vec![(2001, 301, 0, FIN_ACK); 2]);
    assert_eq!(p.eps[SERVER].stats().fin_retransmits, 1);
    assert_eq!(p.eps[CLIENT].state(), State::Closed);
}

// ---- (b) at the server, lone endpoint (handshake done at 100 ms) ----

#[test]
fn ns2_close_with_data_unsent_and_nothing_outstanding_piggybacks_the_fin() {
    let mut s = server_established(ns2());
    s.send(100);
    s.close();
    assert_eq!(
        drain(&mut s, ms(100)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 1, 100, FIN_ACK)]
    );
}

#[test]
fn ns2_close_with_data_outstanding_sends_the_fin_alone_after_the_ack() {
    // 100 B sent at 100 ms; close at 150 before its ACK: no FIN yet. ACK 101 at 200: the FIN.
    let mut s = server_established(ns2());
    s.send(100);
    assert_eq!(drain(&mut s, ms(100)).len(), 1);
    s.close();
    assert!(drain(&mut s, ms(150)).is_empty());
    s.on_segment(ms(200), &seg(1, 101, 0, ACK));
    assert_eq!(
        drain(&mut s, ms(200)).iter().map(sal).collect::<Vec<_>>(),
        vec![(101, 1, 0, FIN_ACK)]
    );
}

#[test]
fn ns2_close_after_all_data_is_acknowledged_sends_the_fin_at_once() {
    let mut s = server_established(ns2());
    s.send(100);
    drain(&mut s, ms(100));
    s.on_segment(ms(200), &seg(1, 101, 0, ACK));
    s.close();
    assert_eq!(
        drain(&mut s, ms(200)).iter().map(sal).collect::<Vec<_>>(),
        vec![(101, 1, 0, FIN_ACK)]
    );
}

// ---- (d) at the client, lone endpoint (RCV.NXT = 1) ----

#[test]
fn ns2_short_segment_waits_for_the_100ms_tick_full_segment_acked_at_once() {
    let mut c = client_established(ns2());
    // 250: 500 B < 1 MSS: tick at 300.
    c.on_segment(ms(250), &seg(1, 1, 500, ACK));
    assert!(drain(&mut c, ms(250)).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(300)));
    c.on_timeout(ms(300));
    assert_eq!(
        drain(&mut c, ms(300)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 501, 0, ACK)]
    );
    // 300 exactly on a tick: the next one, 400.
    c.on_segment(ms(300), &seg(501, 1, 100, ACK));
    assert!(drain(&mut c, ms(300)).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(400)));
    // 310: a full segment makes 1560 B ≥ 1460 unacknowledged: ACK at once, tick cancelled.
    c.on_segment(ms(310), &seg(601, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(310)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 2061, 0, ACK)]
    );
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn ns2_with_delayed_ack_on_counts_two_segments_and_ticks_at_its_period() {
    // delayed_ack 200 ms with ns2_fulltcp = Full-TCP segsperack_ 2, interval_ 0.2: one full
    // segment at 250 waits for the tick at 400; a second at 260 makes 2920 B: ACK at once.
    let mut c = client_established(TcpConfig {
        delayed_ack: Some(dms(200)),
        ..ns2()
    });
    c.on_segment(ms(250), &seg(1, 1, 1460, ACK));
    assert!(drain(&mut c, ms(250)).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(400)));
    c.on_segment(ms(260), &seg(1461, 1, 1460, ACK));
    assert_eq!(
        drain(&mut c, ms(260)).iter().map(sal).collect::<Vec<_>>(),
        vec![(1, 2921, 0, ACK)]
    );
}

#[test]
fn ns2_soak_lossy_exchanges_always_finish() {
    // 300 HTTP/1.0 exchanges with `ns2_fulltcp` on both ends through a lossy pipe (2–10 %
    // random loss both ways, SYNs, FINs and pure ACKs included), both driving orders, all
    // Reno-family variants, delayed ACKs off (100 ms tick) or 200 ms: every run that does not
    // abort delivers exact byte counts and ends with the client CLOSED (its FIN acknowledged)
    // and the server in TIME-WAIT or CLOSED.
    use tcp::Variant;
    let (mut completed, mut aborted, mut fin_rtx) = (0, 0, 0);
    for seed in 1..=300u64 {
        let cfg = TcpConfig {
            variant: [Variant::Reno, Variant::NewReno, Variant::Sack][(seed % 3) as usize],
            delayed_ack: if seed % 4 == 0 { Some(dms(200)) } else { None },
            min_rto: dms(200),
            ..ns2()
        };
        let request = [1, 300, 3000][(seed % 3) as usize];
        let response = (seed * 7919) % (40 * MSS) + 1;
        let mut p = Pipe::http(cfg, dms(5 + seed % 40), request, response);
        p.engine_order = seed % 2 == 0;
        p.loss_per_mille = [20, 50, 100][(seed % 3) as usize];
        p.rng ^= seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
        p.run_until(units::SimTime::from_secs(3000));
        p.check_counters();
        fin_rtx += p.eps[SERVER].stats().fin_retransmits + p.eps[CLIENT].stats().fin_retransmits;
        if p.events.iter().any(|e| e.2 == AppEvent::Aborted) {
            aborted += 1;
            continue;
        }
        assert!(p.completed.is_some(), "seed {seed}: never completed");
        assert_eq!(p.eps[CLIENT].bytes_received(), response, "seed {seed}");
        assert_eq!(p.eps[SERVER].bytes_received(), request, "seed {seed}");
        assert!(p.done[CLIENT] && p.done[SERVER], "seed {seed}");
        assert_eq!(p.eps[CLIENT].state(), State::Closed, "seed {seed}");
        completed += 1;
    }
    assert!(completed >= 290, "completed {completed}, aborted {aborted}");
    assert!(fin_rtx > 10, "fin retransmissions {fin_rtx}");
}
