//! DualPI2 — the DualQ Coupled AQM of RFC 9332 (De Schepper, Briscoe, White 2023) as Linux's
//! `sch_dualpi2` (net/sched/sch_dualpi2.c, Linux 6.17) runs it, in its integer arithmetic.
//!
//! Two FIFOs share one buffer of `limit` packets. Classification (RFC 9331 §5.1): a packet whose
//! ECN field has a bit in common with the mask — ECT(1) and CE, or with `any_ect` also ECT(0) —
//! goes to the L queue, every other packet to the C queue.
//!
//! Base controller (RFC 9332 §2.4, Linux `calculate_probability`): every `tupdate` the queue
//! delay is the larger of the two head packets' sojourn times (0 for an empty queue) and
//! `p' += α·(qdelay − target) + β·(qdelay − qdelay_old)`, in Linux's fixed point: p' is a u32
//! fraction of 2³² − 1, α and β are tc's values in 1/256 Hz scaled to `x·(2³²−1)/4/10⁹`
//! (so tc's α = 0.16 Hz becomes 41/256 and then 10), the step is `Δ/64` truncated and p' is
//! clamped to [0, 1]. Without `drop_on_overload` p' is capped at 1/k.
//!
//! Per-packet decision (`must_drop`, at dequeue by default, at enqueue with `drop_enqueue`):
//! nothing while the whole buffer holds less than 2 MTU. A C packet is hit with probability
//! p'² (two draws, RFC 9332 §2.1 "squared"): marked if ECN-capable, else dropped. An L packet
//! is hit with k·p' (the coupling, k = `coupling_factor`): marked, or dropped if Not-ECT. When
//! k·p' > 1 (overload) every packet is treated as classic: hit with p'² and then dropped
//! (`drop_on_overload`) — or, with `drop_on_overload = false`, L packets are marked instead.
//! Each roll is a u32 that hits when it is ≤ the probability (Linux `dualpi2_roll`); a packet's
//! two rolls are the halves of one u64 drawn from the link's stream when it arrives (the engine
//! hands a stream only to `enqueue`), so its fate at dequeue is as random as Linux's.
//!
//! Native L4S marking (RFC 9332 §2.5.1.2, Linux `do_step_aqm`): an L packet leaving after a
//! sojourn above `step_thresh` (or with more than `step_thresh_packets` packets behind it in the
//! L queue) is marked (dropped if Not-ECT), provided the L queue held at least `min_qlen_step`
//! packets when it arrived.
//!
//! Scheduler (RFC 9332 §4.2.2 "time-shifted FIFO" approximated, as Linux, by a weighted round
//! robin on a byte credit): the credit starts at `mtu·(wc − wl)` (wc = `classic_protection` %,
//! wl = 100 − wc); L is served when it has packets and either C is empty or the credit ≤ 0;
//! serving L while C waits adds wc·size, serving C while L waits subtracts wl·size; an empty
//! dequeue resets the credit. A packet dropped at dequeue changes no credit.
//!
//! `typical_rtt` / `max_rtt` (tc's auto-configuration, iproute2 `q_dualpi2.c`, RFC 9332
//! Appendix A.1): target = typical RTT, tupdate = max(min(typical, max/3), 1 µs),
//! α = 0.1·tupdate/max², β = 0.3/max, computed in tc's float arithmetic in µs; a missing
//! one is the other ×6 or ÷6.
//!
//! Monitoring: `dequeued_lane` names the queue (L or C) of each packet handed over, so the
//! engine reports each queue's sojourn times (`sim::lanes`; summary keys `l_sojourn_p99_ms`, …).
//!
//! Not modelled: Linux's memory limit (`memlimit`, skb truesize), GSO splitting, tc filters and
//! the LLLL class, the 2·MTU guard in bytes of the L2 frame (here packet sizes as the simulator
//! counts them).
//!
//! Validation: `dualpi2_tests.rs` — Linux's tc-testing derived values, hand-computed
//! probability updates, scheduling on scripted enqueues, the step threshold (0 % marked below,
//! all above), overload; fuzz in `tests/fuzz_disciplines.rs`.

