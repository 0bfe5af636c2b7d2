//! ns-2.35 Full-TCP on a persistent (HTTP/1.1) connection (issue 11): two request/response
//! exchanges on one connection, written at fixed instants, against the packets ns-2.35 itself
//! sends for the same script.
//!
//! The expected rows are ns-2's output, checked in as `data/ns2_fulltcp_persistent.txt`
//! (written by `validation/ns2/tcp_fulltcp_persistent.sh`, which runs
//! `validation/ns2/tcp_fulltcp_persistent.tcl`: two Full-TCP agents on a link with 30 ms one
//! way, `segsize_` 1460, `windowInit_` 2, `segsperack_` 1, `interval_` 0.1, `nodelay_` true,
//! `slow_start_restart_` false; the client writes 300 B at 0 and at t₃, the server its first
//! response at 95 ms and its second, with `MSG_EOF`, at t₄; python/tests/test_ns2_tcp_traces.py
//! checks that ns-2 still prints exactly the file). Each case is "case RSP1 RSP2 T3 T4" (ms)
//! and one row per packet as it leaves its sender: time (ms), C/S, seq, ack, payload bytes.
//!
//! What the cases show (rules of `TcpConfig::ns2_fulltcp`, `crates/tcp/src/config.rs`):
//! - 1000 / 5000 B: the ACK of the 1000 B response (carried by the second request) opens
//!   ns-2's window by a whole segment (`opencwnd()` counts segments), so the second response
//!   starts with three segments. With RFC 5681 byte counting cwnd grows by 1000 B only and two
//!   segments leave: `slow_start = "ns2"` is needed.
//! - 2921 / 1461 B: rule (e) holds the lone last byte of *every* response until the rest is
//!   acknowledged, not only of the last one; the last one's byte then leaves with the FIN.
//! - 4381 / 300 B: the server's 100 ms tick ACKs the second request before the response is
//!   written (rule (d)); the short final response carries the FIN (rule (b): quiet).

mod util;

use tcp::{SlowStartGrowth, TcpConfig};
use util::*;

/// (time ms, side, seq, ack, payload bytes)
type Row = (u64, usize, u64, u64, u32);
/// A script: first and second response (bytes), second request and second response (ms).
type Script = (u64, u64, u64, u64);

/// ns-2.35's packet sequences: (rsp1, rsp2, t3 ms, t4 ms) and the rows.
fn ns2_cases() -> Vec<(Script, Vec<Row>)> {
    let mut cases: Vec<(Script, Vec<Row>)> = Vec::new();
    for line in include_str!("data/ns2_fulltcp_persistent.txt").lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| f[i].parse::<u64>().expect("a number");
        if f[0] == "case" {
            cases.push(((n(1), n(2), n(3), n(4)), Vec::new()));
        } else {
            let side = if f[1] == "C" { CLIENT } else { SERVER };
            let row = (n(0), side, n(2), n(3), n(4) as u32);
            cases.last_mut().expect("a case line first").1.push(row);
        }
    }
    cases
}

fn ns2_rules(slow_start: SlowStartGrowth) -> TcpConfig {
    TcpConfig {
        ns2_fulltcp: true,
        slow_start,
        ..TcpConfig::default()
    }
}

/// aqmlab's packets for one script.
fn run(cfg: TcpConfig, (rsp1, rsp2, t3, t4): Script) -> Vec<Row> {
    let mut p = Pipe::scripted(
        cfg,
        dms(30),
        vec![
            (ms(0), CLIENT, 300, false),
            (ms(95), SERVER, rsp1, false),
            (ms(t3), CLIENT, 300, false),
            (ms(t4), SERVER, rsp2, true),
        ],
    );
    p.run_until(ms(3000));
    p.check_counters();
    p.log
        .iter()
        .map(|s| {
            (
                s.t.as_nanos() / 1_000_000,
                s.side,
                s.seg.seq,
                s.seg.ack,
                s.seg.len,
            )
        })
        .collect()
}

#[test]
fn the_fixture_holds_the_three_cases() {
    let cases = ns2_cases();
    let scripts: Vec<_> = cases.iter().map(|c| c.0).collect();
    assert_eq!(
        scripts,
        vec![
            (1000, 5000, 130, 170),
            (2921, 1461, 500, 550),
            (4381, 300, 260, 330)
        ]
    );
    // Each connection: SYN, SYN-ACK, the client's pure ACK and request (rule (a)) first.
    for (_, rows) in &cases {
        assert_eq!(
            rows[..4],
            [
                (0, CLIENT, 0, 0, 0),
                (30, SERVER, 0, 1, 0),
                (60, CLIENT, 1, 1, 0),
                (60, CLIENT, 1, 1, 300)
            ]
        );
    }
}

#[test]
fn with_ns2s_rules_every_packet_is_ns2s() {
    for (script, rows) in ns2_cases() {
        assert_eq!(
            run(ns2_rules(SlowStartGrowth::Ns2), script),
            rows,
            "case {script:?}"
        );
    }
}

#[test]
fn byte_counted_slow_start_sends_one_segment_fewer_after_a_short_response() {
    let (script, rows) = ns2_cases().remove(0);
    let at_170 = |r: &[Row]| r.iter().filter(|x| x.0 == 170 && x.1 == SERVER).count();
    assert_eq!(at_170(&rows), 3); // ns-2: cwnd 2 + 1 segment after the ACK of 1000 B
    let rfc = run(ns2_rules(SlowStartGrowth::Rfc5681), script);
    assert_eq!(at_170(&rfc), 2); // 2·1460 + 1000 B of window: two full segments
}
