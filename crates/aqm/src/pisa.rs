//! PISA — PI with Short-lived flow Adjustments (Kim 2004, seed 003 §3.2, Figures 3.1-3.3).
//!
//! The PI controller of `pi.rs` runs unchanged every 1/w s and keeps its own p (seed 003: "the
//! PISA drop probability, P_sa, is not saved by PI in Pold"). On each arrival that carries a
//! congestion-window hint (`PacketMeta::cwnd_hint`, the sender's cwnd in segments, written by
//! TCP on data packets), first the average is updated,
//! `cwnd_avg ← (1 − weight)·cwnd_avg + weight·cwnd` (Figure 3.3), then the packet faces
//! `P_sa = min(1, α·P·cwnd/cwnd_avg)` (Figure 3.2) — byte-scaled by size/mean_pktsize when the PI
//! core's `byte_prob` is on (an aqmlab extension; seed 003 ran packet mode). A full buffer drops
//! the arrival as `Overflow` before any of this; with `ecn`, a hit ECT packet is marked instead
//! of dropped (seed 003 did not use ECN).
//!
//! Choices where the seed is silent (named, documented):
//! - **Initial average**: the first hinted arrival sets `cwnd_avg = cwnd` (ratio 1); the seed
//!   gives no initial value, and starting from 0 would make the first packets' ratio 1/weight.
//! - **Packets without a hint** (`cwnd_hint = 0`: pure ACKs, SYN, FIN without data): in seed 003's
//!   ns-2 set-up every packet reaching the PISA queue was a data packet of a one-way TCP sender
//!   and carried its cwnd (≥ 1), so the seed never defines this case. They never update the
//!   average (0 is not a window). Their probability follows [`HintlessPolicy`]: default
//!   `Protect` — the seed's formula read literally with cwnd = 0 gives P_sa = 0, i.e. never
//!   dropped early (PIMC treats them alike, 0 ≤ MinCwnd); `Pi` gives them the plain PI p.
//! - **Overflow**: an arrival refused because the buffer is full does not update the average
//!   (the seed's figures do not show the buffer check).
//!
//! Read `pi.rs` and seed 003 §3.2 before editing.
//!
//! Validation: tests below — `probability_by_hand` (α·P·cwnd/avg and the cap),
//! `cwnd_twice_the_average_by_hand` (EWMA update and the drop decision for a packet whose cwnd is
//! twice the average, against the same random stream), `first_hint_sets_the_average`,
//! `hintless_packets_policy`, `controller_is_plain_pi`, `bad_parameters_name_their_key`.

use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Access, Model, Param, Range, Syntax, Value};
use crate::pi::delegate_to_pi_core;
use crate::pi::{pi_keys, PI_RULES};
use crate::pi::{PiCore, PiParams};
use crate::stats::QueueStats;
use units::{Rng, SimTime};

/// What PISA does with packets whose `cwnd_hint` is 0 (no data, no window information).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintlessPolicy {
    /// Never dropped early (seed 003's P_sa with cwnd = 0). Default.
    Protect,
    /// Face the plain PI probability P (byte-scaled if `byte_prob`).
    Pi,
}

/// PISA parameters. Defaults: seed 003 §3.2 and §4.3 (α = 3, weight 0.02, PI with a, b of
/// HMT01, q_ref 200 packets, 800-packet buffer).
#[derive(Clone, Debug, PartialEq)]
pub struct PisaParams {
    /// The PI controller (see [`PiParams`]). Default: HMT01's a, b, w with seed 003's
    /// q_ref = 200 packets and limit = 800 packets (seed 003 §4.3).
    pub pi: PiParams,
    /// α, the weight of the cwnd ratio. Default 3 (seed 003 §3.2/§4.3: "3 is selected").
    /// Finite, > 0 (the seed's range is [0.1, 3.0]; larger values are allowed).
    pub alpha: f64,
    /// EWMA weight of the average cwnd. Default 0.02 (seed 003 §3.2; SHRED used 0.002).
    /// In (0, 1].
    pub weight: f64,
    /// Treatment of packets without a cwnd hint. Default `Protect` (see the module doc).
    pub hintless: HintlessPolicy,
}

impl Default for PisaParams {
    /// Seed 003 §4.3; sources in [`MODEL`].
    fn default() -> Self {
        PisaParams {
            pi: PiParams {
                q_ref: 200.0,
                limit: 800,
                ..PiParams::default()
            },
            alpha: 3.0,
            weight: 0.02,
            hintless: HintlessPolicy::Protect,
        }
    }
}

/// PISA's scenario keys (`kind = "pisa"`): PI's, with seed 003's q_ref = 200 and limit = 800
/// packets (§4.3), and its own.
pub const MODEL: Model<PisaParams> = Model {
    kind: "pisa",
    title: "PISA, PI with cwnd-aware protection of small windows (seed 003 §3.2)",
    params: &[&PI_KEYS, &KEYS],
    rules: PI_RULES,
    profiles: &[],
    validate: PisaParams::validate,
    wrap: DisciplineParams::Pisa,
};

const PI_KEYS: [Param<PisaParams>; 10] = pi_keys!(PisaParams, pi);