use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::fifo::Fifo;
use crate::packet::{DropReason, Ecn, Lane, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use crate::stats::QueueStats;
use declare::model::err;
use rand::Rng as _;
use std::collections::VecDeque;
use units::{Rng, SimDuration, SimTime};

/// Probability 1 in Linux's fixed point (`MAX_PROB`).
pub const MAX_PROB: u32 = u32::MAX;

/// DualPI2 parameters. Defaults are Linux's (`dualpi2_reset_default`), which are RFC 9332's.
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Params {
    /// Buffer shared by both queues, packets. Default 10000 (Linux); ≥ 1.
    pub limit: u64,
    /// Target queue delay of the base controller. Default 15 ms (RFC 9332 §2.5.2.1; Linux).
    pub target: SimDuration,
    /// Update period of p'. Default 16 ms (Linux; RFC 9332 A.1: 16 ms).
    pub tupdate: SimDuration,
    /// Integral gain α, Hz. Default 41/256 = 0.16015625 (Linux; RFC 9332 A.1: 0.16).
    pub alpha: f64,
    /// Proportional gain β, Hz. Default 819/256 = 3.19921875 (Linux; RFC 9332 A.1: 3.2).
    pub beta: f64,
    /// Typical RTT for tc's auto-configuration of target, tupdate, α, β; `None` = not used.
    pub typical_rtt: Option<SimDuration>,
    /// Maximum RTT for tc's auto-configuration; `None` = not used.
    pub max_rtt: Option<SimDuration>,
    /// L-queue step threshold (sojourn time). Default 1 ms (RFC 9332 §2.5.1.2; Linux).
    pub step_thresh: SimDuration,
    /// L-queue step threshold in packets instead of time; 0 = use `step_thresh`. Default 0.
    pub step_thresh_packets: u64,
    /// Step-mark only packets that found at least this many packets in the L queue. Default 0.
    pub min_qlen_step: u64,
    /// Coupling factor k: L probability = k·p'. Default 2 (RFC 9332 §2.4).
    pub coupling_factor: u64,
    /// On overload (k·p' > 1) drop with p'² in both queues; false: L packets are marked.
    /// Default true (Linux `drop_on_overload`).
    pub drop_on_overload: bool,
    /// Apply the probability at enqueue instead of dequeue. Default false (Linux
    /// `drop_dequeue`).
    pub drop_enqueue: bool,
    /// Weight of the C queue in the scheduler, percent. Default 10 (Linux; RFC 9332 §4.2.2).
    pub classic_protection: u64,
    /// Classify ECT(0) into the L queue too (tc `any_ect`). Default false (`l4s_ect`).
    pub any_ect: bool,
    /// Largest packet, bytes: the 2-MTU guard and the scheduler's initial credit. Default
    /// 1500 (packet sizes as the simulator counts them; Linux's psched_mtu is 1514 on Ethernet).
    pub mtu: u32,
}

impl Default for DualPi2Params {
    /// Linux's defaults; sources in [`MODEL`].
    fn default() -> Self {
        DualPi2Params {
            limit: 10000,
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(16),
            alpha: 41.0 / 256.0,
            beta: 819.0 / 256.0,
            typical_rtt: None,
            max_rtt: None,
            step_thresh: SimDuration::from_millis(1),
            step_thresh_packets: 0,
            min_qlen_step: 0,
            coupling_factor: 2,
            drop_on_overload: true,
            drop_enqueue: false,
            classic_protection: 10,
            any_ect: false,
            mtu: 1500,
        }
    }
}

const RTT_HINT: &str = "give an RTT as a duration (e.g. \"100ms\") or false";

/// DualPI2's scenario keys (`kind = "dualpi2"`): the single declaration of each parameter.
pub const MODEL: Model<DualPi2Params> = Model {
    kind: "dualpi2",
    title: "DualPI2, RFC 9332 as Linux sch_dualpi2 (coupled L4S and classic queues)",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: DualPi2Params::validate,
    wrap: DisciplineParams::DualPi2,
};

const KEYS: [Param<DualPi2Params>; 16] = [
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("DualPI2's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Buffer shared by the L and C queues, packets",
        source: "Linux sch_dualpi2 (10000)",
        access: field!(limit),
    },
    Param {
        key: "target",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Target queue delay of the base PI controller",
        source: "RFC 9332 §2.5.2.1; Linux",
        access: field!(target),
    },
    Param {
        key: "tupdate",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Update period of the base probability p'",
        source: "RFC 9332 Appendix A.1; Linux 16 ms",
        access: field!(tupdate),
    },
    Param {
        key: "alpha",
        syntax: Syntax::Number,
        unit: "Hz",
        range: Range::Closed(1.0 / 256.0, 8_388_607.0),
        doc: "Integral gain (quantised to 1/256 Hz and Linux's fixed point)",
        source: "Linux 41/256 (RFC 9332 Appendix A.1: 0.16)",
        access: field!(alpha),
    },
    Param {
        key: "beta",
        syntax: Syntax::Number,
        unit: "Hz",
        range: Range::Closed(1.0 / 256.0, 8_388_607.0),
        doc: "Proportional gain (quantised to 1/256 Hz and Linux's fixed point)",
        source: "Linux 819/256 (RFC 9332 Appendix A.1: 3.2)",
        access: field!(beta),
    },
    Param {
        key: "typical_rtt",
        syntax: Syntax::DurationOrOff(RTT_HINT),
        unit: "s",
        range: Range::Positive,
        doc: "Derive target, tupdate, alpha, beta as tc does (target = typical RTT)",
        source: "iproute2 q_dualpi2.c; RFC 9332 Appendix A.1",
        access: field!(typical_rtt),
    },
    Param {
        key: "max_rtt",
        syntax: Syntax::DurationOrOff(RTT_HINT),
        unit: "s",
        range: Range::Positive,
        doc: "Derive target, tupdate, alpha = 0.1·tupdate/max², beta = 0.3/max as tc does",
        source: "iproute2 q_dualpi2.c; RFC 9332 Appendix A.1",
        access: field!(max_rtt),
    },
    Param {
        key: "step_thresh",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Any,
        doc: "L-queue step threshold: mark L packets whose sojourn exceeds it",
        source: "RFC 9332 §2.5.1.2; Linux 1 ms",
        access: field!(step_thresh),
    },
    Param {
        key: "step_thresh_packets",
        syntax: Syntax::Integer(u32::MAX as u64),
        unit: "packets",
        range: Range::AtLeast(0.0),
        doc: "Step threshold in L-queue packets instead of time (0: use step_thresh)",
        source: "Linux (tc step_thresh Np)",
        access: field!(step_thresh_packets),
    },
    Param {
        key: "min_qlen_step",
        syntax: Syntax::Integer(u32::MAX as u64),
        unit: "packets",
        range: Range::AtLeast(0.0),
        doc: "Step-mark only packets that found at least this many in the L queue",
        source: "Linux (0)",
        access: field!(min_qlen_step),
    },
    Param {
        key: "coupling_factor",
        syntax: Syntax::Integer(255),
        unit: "",
        range: Range::AtLeast(1.0),
        doc: "Coupling k: L marking probability = k·p'",
        source: "RFC 9332 §2.4 (k = 2)",
        access: field!(coupling_factor),
    },
    Param {
        key: "drop_on_overload",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "When k·p' > 1 drop with p'² in both queues (false: mark L packets)",
        source: "Linux drop_on_overload; RFC 9332 §4.2.3",
        access: field!(drop_on_overload),
    },
    Param {
        key: "drop_enqueue",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Apply the probability at enqueue (false: at dequeue)",
        source: "Linux drop_dequeue",
        access: field!(drop_enqueue),
    },
    Param {
        key: "classic_protection",
        syntax: Syntax::Integer(100),
        unit: "%",
        range: Range::AtLeast(0.0),
        doc: "Scheduler weight of the C queue (L gets the rest)",
        source: "Linux (10 %); RFC 9332 §4.2.2",
        access: field!(classic_protection),
    },
    Param {
        key: "any_ect",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Classify ECT(0) into the L queue too (false: ECT(1) and CE only)",
        source: "Linux any_ect / l4s_ect; RFC 9331 §5.1",
        access: field!(any_ect),
    },
    Param {
        key: "mtu",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "Largest packet: no mark or drop below 2·mtu queued; scheduler credit unit",
        source: "Linux psched_mtu (1514 on Ethernet with its L2 header)",
        access: field!(mtu),
    },
];

/// tc's auto-configuration (iproute2 `q_dualpi2.c`) from RTTs in µs: `(target, tupdate)` in µs
/// and `(alpha, beta)` in tc's netlink units of 1/256 Hz, with tc's float arithmetic.
pub fn tc_derive(typical_us: u32, max_us: u32) -> (u32, u32, u32, u32) {
    const RTT_TYP_TO_MAX: u32 = 6;
    let (typ, max) = match (typical_us, max_us) {
        (0, m) => ((m / RTT_TYP_TO_MAX).max(1), m),
        (t, 0) => (t, t.saturating_mul(RTT_TYP_TO_MAX)),
        (t, m) => (t, m),
    };
    let tupdate = typ.min(max / 3).max(1);
    // tc: alpha_f = (double)tupdate / ((double)max * max) * 1e6 * 0.1f, stored in a float.
    let alpha_f = (tupdate as f64 / (max as f64 * max as f64) * 1e6 * 0.1f32 as f64) as f32;
    let beta_f = 0.3f32 / max as f32 * 1e6f32;
    (
        typ,
        tupdate,
        (alpha_f * 256.0) as u32,
        (beta_f * 256.0) as u32,
    )
}

/// Linux `dualpi2_scale_alpha_beta`: tc's 1/256 Hz to the internal gain (p' per 64 ns).
pub fn scale_alpha_beta(param: u32) -> u32 {
    (((param as u64 * MAX_PROB as u64) >> 2) / 1_000_000_000) as u32
}

/// Linux `dualpi2_unscale_alpha_beta`: the internal gain back in 1/256 Hz (what tc shows).
pub fn unscale_alpha_beta(param: u32) -> u32 {
    (((param as u64 * 1_000_000_000) << 2) / MAX_PROB as u64) as u32
}

/// The controller settings in force: target and tupdate in ns, internal α and β.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pi2Gains {
    pub target_ns: u64,
    pub tupdate_ns: u64,
    pub alpha: u32,
    pub beta: u32,
}

