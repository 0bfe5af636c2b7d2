//! PI — the Proportional-Integral AQM controller of Hollot, Misra, Towsley & Gong, "On designing
//! improved controllers for AQM routers supporting TCP flows" (INFOCOM 2001), as restated in
//! seed 003 Figure 2.3 / 3.1 and as ns-2.35's `Queue/PI` computes it (reference/aqm-defaults.md §3).
//!
//! A timer fires every `1/w_hz` seconds, whether or not packets arrive (a deadline exposed through
//! `next_deadline`/`on_timeout`; the first update is at t = 0, as ns-2 runs it at reset):
//! `p ← a·(q − q_ref) − b·(q_old − q_ref) + p`, clamped to [0, 1], then `q_old ← q`, where `q` is
//! the instantaneous backlog (packets waiting; with `queue_in_bytes`, bytes / `mean_pktsize`).
//! On each arrival: if the buffer is full (`limit` packets waiting, or `limit·mean_pktsize` bytes
//! with `queue_in_bytes`) the arrival is dropped (`Overflow`, ns-2's "forced" drop); otherwise,
//! with probability `p` (`min(1, p·size/mean_pktsize)` with `byte_prob`), it is dropped early
//! (`Early`) or, with `ecn` and an ECN-capable packet, marked CE and kept. The probability is
//! held between samples; there is no count-based spacing (ns-2 has none either).
//!
//! One uniform draw `U` per arrival that faces a positive probability; the packet is hit when
//! `U < p'` (U in [0, 1), so p' = 1 always hits and p' = 0 never does; ns-2 tests `U ≤ p'`).
//!
//! Seeds: 002 ran ns-2's PI with its defaults for a, b, w (1.822e-5, 1.816e-5, 170 Hz), q_ref =
//! 20 packets, a 200-packet buffer, byte mode (`queue_in_bytes` and `byte_prob`) and ECN (seed 002
//! §III.C); 003 used the same a, b (HMT01's, hence also w = 170 Hz, the sampling rate HMT01
//! designed them for; the thesis does not restate w), q_ref = 200 packets and an 800-packet
//! buffer, packet mode, no ECN (seed 003 §4.3). PISA and PIMC (`pisa.rs`, `pimc.rs`) reuse
//! [`PiCore`].
//!
//! Read reference/aqm-defaults.md §3 before editing.
//!
//! Validation: `pi_tests.rs` — `controller_sequence_by_hand` (exact p for scripted queue lengths,
//! including the t = 0 update), `clamps_to_unit_interval`, `timer_runs_without_arrivals` (deadline
//! grid, early/late wake-ups), `seed_003_coefficients` (a, b of HMT01 to the last digit),
//! `byte_mode_queue_and_probability`, `decisions_follow_the_random_stream`, `overflow_when_full`,
//! `ecn_marks_ect_drops_others`, `bad_parameters_name_their_key`; closed loop in
//! crates/sim/tests/aqm_pi_rem.rs (mean queue near q_ref).

use crate::admit::{byte_scaled, hit, Admit};
use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::fifo::FifoQueue;
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, KeyRule, Model, Param};
use crate::stats::QueueStats;
#[cfg(test)]
use rand::Rng as _; // pi_tests.rs draws its shadow streams through `super::*`
use units::{Rng, SimDuration, SimTime};

/// PI parameters. Defaults: HMT01's controller (a, b, w as ns-2's defaults) with seed 002's
/// target queue (20 packets) and buffer (200 packets) — ns-2's own `qref_ 50` equals its default
/// `limit_ 50` and so cannot be used unchanged; everything else as ns-2.
#[derive(Clone, Debug, PartialEq)]
pub struct PiParams {
    /// Coefficient on the current queue error, 1/packet. Default 1.822e-5 (HMT01; ns-2 `a_`;
    /// seed 003 §2.3.5). Finite, ≥ 0.
    pub a: f64,
    /// Coefficient on the previous queue error, 1/packet. Default 1.816e-5 (HMT01; ns-2 `b_`).
    /// Finite, ≥ 0.
    pub b: f64,
    /// Sampling frequency, Hz: p is updated every 1/w_hz s. Default 170 (HMT01; ns-2 `w_`).
    /// In (0, 1e9] (the period must be at least 1 ns).
    pub w_hz: f64,
    /// Reference (target) queue, packets (with `queue_in_bytes`, units of `mean_pktsize` bytes).
    /// Default 20 (seed 002 §III.C; ns-2's `qref_` is 50). Finite, ≥ 0.
    pub q_ref: f64,
    /// Buffer, packets waiting (the packet on the wire not counted); with `queue_in_bytes` the
    /// buffer is `limit·mean_pktsize` bytes, as ns-2. Default 200 (seed 002 §III.C). ≥ 1.
    pub limit: u64,
    /// Packet size for byte↔packet conversions, bytes. Default 500 (ns-2 `mean_pktsize_`). ≥ 1.
    pub mean_pktsize: u32,
    /// Measure the queue in bytes (q = bytes / mean_pktsize) and the buffer in bytes. Default
    /// false (ns-2 `queue_in_bytes_`; seed 002 turns it on).
    pub queue_in_bytes: bool,
    /// Scale the drop probability by size / mean_pktsize (capped at 1). Default false (ns-2
    /// `bytes_`; seed 002 turns it on).
    pub byte_prob: bool,
    /// Mark ECN-capable packets instead of dropping them early; non-ECT packets are still
    /// dropped. Default false (ns-2 `setbit_`; seed 002 turns it on).
    pub ecn: bool,
}