const KEYS: [Param<PisaParams>; 3] = [
    Param {
        key: "alpha",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(0.0),
        doc: "α, the weight of the cwnd ratio",
        source: "seed 003 §3.2, §4.3 (range studied 0.1–3)",
        access: field!(alpha),
    },
    Param {
        key: "weight",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "EWMA weight of the average cwnd",
        source: "seed 003 §3.2 (SHRED used 0.002)",
        access: field!(weight),
    },
    Param {
        key: "hintless",
        syntax: Syntax::Choice {
            noun: "policy",
            options: &["protect", "pi"],
        },
        unit: "",
        range: Range::Any,
        doc: "Packets without a cwnd hint: protect (never dropped early) or pi (plain PI probability)",
        source: "seed 003 Figure 3.2 with cwnd = 0",
        access: Access {
            set: |p, v| {
                p.hintless = match v.choice() {
                    "pi" => HintlessPolicy::Pi,
                    _ => HintlessPolicy::Protect,
                }
            },
            get: |p| {
                Value::Choice(match p.hintless {
                    HintlessPolicy::Protect => "protect",
                    HintlessPolicy::Pi => "pi",
                })
            },
        },
    },
];

impl PisaParams {
    /// The declared ranges ([`MODEL`]), the PI controller's included.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)
    }
}

/// `P_sa = min(1, α·P·cwnd/avg)` (seed 003 Figure 3.2).
pub fn pisa_probability(alpha: f64, p: f64, cwnd: f64, avg: f64) -> f64 {
    (alpha * p * cwnd / avg).min(1.0)
}

/// PISA queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Pisa {
    core: PiCore,
    alpha: f64,
    weight: f64,
    hintless: HintlessPolicy,
    /// Average cwnd, segments; `None` until the first hinted arrival.
    avg_cwnd: Option<f64>,
}

impl Pisa {
    pub fn new(params: PisaParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Pisa {
            core: PiCore::new(params.pi)?,
            alpha: params.alpha,
            weight: params.weight,
            hintless: params.hintless,
            avg_cwnd: None,
        })
    }
    pub fn core(&self) -> &PiCore {
        &self.core
    }
    /// Average cwnd of hinted arrivals, segments (`None` before the first).
    pub fn avg_cwnd(&self) -> Option<f64> {
        self.avg_cwnd
    }
}