impl DualPi2Params {
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)?;
        // The integers' maxima (the scenario parser enforces them as it reads).
        if self.classic_protection > 100 {
            return Err(err("classic_protection", "must be at most 100 %"));
        }
        if self.coupling_factor > 255 {
            return Err(err("coupling_factor", "must be at most 255"));
        }
        let d = DualPi2Params::default();
        if self.typical_rtt.is_some() || self.max_rtt.is_some() {
            let key = if self.max_rtt.is_some() {
                "max_rtt"
            } else {
                "typical_rtt"
            };
            let set = [
                ("target", self.target != d.target),
                ("tupdate", self.tupdate != d.tupdate),
                ("alpha", self.alpha != d.alpha),
                ("beta", self.beta != d.beta),
            ];
            if let Some((k, _)) = set.iter().find(|(_, s)| *s) {
                return Err(err(
                    key,
                    format!("derives {k} (as tc does); do not set {k} too"),
                ));
            }
            if let (Some(t), Some(m)) = (self.typical_rtt, self.max_rtt) {
                if t > m {
                    return Err(err("typical_rtt", "must be at most max_rtt"));
                }
            }
            let us =
                |d: Option<SimDuration>| d.map_or(0, |d| (d.0 / 1000).min(u32::MAX as u64) as u32);
            let (_, _, a, b) = tc_derive(us(self.typical_rtt), us(self.max_rtt));
            if a == 0 || b == 0 {
                return Err(err(key, "too large: alpha or beta would round down to 0"));
            }
        }
        Ok(())
    }

    /// The gains in Linux's units, derived from the RTTs when given.
    pub fn gains(&self) -> Pi2Gains {
        if self.typical_rtt.is_some() || self.max_rtt.is_some() {
            let us =
                |d: Option<SimDuration>| d.map_or(0, |d| (d.0 / 1000).min(u32::MAX as u64) as u32);
            let (t, u, a, b) = tc_derive(us(self.typical_rtt), us(self.max_rtt));
            Pi2Gains {
                target_ns: t as u64 * 1000,
                tupdate_ns: u as u64 * 1000,
                alpha: scale_alpha_beta(a),
                beta: scale_alpha_beta(b),
            }
        } else {
            Pi2Gains {
                target_ns: self.target.0,
                tupdate_ns: self.tupdate.0,
                alpha: scale_alpha_beta((self.alpha * 256.0) as u32),
                beta: scale_alpha_beta((self.beta * 256.0) as u32),
            }
        }
    }
}

