//! All states at once: HTTP/1.0 exchanges through a lossy pipe (random loss on both directions,
//! SYNs, FINs and ACKs included) with many seeds, sizes, variants and ACK policies. Every run
//! must end — the response complete and both ends closed, or an abort — with the exact byte
//! counts and the counter identities of the harness. A behavioural net for what the hand-computed
//! per-state tests do not reach (e.g. losses of retransmissions, losses during closing).

mod util;

use tcp::{AppEvent, FullAck, State, TcpConfig, Variant};
use units::SimTime;
use util::*;

#[test]
fn soak_lossy_exchanges_always_finish() {
    let mut completed = 0;
    let mut aborted = 0;
    let (mut timeouts, mut fast, mut syn_rtx, mut fin_rtx) = (0, 0, 0, 0);
    for seed in 1..=400u64 {
        let variant = if seed % 2 == 0 {
            Variant::Reno
        } else {
            Variant::NewReno
        };
        let cfg = TcpConfig {
            variant,
            delayed_ack: if seed % 3 == 0 { Some(dms(100)) } else { None },
            newreno_full_ack: if seed % 5 == 0 {
                FullAck::FlightSize
            } else {
                FullAck::Ssthresh
            },
            min_rto: dms(200),
            ..TcpConfig::default()
        };
        let request = [0, 1, 300, 3000][(seed % 4) as usize];
        let response = (seed * 7919) % (60 * MSS) + 1;
        let mut p = Pipe::http_with(
            cfg.clone(),
            cfg,
            dms(5 + seed % 40),
            request,
            response,
            vec![],
        );
        p.loss_per_mille = [20, 50, 100][(seed % 3) as usize];
        p.rng ^= seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
        p.run_until(SimTime::from_secs(3000));
        p.check_counters();
        let c = &p.eps[CLIENT];
        let s = &p.eps[SERVER];
        for e in &p.eps {
            timeouts += e.stats().timeouts;
            fast += e.stats().fast_retransmits;
            syn_rtx += e.stats().syn_retransmits;
            fin_rtx += e.stats().fin_retransmits;
        }
        let any_abort = p.events.iter().any(|e| e.2 == AppEvent::Aborted);
        if any_abort {
            aborted += 1;
            continue;
        }
        assert!(p.completed.is_some(), "seed {seed}: never completed");
        assert_eq!(c.bytes_received(), response, "seed {seed}");
        assert_eq!(s.bytes_received(), request, "seed {seed}");
        // The server ends in TIME-WAIT (its FIN went first), the client in CLOSED — unless the
        // harness stopped because both reported Closed, which is the normal end.
        assert!(
            p.done[CLIENT] && p.done[SERVER],
            "seed {seed}: {:?} {:?}",
            c.state(),
            s.state()
        );
        assert_eq!(c.state(), State::Closed, "seed {seed}");
        assert!(
            matches!(s.state(), State::TimeWait | State::Closed),
            "seed {seed}"
        );
        assert_eq!(
            p.events.iter().filter(|e| e.2 == AppEvent::Closed).count(),
            2,
            "seed {seed}"
        );
        completed += 1;
    }
    // With at most 10 % loss and 6/15 retries, aborts are rare; most runs complete. And the
    // losses did reach every recovery path.
    println!("completed {completed} aborted {aborted} timeouts {timeouts} fast {fast} syn {syn_rtx} fin {fin_rtx}");
    assert!(completed >= 390, "completed {completed}, aborted {aborted}");
    assert!(timeouts > 100 && fast > 20 && syn_rtx > 20 && fin_rtx > 20);
}
