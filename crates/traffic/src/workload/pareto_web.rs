//! The simple Pareto web model of seed 003 (Kim 2004, §3.1, §4.7): `flows` independent sources;
//! each opens one HTTP/1.0-style connection that carries a single object from server to client
//! (no request: `request_bytes` = 0, §3.1 last paragraph), waits a deterministic off time after
//! the transfer ends (§3.1: "deterministic interarrival time"; §4.7: 0.5 s), then opens the next
//! connection — forever. Source f uses client f % clients and server f % servers, so with the
//! §4.7 topology (100 clients, 100 servers, 100 flows) each flow has its own host pair.
//!
//! Object size (§4.7: shape 1.2, mean 10 KB, min 1 KB, max 2 MB):
//! - x = k·(1 − u)^(−1/α) with k = mean·(α−1)/α: ns-2's `RandomVariable/Pareto`
//!   (`ranvar.cc`: `pareto(avg_·(shape_−1)/shape_, shape_)`, `rng.h`: scale·U^(−1/shape)),
//!   whose untruncated mean is `mean`; 1 − u is uniform on (0, 1], so the power never sees 0.
//! - then **clamped** to [min, max] — values above max become max, below min become min — and
//!   rounded to whole bytes (≥ 1). The thesis gives only "maximum size of object", "minimum
//!   size of object" (§4.7), copying SHRED's "maximum object size … minimum object size" (§2.4.1);
//!   a cap and a floor keep every draw (as an ns-2 script's `if {$size > $max}` would) instead of
//!   redrawing, so the arrival process stays one draw per object.
//! - Resulting mean ([`pareto_web_mean_bytes`]): with m = max(min, k), E = m + (m·(k/m)^α −
//!   max·(k/max)^α)/(α−1). At the §4.7 values k = 1666.67 B > min, so the 1 KB floor never
//!   binds (smallest object 1667 B), P(x > 2 MB) = (k/max)^α = 2.018e-4 and
//!   **E = 7981.71 B**, not 10 KB: the 2 MB cap removes 2018 B of the nominal mean.
//! - `sizes = "pareto_ii"` ([`ParetoSizes::ParetoII`], issue 34 item 6): ns-2's
//!   `RandomVariable/ParetoII` instead (`ranvar.cc`: `paretoII(avg_·(shape_−1), shape_)`,
//!   `rng.h`: scale·(U^(−1/shape) − 1), the Lomax law, support from 0), which §3.1 of the
//!   thesis names ("Pareto II"); same clamp to [min, max]. At the §4.7 values λ = 2000 B, the
//!   1 KB floor binds on 1 − 1.5^(−1.2) = 38.5 % of objects, the median is λ·(2^(1/α) − 1) =
//!   1563.6 B and **E = 7709.69 B** ([`pareto_web_mean_bytes`]): more small objects than
//!   ns-2 `Pareto`'s, whose smallest is 1667 B.
//!
//! Start: all sources open their first connection at `start` (time 0), in flow order. The seed
//! has no stagger: §6.2 item 3 describes its runs as "all flows start at the same time and run
//! together until the end of simulation".
//!
//! Draw order: one uniform per connection, drawn when it is emitted; connections due at the same
//! time are emitted in flow order (min-heap keyed by (time, flow)). Nothing else is random.
//!
//! Validation: `workload::tests::pareto_web` — off time exact, sizes in [min, max] and ≥ 1667 B
//! at the seed values, sample mean within 4 SE of 7981.71 B, ECDF at 3 points, all flows at 0.

use super::{later, response_bytes, FlowKind, Request};
use crate::distribution::unit;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use units::math::powf;
use units::{Rng, SimDuration, SimTime};

/// Which of ns-2's Pareto random variables draws the object sizes (before the clamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ParetoSizes {
    /// ns-2 `RandomVariable/Pareto`: k·U^(−1/α), k = mean·(α−1)/α, support from k (default).
    #[default]
    Pareto,
    /// ns-2 `RandomVariable/ParetoII` (Lomax): λ·(U^(−1/α) − 1), λ = mean·(α−1), support
    /// from 0; seed 003 §3.1's "Pareto II".
    ParetoII,
}

impl ParetoSizes {
    /// The scale of the untruncated law whose mean is `mean` (bytes): k = mean·(α−1)/α for
    /// Pareto, λ = mean·(α−1) for Pareto II (ns-2 `ranvar.cc`).
    pub fn scale(self, shape: f64, mean: f64) -> f64 {
        match self {
            ParetoSizes::Pareto => mean * (shape - 1.0) / shape,
            ParetoSizes::ParetoII => mean * (shape - 1.0),
        }
    }
}