/// The outcome of the probability test on one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hit {
    Pass,
    Mark,
    Drop,
}

/// DualPI2 queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct DualPi2 {
    params: DualPi2Params,
    gains: Pi2Gains,
    ecn_mask: u8,
    l: Fifo,
    c: Fifo,
    /// Per L packet: whether the step threshold applies to it (`min_qlen_step`), its draw.
    l_meta: VecDeque<(bool, u64)>,
    /// Per C packet: its draw.
    c_draw: VecDeque<u64>,
    stats: QueueStats,
    prob: u32,
    last_qdelay: u64,
    credit: i64,
    credit_init: i64,
    next_update: SimTime,
    last_marked: bool,
    /// The queue of the packet the latest `dequeue` returned (the monitor's per-queue sojourns).
    last_lane: Lane,
    step_marks: u64,
}

impl DualPi2 {
    /// Validate `params` and build the queue; the first update is due at `tupdate`.
    pub fn new(params: DualPi2Params) -> Result<Self, ParamError> {
        params.validate()?;
        let gains = params.gains();
        let wc = params.classic_protection as i64;
        let credit_init = params.mtu as i64 * (wc - (100 - wc));
        Ok(DualPi2 {
            ecn_mask: if params.any_ect { 0b11 } else { 0b01 },
            next_update: SimTime::ZERO + SimDuration(gains.tupdate_ns),
            gains,
            params,
            l: Fifo::default(),
            c: Fifo::default(),
            l_meta: VecDeque::new(),
            c_draw: VecDeque::new(),
            stats: QueueStats::default(),
            prob: 0,
            last_qdelay: 0,
            credit: credit_init,
            credit_init,
            last_marked: false,
            last_lane: Lane::C,
            step_marks: 0,
        })
    }

