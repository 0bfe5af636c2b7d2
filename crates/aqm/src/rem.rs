//! REM — Random Exponential Marking (Athuraliya, Li, Low & Yin, "REM: Active Queue Management",
//! IEEE Network 2001), as ns-2.35's `Queue/REM` computes it (reference/aqm-defaults.md §4).
//!
//! Every `update_period` (a deadline exposed through `next_deadline`/`on_timeout`, running
//! whether or not packets arrive; the first update one period after t = 0):
//! - `in` = arrivals during the period (packets; with `byte_mode`, bytes / mean_pktsize),
//!   counting every arrival, also those then dropped (as ns-2);
//! - `in_avg ← (1 − input_weight)·in_avg + input_weight·in`;
//! - `b` = backlog (packets waiting; with `byte_mode`, bytes / mean_pktsize);
//! - price `P ← max(0, P + γ·(in_avg + α·(b − b*) − c))`, with `c` = link rate · period /
//!   (8·mean_pktsize) packets per period — the rate mismatch `in_avg − c` plus the weighted
//!   queue mismatch `α·(b − b*)`;
//! - probability `prob = 1 − φ^(−P)`.
//!
//! On each arrival: if the buffer is full (`limit` packets waiting, or `limit·mean_pktsize` bytes
//! with `byte_mode`) the arrival is dropped (`Overflow`); otherwise it is hit with probability
//! `prob` (byte mode: `min(1, prob·size/mean_pktsize)`), one uniform draw `U < prob'` per arrival
//! facing a positive probability, and what a hit does depends on [`RemEcn`].
//!
//! Differences from ns-2 (named options):
//! - α, the queue-mismatch weight, is a parameter (ns-2 hard-codes 0.1; default 0.1).
//! - Buffer: at most `limit` packets wait; ns-2 enqueues and then drops when the backlog is
//!   ≥ limit, holding `limit − 1` (`ns2_off_by_one` reproduces that).
//! - ECN: [`RemEcn::Ns2MarkPkts`] is ns-2's `markpkts_`: nothing is dropped early; at
//!   **dequeue** an ECT packet is marked with the probability current then (byte-scaled in byte
//!   mode). Its uniform U is drawn from the link's stream when the packet is stored (the dequeue
//!   hook has no RNG); U is independent of the later probability, so the marking law is ns-2's.
//!   [`RemEcn::Mark`] is RFC 3168 practice at enqueue (mark ECT, drop non-ECT), like PI's and
//!   RED's `ecn`.
//!
//! Seed 002 ran REM with ns-2's defaults except b* = 20 packets, byte mode and ECN (seed 002
//! §III.C); its 200-packet buffer is `limit`.
//!
//! Read reference/aqm-defaults.md §4 before editing.
//!
//! Validation: `rem_tests.rs` — `price_sequence_by_hand` (in, in_avg, b, P, prob over five
//! scripted periods, including the clamp at 0), `byte_mode_by_hand`,
//! `arrivals_follow_the_random_stream`, `timer_runs_without_arrivals`, `ecn_modes`,
//! `ns2_markpkts_uses_the_probability_at_departure`, `ns2_off_by_one_holds_limit_minus_one`,
//! `bad_parameters_name_their_key`; closed loop in crates/sim/tests/aqm_pi_rem.rs (mean queue
//! near b*, and near what the price identity predicts); ns-2 side by side in
//! validation/ns2/README.md.

use crate::admit::{byte_scaled, hit, Admit};
use crate::discipline::{DisciplineParams, LinkInfo, ParamError, QueueDisc};
use crate::field;
use crate::fifo::{fifo_accessors, FifoQueue};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Access, Model, Param, Range, Syntax, Value};
use rand::Rng as _;
use std::collections::VecDeque;
use units::{Rng, SimDuration, SimTime};

/// What REM does with an arrival it selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemEcn {
    /// Drop it (ns-2 `markpkts_ false`). Default.
    Off,
    /// Mark it if ECN-capable, else drop it (RFC 3168).
    Mark,
    /// ns-2 `markpkts_ true`: no early drops at all; ECN-capable packets are marked at
    /// departure with the probability current then (see the module doc).
    Ns2MarkPkts,
}