impl Default for PiParams {
    /// HMT01's controller with seed 002's buffer; sources in [`MODEL`].
    fn default() -> Self {
        PiParams {
            a: 1.822e-5,
            b: 1.816e-5,
            w_hz: 170.0,
            q_ref: 20.0,
            limit: 200,
            mean_pktsize: 500,
            queue_in_bytes: false,
            byte_prob: false,
            ecn: false,
        }
    }
}

/// PI's scenario keys (`kind = "pi"`): the single declaration of each parameter.
pub const MODEL: Model<PiParams> = Model {
    kind: "pi",
    title: "PI controller, Hollot, Misra, Towsley & Gong 2001 (HMT01), as ns-2's Queue/PI",
    params: &[&KEYS],
    rules: PI_RULES,
    profiles: &[],
    validate: PiParams::validate,
    wrap: DisciplineParams::Pi,
};

const KEYS: [Param<PiParams>; 10] = pi_keys!(PiParams);

/// The PI controller's keys, for `pi` (`pi_keys!(PiParams)`) and for PISA/PIMC, whose
/// controller is their field `pi` (`pi_keys!(PisaParams, pi)`).
macro_rules! pi_keys {
    ($P:ty $(, $lens:ident)?) => {
        [
            $crate::params::Param::<$P> {
                key: "a",
                syntax: $crate::params::Syntax::Number,
                unit: "1/packet",
                range: $crate::params::Range::AtLeast(0.0),
                doc: "Coefficient on the current queue error",
                source: "HMT01; ns-2 a_; seed 003 §2.3.5",
                access: $crate::field!($($lens.)? a),
            },
            $crate::params::Param::<$P> {
                key: "b",
                syntax: $crate::params::Syntax::Number,
                unit: "1/packet",
                range: $crate::params::Range::AtLeast(0.0),
                doc: "Coefficient on the previous queue error",
                source: "HMT01; ns-2 b_; seed 003 §2.3.5",
                access: $crate::field!($($lens.)? b),
            },
            $crate::params::Param::<$P> {
                key: "w_hz",
                syntax: $crate::params::Syntax::Number,
                unit: "Hz",
                range: $crate::params::Range::OpenClosed(0.0, 1e9),
                doc: "Sampling frequency: p is updated every 1/w_hz",
                source: "HMT01; ns-2 w_",
                access: $crate::field!($($lens.)? w_hz),
            },
            $crate::params::Param::<$P> {
                key: "q_ref",
                syntax: $crate::params::Syntax::Number,
                unit: "packets",
                range: $crate::params::Range::AtLeast(0.0),
                doc: "Reference queue (× mean_pktsize bytes with queue_in_bytes)",
                source: "seed 002 §III.C (ns-2 qref_ 50)",
                access: $crate::field!($($lens.)? q_ref),
            },
            $crate::params::Param::<$P> {
                key: "limit",
                syntax: $crate::params::Syntax::PacketLimit(
                    "the limit is in packets (bytes = limit·mean_pktsize in byte mode)",
                ),
                unit: "packets",
                range: $crate::params::Range::AtLeast(1.0),
                doc: "Buffer, packets waiting (limit·mean_pktsize bytes with queue_in_bytes)",
                source: "seed 002 §III.C (100 ms at 10 Mbps)",
                access: $crate::field!($($lens.)? limit),
            },
            $crate::params::Param::<$P> {
                key: "mean_pktsize",
                syntax: $crate::params::Syntax::Size,
                unit: "bytes",
                range: $crate::params::Range::AtLeast(1.0),
                doc: "Packet size for byte↔packet conversions",
                source: "ns-2 mean_pktsize_",
                access: $crate::field!($($lens.)? mean_pktsize),
            },
            $crate::params::Param::<$P> {
                key: "byte_mode",
                syntax: $crate::params::Syntax::Bool,
                unit: "",
                range: $crate::params::Range::Cross("not with queue_in_bytes or byte_prob"),
                doc: "Both queue_in_bytes and byte_prob (seed 002's byte mode)",
                source: "ns-2 queue_in_bytes_, bytes_",
                access: $crate::params::Access {
                    set: |p, v| {
                        p$(.$lens)?.queue_in_bytes = v.bool();
                        p$(.$lens)?.byte_prob = v.bool();
                    },
                    get: |p| {
                        $crate::params::Value::Bool(
                            p$(.$lens)?.queue_in_bytes && p$(.$lens)?.byte_prob,
                        )
                    },
                },
            },
            $crate::params::Param::<$P> {
                key: "queue_in_bytes",
                syntax: $crate::params::Syntax::Bool,
                unit: "",
                range: $crate::params::Range::Any,
                doc: "Queue and buffer in bytes (q = bytes/mean_pktsize)",
                source: "ns-2 queue_in_bytes_",
                access: $crate::field!($($lens.)? queue_in_bytes),
            },
            $crate::params::Param::<$P> {
                key: "byte_prob",
                syntax: $crate::params::Syntax::Bool,
                unit: "",
                range: $crate::params::Range::Any,
                doc: "Scale the drop probability by size/mean_pktsize (capped at 1)",
                source: "ns-2 bytes_",
                access: $crate::field!($($lens.)? byte_prob),
            },
            $crate::params::Param::<$P> {
                key: "ecn",
                syntax: $crate::params::Syntax::Bool,
                unit: "",
                range: $crate::params::Range::Any,
                doc: "Mark ECN-capable packets instead of early drops; non-ECT still dropped",
                source: "ns-2 setbit_",
                access: $crate::field!($($lens.)? ecn),
            },
        ]
    };
}
pub(crate) use pi_keys;

