//! AVQ — Adaptive Virtual Queue, Kunniyur & Srikant (SIGCOMM 2001), as seed 003 §2.3.7
//! describes it and `reference/aqm-defaults.md` §5 restates ns-2's `Queue/Vq`.
//!
//! Beside the real FIFO the router keeps a *virtual* queue of the same arrivals, served at a
//! virtual capacity `C̃ < C` and with a virtual buffer `B̃ = buflim · limit` (in bytes in byte
//! mode: `· mean_pktsize`). On each arrival of size `b` (bytes, or 1 in packet mode) at time t,
//! the paper's token-bucket form:
//! 1. `VQ ← max(VQ − C̃·(t − s), 0)`;
//! 2. if `VQ + b > B̃` the packet is dropped early (`Early`; with `ecn`, an ECN-capable packet
//!    is marked CE instead and stored), else `VQ ← VQ + b`;
//! 3. `C̃ ← max(min(C̃ + α·γ·C·(t − s), C) − α·b, 0)` — the discrete form of
//!    `dC̃/dt = α(γC − λ)`: the virtual capacity grows when the arrival rate λ is below the
//!    desired utilisation γC and shrinks when above; `s ← t`.
//!
//! A packet not dropped early that finds `limit` packets waiting is dropped (`Overflow`).
//! `C` is the link rate in bytes/s (byte mode) or packets/s of `mean_pktsize` (packet mode);
//! `C̃` starts at `initial_capacity · C`.
//!
//! Named option `ns2_capacity_update` (ns-2 `vq.cc`, reference §5): the capacity update is
//! skipped for an arrival dropped by the virtual queue (its time not taken as `s` for the
//! capacity), and the clamp to [0, C] is applied once after both terms.
//!
//! Validation: tests below, hand-computed — `first_arrivals_by_hand`,
//! `capacity_follows_rate_mismatch`, `virtual_overflow_drops_early`,
//! `ns2_update_skips_dropped_arrivals`, `packet_mode_counts_packets`,
//! `bad_parameters_name_their_key`.

use crate::admit::Admit;
use crate::discipline::{DisciplineParams, LinkInfo, ParamError, QueueDisc};
use crate::field;
use crate::fifo::{fifo_accessors, FifoQueue};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use units::{Rng, SimTime};

/// AVQ parameters. Defaults are ns-2's `Queue/Vq` (the paper's γ = 0.98, α = 0.15).
#[derive(Clone, Debug, PartialEq)]
pub struct AvqParams {
    /// Desired utilisation γ, in (0, 1]. Default 0.98 (Kunniyur & Srikant 2001; ns-2 `gamma_`).
    pub gamma: f64,
    /// Smoothing α of the capacity adaptation, > 0. Default 0.15 (Kunniyur & Srikant 2001;
    /// ns-2 hard-codes 0.15).
    pub alpha: f64,
    /// Initial virtual capacity as a fraction of C, in (0, 1]. Default 0.8 (ns-2 `ecnlim_`).
    pub initial_capacity: f64,
    /// Virtual buffer as a fraction of the real buffer, > 0. Default 1.0 (ns-2 `buflim_`).
    pub buflim: f64,
    /// Real buffer, waiting packets; ≥ 1. Default 50 (ns-2 `limit_`).
    pub limit: u64,
    /// Count the virtual queue and capacity in bytes (true) or packets. Default true (ns-2
    /// `queue_in_bytes_ true`).
    pub byte_mode: bool,
    /// Typical packet size, bytes: scales the virtual buffer in byte mode and the capacity in
    /// packet mode; ≥ 1. Default 1000 (ns-2 `mean_pktsize_`).
    pub mean_pktsize: u32,
    /// Mark ECN-capable packets instead of dropping them early. Default false (ns-2 `markpkts_`).
    pub ecn: bool,
    /// ns-2's capacity update (see the module documentation). Default false (the paper's).
    pub ns2_capacity_update: bool,
}

