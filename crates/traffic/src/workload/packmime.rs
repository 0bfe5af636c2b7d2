//! PackMime-HTTP, HTTP/1.0 mode, as ns-2.35 implements it (reference/packmime/MODEL.md; the
//! random variables are in `crate::packmime`). `WorkloadConfig::PackMime { rate, clients,
//! servers }`; `rate` = new TCP connections per second, the model's only knob.
//!
//! - Open loop (§1): the first connection opens at `start`; each time a connection opens, the
//!   next inter-arrival is drawn (§3.1: Weibull marginal with mean exactly 1/rate, driven by the
//!   FARIMA+noise sequence of §2.2 with d = 0.33, N = 1000) and the next opening is scheduled at
//!   the scheduled time of this one plus that gap (rounded to the nanosecond per gap), whatever
//!   the network does.
//! - One request and one response per connection (HTTP/1.0). Request size §3.2 (FARIMA-driven,
//!   d = 0.31, N = 5000, two-table inverse CDF), response size §3.3 (alternating
//!   cache-validation/download runs, first response starts a download run). Sizes are floored
//!   to whole bytes, then a size of 0 is sent as 1 byte (ns-2, for both), capped at
//!   `u64::MAX − 1`.
//! - Hosts: ns-2 pairs client cloud i with server cloud i and successive connections rotate
//!   through the pairs (§1); here connection n (from 0) uses client `n mod clients` and server
//!   `n mod servers` (the same rotation when clients = servers), with no random draw.
//! - Draw order for connection n (§3.9): the inter-arrival to connection n+1, then the request
//!   size, then the response size. The FARIMA warm-ups (1001 and 5001 steps) happen inside the
//!   first inter-arrival and first request-size draws.
//! - Not modelled: the server delay of §3.4 (`Request` has no field for it; the engine's server
//!   answers at once), HTTP/1.1 (§3.5–3.7). Network RTTs are not part of the PackMime manager
//!   (§1): use `crate::packmime::rtt_cdf_s` / `Xmit` with the DelayBox.
//!
//! Every request has `user` 0, `page` 0, kind `Http`.
//!
//! Validation: `workload::tests::packmime` — `workload_first_at_start_mean_gap_and_hosts`
//! (first connection at start, mean gap · rate within 3 % of 1 over ~100,000 connections,
//! host rotation, sizes ≥ 1), `workload_draw_order_and_determinism` (the emitted sequence equals
//! the §3.9 draw order replayed by hand on the same stream; same stream → same run),
//! `workload_validation`; the samplers' own tests are listed in `crate::packmime`.

use super::{later, FlowKind, Request};
use crate::packmime::{FlowArrive, RequestSize, ResponseSize, Tables};
use units::{Rng, SimDuration, SimTime};

/// Whole bytes as ns-2 sends them: floor (already applied), 0 → 1, at most `u64::MAX − 1`.
fn bytes(x: f64) -> u64 {
    (x.floor() as u64).clamp(1, u64::MAX - 1)
}

/// Boxed so that the `Gen` enum stays small (the tables and FARIMA states are large).
#[derive(Clone, Debug)]
pub(super) struct PackMime(Box<State>);

#[derive(Clone, Debug)]
struct State {
    tables: Tables,
    arrive: FlowArrive,
    req: RequestSize,
    rsp: ResponseSize,
    clients: u32,
    servers: u32,
    /// Connections opened so far.
    count: u64,
    /// Time of the next opening; `None` before start or past the end of the clock.
    next: Option<SimTime>,
}

impl PackMime {
    pub(super) fn new(rate: f64, clients: u32, servers: u32) -> Self {
        PackMime(Box::new(State {
            tables: Tables::ns2(),
            arrive: FlowArrive::new(rate),
            req: RequestSize::new(rate),
            rsp: ResponseSize::new(rate),
            clients,
            servers,
            count: 0,
            next: None,
        }))
    }

    pub(super) fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        self.0.next = Some(now);
        self.emit_due(now, rng, out);
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.0.next
    }

    pub(super) fn emit_due(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        let s = &mut *self.0;
        while let Some(t) = s.next.filter(|&t| t <= now) {
            let gap = SimDuration::from_secs_f64(s.arrive.sample(rng));
            s.next = later(t, gap);
            let request = bytes(s.req.sample(&s.tables, rng));
            let response = bytes(s.rsp.sample(&s.tables, rng).0);
            let n = s.count;
            s.count += 1;
            out.push(Request {
                user: 0,
                client: (n % u64::from(s.clients)) as u32,
                server: (n % u64::from(s.servers)) as u32,
                request_bytes: request,
                response_bytes: response,
                kind: FlowKind::Http,
                page: 0,
            });
        }
    }
}
