//! CUBIC's HyStart (congestion/hystart.rs) end to end on the pipe: a 10 Mbit/s link (800 ns
//! per wire byte each way, no buffer limit) and 20 ms one-way delay, a 300-segment response
//! from IW 10. Without HyStart nothing ends slow start (no loss, ssthresh stays the peer's
//! window); with it the ACK train ends it once a round's ACKs, spaced by the link's 1.2 ms per
//! segment, have kept coming for more than half the min RTT.

mod util;

use tcp::{TcpConfig, Variant};
use util::*;

fn run(hystart: bool) -> Pipe {
    let cfg = TcpConfig {
        variant: Variant::CubicSack,
        initial_window: 10,
        receive_window: 1 << 22,
        hystart,
        ..TcpConfig::default()
    };
    let mut p = Pipe::http_full(cfg.clone(), cfg, dms(20), 800, 100, 300 * MSS, vec![]);
    p.run();
    assert_eq!(p.eps[CLIENT].bytes_received(), 300 * MSS);
    p
}

#[test]
fn hystart_ack_train_ends_slow_start() {
    let off = run(false);
    assert_eq!(off.eps[SERVER].ssthresh(), 1 << 22);
    let on = run(true);
    let exit = on
        .trace
        .iter()
        .find(|t| t.side == SERVER && t.ssthresh < 1 << 22)
        .copied()
        .expect("HyStart ended slow start");
    // Slow start ended without a loss, with ssthresh = cwnd when the ACK arrived (whole
    // segments, at least hystart_low_window); the same ACK already grows cwnd by CUBIC's
    // congestion-avoidance rule (a fraction of a segment).
    let st = on.eps[SERVER].stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (0, 0));
    assert_eq!(exit.ssthresh % MSS, 0, "{exit:?}");
    assert!(exit.ssthresh / MSS >= 16, "{exit:?}");
    assert!(
        exit.cwnd >= exit.ssthresh && exit.cwnd - exit.ssthresh < MSS,
        "{exit:?}"
    );
    // The exit came inside an ACK train: the ACK before it arrived 1.2 ms earlier (one
    // 1500-byte segment at 10 Mbit/s), and no ACK train or delay test fired before cwnd 16.
    let prev = on
        .trace
        .iter()
        .rfind(|t| t.side == SERVER && t.t < exit.t)
        .unwrap();
    assert_eq!((exit.t - prev.t).as_nanos(), 1_200_000);
    // After the exit CUBIC grows by less than a segment per ACK.
    let later: Vec<_> = on
        .trace
        .iter()
        .filter(|t| t.side == SERVER && t.t > exit.t)
        .take(10)
        .collect();
    assert!(later.last().unwrap().cwnd - exit.cwnd < 10 * MSS);
}
