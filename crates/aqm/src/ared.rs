//! Adaptive RED — Floyd, Gummadi & Shenker 2001, as seed 001 uses it (§2.3, Tables 1 and 3):
//! gentle RED whose max_p is adapted so the average queue sits in the middle of
//! `[min_th, max_th]`, with every other parameter derived from a target queueing delay and
//! the link rate.
//!
//! Derived at construction, with `C = rate_bps/(8·mean_pktsize)` the link capacity in
//! mean-size packets per second (seed 001 §2.3; reference/aqm-defaults.md §2.2, ns-2's `ptc`):
//! - `min_th = max(5, target_delay·C/2)` packets (ns-2's floor of 5; seed 001 Table 1: 5 ms →
//!   (5, 15) and 60 ms → (30, 90) on 10 Mbps with 1250-byte packets, C = 1000);
//! - `max_th = 3·min_th`;
//! - `w_q = 1 − exp(−1/C)` (ns-2 `q_weight_ 0`, as ns-2's ARED tests set it; seed 001 §6.2
//!   "0.001" on 10 Mbps);
//! - gentle always on; max_p starts at `initial_max_p` (0.1, ns-2 `1/linterm_`).
//!
//! Every `interval` (0.5 s), by a timer (`next_deadline`/`on_timeout`) that runs whether or not
//! packets arrive, with `avg` the average an arrival at that instant would start from (idle
//! decay included, see [`Red::avg_at`]) and the target band `[min_th + 0.4·(max_th − min_th),
//! max_th − 0.4·(max_th − min_th)]`:
//! - `avg > band top` and `max_p < top` (0.5): `max_p += min(alpha, max_p/4)`;
//! - `avg < band bottom` and `max_p > bottom` (0.01): `max_p ·= beta` (0.9);
//! - then, with `clamp_max_p` (default), max_p is clamped to `[bottom, top]` — the paper's
//!   stated range; ns-2 does not clamp (max_p may end just outside).
//!
//! Everything per packet is [`Red`] with `gentle` on, so RED's options (count rule, byte mode,
//! byte queue, ECN) are available here too.
//!
//! Differences from ns-2.35 (`queue/red.cc`; validation/ns2/README.md), each an option:
//! - `adapt_on` ([`AdaptOn`]): `Timer` (above, the paper's "every interval"); `Arrival` =
//!   ns-2's rule: the test runs inside the average update of every *arrival* with `now >
//!   last_change + interval`, on the average just computed, and `last_change` moves only when
//!   max_p changes (so after a quiet spell the first arrival adapts at once);
//! - `auto_bottom`: ns-2.35's `bottom_ 0` rule, bottom = `min(0.01, 80000/bandwidth_bps)`
//!   (0.008 at 10 Mbps; seed 001 Table 3 states 0.01, the default);
//! - `clamp_max_p = false`, `gentle_uses_initial_max_p = true`, and RED's rules
//!   (`count_rule = Ns2Wait`, `backlog_gate`, `forced_drop_on_avg = false`, `idle_decay`);
//!   ns-2.35's default unit is bytes (`byte_mode`, `queue_in_bytes`, `mean_pktsize` 500 B).
//!
//! Read seed 001 §2.3 and §5.2.2 and reference/aqm-defaults.md §2.5 before editing.
//!
//! Validation: tests below — `derived_parameters_10_and_100_mbps` (seed 001 Table 1 thresholds),
//! `max_p_rises_while_avg_above_band`, `max_p_falls_while_avg_below_band`,
//! `max_p_holds_inside_band`, `timer_runs_without_arrivals`, `ns2_frozen_gentle_slope`,
//! `bad_parameters_name_their_key`; closed loop in crates/sim/tests/aqm_red_family.rs.

use crate::discipline::{DisciplineParams, LinkInfo, ParamError, QueueDisc};
use crate::field;
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{
    check_ranges, Access, KeyRule, Model, Param, Profile, ProfileSet, Range, Syntax, Value,
};
use crate::red::{red_rule_options, RULE_OPTION_NS2, RULE_OPTION_RULES};
use crate::red::{CountRule, EcnRule, IdleDecay, Red, RedParams};
use crate::stats::QueueStats;
use units::{Rng, SimDuration, SimTime};