    /// The controller settings in force (Linux's units).
    pub fn gains(&self) -> Pi2Gains {
        self.gains
    }
    /// Base probability p' in [0, 1].
    pub fn base_prob(&self) -> f64 {
        self.prob as f64 / MAX_PROB as f64
    }
    /// Base probability in Linux's fixed point (fraction of 2³² − 1).
    pub fn base_prob_raw(&self) -> u32 {
        self.prob
    }
    /// Packets in the L queue.
    pub fn l_len(&self) -> usize {
        self.l.len()
    }
    /// Packets in the C queue.
    pub fn c_len(&self) -> usize {
        self.c.len()
    }
    /// The scheduler's credit, bytes·percent (≤ 0: L is served next when both wait).
    pub fn credit(&self) -> i64 {
        self.credit
    }
    /// CE marks set by the step threshold.
    pub fn step_marks(&self) -> u64 {
        self.step_marks
    }

    fn lane(&self, pkt: &PacketMeta) -> Lane {
        if pkt.ecn as u8 & self.ecn_mask != 0 {
            Lane::L
        } else {
            Lane::C
        }
    }

    /// Linux `must_drop` with its classic and scalable marking; `backlog` is the bytes stored,
    /// `draw` the packet's two rolls.
    fn must_drop(&self, pkt: &PacketMeta, lane: Lane, backlog: u64, draw: u64) -> Hit {
        if backlog < 2 * self.params.mtu as u64 {
            return Hit::Pass;
        }
        let prob = self.prob;
        let l_prob = prob as u64 * self.params.coupling_factor;
        let overload = l_prob > MAX_PROB as u64;
        let capable = pkt.ecn.ecn_capable();
        let (roll1, roll2) = (draw as u32, (draw >> 32) as u32);
        let mark = if capable { Hit::Mark } else { Hit::Pass };
        match lane {
            Lane::C => {
                if roll1 <= prob && roll2 <= prob {
                    if overload || !capable {
                        return Hit::Drop;
                    }
                    return Hit::Mark;
                }
                Hit::Pass
            }
            Lane::L if overload => {
                if !(self.params.drop_on_overload && roll1 <= prob && roll2 <= prob) {
                    mark
                } else {
                    Hit::Drop
                }
            }
            Lane::L => {
                if roll1 <= l_prob as u32 {
                    if !capable {
                        return Hit::Drop;
                    }
                    return Hit::Mark;
                }
                Hit::Pass
            }
        }
    }

    /// Linux `calculate_probability`, at `now`.
    fn update(&mut self, now: SimTime) {
        let head = |f: &Fifo| {
            f.front()
                .map_or(0, |p| now.0.saturating_sub(p.enqueued_at.0))
        };
        let qdelay = head(&self.l).max(head(&self.c));
        let g = self.gains;
        let delta = (qdelay as i128 - g.target_ns as i128) * g.alpha as i128
            + (qdelay as i128 - self.last_qdelay as i128) * g.beta as i128;
        self.last_qdelay = qdelay;
        let step = (delta.unsigned_abs() / 64).min(u64::MAX as u128) as u64;
        let mut p = if delta > 0 {
            (self.prob as u64).saturating_add(step).min(MAX_PROB as u64) as u32
        } else {
            (self.prob as u64).saturating_sub(step) as u32
        };
        if !self.params.drop_on_overload {
            p = p.min(MAX_PROB / self.params.coupling_factor as u32);
        }
        self.prob = p;
    }