/// Rules between the PI keys (shared with PISA and PIMC).
pub(crate) const PI_RULES: &[KeyRule] = &[
    KeyRule::Conflict {
        key: "queue_in_bytes",
        other: "byte_mode",
        reason: "give either byte_mode or queue_in_bytes/byte_prob, not both",
    },
    KeyRule::Conflict {
        key: "byte_prob",
        other: "byte_mode",
        reason: "give either byte_mode or queue_in_bytes/byte_prob, not both",
    },
];

impl PiParams {
    /// The declared ranges ([`MODEL`]).
    pub fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)
    }

    /// Sampling period 1/w_hz, rounded to the nanosecond.
    pub fn period(&self) -> SimDuration {
        SimDuration::from_secs_f64(1.0 / self.w_hz)
    }

    /// One controller step: the new p from the current and previous queue (packets), clamped.
    pub fn step(&self, p: f64, q: f64, q_old: f64) -> f64 {
        (self.a * (q - self.q_ref) - self.b * (q_old - self.q_ref) + p).clamp(0.0, 1.0)
    }
}

/// The PI controller and its FIFO buffer, shared by PI, PISA and PIMC: they differ only in the
/// probability an arrival faces (see [`PiCore::admit`]).
#[derive(Clone, Debug)]
pub struct PiCore {
    params: PiParams,
    period: SimDuration,
    /// Number of controller updates run so far; the next one is due at `updates·period`.
    updates: u64,
    p: f64,
    q_old: f64,
    buf: FifoQueue,
}

impl PiCore {
    /// Validate `params` and build an empty queue with p = 0, q_old = 0.
    pub fn new(params: PiParams) -> Result<Self, ParamError> {
        params.validate()?;
        let period = params.period();
        if period.as_nanos() == 0 {
            return Err(ParamError {
                key: "w_hz".into(),
                reason: format!("period 1/w_hz rounds to 0 ns (w_hz = {})", params.w_hz),
            });
        }
        Ok(PiCore {
            params,
            period,
            updates: 0,
            p: 0.0,
            q_old: 0.0,
            buf: FifoQueue::default(),
        })
    }

    pub fn params(&self) -> &PiParams {
        &self.params
    }

    /// Current PI probability (before any per-packet scaling).
    pub fn p(&self) -> f64 {
        self.p
    }

