//! BBR (congestion/bbr.rs) and sender pacing (pacing.rs) through a lossy pipe: the soak of
//! soak.rs for the paced senders. Every run must end with exact byte counts and the counter
//! identities of the harness; with at most 10 % loss on both directions aborts are rare
//! (≥ 97 % complete, as in soak.rs).

mod util;

use tcp::{AppEvent, TcpConfig, Variant};
use units::SimTime;
use util::*;

#[test]
fn bbr_and_paced_lossy_exchanges_always_finish() {
    let (mut completed, mut fast, mut bbr_nosack) = (0, 0, 0);
    for seed in 1..=200u64 {
        let cfg = TcpConfig {
            variant: if seed % 4 == 0 {
                Variant::NewReno
            } else {
                Variant::Bbr
            },
            pacing: seed % 4 == 0, // NewReno with Linux's pacing rule
            timestamps: seed % 3 != 2,
            delayed_ack: if seed % 5 < 2 { Some(dms(100)) } else { None },
            initial_window: [2, 4, 10][(seed % 3) as usize],
            min_rto: dms(200),
            ..TcpConfig::default()
        };
        // Every seventh client refuses SACK: the BBR server recovers with NewReno partial-ACK
        // resends.
        let client = TcpConfig {
            variant: if seed % 7 == 0 {
                Variant::NewReno
            } else {
                cfg.variant
            },
            ..cfg.clone()
        };
        let request = [0, 1, 300, 3000][(seed % 4) as usize];
        let response = (seed * 7919) % (150 * MSS) + 1;
        let mut p = Pipe::http_with(
            client,
            cfg.clone(),
            dms(5 + seed % 40),
            request,
            response,
            vec![],
        );
        p.loss_per_mille = [0, 20, 50, 100][(seed % 4) as usize];
        p.rng ^= seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
        p.run_until(SimTime::from_secs(3000));
        p.check_counters();
        if cfg.variant == Variant::Bbr {
            // BBR always paces: it has a rate from the handshake on.
            assert!(p.eps[SERVER].pacing_rate().is_some(), "seed {seed}");
            if !p.eps[SERVER].sack_enabled() {
                bbr_nosack += 1;
            }
        }
        fast += p.eps[SERVER].stats().fast_retransmits;
        if p.events.iter().any(|e| e.2 == AppEvent::Aborted) {
            continue;
        }
        assert_eq!(p.eps[CLIENT].bytes_received(), response, "seed {seed}");
        assert_eq!(p.eps[SERVER].bytes_received(), request, "seed {seed}");
        assert!(p.done[CLIENT] && p.done[SERVER], "seed {seed}");
        completed += 1;
    }
    assert!(completed >= 194, "completed {completed}");
    assert!(fast > 20 && bbr_nosack > 10, "{fast} {bbr_nosack}");
}
