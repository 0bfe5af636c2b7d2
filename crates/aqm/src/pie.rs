//! PIE — Proportional Integral controller Enhanced, as RFC 8033 (Pan, Natarajan, Baker,
//! White 2017) §4 and Appendix A, with the cap drop adjustment of §5.5 and ECN of §5.1.
//!
//! Every `tupdate` (a deadline the engine honours whether or not packets arrive) the drop
//! probability is updated from the queue delay: `p = α·(qdelay − target) + β·(qdelay −
//! qdelay_old)` with delays in seconds and α, β in Hz; `p` is scaled down while `drop_prob` is
//! small (÷2048 below 10⁻⁶, ÷512 below 10⁻⁵, ÷128 below 10⁻⁴, ÷32 below 10⁻³, ÷8 below 10⁻²,
//! ÷2 below 10⁻¹, as is above: §4.2 auto-tuning); with `cap_drop_adjustment` a step is capped
//! at 0.02 once `drop_prob ≥ 0.1` (§5.5); `drop_prob += p`; if both `qdelay` and `qdelay_old`
//! are 0, `drop_prob ← 0.98·drop_prob`; `drop_prob` is bounded to [0, 1]; `qdelay_old ←
//! qdelay`; `burst_allowance ← max(0, burst_allowance − tupdate)`.
//!
//! On each arrival (Appendix A `enque`/`drop_early`): if `drop_prob = 0` and both delays are
//! below `target/2`, `burst_allowance ← max_burst` (§4.4). While `burst_allowance > 0` nothing
//! is dropped early. Otherwise the arrival is enqueued without a draw when `qdelay_old <
//! target/2` and `drop_prob < 0.2`, or when at most `2·mean_pktsize` bytes are queued (the
//! work-conserving safeguards of §4.1); else it is dropped early with probability `drop_prob`
//! (one uniform draw from the link's stream). An arrival finding `limit` packets waiting is
//! dropped (`Overflow`) before any of this, as Linux `sch_pie` does.
//!
//! Queue delay: timestamps (§4.3 allows either a dequeue-rate estimate or per-packet
//! timestamps; this uses timestamps, as Linux does by default): `qdelay` is the sojourn time
//! `now − enqueued_at` of the latest packet dequeued, and 0 when a dequeue finds the queue empty
//! (no packet waits). The dequeue-rate estimator (§5.2), activation/deactivation (§5.3) and
//! derandomization (§5.4) are not implemented.
//!
//! ECN (`ecn = true`, §5.1): an early drop of an ECN-capable packet becomes a CE mark while
//! `drop_prob ≤ max_ecnth` (default 0.1); above it ECT packets are dropped too.
//!
//! Validation: tests below, hand-computed — `autotune_branches_by_hand`,
//! `cap_drop_adjustment_by_hand`, `decay_when_both_delays_zero`, `updates_follow_timer`,
//! `burst_allowance_suppresses_drops_for_150ms`, `burst_allowance_rearms_when_idle`,
//! `safeguards_skip_drop`, `ecn_marks_only_up_to_max_ecnth`, `bad_parameters_name_their_key`;
//! closed loop in `crates/sim/tests/aqm_modern.rs`.

use crate::admit::Admit;
use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::fifo::{fifo_accessors, FifoQueue};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use rand::Rng as _;
use units::{Rng, SimDuration, SimTime};

/// PIE parameters (RFC 8033). Defaults are the RFC's.
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// Target queue delay QDELAY_REF. Default 15 ms (RFC 8033 §4.2, Appendix A); > 0.
    pub target: SimDuration,
    /// Update period T_UPDATE of the drop probability. Default 15 ms (RFC 8033 §4.2); > 0.
    pub tupdate: SimDuration,
    /// Weight of the delay error, Hz (1/s). Default 0.125 (RFC 8033 §4.2); ≥ 0, finite.
    pub alpha: f64,
    /// Weight of the delay trend, Hz (1/s). Default 1.25 (RFC 8033 §4.2); ≥ 0, finite.
    pub beta: f64,
    /// Burst allowance MAX_BURST. Default 150 ms (RFC 8033 §4.4); may be 0.
    pub max_burst: SimDuration,
    /// MEAN_PKTSIZE of the safeguard "queue ≤ 2·MEAN_PKTSIZE bytes: no drop", bytes.
    /// Default 1500 (one MTU; Linux uses 2 MTU for the same test); ≥ 1.
    pub mean_pktsize: u32,
    /// Buffer size in waiting packets. Default 1000 (Linux `sch_pie`; the RFC sets none); ≥ 1.
    pub limit: u64,
    /// Mark ECN-capable packets instead of dropping early while `drop_prob ≤ max_ecnth`
    /// (RFC 8033 §5.1). Default false.
    pub ecn: bool,
    /// Highest drop probability at which ECT packets are marked rather than dropped.
    /// Default 0.1 (RFC 8033 §5.1); in [0, 1].
    pub max_ecnth: f64,
    /// Cap a probability step at 0.02 while `drop_prob ≥ 0.1` (RFC 8033 §5.5). Default true
    /// (Linux `sch_pie` and ns-3 apply it).
    pub cap_drop_adjustment: bool,
}

