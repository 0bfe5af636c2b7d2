//! Pareto ON/OFF datagram source (`WorkloadConfig::OnOff`): unresponsive, bursty cross
//! traffic with the semantics of ns-2's `Application/Traffic/Pareto` (`tools/pareto.cc`, as
//! described in seed 003 §2.4.2 and the ns-2 manual, "Traffic generators"):
//!
//! - during an ON period, packets of `size` bytes leave every `interval` = size·8/rate s;
//! - a burst has B packets, B = max(1, ⌊X + 0.5⌋) with X Pareto of mean `on_mean / interval`
//!   packets and shape `shape` (so the mean ON time is about `on_mean`);
//! - between bursts the source is silent for an OFF time Y, Pareto of mean `off_mean` and the
//!   same shape; the OFF time is added to the gap before the first packet of the next burst;
//! - Pareto(mean m, shape α): x = k·(1 − u)^(−1/α) with scale k = m·(α − 1)/α (ns-2
//!   `ParetoRandomVariable`: `pareto(avg·(shape−1)/shape, shape)`); 1 − u ∈ (0, 1].
//!
//! Timing: ns-2 starts the generator with no packet "in hand", so the first burst is preceded
//! by one interval plus one OFF time: the first packet leaves at start + interval + Y₁, the
//! other B₁ − 1 packets of the burst every interval after it, then interval + Y₂ before the
//! first packet of burst 2, and so on. A cycle lasts B·interval + Y, so the long-run rate is
//! rate · E[B]·interval / (E[B]·interval + off_mean) ≈ rate · on/(on + off) (E[B] differs from
//! on/interval only by the rounding to whole packets). Packets at or after `stop` are not sent.
//!
//! Draw order: at the start of each burst, X (burst length) then Y (OFF time), as ns-2's
//! `POO_Traffic::next_interval` draws them; nothing else is random.
//!
//! Direction and the emitted [`Request`]s are as in `cbr.rs` (server host → client host, kind
//! [`FlowKind::Datagram`], `response_bytes` = packet size).
//!
//! Validation: `workload::tests::onoff` (timing of a scripted cycle; long-run mean rate within
//! 1.5 % of the closed form over 200 000 cycles).

use super::{FlowKind, Request};
use crate::distribution::unit;
use units::math::powf;
use units::{Rng, SimDuration, SimTime};

/// One draw of ns-2's Pareto of mean `mean` and shape `shape` from uniform `u` ∈ [0, 1).
pub(crate) fn ns2_pareto(u: f64, mean: f64, shape: f64) -> f64 {
    mean * (shape - 1.0) / shape * powf(1.0 - u, -1.0 / shape)
}

#[derive(Clone, Debug)]
pub(super) struct OnOff {
    packet_bytes: u32,
    /// Packet spacing during a burst, ns (size·8/rate, rounded to the nanosecond).
    interval: SimDuration,
    /// Mean burst length in packets (on_mean / interval).
    burst_mean: f64,
    off_mean_s: f64,
    shape: f64,
    stop: SimTime,
    client: u32,
    server: u32,
    /// Packets left in the current burst after the one at `next`.
    rem: u64,
    start: SimTime,
    /// Time of the next packet; `None` before `start()` and once past `stop`.
    next: Option<SimTime>,
}

impl OnOff {
    #[allow(clippy::too_many_arguments)] // mirrors the config variant's fields one to one
    pub(super) fn new(
        rate_bps: u64,
        packet_bytes: u32,
        on_mean: SimDuration,
        off_mean: SimDuration,
        shape: f64,
        start: SimTime,
        stop: Option<SimTime>,
        client: u32,
        server: u32,
    ) -> Self {
        let interval_ns = ((packet_bytes as u128 * 8 * 1_000_000_000 + rate_bps as u128 / 2)
            / rate_bps as u128) as u64;
        let interval = SimDuration::from_nanos(interval_ns.max(1));
        OnOff {
            packet_bytes,
            interval,
            burst_mean: on_mean.as_secs_f64() / interval.as_secs_f64(),
            off_mean_s: off_mean.as_secs_f64(),
            shape,
            stop: stop.unwrap_or(SimTime(u64::MAX)),
            client,
            server,
            rem: 0,
            start,
            next: None,
        }
    }

    /// Gap after a packet sent at `t` (ns-2 `next_interval`): one interval, plus a new burst
    /// and an OFF time when the current burst is over.
    fn advance(&mut self, t: SimTime, rng: &mut Rng) {
        let mut gap = self.interval;
        if self.rem == 0 {
            let x = ns2_pareto(unit(rng), self.burst_mean, self.shape);
            self.rem = ((x + 0.5).floor() as u64).max(1);
            let y = ns2_pareto(unit(rng), self.off_mean_s, self.shape);
            gap = gap + SimDuration::from_secs_f64(y);
        }
        self.rem -= 1;
        self.next = super::later(t, gap).filter(|n| *n < self.stop);
    }

    /// Begin: draw the first burst and OFF time. Nothing is sent at `start` itself: the first
    /// packet follows one interval and one OFF time. A source with `start ≥ stop` never sends.
    pub(super) fn start(&mut self, rng: &mut Rng) {
        if self.start < self.stop {
            self.advance(self.start, rng);
        }
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.next
    }

    pub(super) fn emit_due(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        while let Some(t) = self.next {
            if t > now {
                break;
            }
            out.push(Request {
                user: 0,
                client: self.client,
                server: self.server,
                request_bytes: 0,
                response_bytes: self.packet_bytes as u64,
                kind: FlowKind::Datagram,
                page: 0,
                server_delay: SimDuration::ZERO,
                more: Vec::new(),
                box_rtt: None,
            });
            self.advance(t, rng);
        }
    }
}