/// Object size before rounding for uniform `u` in [0, 1): the `sizes` law with shape `shape`
/// and scale `scale` ([`ParetoSizes::scale`]), clamped to [min, max].
pub(crate) fn pareto_web_size(
    sizes: ParetoSizes,
    u: f64,
    shape: f64,
    scale: f64,
    min: f64,
    max: f64,
) -> f64 {
    let tail = powf(1.0 - u, -1.0 / shape);
    let x = match sizes {
        ParetoSizes::Pareto => scale * tail,
        ParetoSizes::ParetoII => scale * (tail - 1.0),
    };
    x.clamp(min, max)
}

/// Analytic mean object size in bytes (before rounding to whole bytes, which moves it by
/// < 0.5 B) of a `ParetoWeb` workload: E[clamp(X, min, max)] = min + ∫_min^max P(X > x) dx.
/// Pareto (scale k = mean·(α−1)/α), with m = max(min, k): E = m + (m·(k/m)^α −
/// max·(k/max)^α)/(α−1); `max` if m ≥ max. Pareto II (λ = mean·(α−1), P(X > x) =
/// (1 + x/λ)^(−α)): E = min + λ·((1 + min/λ)^(1−α) − (1 + max/λ)^(1−α))/(α−1). Requires
/// shape > 1, 0 < min < max.
pub fn pareto_web_mean_bytes(sizes: ParetoSizes, shape: f64, mean: f64, min: f64, max: f64) -> f64 {
    let a = shape;
    match sizes {
        ParetoSizes::Pareto => {
            let k = sizes.scale(a, mean);
            let m = min.max(k);
            if m >= max {
                return max;
            }
            m + (m * powf(k / m, a) - max * powf(k / max, a)) / (a - 1.0)
        }
        ParetoSizes::ParetoII => {
            let l = sizes.scale(a, mean);
            min + l * (powf(1.0 + min / l, 1.0 - a) - powf(1.0 + max / l, 1.0 - a)) / (a - 1.0)
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct ParetoWeb {
    flows: u32,
    sizes: ParetoSizes,
    shape: f64,
    /// [`ParetoSizes::scale`] (bytes).
    scale: f64,
    min: f64,
    max: f64,
    off_time: SimDuration,
    clients: u32,
    servers: u32,
    /// Next connection time per idle source, earliest (then lowest flow) first.
    pending: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// `outstanding[f]`: source f has a connection open.
    outstanding: Vec<bool>,
}

impl ParetoWeb {
    #[allow(clippy::too_many_arguments)] // mirrors the config variant's fields one to one
    pub(super) fn new(
        flows: u32,
        sizes: ParetoSizes,
        shape: f64,
        mean: f64,
        min: f64,
        max: f64,
        off_time: SimDuration,
        clients: u32,
        servers: u32,
    ) -> Self {
        ParetoWeb {
            flows,
            sizes,
            shape,
            scale: sizes.scale(shape, mean),
            min,
            max,
            off_time,
            clients,
            servers,
            pending: BinaryHeap::with_capacity(flows as usize),
            outstanding: vec![false; flows as usize],
        }
    }

    pub(super) fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        self.pending
            .extend((0..self.flows).map(|f| Reverse((now, f))));
        self.emit_due(now, rng, out);
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.pending.peek().map(|Reverse((t, _))| *t)
    }

    pub(super) fn emit_due(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        while let Some(&Reverse((t, f))) = self.pending.peek() {
            if t > now {
                break;
            }
            self.pending.pop();
            self.outstanding[f as usize] = true;
            let u = unit(rng);
            let size = pareto_web_size(self.sizes, u, self.shape, self.scale, self.min, self.max);
            out.push(Request {
                user: f,
                client: f % self.clients,
                server: f % self.servers,
                request_bytes: 0,
                response_bytes: response_bytes(size),
                kind: FlowKind::Http,
                page: 0,
                server_delay: SimDuration::ZERO,
                more: Vec::new(),
                box_rtt: None,
            });
        }
    }

    pub(super) fn on_response_complete(
        &mut self,
        now: SimTime,
        f: u32,
        rng: &mut Rng,
        out: &mut Vec<Request>,
    ) {
        match self.outstanding.get_mut(f as usize) {
            Some(o) if *o => *o = false,
            _ => return,
        }
        if let Some(t) = later(now, self.off_time) {
            self.pending.push(Reverse((t, f)));
        }
        self.emit_due(now, rng, out);
    }
}
