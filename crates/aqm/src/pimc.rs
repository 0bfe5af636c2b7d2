//! PIMC — PI with Minimum Cwnd (Kim 2004, seed 003 §3.3, Figure 3.4).
//!
//! The PI controller of `pi.rs` runs unchanged every 1/w s. On each arrival (after the buffer
//! check, which drops as `Overflow` whatever the window): if the packet's congestion-window hint
//! is at most `min_cwnd` (`cwnd ≤ MinCwnd`, Figure 3.4) it is enqueued, never dropped early;
//! otherwise it faces the plain PI probability p. The seed is explicit that p is **not**
//! rescaled for the remaining packets: "the PIMC drop probability for packets with cwnd
//! exceeding a threshold is the same as the PI drop probability" (§3.3); protected packets only
//! make the queue, and hence p at the next update, larger.
//!
//! Packets without a hint (`cwnd_hint = 0`: pure ACKs, SYN, FIN without data) satisfy
//! `0 ≤ MinCwnd` and so are protected — the seed's rule read literally; in seed 003's ns-2
//! set-up only data packets of one-way TCP senders (hint ≥ 1) reached the PIMC queue. With the
//! PI core's `byte_prob`, unprotected packets face p·size/mean_pktsize (an aqmlab extension); with
//! `ecn`, hit ECT packets are marked (seed 003 used neither).
//!
//! Read `pi.rs` and seed 003 §3.3 before editing.
//!
//! Validation: tests below — `small_windows_never_dropped_early_at_p_1`,
//! `large_windows_face_plain_pi`, `overflow_drops_protected_packets_too`,
//! `bad_parameters_name_their_key`.

use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use crate::pi::delegate_to_pi_core;
use crate::pi::{pi_keys, PI_RULES};
use crate::pi::{PiCore, PiParams};
use crate::stats::QueueStats;
use units::{Rng, SimTime};

/// PIMC parameters. Defaults: seed 003 §3.3 and §4.3 (MinCwnd 7, PI with HMT01's a, b,
/// q_ref 200 packets, 800-packet buffer).
#[derive(Clone, Debug, PartialEq)]
pub struct PimcParams {
    /// The PI controller. Default: HMT01's a, b, w with seed 003's q_ref = 200 packets and
    /// limit = 800 packets (seed 003 §4.3).
    pub pi: PiParams,
    /// MinCwnd, segments: packets whose cwnd hint is ≤ this are never dropped early. Default 7
    /// (seed 003 §3.3, Table 3.1). Any u32; 0 protects only hint-less packets.
    pub min_cwnd: u32,
}

impl Default for PimcParams {
    /// Seed 003 §3.3 and §4.3; sources in [`MODEL`].
    fn default() -> Self {
        PimcParams {
            pi: PiParams {
                q_ref: 200.0,
                limit: 800,
                ..PiParams::default()
            },
            min_cwnd: 7,
        }
    }
}

/// PIMC's scenario keys (`kind = "pimc"`): PI's, with seed 003's q_ref = 200 and limit = 800
/// packets (§4.3), and `min_cwnd`.
pub const MODEL: Model<PimcParams> = Model {
    kind: "pimc",
    title: "PIMC, PI that never drops packets of windows ≤ MinCwnd early (seed 003 §3.3)",
    params: &[&PI_KEYS, &KEYS],
    rules: PI_RULES,
    profiles: &[],
    validate: PimcParams::validate,
    wrap: DisciplineParams::Pimc,
};

const PI_KEYS: [Param<PimcParams>; 10] = pi_keys!(PimcParams, pi);

const KEYS: [Param<PimcParams>; 1] = [Param {
    key: "min_cwnd",
    syntax: Syntax::Integer(u32::MAX as u64),
    unit: "segments",
    range: Range::AtLeast(0.0),
    doc: "Packets whose cwnd hint is ≤ this are never dropped early",
    source: "seed 003 §3.3, Table 3.1",
    access: field!(min_cwnd),
}];

impl PimcParams {
    /// The declared ranges ([`MODEL`]), the PI controller's included.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)
    }
}

/// PIMC queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Pimc {
    core: PiCore,
    min_cwnd: u32,
}