    fn bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    fn drop_at_dequeue(&mut self, p: PacketMeta, dropped: &mut Vec<(PacketMeta, DropReason)>) {
        self.stats.count_drop(p.class, DropReason::DequeueTime);
        dropped.push((p, DropReason::DequeueTime));
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, now: SimTime, mut pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        self.stats.arrivals += 1;
        let lane = self.lane(&pkt);
        if (self.l.len() + self.c.len()) as u64 >= self.params.limit {
            self.stats.count_drop(pkt.class, DropReason::Overflow);
            return Verdict::Dropped(DropReason::Overflow);
        }
        let draw = rng.gen::<u64>();
        let mut marked = false;
        if self.params.drop_enqueue {
            match self.must_drop(&pkt, lane, self.bytes(), draw) {
                Hit::Drop => {
                    self.stats.count_drop(pkt.class, DropReason::Early);
                    return Verdict::Dropped(DropReason::Early);
                }
                Hit::Mark if pkt.ecn != Ecn::Ce => {
                    pkt.ecn = Ecn::Ce;
                    marked = true;
                }
                _ => {}
            }
        }
        self.stats.enqueued += 1;
        match lane {
            Lane::L => {
                let step = self.l.len() as u64 >= self.params.min_qlen_step;
                self.l_meta.push_back((step, draw));
                self.l.push(now, pkt);
            }
            Lane::C => {
                self.c_draw.push_back(draw);
                self.c.push(now, pkt);
            }
        }
        if marked {
            self.stats.marks += 1;
            Verdict::EnqueuedMarked
        } else {
            Verdict::Enqueued
        }
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        self.last_marked = false;
        loop {
            let c_waits = !self.c.is_empty();
            let l_waits = !self.l.is_empty();
            let (mut pkt, lane, apply_step, draw, change) =
                if l_waits && (!c_waits || self.credit <= 0) {
                    let p = self.l.pop().expect("L has packets");
                    let (step, draw) = self.l_meta.pop_front().expect("one entry per L packet");
                    let w = if c_waits {
                        self.params.classic_protection as i64
                    } else {
                        0
                    };
                    (p, Lane::L, step, draw, w)
                } else if c_waits {
                    let p = self.c.pop().expect("C has packets");
                    let draw = self.c_draw.pop_front().expect("one draw per C packet");
                    let w = if l_waits {
                        -(100 - self.params.classic_protection as i64)
                    } else {
                        0
                    };
                    (p, Lane::C, false, draw, w)
                } else {
                    self.credit = self.credit_init;
                    return None;
                };
            let mut marked = false;
            if !self.params.drop_enqueue {
                match self.must_drop(&pkt, lane, self.bytes(), draw) {
                    Hit::Drop => {
                        self.drop_at_dequeue(pkt, dropped);
                        continue;
                    }
                    Hit::Mark if pkt.ecn != Ecn::Ce => {
                        pkt.ecn = Ecn::Ce;
                        marked = true;
                    }
                    _ => {}
                }
            }
            if lane == Lane::L && apply_step {
                let over = if self.params.step_thresh_packets > 0 {
                    self.l.len() as u64 > self.params.step_thresh_packets
                } else {
                    now.saturating_since(pkt.enqueued_at) > self.params.step_thresh
                };
                if over {
                    if !pkt.ecn.ecn_capable() {
                        self.drop_at_dequeue(pkt, dropped);
                        continue;
                    }
                    if pkt.ecn != Ecn::Ce {
                        pkt.ecn = Ecn::Ce;
                        marked = true;
                        self.step_marks += 1;
                    }
                }
            }
            self.credit += change * pkt.size_bytes as i64;
            self.stats.dequeued += 1;
            if marked {
                self.stats.marks += 1;
            }
            self.last_marked = marked;
            self.last_lane = lane;
            return Some(pkt);
        }
    }

    fn len_packets(&self) -> u32 {
        (self.l.len() + self.c.len()) as u32
    }
    fn len_bytes(&self) -> u64 {
        self.bytes()
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
    fn next_deadline(&self) -> Option<SimTime> {
        Some(self.next_update)
    }
    fn on_timeout(&mut self, now: SimTime) {
        while self.next_update <= now {
            self.update(self.next_update);
            self.next_update += SimDuration(self.gains.tupdate_ns);
        }
    }
    fn dequeue_marked(&self) -> bool {
        self.last_marked
    }
    fn marks_at_dequeue(&self) -> bool {
        true
    }
    fn has_lanes(&self) -> bool {
        true
    }
    fn dequeued_lane(&self) -> Option<Lane> {
        Some(self.last_lane)
    }
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;