impl Default for PieParams {
    /// RFC 8033 with Linux's limit; sources in [`MODEL`].
    fn default() -> Self {
        PieParams {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            mean_pktsize: 1500,
            limit: 1000,
            ecn: false,
            max_ecnth: 0.1,
            cap_drop_adjustment: true,
        }
    }
}

/// PIE's scenario keys (`kind = "pie"`): the single declaration of each parameter.
pub const MODEL: Model<PieParams> = Model {
    kind: "pie",
    title: "PIE, RFC 8033 (drop probability from queue delay and its trend)",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: PieParams::validate,
    wrap: DisciplineParams::Pie,
};

const KEYS: [Param<PieParams>; 10] = [
    Param {
        key: "target",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Target queue delay QDELAY_REF",
        source: "RFC 8033 §4.2",
        access: field!(target),
    },
    Param {
        key: "tupdate",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Update period T_UPDATE of the drop probability",
        source: "RFC 8033 §4.2",
        access: field!(tupdate),
    },
    Param {
        key: "alpha",
        syntax: Syntax::Number,
        unit: "Hz",
        range: Range::AtLeast(0.0),
        doc: "Weight of the delay error",
        source: "RFC 8033 §4.2",
        access: field!(alpha),
    },
    Param {
        key: "beta",
        syntax: Syntax::Number,
        unit: "Hz",
        range: Range::AtLeast(0.0),
        doc: "Weight of the delay trend",
        source: "RFC 8033 §4.2",
        access: field!(beta),
    },
    Param {
        key: "max_burst",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Any,
        doc: "Burst allowance MAX_BURST (may be 0)",
        source: "RFC 8033 §4.4",
        access: field!(max_burst),
    },
    Param {
        key: "mean_pktsize",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "MEAN_PKTSIZE of the safeguard: no drop while the queue ≤ 2·MEAN_PKTSIZE",
        source: "one MTU (RFC 8033 §4.1)",
        access: field!(mean_pktsize),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("PIE's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Buffer, packets waiting",
        source: "Linux sch_pie (the RFC sets none)",
        access: field!(limit),
    },
    Param {
        key: "ecn",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Mark ECN-capable packets instead of early drops while drop_prob ≤ max_ecnth",
        source: "RFC 8033 §5.1 (optional)",
        access: field!(ecn),
    },
    Param {
        key: "max_ecnth",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Closed(0.0, 1.0),
        doc: "Highest drop probability at which ECT packets are marked",
        source: "RFC 8033 §5.1",
        access: field!(max_ecnth),
    },
    Param {
        key: "cap_drop_adjustment",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Cap a probability step at 0.02 while drop_prob ≥ 0.1",
        source: "RFC 8033 §5.5; Linux and ns-3",
        access: field!(cap_drop_adjustment),
    },
];

impl PieParams {
    /// The declared ranges ([`MODEL`]).
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)
    }
}

/// One drop-probability update of RFC 8033 §4.2 (+ §5.5 cap): the new `drop_prob` from the
/// old one and the delays in seconds.
pub(crate) fn update_drop_prob(p: &PieParams, drop_prob: f64, qdelay: f64, qdelay_old: f64) -> f64 {
    let target = p.target.as_secs_f64();
    let mut step = p.alpha * (qdelay - target) + p.beta * (qdelay - qdelay_old);
    let scale = if drop_prob < 0.000001 {
        2048.0
    } else if drop_prob < 0.00001 {
        512.0
    } else if drop_prob < 0.0001 {
        128.0
    } else if drop_prob < 0.001 {
        32.0
    } else if drop_prob < 0.01 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    };
    step /= scale;
    if p.cap_drop_adjustment && drop_prob >= 0.1 && step > 0.02 {
        step = 0.02;
    }
    let mut np = drop_prob + step;
    if qdelay == 0.0 && qdelay_old == 0.0 {
        np *= 0.98;
    }
    np.clamp(0.0, 1.0)
}