/// REM parameters. Defaults: ns-2's `Queue/REM` (the paper's recommendations) with seed 002's
/// 200-packet buffer; b* = 20 packets is both ns-2's default and seed 002's target.
#[derive(Clone, Debug, PartialEq)]
pub struct RemParams {
    /// γ, price step size, per packet. Default 0.001 (ns-2 `gamma_`). Finite, > 0.
    pub gamma: f64,
    /// φ, base of the marking function 1 − φ^(−P). Default 1.001 (ns-2 `phi_`). Finite, > 1.
    pub phi: f64,
    /// α, weight of the queue mismatch in the price update. Default 0.1 (hard-coded in ns-2's
    /// rem.cc). Finite, ≥ 0.
    pub alpha: f64,
    /// Price update period. Default 2 ms (ns-2 `pupdtime_ 0.002`). > 0.
    pub update_period: SimDuration,
    /// b*, target backlog, packets (units of mean_pktsize bytes in byte mode). Default 20
    /// (ns-2 `pbo_`; seed 002 §III.C). Finite, ≥ 0.
    pub b_star: f64,
    /// EWMA weight of the input-rate estimate; 1 = no smoothing. Default 1 (ns-2 `inw_`).
    /// In (0, 1].
    pub input_weight: f64,
    /// Packet size for the capacity c and byte↔packet conversions, bytes. Default 1000 (ns-2
    /// `mean_pktsize_`). ≥ 1.
    pub mean_pktsize: u32,
    /// Buffer, packets waiting (byte mode: `limit·mean_pktsize` bytes). Default 200 (seed 002
    /// §III.C; ns-2's `limit_` is 50). ≥ 1.
    pub limit: u64,
    /// Queue, arrivals and buffer in bytes, probability scaled by size/mean_pktsize. Default
    /// false (ns-2 `qib_`; seed 002 turns it on).
    pub byte_mode: bool,
    /// What a selected arrival suffers. Default `Off` (ns-2 `markpkts_ false`).
    pub ecn: RemEcn,
    /// Hold at most `limit − 1` waiting packets, as ns-2. Default false.
    pub ns2_off_by_one: bool,
}

impl Default for RemParams {
    /// ns-2's `Queue/REM` with seed 002's buffer; sources in [`MODEL`].
    fn default() -> Self {
        RemParams {
            gamma: 0.001,
            phi: 1.001,
            alpha: 0.1,
            update_period: SimDuration::from_millis(2),
            b_star: 20.0,
            input_weight: 1.0,
            mean_pktsize: 1000,
            limit: 200,
            byte_mode: false,
            ecn: RemEcn::Off,
            ns2_off_by_one: false,
        }
    }
}

/// REM's scenario keys (`kind = "rem"`): the single declaration of each parameter.
pub const MODEL: Model<RemParams> = Model {
    kind: "rem",
    title: "REM, Athuraliya, Low, Li & Yin 2001, as ns-2's Queue/REM",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: RemParams::validate,
    wrap: DisciplineParams::Rem,
};

