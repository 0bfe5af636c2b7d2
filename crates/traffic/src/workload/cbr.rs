//! Constant-bit-rate datagram source (`WorkloadConfig::Cbr`): unresponsive cross traffic, as
//! ns-2's `Application/Traffic/CBR` over `Agent/UDP` into an `Agent/Null` sink.
//!
//! One flow, from the workload's `server` host to its `client` host (the direction responses
//! take, so a forward CBR loads the forward bottleneck; a `direction = "reverse"` workload
//! swaps the hosts' sides). Packet k (k = 0, 1, …) is emitted at
//! t_k = start + ⌊k · size · 8 · 10⁹ / rate⌋ ns, for every t_k < stop. The first packet leaves
//! at `start` (ns-2 `CBR_Traffic::start` sends at once); the spacing is size·8/rate seconds,
//! computed from k each time so that no rounding error accumulates. `size` is the whole
//! packet on the wire (ns-2's UDP agent puts `packetSize_` on the wire with no extra header).
//!
//! Each emitted [`Request`] has kind [`FlowKind::Datagram`], `response_bytes` = packet size,
//! `request_bytes` 0, `user` 0: "send one datagram now". No randomness (ns-2's `random_`
//! jitter option is not modelled).
//!
//! Validation: `workload::tests::cbr` (exact times and counts).

use super::{FlowKind, Request};
use units::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub(super) struct Cbr {
    rate_bps: u64,
    packet_bytes: u32,
    start: SimTime,
    stop: SimTime,
    client: u32,
    server: u32,
    /// Index of the next packet to send.
    k: u64,
}

impl Cbr {
    pub(super) fn new(
        rate_bps: u64,
        packet_bytes: u32,
        start: SimTime,
        stop: Option<SimTime>,
        client: u32,
        server: u32,
    ) -> Self {
        Cbr {
            rate_bps,
            packet_bytes,
            start,
            stop: stop.unwrap_or(SimTime(u64::MAX)),
            client,
            server,
            k: 0,
        }
    }

    /// Send time of packet `k`, or `None` at or past `stop` (or past the clock's end).
    fn time_of(&self, k: u64) -> Option<SimTime> {
        let off =
            (k as u128) * (self.packet_bytes as u128) * 8 * 1_000_000_000 / (self.rate_bps as u128);
        let t = u64::try_from(off)
            .ok()
            .and_then(|o| self.start.0.checked_add(o))?;
        (t < self.stop.0).then_some(SimTime(t))
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.time_of(self.k)
    }

    pub(super) fn emit_due(&mut self, now: SimTime, out: &mut Vec<Request>) {
        while let Some(t) = self.time_of(self.k) {
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
            self.k += 1;
        }
    }
}