impl Default for AvqParams {
    /// Kunniyur & Srikant 2001 as ns-2's `Queue/Vq`; sources in [`MODEL`].
    fn default() -> Self {
        AvqParams {
            gamma: 0.98,
            alpha: 0.15,
            initial_capacity: 0.8,
            buflim: 1.0,
            limit: 50,
            byte_mode: true,
            mean_pktsize: 1000,
            ecn: false,
            ns2_capacity_update: false,
        }
    }
}

/// AVQ's scenario keys (`kind = "avq"`): the single declaration of each parameter.
pub const MODEL: Model<AvqParams> = Model {
    kind: "avq",
    title: "AVQ, Kunniyur & Srikant 2001 (virtual queue at a lower virtual capacity), as ns-2's Queue/Vq",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: AvqParams::validate,
    wrap: DisciplineParams::Avq,
};

const KEYS: [Param<AvqParams>; 9] = [
    Param {
        key: "gamma",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "Desired utilisation γ",
        source: "Kunniyur & Srikant 2001; ns-2 gamma_",
        access: field!(gamma),
    },
    Param {
        key: "alpha",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(0.0),
        doc: "Smoothing α of the capacity adaptation",
        source: "Kunniyur & Srikant 2001; ns-2 hard-codes 0.15",
        access: field!(alpha),
    },
    Param {
        key: "initial_capacity",
        syntax: Syntax::Number,
        unit: "",
        range: Range::OpenClosed(0.0, 1.0),
        doc: "Initial virtual capacity as a fraction of C",
        source: "ns-2 ecnlim_",
        access: field!(initial_capacity),
    },
    Param {
        key: "buflim",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(0.0),
        doc: "Virtual buffer as a fraction of the real buffer",
        source: "ns-2 buflim_",
        access: field!(buflim),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("AVQ's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Real buffer, packets waiting",
        source: "ns-2 limit_",
        access: field!(limit),
    },
    Param {
        key: "byte_mode",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Count the virtual queue and capacity in bytes (false: packets)",
        source: "ns-2 queue_in_bytes_ true",
        access: field!(byte_mode),
    },
    Param {
        key: "mean_pktsize",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "Scales the virtual buffer in byte mode and the capacity in packet mode",
        source: "ns-2 mean_pktsize_",
        access: field!(mean_pktsize),
    },
    Param {
        key: "ecn",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Mark ECN-capable packets instead of dropping them early",
        source: "ns-2 markpkts_ false",
        access: field!(ecn),
    },
    Param {
        key: "ns2_capacity_update",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "ns-2's capacity update instead of the paper's (see avq.rs)",
        source: "Kunniyur & Srikant 2001",
        access: field!(ns2_capacity_update),
    },
];

impl AvqParams {
    /// The declared ranges ([`MODEL`]).
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)
    }
}

/// AVQ queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Avq {
    params: AvqParams,
    /// Link capacity C, units (bytes or packets) per second.
    c: f64,
    /// Virtual buffer B̃, units.
    vbuf: f64,
    c_tilde: f64,
    vq: f64,
    /// Last virtual-queue drain time.
    t_vq: SimTime,
    /// Last capacity update time (`s` of the paper; equal to `t_vq` unless ns-2 mode).
    t_prev: SimTime,
    buf: FifoQueue,
}

impl Avq {
    /// Validate `params` and build the queue for a link of `link.rate`.
    pub fn new(params: AvqParams, link: LinkInfo) -> Result<Self, ParamError> {
        params.validate()?;
        if link.rate.bps == 0 {
            return Err(ParamError {
                key: "rate".into(),
                reason: "AVQ needs a link with a positive rate".into(),
            });
        }
        let bytes_per_s = link.rate.bps as f64 / 8.0;
        let (c, vbuf) = if params.byte_mode {
            (
                bytes_per_s,
                params.buflim * params.limit as f64 * params.mean_pktsize as f64,
            )
        } else {
            (
                bytes_per_s / params.mean_pktsize as f64,
                params.buflim * params.limit as f64,
            )
        };
        Ok(Avq {
            c_tilde: params.initial_capacity * c,
            c,
            vbuf,
            params,
            vq: 0.0,
            t_vq: SimTime::ZERO,
            t_prev: SimTime::ZERO,
            buf: FifoQueue::default(),
        })
    }