const KEYS: [Param<RemParams>; 11] = [
    Param {
        key: "gamma",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(0.0),
        doc: "γ, price step size, per packet",
        source: "ns-2 gamma_",
        access: field!(gamma),
    },
    Param {
        key: "phi",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(1.0),
        doc: "φ, base of the marking function 1 − φ^(−price)",
        source: "ns-2 phi_",
        access: field!(phi),
    },
    Param {
        key: "alpha",
        syntax: Syntax::Number,
        unit: "",
        range: Range::AtLeast(0.0),
        doc: "α, weight of the queue mismatch in the price update",
        source: "ns-2 rem.cc (hard-coded there)",
        access: field!(alpha),
    },
    Param {
        key: "update_period",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Price update period",
        source: "ns-2 pupdtime_ 0.002",
        access: field!(update_period),
    },
    Param {
        key: "b_star",
        syntax: Syntax::Number,
        unit: "packets",
        range: Range::AtLeast(0.0),
        doc: "b*, target backlog (mean_pktsize units in byte mode)",
        source: "ns-2 pbo_; seed 002 §III.C",
        access: field!(b_star),
    },
    Param {
        key: "input_weight",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "EWMA weight of the input-rate estimate; 1 = no smoothing",
        source: "ns-2 inw_",
        access: field!(input_weight),
    },
    Param {
        key: "mean_pktsize",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "Packet size for the capacity c and byte↔packet conversions",
        source: "ns-2 mean_pktsize_",
        access: field!(mean_pktsize),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit(
            "the limit is in packets (bytes = limit·mean_pktsize in byte mode)",
        ),
        unit: "packets",
        range: Range::Cross("≥ 1 (≥ 2 with ns2_off_by_one)"),
        doc: "Buffer, packets waiting (limit·mean_pktsize bytes in byte mode)",
        source: "seed 002 §III.C (ns-2 limit_ 50)",
        access: field!(limit),
    },
    Param {
        key: "byte_mode",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Queue, arrivals and buffer in bytes; probability × size/mean_pktsize",
        source: "ns-2 qib_",
        access: field!(byte_mode),
    },
    Param {
        key: "ecn",
        syntax: Syntax::BoolOr(&["ns2_markpkts"]),
        unit: "",
        range: Range::Any,
        doc: "false: drop; true: mark ECT, drop others; ns2_markpkts: mark ECT at dequeue, never drop early",
        source: "ns-2 markpkts_ false",
        access: Access {
            set: |p, v| {
                p.ecn = match v {
                    Value::Bool(true) => RemEcn::Mark,
                    Value::Choice("ns2_markpkts") => RemEcn::Ns2MarkPkts,
                    _ => RemEcn::Off,
                }
            },
            get: |p| match p.ecn {
                RemEcn::Off => Value::Bool(false),
                RemEcn::Mark => Value::Bool(true),
                RemEcn::Ns2MarkPkts => Value::Choice("ns2_markpkts"),
            },
        },
    },
    Param {
        key: "ns2_off_by_one",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Hold at most limit − 1 waiting packets, as ns-2",
        source: "aqmlab: limit = packets waiting",
        access: field!(ns2_off_by_one),
    },
];

impl RemParams {
    /// The declared ranges ([`MODEL`]), then the limit against `ns2_off_by_one`.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)?;
        if self.limit == 0 || (self.ns2_off_by_one && self.limit == 1) {
            return Err(ParamError {
                key: "limit".into(),
                reason: format!(
                    "must be at least {} packet(s)",
                    if self.ns2_off_by_one { 2 } else { 1 }
                ),
            });
        }
        Ok(())
    }
}

/// REM queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Rem {
    params: RemParams,
    /// Capacity c, packets of mean_pktsize per update period.
    c: f64,
    /// Updates run so far; the next is due at `(updates + 1)·period`.
    updates: u64,
    /// Arrivals since the last update: packets, or bytes in byte mode.
    arrived: u64,
    in_avg: f64,
    price: f64,
    prob: f64,
    buf: FifoQueue,
    /// `Ns2MarkPkts` only: the uniform drawn for each stored packet (NaN: never marked).
    mark_u: VecDeque<f64>,
    /// The packet the latest `dequeue` returned was marked.
    last_marked: bool,
}

impl Rem {
    /// Validate `params` and build the queue for a link of `link.rate`.
    pub fn new(params: RemParams, link: LinkInfo) -> Result<Self, ParamError> {
        params.validate()?;
        let c = link.rate.bps as f64 * params.update_period.as_secs_f64()
            / (8.0 * params.mean_pktsize as f64);
        Ok(Rem {
            params,
            c,
            updates: 0,
            arrived: 0,
            in_avg: 0.0,
            price: 0.0,
            prob: 0.0,
            buf: FifoQueue::default(),
            mark_u: VecDeque::new(),
            last_marked: false,
        })
    }

    /// Capacity per update period, packets of mean_pktsize.
    pub fn capacity_per_period(&self) -> f64 {
        self.c
    }
    pub fn price(&self) -> f64 {
        self.price
    }
    pub fn prob(&self) -> f64 {
        self.prob
    }
    pub fn in_avg(&self) -> f64 {
        self.in_avg
    }