/// Adaptive RED parameters. Defaults: ns-2's ARED (`adaptive_ 1`, `thresh_ 0`, `maxthresh_ 0`,
/// `q_weight_ 0`) in packet mode with seed 001's 1250-byte mean packet and Table 3 values —
/// i.e. seed 001's "ARED-5ms" queue apart from `limit` and the count rule.
#[derive(Clone, Debug, PartialEq)]
pub struct AredParams {
    /// Target average queueing delay; sets `min_th = max(5, target_delay·C/2)`. > 0. Default
    /// 5 ms (ns-2 `targetdelay_`; seed 001 "ARED-5ms"; seed 001 also uses 60 ms).
    pub target_delay: SimDuration,
    /// Time between max_p adaptations. > 0. Default 0.5 s (FGS 2001; seed 001 Table 3).
    pub interval: SimDuration,
    /// Cap on the additive increase: step = `min(alpha, max_p/4)`. In (0, 1]. Default 0.01
    /// (FGS 2001; seed 001 Table 3).
    pub alpha: f64,
    /// Multiplicative decrease factor, in (0, 1). Default 0.9 (FGS 2001; seed 001 Table 3).
    pub beta: f64,
    /// Upper bound of max_p, in (bottom, 1]. Default 0.5 (FGS 2001; seed 001 Table 3).
    pub top: f64,
    /// Lower bound of max_p, in (0, top). Default 0.01 (FGS 2001; seed 001 Table 3; ns-2.35
    /// uses `min(0.01, 80000/bandwidth)`).
    pub bottom: f64,
    /// max_p at the start, in [bottom, top]. Default 0.1 (ns-2 `1/linterm_`).
    pub initial_max_p: f64,
    /// EWMA weight override; `None` = `1 − exp(−1/C)` (FGS 2001). In (0, 1].
    pub w_q: Option<f64>,
    /// Buffer size, packets waiting (×mean_pktsize bytes with `queue_in_bytes`); ≥ 1. Default
    /// 50 (ns-2 `limit_`; seed 001 used 111 or 370, Table 1).
    pub limit: u64,
    /// Mean packet size, bytes (≥ 1): unit of C and of byte mode. Default 1250 (seed 001 §5.1,
    /// which reproduces Table 1's thresholds; ns-2's default is 500).
    pub mean_pktsize: u32,
    /// Mark instead of early drop for ECT packets (seed 001 "ARED + ECN"). Default false.
    pub ecn: bool,
    /// Which early drops become marks. Default `GentleDrop` (seed 001 §2.3).
    pub ecn_rule: EcnRule,
    /// Count-based p_a rule. Default `Paper`; ns-2 (and so seed 001) used `Ns2Wait`.
    pub count_rule: CountRule,
    /// ns-2 `bytes_`. Default false (seed 001 Table 3 "packet mode").
    pub byte_mode: bool,
    /// ns-2 `queue_in_bytes_`. Default false (seed 001 Table 3 "packet mode").
    pub queue_in_bytes: bool,
    /// Clamp max_p to [bottom, top] after each step. Default true (paper's range); false = ns-2.
    pub clamp_max_p: bool,
    /// ns-2 quirk: the gentle segment keeps starting from `initial_max_p` when max_p adapts.
    /// Default false (FGS 2001: the gentle segment starts from the current max_p).
    pub gentle_uses_initial_max_p: bool,
    /// When max_p adapts. Default `Timer` (FGS 2001: every `interval`); `Arrival` = ns-2.35.
    pub adapt_on: AdaptOn,
    /// ns-2.35 `bottom_ 0`: use `min(0.01, 80000/bandwidth_bps)` instead of `bottom`.
    /// Default false (FGS 2001; seed 001 Table 3: 0.01).
    pub auto_bottom: bool,
    /// RED's `backlog_gate` (ns-2.35 `enque()`). Default false.
    pub backlog_gate: bool,
    /// RED's `forced_drop_on_avg`; false = ns-2.35 `use_mark_p_`. Default true.
    pub forced_drop_on_avg: bool,
    /// RED's idle decay. Default `Paper`.
    pub idle_decay: IdleDecay,
}