    /// Virtual capacity C̃, units per second.
    pub fn virtual_capacity(&self) -> f64 {
        self.c_tilde
    }
    /// Virtual queue, units.
    pub fn virtual_queue(&self) -> f64 {
        self.vq
    }
}

impl QueueDisc for Avq {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, _rng: &mut Rng) -> Verdict {
        let p = &self.params;
        let b = if p.byte_mode {
            pkt.size_bytes as f64
        } else {
            1.0
        };
        let dt = now.saturating_since(self.t_vq).as_secs_f64();
        self.vq = (self.vq - self.c_tilde * dt).max(0.0);
        self.t_vq = now;
        let over = self.vq + b > self.vbuf;
        if !over {
            self.vq += b;
        }
        if !(p.ns2_capacity_update && over) {
            let dt = now.saturating_since(self.t_prev).as_secs_f64();
            let grown = self.c_tilde + p.alpha * p.gamma * self.c * dt;
            self.c_tilde = if p.ns2_capacity_update {
                (grown - p.alpha * b).clamp(0.0, self.c)
            } else {
                (grown.min(self.c) - p.alpha * b).max(0.0)
            };
            self.t_prev = now;
        }
        let mut admit = if over {
            Admit::early(p.ecn, &pkt)
        } else {
            Admit::Store
        };
        if admit.stores() && self.buf.len() as u64 >= p.limit {
            admit = Admit::Drop(DropReason::Overflow);
        }
        self.buf.settle(now, pkt, admit)
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        _dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        self.buf.release()
    }
    fn hears_idle(&self) -> bool {
        false
    }

    fifo_accessors!(buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketClass};
    use units::{Rate, SimDuration};

    /// 8 Mbps = 1e6 bytes/s.
    fn link() -> LinkInfo {
        LinkInfo {
            rate: Rate::from_bps(8_000_000),
            delay: SimDuration::from_millis(10),
        }
    }
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
    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }
    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    fn avq(p: AvqParams) -> (Avq, Rng) {
        (Avq::new(p, link()).unwrap(), units::stream(1, "avq"))
    }

    /// C = 1e6 B/s, C̃₀ = 8e5. Arrival at 0: VQ 1000, C̃ = 8e5 − 0.15·1000 = 799 850. Arrival
    /// at 1 ms: VQ = 1000 − 799.85 = 200.15, + 1000 = 1200.15; C̃ = 799 850 + 0.15·0.98·1e6·0.001
    /// − 150 = 799 847.
    #[test]
    fn first_arrivals_by_hand() {
        let (mut q, mut rng) = avq(AvqParams::default());
        q.enqueue(us(0), pkt(0, false), &mut rng);
        close(q.virtual_queue(), 1000.0);
        close(q.virtual_capacity(), 799_850.0);
        q.enqueue(us(1000), pkt(1, false), &mut rng);
        close(q.virtual_queue(), 1200.15);
        close(q.virtual_capacity(), 799_847.0);
    }

    /// Arrivals at the link rate (1000 B every 1 ms = C): each changes C̃ by
    /// α(γC·Δ − b) = 147 − 150 = −3 (the first, with Δ = 0, by −150): after 1000 arrivals
    /// C̃ = 800 000 − 150 − 999·3 = 796 853. At half the rate (every 2 ms) each adds
    /// 294 − 150 = +144 until the clamp at C: from 796 853, 1410 arrivals reach it.
    #[test]
    fn capacity_follows_rate_mismatch() {
        let (mut q, mut rng) = avq(AvqParams {
            limit: 100_000,
            ..Default::default()
        });
        let mut d = Vec::new();
        for i in 0..1000u64 {
            assert_eq!(
                q.enqueue(us(1000 * i), pkt(i as u32, false), &mut rng),
                Verdict::Enqueued
            );
            q.dequeue(us(1000 * i), &mut d);
        }
        close(q.virtual_capacity(), 796_853.0);
        let t0 = 999_000u64;
        for k in 1..=1500u64 {
            q.enqueue(us(t0 + 2000 * k), pkt(0, false), &mut rng);
            q.dequeue(us(t0 + 2000 * k), &mut d);
            let want = (796_853.0 + 144.0 * k as f64).min(1e6 - 150.0);
            close(q.virtual_capacity(), want);
        }
        // Clamp rule of the paper: min(C̃ + 294, C) − 150 = C − 150 once at the top.
        close(q.virtual_capacity(), 999_850.0);
    }

    /// limit 2 → B̃ = 2000 B; three packets at t = 0: VQ 1000, 2000 (fits exactly), the
    /// third would make 3000 > 2000: early drop; with ECN an ECT one is marked and stored.
    #[test]
    fn virtual_overflow_drops_early() {
        let (mut q, mut rng) = avq(AvqParams {
            limit: 2,
            ..Default::default()
        });
        let v: Vec<_> = (0..3)
            .map(|i| q.enqueue(us(0), pkt(i, false), &mut rng))
            .collect();
        assert_eq!(
            v,
            [
                Verdict::Enqueued,
                Verdict::Enqueued,
                Verdict::Dropped(DropReason::Early)
            ]
        );
        close(q.virtual_queue(), 2000.0);
        // Paper: the dropped arrival still lowers C̃: 8e5 − 3·150.
        close(q.virtual_capacity(), 799_550.0);
        let (mut q, mut rng) = avq(AvqParams {
            limit: 2,
            ecn: true,
            ..Default::default()
        });
        let v: Vec<_> = (0..4)
            .map(|i| q.enqueue(us(0), pkt(i, true), &mut rng))
            .collect();
        // The third is chosen for a mark, but the real buffer (2 waiting) is full: overflow.
        assert_eq!(v[2], Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.stats().marks, 0);
        let mut d = Vec::new();
        q.dequeue(us(0), &mut d);
        // With room in the real buffer, a virtual overflow of an ECT packet is a mark.
        assert_eq!(
            q.enqueue(us(0), pkt(9, true), &mut rng),
            Verdict::EnqueuedMarked
        );
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    #[test]
    fn ns2_update_skips_dropped_arrivals() {
        let (mut q, mut rng) = avq(AvqParams {
            limit: 2,
            ns2_capacity_update: true,
            ..Default::default()
        });
        for i in 0..3 {
            q.enqueue(us(0), pkt(i, false), &mut rng);
        }
        // Only the two accepted arrivals lower C̃.
        close(q.virtual_capacity(), 799_700.0);
    }

    /// Packet mode: C = 1e6/1000 = 1000 packets/s, b = 1: C̃₀ = 800, first arrival → 799.85.
    #[test]
    fn packet_mode_counts_packets() {
        let (mut q, mut rng) = avq(AvqParams {
            byte_mode: false,
            ..Default::default()
        });
        q.enqueue(us(0), pkt(0, false), &mut rng);
        close(q.virtual_queue(), 1.0);
        close(q.virtual_capacity(), 799.85);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: AvqParams| Avq::new(p, link()).unwrap_err().key;
        assert_eq!(
            bad(AvqParams {
                gamma: 1.5,
                ..Default::default()
            }),
            "gamma"
        );
        assert_eq!(
            bad(AvqParams {
                alpha: 0.0,
                ..Default::default()
            }),
            "alpha"
        );
        assert_eq!(
            bad(AvqParams {
                initial_capacity: 0.0,
                ..Default::default()
            }),
            "initial_capacity"
        );
    }
}
