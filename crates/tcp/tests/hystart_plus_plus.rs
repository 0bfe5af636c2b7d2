//! HyStart++ (congestion/hystart_plus_plus.rs, RFC 9406) end to end on the pipe: a 10 Mbit/s
//! link (800 ns per wire byte each way, no buffer limit) and 20 ms one-way delay, a
//! 2000-segment response from IW 10, one ACK per segment. Without it nothing ends slow start
//! (no loss, ssthresh stays the peer's window). With it the queue that slow start builds raises
//! the RTT; Conservative Slow Start (a quarter segment per ACK) runs for 5 rounds and ends slow
//! start with ssthresh = cwnd, without a loss.

mod util;

use tcp::{TcpConfig, Variant};
use util::*;

fn run(variant: Variant, hystart_plus_plus: bool) -> Pipe {
    let cfg = TcpConfig {
        variant,
        initial_window: 10,
        receive_window: 1 << 22,
        hystart_plus_plus,
        ..TcpConfig::default()
    };
    let mut p = Pipe::http_full(cfg.clone(), cfg, dms(20), 800, 100, 2000 * MSS, vec![]);
    p.run();
    assert_eq!(p.eps[CLIENT].bytes_received(), 2000 * MSS);
    p
}

#[test]
fn hystart_plus_plus_ends_slow_start_after_five_css_rounds() {
    for variant in [Variant::NewReno, Variant::CubicSack] {
        let off = run(variant, false);
        assert_eq!(off.eps[SERVER].ssthresh(), 1 << 22, "{variant:?}");
        let on = run(variant, true);
        let st = on.eps[SERVER].stats();
        assert_eq!((st.fast_retransmits, st.timeouts), (0, 0), "{variant:?}");
        let server: Vec<_> = on.trace.iter().filter(|t| t.side == SERVER).collect();
        let exit = server
            .iter()
            .position(|t| t.ssthresh < 1 << 22)
            .expect("HyStart++ ended slow start");
        // ssthresh = cwnd when the ACK arrived; that ACK already grew by congestion
        // avoidance (less than a segment).
        let e = server[exit];
        assert!(
            e.cwnd >= e.ssthresh && e.cwnd - e.ssthresh < MSS,
            "{variant:?} {e:?}"
        );
        // Before it: slow start's whole segments per ACK, then CSS's quarter (1460/4 = 365
        // bytes), and nothing else; CSS's ACKs are the last ones before the exit.
        let iw = server.iter().position(|t| t.cwnd == 10 * MSS).unwrap();
        let steps: Vec<u64> = server[iw..=exit]
            .windows(2)
            .map(|w| w[1].cwnd - w[0].cwnd)
            .filter(|&d| d > 0)
            .collect();
        let (before_exit, _) = steps.split_at(steps.len() - 1);
        assert!(
            before_exit.iter().all(|&d| d == MSS || d == MSS / 4),
            "{variant:?} {before_exit:?}"
        );
        let first_css = before_exit.iter().position(|&d| d == MSS / 4).unwrap();
        assert!(
            before_exit[first_css..].iter().all(|&d| d == MSS / 4),
            "{variant:?}: slow start resumed (the queue never shrinks here)"
        );
        // A cwnd-limited CSS round grows cwnd by a quarter of the segments it acknowledges,
        // which include the previous round's growth: here 88 segments at entry → 258.2 at the
        // exit (2.93×, ≈ 1.31× for each of the 4 whole rounds after the partial first).
        // 4 CSS rounds would end near 1.31³ = 2.24×, 6 near 1.31⁵ = 3.85×.
        let css_acks = (before_exit.len() - first_css) as u64;
        let entry_cwnd = e.ssthresh - css_acks * (MSS / 4);
        assert!(
            e.ssthresh * 100 >= entry_cwnd * 260 && e.ssthresh * 100 <= entry_cwnd * 330,
            "{variant:?}: {entry_cwnd} → {}",
            e.ssthresh
        );
    }
}
