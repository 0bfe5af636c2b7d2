//! `quickack_mode` (quickack.rs): Linux's quick-ACK and ping-pong modes and its handshake ACK,
//! end to end over a lossless pipe, against the delayed-ACK default. Hand-derived from Linux
//! 6.x's rules (quickack.rs module doc): the server ACKs the request at its arrival, alone,
//! before the response (pcaps of Linux servers: `[S.] [.] [FP.]D [.]`); the client ACKs the
//! SYN-ACK alone before its request (`[S] [.] [P.]D [F.]`); the first 16 data segments of a
//! connection are ACKed one by one; a reply within the delayed-ACK timeout (40 ms) makes the
//! next request's ACK wait for the reply (ping-pong).
//!
//! Pipes: one-way delay 30 ms, MSS 1460, delayed ACKs 40 ms, engine order (the application
//! runs before the segments are drained, as `sim/src/world.rs` does). Sequence numbers: SYNs at
//! 0, the client's data from 1, the server's from 1.

mod util;

use tcp::{Flags, TcpConfig};
use util::*;

fn delayed() -> TcpConfig {
    TcpConfig {
        delayed_ack: Some(dms(40)),
        ..TcpConfig::default()
    }
}

fn linux() -> TcpConfig {
    TcpConfig {
        quickack_mode: true,
        ..delayed()
    }
}

/// (time ms, side, seq, ack, len, flags) of every transmission.
type Row = (u64, usize, u64, u64, u32, Flags);

fn rows(p: &Pipe) -> Vec<Row> {
    p.log
        .iter()
        .map(|s| {
            let t = s.t.as_nanos() / 1_000_000;
            (t, s.side, s.seg.seq, s.seg.ack, s.seg.len, s.seg.flags)
        })
        .collect()
}

fn exchange(cfg: TcpConfig, response: u64) -> Vec<Row> {
    let mut p = Pipe::http(cfg, dms(30), 300, response);
    p.engine_order = true;
    p.run();
    p.check_counters();
    rows(&p)
}

const C: usize = CLIENT;
const S: usize = SERVER;

#[test]
fn server_acks_the_request_alone_before_its_response() {
    // 60: the client's handshake ACK alone, then the request. 90: the request's quick ACK
    // leaves at its arrival, then the response the application wrote, with the FIN. 120: the
    // client's FIN carries the ACK of data and FIN (a FIN is not quick-ACKed: Linux's tcp_fin
    // enters ping-pong mode). 150: the last ACK. 8 packets, Linux's shapes.
    assert_eq!(
        exchange(linux(), 1000),
        vec![
            (0, C, 0, 0, 0, SYN),
            (30, S, 0, 1, 0, SYN_ACK),
            (60, C, 1, 1, 0, ACK),
            (60, C, 1, 1, 300, ACK),
            (90, S, 1, 301, 0, ACK),
            (90, S, 1, 301, 1000, FIN_ACK),
            (120, C, 301, 1002, 0, FIN_ACK),
            (150, S, 1002, 302, 0, ACK),
        ]
    );
    // Off: the request carries the handshake ACK, the response the request's ACK. 6 packets.
    assert_eq!(
        exchange(delayed(), 1000),
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
fn client_acks_the_first_sixteen_segments_one_by_one() {
    // A 20-segment response (29 200 B) in one flight (IW 20): at 120 the client ACKs segments
    // 1–16 each at once (ACK 1 + 1460·i), then the 17th waits (1460 B < 2 MSS), the 18th is the
    // second full segment (ACK 26 281), the 19th waits and the 20th carries the FIN: the
    // client's FIN carries ACK 29 202. 18 ACKs; with delayed ACKs alone 10 (every second).
    let cfg = |quick| TcpConfig {
        initial_window: 20,
        quickack_mode: quick,
        ..delayed()
    };
    let client_acks = |quick| -> Vec<u64> {
        exchange(cfg(quick), 20 * MSS)
            .iter()
            .filter(|r| r.0 == 120 && r.1 == C)
            .map(|r| r.3)
            .collect()
    };
    let mut want: Vec<u64> = (1..=16).map(|i| 1 + i * MSS).collect();
    want.extend([1 + 18 * MSS, 20 * MSS + 2]);
    assert_eq!(client_acks(true), want);
    let every_second: Vec<u64> = (1..=9)
        .map(|i| 1 + 2 * i * MSS)
        .chain([20 * MSS + 2])
        .collect();
    assert_eq!(client_acks(false), every_second);
}

/// A persistent connection: requests of 300 B at 0 and 300 ms, responses of 1000 B written by
/// the server at 90 + `reply_after` and 330 + `reply_after` ms (the requests arrive at 90 and
/// 330). The server's transmissions.
fn persistent(reply_after: u64) -> Vec<Row> {
    let mut p = Pipe::scripted(
        linux(),
        dms(30),
        vec![
            (ms(0), C, 300, false),
            (ms(90 + reply_after), S, 1000, false),
            (ms(300), C, 300, false),
            (ms(330 + reply_after), S, 1000, false),
        ],
    );
    p.run_until(ms(1000));
    rows(&p).into_iter().filter(|r| r.1 == S).collect()
}

#[test]
fn a_reply_within_the_delayed_ack_timeout_enters_ping_pong() {
    // Reply 10 ms after the request (< 40 ms): ping-pong from 100 ms on, so the second request
    // (330) is not quick-ACKed: its ACK rides on the reply at 340.
    assert_eq!(
        persistent(10),
        vec![
            (30, S, 0, 1, 0, SYN_ACK),
            (90, S, 1, 301, 0, ACK),
            (100, S, 1, 301, 1000, ACK),
            (340, S, 1001, 601, 1000, ACK),
        ]
    );
    // Reply 50 ms after (≥ 40 ms): no ping-pong, the second request is quick-ACKed at 330.
    assert_eq!(
        persistent(50),
        vec![
            (30, S, 0, 1, 0, SYN_ACK),
            (90, S, 1, 301, 0, ACK),
            (140, S, 1, 301, 1000, ACK),
            (330, S, 1001, 601, 0, ACK),
            (380, S, 1001, 601, 1000, ACK),
        ]
    );
}