/// When Adaptive RED tests the average against its target band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdaptOn {
    /// Every `interval`, by a timer, whether or not packets arrive (FGS 2001 Figure 2).
    #[default]
    Timer,
    /// On each arrival once `interval` has passed since max_p last changed (ns-2.35
    /// `REDQueue::estimator`).
    Arrival,
}

impl Default for AredParams {
    /// FGS 2001 as seed 001 uses it; sources in [`MODEL`].
    fn default() -> Self {
        AredParams {
            target_delay: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(500),
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: 0.01,
            initial_max_p: 0.1,
            w_q: None,
            limit: 50,
            mean_pktsize: 1250,
            ecn: false,
            ecn_rule: EcnRule::GentleDrop,
            count_rule: CountRule::Paper,
            byte_mode: false,
            queue_in_bytes: false,
            clamp_max_p: true,
            gentle_uses_initial_max_p: false,
            adapt_on: AdaptOn::Timer,
            auto_bottom: false,
            backlog_gate: false,
            forced_drop_on_avg: true,
            idle_decay: IdleDecay::Paper,
        }
    }
}

/// ARED's scenario keys (`kind = "ared"`): the single declaration of each parameter.
pub const MODEL: Model<AredParams> = Model {
    kind: "ared",
    title: "Adaptive RED, Floyd, Gummadi & Shenker 2001 (seed 001), gentle, max_p adapted",
    params: &[&ARED_KEYS, &RED_RULE_OPTIONS],
    rules: &[
        KeyRule::ConflictIfTrue {
            key: "auto_bottom",
            other: "bottom",
            reason: "conflicts with bottom: auto_bottom computes bottom from the link rate; give one of them",
        },
        RULE_OPTION_RULES[0],
        RULE_OPTION_RULES[1],
        RULE_OPTION_RULES[2],
    ],
    profiles: &[Profile {
        name: "ns2",
        doc: "ns-2.35's adaptive_ 1 REDQueue with automatic bottom (ns-default.tcl, red.cc); not its units",
        sets: &[
            RULE_OPTION_NS2[0],
            RULE_OPTION_NS2[1],
            RULE_OPTION_NS2[2],
            RULE_OPTION_NS2[3],
            RULE_OPTION_NS2[4],
            ProfileSet {
                key: "adapt_on",
                value: Value::Choice("arrival"),
                unless: &[],
                when: None,
            },
            ProfileSet {
                key: "clamp_max_p",
                value: Value::Bool(false),
                unless: &[],
                when: None,
            },
            ProfileSet {
                key: "gentle_uses_initial_max_p",
                value: Value::Bool(true),
                unless: &[],
                when: None,
            },
            ProfileSet {
                key: "auto_bottom",
                value: Value::Bool(true),
                unless: &["bottom"],
                when: None,
            },
        ],
    }],
    validate: AredParams::validate,
    wrap: DisciplineParams::Ared,
};

const RED_RULE_OPTIONS: [Param<AredParams>; 9] = red_rule_options!(AredParams);

