//! Sender pacing (pacing.rs) on the pipe: the times of paced data segments, computed by hand.
//!
//! One-way delay 50 ms, no serialization time, tick 10 ms: the server's SRTT is exactly 100 ms
//! when the request arrives (SYN-ACK at 50 ms, its ACK at 150 ms). With IW 20 the whole
//! 16-segment response is allowed at 150 ms; the first 10 data segments are never paced (Linux
//! `tcp_update_skb_after_send`), each later one leaves 1460 B / rate after the one before.

mod util;

use tcp::TcpConfig;
use util::*;

/// Times (ns) at which the server sent data segments.
fn data_times(p: &Pipe) -> Vec<u64> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0)
        .map(|s| s.t.as_nanos())
        .collect()
}

fn run(cfg: TcpConfig) -> Vec<u64> {
    let mut p = Pipe::http(cfg, dms(50), 100, 16 * MSS);
    p.run();
    assert_eq!(p.eps[CLIENT].bytes_received(), 16 * MSS);
    data_times(&p)
}

fn expected(gap_ns: u64) -> Vec<u64> {
    let t0 = 150_000_000;
    let mut v = vec![t0; 11];
    v.extend((1..=5).map(|k| t0 + k * gap_ns));
    v
}

fn cfg(pacing: bool, window: u32) -> TcpConfig {
    TcpConfig {
        initial_window: 20,
        receive_window: window,
        pacing,
        ..TcpConfig::default()
    }
}

#[test]
fn pacing_off_sends_the_window_at_once() {
    assert_eq!(run(cfg(false, 65535)), vec![150_000_000; 16]);
}

#[test]
fn pacing_slow_start_ratio_gap() {
    // cwnd 29 200 < ssthresh 65 535 / 2: 200 % · 29 200 B / 0.1 s = 584 000 B/s;
    // 1460 B / 584 000 B/s = 2.5 ms.
    assert_eq!(run(cfg(true, 65535)), expected(2_500_000));
}

#[test]
fn pacing_congestion_avoidance_ratio_gap() {
    // Peer window 40 000 = ssthresh; cwnd 29 200 ≥ 20 000: 120 % · 29 200 / 0.1 s = 350 400 B/s;
    // 1460 / 350 400 s = 4 166 666.7 ns, rounded up.
    assert_eq!(run(cfg(true, 40_000)), expected(4_166_667));
}

#[test]
fn pacing_ratios_are_options() {
    // pacing_ss_ratio 100: 29 200 B / 0.1 s = 292 000 B/s → 5 ms.
    let c = TcpConfig {
        pacing_ss_ratio: 100,
        ..cfg(true, 65535)
    };
    assert_eq!(run(c), expected(5_000_000));
}