impl Pimc {
    pub fn new(params: PimcParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Pimc {
            core: PiCore::new(params.pi)?,
            min_cwnd: params.min_cwnd,
        })
    }
    pub fn core(&self) -> &PiCore {
        &self.core
    }
}

impl QueueDisc for Pimc {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        let min_cwnd = self.min_cwnd;
        self.core.admit(
            now,
            pkt,
            |c, m| {
                if m.cwnd_hint <= min_cwnd {
                    0.0
                } else {
                    c.byte_scaled(c.p(), m.size_bytes)
                }
            },
            rng,
        )
    }
    delegate_to_pi_core!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pi::fixtures::{ms, pkt};
    use rand::Rng as _;

    /// PIMC whose PI p is `p` after the t = 0 update: a = p/10, b = 0, q_ref = 0, 10 waiting.
    fn pimc_at(p: f64, limit: u64, rng: &mut Rng) -> Pimc {
        let mut q = Pimc::new(PimcParams {
            pi: PiParams {
                a: p / 10.0,
                b: 0.0,
                q_ref: 0.0,
                w_hz: 1000.0,
                limit,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        for i in 0..10 {
            q.enqueue(ms(0), pkt(i, 1000, 0, false), rng);
        }
        q.on_timeout(ms(0));
        assert!((q.core().p() - p).abs() < 1e-15);
        q
    }

    #[test]
    fn small_windows_never_dropped_early_at_p_1() {
        let mut rng = units::stream(1, "pimc");
        let mut q = pimc_at(1.0, 100_000, &mut rng);
        for hint in 0..=7u32 {
            for i in 0..500 {
                assert_eq!(
                    q.enqueue(ms(0), pkt(100 + i, 1000, hint, false), &mut rng),
                    Verdict::Enqueued,
                    "hint {hint}"
                );
            }
        }
        // cwnd 8 > MinCwnd: at p = 1 every one is dropped early.
        for i in 0..100 {
            assert_eq!(
                q.enqueue(ms(0), pkt(9000 + i, 1000, 8, false), &mut rng),
                Verdict::Dropped(DropReason::Early)
            );
        }
        let s = q.stats();
        assert_eq!((s.early_drops, s.enqueued), (100, 10 + 8 * 500));
        s.check_identities(q.len_packets() as u64).unwrap();
        // The protected packets make the queue — and p at the next update — grow: p stays 1.
        q.on_timeout(ms(1));
        assert_eq!(q.core().p(), 1.0);
    }

    #[test]
    fn large_windows_face_plain_pi() {
        // p = 0.25, not rescaled: packets with cwnd > 7 are dropped exactly when U < 0.25.
        let mut rng = units::stream(2, "pimc");
        let mut q = pimc_at(0.25, 100, &mut rng);
        let mut shadow = rng.clone();
        let mut d = Vec::new();
        let mut drops = 0;
        let n = 20_000;
        for i in 0..n {
            let hint = 8 + (i % 50);
            let want = shadow.gen::<f64>() < 0.25;
            let v = q.enqueue(ms(0), pkt(100 + i, 1000, hint, false), &mut rng);
            assert_eq!(
                v == Verdict::Dropped(DropReason::Early),
                want,
                "arrival {i}"
            );
            drops += want as u32;
            if !want {
                q.dequeue(ms(0), &mut d);
            }
            // Protected packets in between consume no random draws.
            assert_eq!(
                q.enqueue(ms(0), pkt(100 + i, 1000, 3, false), &mut rng),
                Verdict::Enqueued
            );
            q.dequeue(ms(0), &mut d);
        }
        assert!((drops as f64 / n as f64 - 0.25).abs() < 0.01);
    }

    #[test]
    fn overflow_drops_protected_packets_too() {
        let mut rng = units::stream(3, "pimc");
        let mut q = pimc_at(0.0, 10, &mut rng);
        assert_eq!(
            q.enqueue(ms(0), pkt(50, 40, 1, false), &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        assert_eq!(q.stats().overflow_drops, 1);
        q.stats().check_identities(10).unwrap();
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let mut p = PimcParams::default();
        p.pi.limit = 0;
        assert_eq!(Pimc::new(p).unwrap_err().key, "limit");
    }
}