const ARED_KEYS: [Param<AredParams>; 14] = [
    Param {
        key: "target_delay",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Target average queueing delay; min_th = max(5, target_delay·C/2), max_th = 3·min_th",
        source: "ns-2 targetdelay_; seed 001 ARED-5ms (also 60ms)",
        access: field!(target_delay),
    },
    Param {
        key: "interval",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Time between max_p adaptations",
        source: "FGS 2001; seed 001 Table 3",
        access: field!(interval),
    },
    Param {
        key: "alpha",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "Cap on the additive increase: step = min(alpha, max_p/4)",
        source: "FGS 2001; seed 001 Table 3",
        access: field!(alpha),
    },
    Param {
        key: "beta",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Open(0.0, 1.0),
        doc: "Multiplicative decrease factor of max_p",
        source: "FGS 2001; seed 001 Table 3",
        access: field!(beta),
    },
    Param {
        key: "top",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "Upper bound of max_p",
        source: "FGS 2001; seed 001 Table 3",
        access: field!(top),
    },
    Param {
        key: "bottom",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Cross("(0, top)"),
        doc: "Lower bound of max_p (not with auto_bottom)",
        source: "FGS 2001; seed 001 Table 3 (ns-2.35: min(0.01, 80000/bps))",
        access: field!(bottom),
    },
    Param {
        key: "initial_max_p",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Cross("[bottom, top]"),
        doc: "max_p at the start",
        source: "ns-2 1/linterm_",
        access: field!(initial_max_p),
    },
    Param {
        key: "w_q",
        syntax: Syntax::Fraction,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "EWMA weight of the average queue; unset = 1 − exp(−1/C)",
        source: "FGS 2001 (ns-2 q_weight_ 0)",
        access: field!(w_q),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("ARED's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Buffer, packets waiting (× mean_pktsize bytes with queue_in_bytes)",
        source: "ns-2 limit_ (seed 001: 111 or 370)",
        access: field!(limit),
    },
    Param {
        key: "mean_pktsize",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "Mean packet size: unit of the capacity C and of byte mode",
        source: "seed 001 §5.1 (ns-2's default is 500)",
        access: field!(mean_pktsize),
    },
    Param {
        key: "clamp_max_p",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Clamp max_p to [bottom, top] after each step (false = ns-2)",
        source: "FGS 2001",
        access: field!(clamp_max_p),
    },
    Param {
        key: "gentle_uses_initial_max_p",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "ns-2 quirk: the gentle segment keeps starting from initial_max_p",
        source: "FGS 2001 (true = ns-2's frozen gentle slope)",
        access: field!(gentle_uses_initial_max_p),
    },
    Param {
        key: "adapt_on",
        syntax: Syntax::Choice {
            noun: "adapt_on",
            options: &["timer", "arrival"],
        },
        unit: "",
        range: Range::Any,
        doc: "When max_p adapts: timer (every interval), arrival (ns-2.35 estimator())",
        source: "FGS 2001",
        access: Access {
            set: |p, v| {
                p.adapt_on = match v.choice() {
                    "arrival" => AdaptOn::Arrival,
                    _ => AdaptOn::Timer,
                }
            },
            get: |p| {
                Value::Choice(match p.adapt_on {
                    AdaptOn::Timer => "timer",
                    AdaptOn::Arrival => "arrival",
                })
            },
        },
    },
    Param {
        key: "auto_bottom",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "bottom = min(0.01, 80000/bandwidth_bps) (ns-2.35 bottom_ 0); not with bottom",
        source: "FGS 2001; seed 001 Table 3",
        access: field!(auto_bottom),
    },
];

impl AredParams {
    /// The lower bound of max_p on `link`: `bottom`, or ns-2.35's rule with `auto_bottom`.
    pub fn bottom_on(&self, link: LinkInfo) -> f64 {
        if self.auto_bottom {
            (80_000.0 / link.rate.bps as f64).min(0.01)
        } else {
            self.bottom
        }
    }

    /// Link capacity C in mean-size packets per second.
    pub fn capacity_pps(&self, link: LinkInfo) -> f64 {
        link.rate.bps as f64 / (8.0 * self.mean_pktsize as f64)
    }

    /// The RED parameters ARED derives for `link` (thresholds, w_q, gentle, initial max_p).
    pub fn derive(&self, link: LinkInfo) -> RedParams {
        let c = self.capacity_pps(link);
        let min_th = (self.target_delay.as_secs_f64() * c / 2.0).max(5.0);
        RedParams {
            min_th,
            max_th: 3.0 * min_th,
            w_q: self.w_q.unwrap_or_else(|| -units::math::exp_m1(-1.0 / c)),
            max_p: self.initial_max_p,
            limit: self.limit,
            mean_pktsize: self.mean_pktsize,
            ecn: self.ecn,
            count_rule: self.count_rule,
            gentle: true,
            byte_mode: self.byte_mode,
            queue_in_bytes: self.queue_in_bytes,
            ecn_rule: self.ecn_rule,
            backlog_gate: self.backlog_gate,
            forced_drop_on_avg: self.forced_drop_on_avg,
            idle_decay: self.idle_decay,
        }
    }

    /// The declared ranges ([`MODEL`]), then `bottom` and `initial_max_p` against `top`.
    fn validate(&self) -> Result<(), ParamError> {
        let err = |key: &str, reason: String| {
            Err(ParamError {
                key: key.into(),
                reason,
            })
        };
        check_ranges(MODEL.params, self)?;
        if !(self.bottom > 0.0 && self.bottom < self.top) {
            return err(
                "bottom",
                format!("must be in (0, top = {}), got {}", self.top, self.bottom),
            );
        }
        if !(self.initial_max_p >= self.bottom && self.initial_max_p <= self.top) {
            return err(
                "initial_max_p",
                format!(
                    "must be in [bottom, top] = [{}, {}], got {}",
                    self.bottom, self.top, self.initial_max_p
                ),
            );
        }
        Ok(())
    }
}

/// Adaptive RED queue: a gentle [`Red`] plus the max_p controller (see the module doc).
#[derive(Clone, Debug)]
pub struct Ared {
    params: AredParams,
    red: Red,
    /// Lower bound of max_p on this link (`AredParams::bottom_on`).
    bottom: f64,
    /// `Timer`: when the next test is due; `Arrival`: when max_p last changed.
    next_update: SimTime,
    increases: u64,
    decreases: u64,
}

impl Ared {
    /// Validate, derive the RED parameters for `link` and build the queue. The first
    /// adaptation is due at `interval`.
    pub fn new(params: AredParams, link: LinkInfo) -> Result<Self, ParamError> {
        params.validate()?;
        let red = Red::new(params.derive(link), link)?;
        let bottom = params.bottom_on(link);
        Ok(Ared {
            bottom,
            next_update: match params.adapt_on {
                AdaptOn::Timer => SimTime::ZERO + params.interval,
                AdaptOn::Arrival => SimTime::ZERO,
            },
            params,
            red,
            increases: 0,
            decreases: 0,
        })
    }

    /// Current max_p.
    pub fn max_p(&self) -> f64 {
        self.red.max_p()
    }
    /// Current average queue, packets (mean-size packets with `queue_in_bytes`).
    pub fn avg(&self) -> f64 {
        self.red.avg()
    }
    /// The derived RED parameters (thresholds, w_q, initial max_p).
    pub fn red_params(&self) -> &RedParams {
        self.red.params()
    }
    /// Base probability p_b for `avg` with the current max_p (gentle segment included).
    pub fn p_b(&self, avg: f64) -> f64 {
        self.red.p_b(avg)
    }
    /// Adaptation steps taken so far: (increases, decreases).
    pub fn adaptations(&self) -> (u64, u64) {
        (self.increases, self.decreases)
    }

    /// Target band for the average, packets: `(low, high)`.
    pub fn target_band(&self) -> (f64, f64) {
        let p = self.red.params();
        let delta = 0.4 * (p.max_th - p.min_th);
        (p.min_th + delta, p.max_th - delta)
    }

    /// The max_p test at `now`; true if max_p changed.
    fn adapt(&mut self, now: SimTime) -> bool {
        let p = &self.params;
        let avg = self.red.avg_at(now);
        let (low, high) = self.target_band();
        let mut max_p = self.red.max_p();
        if avg > high && max_p < p.top {
            max_p += p.alpha.min(max_p / 4.0);
            self.increases += 1;
        } else if avg < low && max_p > self.bottom {
            max_p *= p.beta;
            self.decreases += 1;
        } else {
            return false;
        }
        if p.clamp_max_p {
            max_p = max_p.clamp(self.bottom, p.top);
        }
        self.red.set_max_p(max_p, p.gentle_uses_initial_max_p);
        true
    }
}

impl QueueDisc for Ared {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        self.red.arrive(now);
        if self.params.adapt_on == AdaptOn::Arrival
            && now > self.next_update + self.params.interval
            && self.adapt(now)
        {
            self.next_update = now;
        }
        self.red.admit(now, pkt, rng)
    }
    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        self.red.dequeue(now, dropped)
    }
    fn len_packets(&self) -> u32 {
        self.red.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.red.len_bytes()
    }
    fn stats(&self) -> &QueueStats {
        self.red.stats()
    }
    fn next_deadline(&self) -> Option<SimTime> {
        match self.params.adapt_on {
            AdaptOn::Timer => Some(self.next_update),
            AdaptOn::Arrival => None,
        }
    }
    fn on_timeout(&mut self, now: SimTime) {
        if self.params.adapt_on == AdaptOn::Arrival {
            return;
        }
        while self.next_update <= now {
            self.adapt(self.next_update);
            self.next_update += self.params.interval;
        }
    }
}

#[cfg(test)]
#[path = "ared_tests.rs"]
mod tests;