/// PIE queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Pie {
    params: PieParams,
    drop_prob: f64,
    /// Latest queue delay sample, seconds.
    qdelay: f64,
    qdelay_old: f64,
    burst_allowance: SimDuration,
    next_update: SimTime,
    buf: FifoQueue,
}

impl Pie {
    /// Validate `params` and build the queue; the first update is due at `tupdate`.
    pub fn new(params: PieParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Pie {
            burst_allowance: params.max_burst,
            next_update: SimTime::ZERO + params.tupdate,
            params,
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            buf: FifoQueue::default(),
        })
    }

    /// Current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
    /// Remaining burst allowance.
    pub fn burst_allowance(&self) -> SimDuration {
        self.burst_allowance
    }
    /// Latest queue delay sample, seconds.
    pub fn qdelay(&self) -> f64 {
        self.qdelay
    }

    fn update(&mut self) {
        self.drop_prob =
            update_drop_prob(&self.params, self.drop_prob, self.qdelay, self.qdelay_old);
        self.qdelay_old = self.qdelay;
        self.burst_allowance =
            SimDuration(self.burst_allowance.0.saturating_sub(self.params.tupdate.0));
    }

    /// Appendix A `drop_early` (with the burst allowance check of `enque`): true = drop.
    fn drop_early(&self, rng: &mut Rng) -> bool {
        let half = self.params.target.as_secs_f64() / 2.0;
        if self.burst_allowance.0 > 0 {
            return false;
        }
        if (self.qdelay_old < half && self.drop_prob < 0.2)
            || self.buf.bytes() <= 2 * self.params.mean_pktsize as u64
        {
            return false;
        }
        rng.gen::<f64>() < self.drop_prob
    }

    /// Appendix A `enque`: tail drop at the limit, the burst allowance re-armed when the queue
    /// has settled, then `drop_early`; a hit is marked only up to `max_ecnth` (§5.1).
    fn decide(&mut self, pkt: &PacketMeta, rng: &mut Rng) -> Admit {
        if self.buf.len() as u64 >= self.params.limit {
            return Admit::Drop(DropReason::Overflow);
        }
        let half = self.params.target.as_secs_f64() / 2.0;
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.params.max_burst;
        }
        if self.drop_early(rng) {
            let may_mark = self.params.ecn && self.drop_prob <= self.params.max_ecnth;
            return Admit::early(may_mark, pkt);
        }
        Admit::Store
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        let admit = self.decide(&pkt, rng);
        self.buf.settle(now, pkt, admit)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        _dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        match self.buf.release() {
            Some(p) => {
                self.qdelay = now.saturating_since(p.enqueued_at).as_secs_f64();
                Some(p)
            }
            None => {
                self.qdelay = 0.0;
                None
            }
        }
    }

    fifo_accessors!(buf);
    fn next_deadline(&self) -> Option<SimTime> {
        Some(self.next_update)
    }
    fn on_timeout(&mut self, now: SimTime) {
        while self.next_update <= now {
            self.update();
            self.next_update += self.params.tupdate;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketClass};

    fn pkt(id: u32, ect: bool) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes: 1000,
            ecn: Ecn::rfc3168(ect),
            class: PacketClass::Bulk,
            cwnd_hint: 0,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }
    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-15 * b.abs().max(1e-300), "{a} vs {b}");
    }

    /// qdelay 25 ms, qdelay_old 20 ms: raw step = 0.125·0.010 + 1.25·0.005 = 0.0075; each
    /// range of drop_prob divides it by its factor.
    #[test]
    fn autotune_branches_by_hand() {
        let p = PieParams::default();
        let raw = 0.125 * (0.025 - 0.015) + 1.25 * (0.025 - 0.020);
        close(raw, 0.0075);
        for (dp, div) in [
            (0.0, 2048.0),
            (0.0000005, 2048.0),
            (0.000001, 512.0),
            (0.000005, 512.0),
            (0.00001, 128.0),
            (0.00005, 128.0),
            (0.0001, 32.0),
            (0.0005, 32.0),
            (0.001, 8.0),
            (0.005, 8.0),
            (0.01, 2.0),
            (0.05, 2.0),
            (0.1, 1.0),
            (0.5, 1.0),
        ] {
            close(update_drop_prob(&p, dp, 0.025, 0.020), dp + 0.0075 / div);
        }
        // A falling delay lowers p: qdelay 5 ms after 10 ms at drop_prob 0.05:
        // step = 0.125·(−0.010) + 1.25·(−0.005) = −0.0075, ÷2 → 0.05 − 0.00375.
        close(update_drop_prob(&p, 0.05, 0.005, 0.010), 0.04625);
        // Bounded below at 0.
        assert_eq!(update_drop_prob(&p, 0.0, 0.0, 0.1), 0.0);
    }

    #[test]
    fn cap_drop_adjustment_by_hand() {
        // qdelay 100 ms after 50 ms: step = 0.125·0.085 + 1.25·0.05 = 0.073125 (÷1 at p ≥ 0.1).
        let p = PieParams::default();
        close(update_drop_prob(&p, 0.2, 0.1, 0.05), 0.22);
        let nocap = PieParams {
            cap_drop_adjustment: false,
            ..Default::default()
        };
        close(update_drop_prob(&nocap, 0.2, 0.1, 0.05), 0.273125);
        // Below p = 0.1 the cap does not apply: ÷2 → 0.0365625.
        close(update_drop_prob(&p, 0.09, 0.1, 0.05), 0.09 + 0.0365625);
        // Bounded above at 1.
        assert_eq!(update_drop_prob(&nocap, 0.99, 0.1, 0.05), 1.0);
    }

    #[test]
    fn decay_when_both_delays_zero() {
        let p = PieParams::default();
        // step = 0.125·(−0.015) = −0.001875, ÷2 (0.01 ≤ p < 0.1): 0.05 − 0.0009375, then ×0.98.
        close(
            update_drop_prob(&p, 0.05, 0.0, 0.0),
            (0.05 - 0.0009375) * 0.98,
        );
    }

    /// Scripted through the queue: a packet with 14 ms sojourn before the first update; the
    /// updates run at exactly 15, 30, 45 ms (the deadline moves by tupdate each time; when
    /// `on_timeout` comes late, every missed update runs).
    #[test]
    fn updates_follow_timer() {
        let mut q = Pie::new(PieParams::default()).unwrap();
        let mut rng = units::stream(1, "pie");
        let mut d = Vec::new();
        assert_eq!(q.next_deadline(), Some(ms(15)));
        for i in 0..20 {
            q.enqueue(ms(0), pkt(i, false), &mut rng);
        }
        q.dequeue(ms(14), &mut d).unwrap();
        close(q.qdelay(), 0.014);
        q.on_timeout(ms(15));
        // p1 = (0.125·(0.014 − 0.015) + 1.25·(0.014 − 0))/2048 = 0.017375/2048.
        let p1 = 0.017375 / 2048.0;
        close(q.drop_prob(), p1);
        assert_eq!(q.next_deadline(), Some(ms(30)));
        assert_eq!(q.burst_allowance(), SimDuration::from_millis(135));
        // Called late at 46 ms: the 30 and 45 ms updates both run with qdelay = old = 14 ms:
        // step = 0.125·(−0.001) = −0.000125, ÷512 while 1e-6 ≤ p < 1e-5 (p1 ≈ 8.48e-6).
        q.on_timeout(ms(46));
        let p3 = p1 - 0.000125 / 512.0 - 0.000125 / 512.0;
        close(q.drop_prob(), p3);
        assert_eq!(q.next_deadline(), Some(ms(60)));
        assert_eq!(q.burst_allowance(), SimDuration::from_millis(105));
    }

    /// alpha huge (and target 5 ms) so p = 1 after the first update. The burst allowance (150 ms, −15 ms per
    /// update) suppresses every early drop until the update at 150 ms; from then on every
    /// arrival (queue > 2 packets, qdelay_old > target/2) is dropped.
    #[test]
    fn burst_allowance_suppresses_drops_for_150ms() {
        let mut q = Pie::new(PieParams {
            alpha: 1e6,
            target: SimDuration::from_millis(5),
            ..Default::default()
        })
        .unwrap();
        let mut rng = units::stream(1, "pie");
        let mut d = Vec::new();
        for i in 0..10 {
            q.enqueue(ms(0), pkt(i, false), &mut rng);
        }
        for (id, t) in (100..).zip(1..=200u64) {
            q.on_timeout(ms(t));
            if t == 10 {
                // qdelay 10 ms > target: the update at 15 ms gives 1e6·0.005/2048 → p = 1.
                q.dequeue(ms(10), &mut d).unwrap();
            }
            let v = q.enqueue(ms(t), pkt(id, false), &mut rng);
            if t < 150 {
                assert_eq!(v, Verdict::Enqueued, "t = {t} ms");
                assert!(q.burst_allowance().0 > 0);
            } else {
                assert_eq!(v, Verdict::Dropped(DropReason::Early), "t = {t} ms");
            }
            if t >= 15 {
                assert_eq!(q.drop_prob(), 1.0);
            }
        }
        assert_eq!(q.stats().early_drops, 51);
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    /// When p is back to 0 and both delays are under target/2, an arrival re-arms the burst
    /// allowance to 150 ms.
    #[test]
    fn burst_allowance_rearms_when_idle() {
        let mut q = Pie::new(PieParams::default()).unwrap();
        let mut rng = units::stream(1, "pie");
        let mut d = Vec::new();
        for t in (15..=300).step_by(15) {
            q.on_timeout(ms(t));
        }
        assert_eq!(q.burst_allowance(), SimDuration::ZERO);
        assert_eq!(q.drop_prob(), 0.0);
        q.dequeue(ms(300), &mut d); // empty: qdelay 0
        q.enqueue(ms(301), pkt(0, false), &mut rng);
        assert_eq!(q.burst_allowance(), SimDuration::from_millis(150));
    }

    /// With p = 0.15 (< 0.2) and qdelay_old < 7.5 ms, no draw drops anything; with a queue of
    /// at most 2·mean_pktsize bytes nothing is dropped even at p = 1.
    #[test]
    fn safeguards_skip_drop() {
        let mut q = Pie::new(PieParams {
            max_burst: SimDuration::ZERO,
            limit: 100_000,
            ..Default::default()
        })
        .unwrap();
        let mut rng = units::stream(1, "pie");
        q.drop_prob = 0.15;
        q.qdelay_old = 0.007;
        for i in 0..500 {
            assert_eq!(q.enqueue(ms(1), pkt(i, false), &mut rng), Verdict::Enqueued);
        }
        // qdelay_old 8 ms: draws resume; ≈ 15 % of 2000 arrivals dropped.
        q.qdelay_old = 0.008;
        let drops = (0..2000)
            .filter(|i| q.enqueue(ms(1), pkt(*i, false), &mut rng) != Verdict::Enqueued)
            .count();
        assert!((drops as f64 / 2000.0 - 0.15).abs() < 0.025, "{drops}");
        // Byte safeguard: a fresh queue holding 3000 B = 2·1500 accepts at p = 1.
        let mut q = Pie::new(PieParams {
            max_burst: SimDuration::ZERO,
            ..Default::default()
        })
        .unwrap();
        q.drop_prob = 1.0;
        q.qdelay_old = 1.0;
        for i in 0..4 {
            assert_eq!(q.enqueue(ms(1), pkt(i, false), &mut rng), Verdict::Enqueued);
        }
        assert_eq!(q.len_bytes(), 4000);
        assert_eq!(
            q.enqueue(ms(1), pkt(9, false), &mut rng),
            Verdict::Dropped(DropReason::Early)
        );
    }

    #[test]
    fn ecn_marks_only_up_to_max_ecnth() {
        let mut q = Pie::new(PieParams {
            max_burst: SimDuration::ZERO,
            ecn: true,
            ..Default::default()
        })
        .unwrap();
        let mut rng = units::stream(1, "pie");
        for i in 0..4 {
            q.enqueue(ms(1), pkt(i, true), &mut rng);
        }
        q.qdelay_old = 1.0;
        q.drop_prob = 0.1; // ≤ max_ecnth: ECT marked, non-ECT dropped
        let v: Vec<_> = (0..400)
            .map(|i| q.enqueue(ms(1), pkt(i, i % 2 == 0), &mut rng))
            .collect();
        assert!(v
            .iter()
            .step_by(2)
            .all(|x| *x != Verdict::Dropped(DropReason::Early)));
        assert!(v.contains(&Verdict::EnqueuedMarked));
        assert!(v.contains(&Verdict::Dropped(DropReason::Early)));
        q.drop_prob = 0.1000001; // above: ECT dropped too, never marked
        let v: Vec<_> = (0..400)
            .map(|i| q.enqueue(ms(1), pkt(i, true), &mut rng))
            .collect();
        assert!(!v.contains(&Verdict::EnqueuedMarked));
        assert!(v.contains(&Verdict::Dropped(DropReason::Early)));
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: PieParams| Pie::new(p).unwrap_err().key;
        assert_eq!(
            bad(PieParams {
                tupdate: SimDuration::ZERO,
                ..Default::default()
            }),
            "tupdate"
        );
        assert_eq!(
            bad(PieParams {
                alpha: -1.0,
                ..Default::default()
            }),
            "alpha"
        );
        assert_eq!(
            bad(PieParams {
                max_ecnth: 1.5,
                ..Default::default()
            }),
            "max_ecnth"
        );
        assert_eq!(
            bad(PieParams {
                target: SimDuration::ZERO,
                ..Default::default()
            }),
            "target"
        );
    }
}