    /// `prob`, scaled by size/mean_pktsize (capped at 1) in byte mode.
    fn prob_for(&self, size_bytes: u32) -> f64 {
        if self.params.byte_mode {
            byte_scaled(self.prob, size_bytes, self.params.mean_pktsize)
        } else {
            self.prob
        }
    }

    fn backlog(&self) -> f64 {
        let p = &self.params;
        self.buf.fifo().backlog(p.byte_mode, p.mean_pktsize)
    }

    fn next_update(&self) -> SimTime {
        let n = self.updates.saturating_add(1);
        SimTime::from_nanos(self.params.update_period.as_nanos().saturating_mul(n))
    }

    fn update(&mut self) {
        let p = &self.params;
        let arrived = if p.byte_mode {
            self.arrived as f64 / p.mean_pktsize as f64
        } else {
            self.arrived as f64
        };
        self.in_avg = (1.0 - p.input_weight) * self.in_avg + p.input_weight * arrived;
        let mismatch = self.in_avg + p.alpha * (self.backlog() - p.b_star) - self.c;
        self.price = (self.price + p.gamma * mismatch).max(0.0);
        self.prob = 1.0 - units::math::powf(p.phi, -self.price);
        self.arrived = 0;
    }

    /// Buffer full for an arrival of `size` bytes? aqmlab: the backlog before the arrival
    /// already fills the buffer (as PI and RED). ns-2 (`ns2_off_by_one`): the backlog after
    /// adding the arrival reaches the buffer.
    fn full_for(&self, size: u32) -> bool {
        let p = &self.params;
        let (backlog, unit_size, cap) = if p.byte_mode {
            let cap = p.limit.saturating_mul(p.mean_pktsize as u64);
            (self.buf.bytes(), size as u64, cap)
        } else {
            (self.buf.len() as u64, 1, p.limit)
        };
        if p.ns2_off_by_one {
            backlog + unit_size >= cap
        } else {
            backlog >= cap
        }
    }

    /// REM's decision on an arrival: counted into the input rate, an overflow if the buffer
    /// is full, else dropped (or marked) with `prob`; with `Ns2MarkPkts` the draw is kept for
    /// the mark at dequeue instead.
    fn decide(&mut self, pkt: &PacketMeta, rng: &mut Rng) -> Admit {
        self.arrived += if self.params.byte_mode {
            pkt.size_bytes as u64
        } else {
            1
        };
        if self.full_for(pkt.size_bytes) {
            return Admit::Drop(DropReason::Overflow);
        }
        if self.params.ecn == RemEcn::Ns2MarkPkts {
            let u = if pkt.ecn.ecn_capable() {
                rng.gen::<f64>()
            } else {
                f64::NAN
            };
            self.mark_u.push_back(u);
        } else if hit(self.prob_for(pkt.size_bytes), rng) {
            return Admit::early(self.params.ecn == RemEcn::Mark, pkt);
        }
        Admit::Store
    }
}

impl QueueDisc for Rem {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        let admit = self.decide(&pkt, rng);
        self.buf.settle(now, pkt, admit)
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        _dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        self.last_marked = false;
        let p = self.buf.release()?;
        if let Some(u) = self.mark_u.pop_front() {
            // NaN (non-ECT) compares false: never marked.
            if u < self.prob_for(p.size_bytes) {
                self.last_marked = true;
                self.buf.count_departure_mark();
            }
        }
        Some(p)
    }

    fn dequeue_marked(&self) -> bool {
        self.last_marked
    }
    fn marks_at_dequeue(&self) -> bool {
        true
    }

    fifo_accessors!(buf);
    fn next_deadline(&self) -> Option<SimTime> {
        Some(self.next_update())
    }
    fn on_timeout(&mut self, now: SimTime) {
        while self.next_update() <= now {
            self.update();
            self.updates += 1;
        }
    }
}

#[cfg(test)]
#[path = "rem_tests.rs"]
mod tests;