    /// Queue seen at the previous update (packets).
    pub fn q_old(&self) -> f64 {
        self.q_old
    }

    /// Instantaneous queue as the controller measures it: packets, or bytes / mean_pktsize.
    pub fn q_now(&self) -> f64 {
        let p = &self.params;
        self.buf.fifo().backlog(p.queue_in_bytes, p.mean_pktsize)
    }

    /// Time of the next controller update.
    pub fn next_update(&self) -> SimTime {
        SimTime::from_nanos(self.period.as_nanos().saturating_mul(self.updates))
    }

    /// Run every update due at or before `now` (each with the current queue); an early wake-up
    /// does nothing.
    pub fn on_timeout(&mut self, now: SimTime) {
        while self.next_update() <= now {
            let q = self.q_now();
            self.p = self.params.step(self.p, q, self.q_old);
            self.q_old = q;
            self.updates += 1;
        }
    }

    /// `p·size/mean_pktsize` capped at 1 with `byte_prob`, else `p`.
    pub fn byte_scaled(&self, p: f64, size_bytes: u32) -> f64 {
        if self.params.byte_prob {
            byte_scaled(p, size_bytes, self.params.mean_pktsize)
        } else {
            p
        }
    }

    /// Count an arrival that faces the early-drop/mark probability `prob`; an overflow if the
    /// buffer is full (the arrival is dropped as `Overflow` without looking at `prob`).
    pub fn admit(
        &mut self,
        now: SimTime,
        pkt: PacketMeta,
        prob: impl FnOnce(&Self, &PacketMeta) -> f64,
        rng: &mut Rng,
    ) -> Verdict {
        let p = &self.params;
        let admit = if self
            .buf
            .fifo()
            .full(p.limit, p.queue_in_bytes, p.mean_pktsize)
        {
            Admit::Drop(DropReason::Overflow)
        } else if hit(prob(self, &pkt), rng) {
            Admit::early(self.params.ecn, &pkt)
        } else {
            Admit::Store
        };
        self.buf.settle(now, pkt, admit)
    }

    pub fn dequeue(&mut self) -> Option<PacketMeta> {
        self.buf.release()
    }

    pub fn len_packets(&self) -> u32 {
        self.buf.len() as u32
    }
    pub fn len_bytes(&self) -> u64 {
        self.buf.bytes()
    }
    pub fn stats(&self) -> &QueueStats {
        self.buf.stats()
    }
}

/// PI queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Pi {
    core: PiCore,
}

impl Pi {
    pub fn new(params: PiParams) -> Result<Self, ParamError> {
        Ok(Pi {
            core: PiCore::new(params)?,
        })
    }
    /// The controller state (p, q_old) and buffer.
    pub fn core(&self) -> &PiCore {
        &self.core
    }
}

/// The `QueueDisc` methods PI, PISA and PIMC share: all but `enqueue` go to the `core: PiCore`
/// field (the buffer and the controller's timer).
macro_rules! delegate_to_pi_core {
    () => {
        fn dequeue(
            &mut self,
            _now: SimTime,
            _dropped: &mut Vec<(PacketMeta, DropReason)>,
        ) -> Option<PacketMeta> {
            self.core.dequeue()
        }
        fn hears_idle(&self) -> bool {
            false
        }
        fn len_packets(&self) -> u32 {
            self.core.len_packets()
        }
        fn len_bytes(&self) -> u64 {
            self.core.len_bytes()
        }
        fn stats(&self) -> &QueueStats {
            self.core.stats()
        }
        fn next_deadline(&self) -> Option<SimTime> {
            Some(self.core.next_update())
        }
        fn on_timeout(&mut self, now: SimTime) {
            self.core.on_timeout(now)
        }
    };
}
pub(crate) use delegate_to_pi_core;

impl QueueDisc for Pi {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        self.core
            .admit(now, pkt, |c, m| c.byte_scaled(c.p(), m.size_bytes), rng)
    }
    delegate_to_pi_core!();
}

/// Test fixtures shared by the PI-family tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::packet::{Ecn, PacketClass, PacketMeta};
    use units::SimTime;

    pub fn pkt(id: u32, size_bytes: u32, cwnd_hint: u32, ect: bool) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes,
            ecn: Ecn::rfc3168(ect),
            class: PacketClass::Bulk,
            cwnd_hint,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }

    /// 1/w with w = 1000 Hz: updates at k ms.
    pub fn ms(k: u64) -> SimTime {
        SimTime::from_millis(k)
    }
}

#[cfg(test)]
#[path = "pi_tests.rs"]
mod tests;