impl QueueDisc for Pisa {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        let (alpha, weight, hintless) = (self.alpha, self.weight, self.hintless);
        let mut avg = self.avg_cwnd;
        let v = self.core.admit(
            now,
            pkt,
            |c, m| {
                if m.cwnd_hint == 0 {
                    return match hintless {
                        HintlessPolicy::Protect => 0.0,
                        HintlessPolicy::Pi => c.byte_scaled(c.p(), m.size_bytes),
                    };
                }
                let cwnd = m.cwnd_hint as f64;
                let a = match avg {
                    None => cwnd,
                    Some(a) => (1.0 - weight) * a + weight * cwnd,
                };
                avg = Some(a);
                c.byte_scaled(pisa_probability(alpha, c.p(), cwnd, a), m.size_bytes)
            },
            rng,
        );
        // An arrival refused because the buffer is full never reached the PISA step and has
        // not moved the average (see the module doc).
        self.avg_cwnd = avg;
        v
    }
    delegate_to_pi_core!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pi::fixtures::{ms, pkt};
    use rand::Rng as _;

    /// PI with p = 0.1 after the t = 0 update: a = 0.01, b = 0, q_ref = 0, ten packets waiting.
    fn pisa_at_p_0_1(hintless: HintlessPolicy, rng: &mut Rng) -> Pisa {
        let mut q = Pisa::new(PisaParams {
            pi: PiParams {
                a: 0.01,
                b: 0.0,
                q_ref: 0.0,
                w_hz: 1000.0,
                limit: 100,
                ..Default::default()
            },
            hintless,
            ..Default::default()
        })
        .unwrap();
        for i in 0..10 {
            // Hintless and p = 0 before the first update: accepted, average untouched.
            assert_eq!(
                q.enqueue(ms(0), pkt(i, 1000, 0, false), rng),
                Verdict::Enqueued
            );
        }
        assert_eq!(q.avg_cwnd(), None);
        q.on_timeout(ms(0));
        assert!((q.core().p() - 0.1).abs() < 1e-15);
        q
    }

    #[test]
    fn probability_by_hand() {
        assert!((pisa_probability(3.0, 0.1, 20.0, 10.0) - 0.6).abs() < 1e-15);
        assert!((pisa_probability(3.0, 0.1, 5.0, 10.0) - 0.15).abs() < 1e-15);
        assert_eq!(pisa_probability(3.0, 0.5, 20.0, 10.0), 1.0);
        assert_eq!(pisa_probability(3.0, 0.0, 20.0, 10.0), 0.0);
    }

    #[test]
    fn first_hint_sets_the_average() {
        let mut rng = units::stream(2, "pisa");
        let mut q = pisa_at_p_0_1(HintlessPolicy::Protect, &mut rng);
        q.enqueue(ms(0), pkt(10, 1000, 10, false), &mut rng);
        assert_eq!(q.avg_cwnd(), Some(10.0));
        // Then EWMA with weight 0.02: 0.98·10 + 0.02·5 = 9.9.
        q.enqueue(ms(0), pkt(11, 1000, 5, false), &mut rng);
        assert!((q.avg_cwnd().unwrap() - 9.9).abs() < 1e-12);
    }

    /// A packet whose cwnd is twice the average: avg 10, cwnd 20 → the average first moves to
    /// 0.98·10 + 0.02·20 = 10.2, then P_sa = 3·0.1·20/10.2 = 6/10.2 = 0.588235…; the drop
    /// decision is U < P_sa with U the next draw of the link's stream.
    #[test]
    fn cwnd_twice_the_average_by_hand() {
        let mut rng = units::stream(3, "pisa");
        let mut q = pisa_at_p_0_1(HintlessPolicy::Protect, &mut rng);
        let mut shadow = rng.clone();
        let u0 = shadow.gen::<f64>();
        // cwnd 10 at avg None: avg = 10, P_sa = 3·0.1·1 = 0.3.
        let v = q.enqueue(ms(0), pkt(10, 1000, 10, false), &mut rng);
        assert_eq!(v == Verdict::Dropped(DropReason::Early), u0 < 0.3);
        let mut drops = 0u32;
        let n = 40_000u32;
        let mut d = Vec::new();
        for i in 0..n {
            // Keep the average at exactly 10 before each trial.
            q.avg_cwnd = Some(10.0);
            let u = shadow.gen::<f64>();
            let v = q.enqueue(ms(0), pkt(11 + i, 1000, 20, false), &mut rng);
            assert!((q.avg_cwnd().unwrap() - 10.2).abs() < 1e-12);
            let want = u < 6.0 / 10.2;
            assert_eq!(v == Verdict::Dropped(DropReason::Early), want, "trial {i}");
            drops += want as u32;
            while q.len_packets() > 10 {
                q.dequeue(ms(0), &mut d);
            }
        }
        let rate = drops as f64 / n as f64;
        assert!((rate - 6.0 / 10.2).abs() < 0.008, "rate {rate}");
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    #[test]
    fn hintless_packets_policy() {
        // Protect: never dropped early even at P = 1 (here P = 0.1, α·P would be 0.3).
        let mut rng = units::stream(4, "pisa");
        let mut q = pisa_at_p_0_1(HintlessPolicy::Protect, &mut rng);
        q.enqueue(ms(0), pkt(10, 1000, 8, false), &mut rng);
        let avg = q.avg_cwnd();
        let mut d = Vec::new();
        for i in 0..2000 {
            assert_eq!(
                q.enqueue(ms(0), pkt(100 + i, 40, 0, false), &mut rng),
                Verdict::Enqueued
            );
            q.dequeue(ms(0), &mut d);
        }
        assert_eq!(
            q.avg_cwnd(),
            avg,
            "hintless packets leave the average alone"
        );
        // Pi: plain PI probability 0.1 (not α·P).
        let mut q = pisa_at_p_0_1(HintlessPolicy::Pi, &mut rng);
        let mut shadow = rng.clone();
        let mut drops = 0;
        for i in 0..20_000 {
            let want = shadow.gen::<f64>() < 0.1;
            let v = q.enqueue(ms(0), pkt(100 + i, 40, 0, false), &mut rng);
            assert_eq!(v == Verdict::Dropped(DropReason::Early), want);
            drops += want as u32;
            if !want {
                q.dequeue(ms(0), &mut d);
            }
        }
        assert!((drops as f64 / 20_000.0 - 0.1).abs() < 0.006);
        assert_eq!(q.avg_cwnd(), None);
    }

    #[test]
    fn controller_is_plain_pi() {
        // P_sa is never fed back: after heavy PISA drops the controller's p equals PI's step on
        // the queue alone. a = 0.01, b = 0, q_ref = 0, q = 10 → 0.1; next update with q still
        // 10 (drops and dequeues balanced) → 0.2.
        let mut rng = units::stream(6, "pisa");
        let mut q = pisa_at_p_0_1(HintlessPolicy::Protect, &mut rng);
        let mut d = Vec::new();
        for i in 0..100 {
            if q.enqueue(ms(0), pkt(10 + i, 1000, 50, false), &mut rng) == Verdict::Enqueued {
                q.dequeue(ms(0), &mut d);
            }
        }
        assert_eq!(q.len_packets(), 10);
        q.on_timeout(ms(1));
        assert!((q.core().p() - 0.2).abs() < 1e-15);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: PisaParams| Pisa::new(p).unwrap_err().key;
        assert_eq!(
            bad(PisaParams {
                alpha: 0.0,
                ..Default::default()
            }),
            "alpha"
        );
        assert_eq!(
            bad(PisaParams {
                weight: 1.5,
                ..Default::default()
            }),
            "weight"
        );
        let mut p = PisaParams::default();
        p.pi.q_ref = f64::INFINITY;
        assert_eq!(bad(p), "q_ref");
    }
}
