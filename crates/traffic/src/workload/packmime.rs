//! PackMime-HTTP, HTTP/1.0 and HTTP/1.1 modes, as ns-2.35 implements them
//! (reference/packmime/MODEL.md; the random variables are in `crate::packmime`).
//! `WorkloadConfig::PackMime { rate, clients, servers, http }`; `rate` = new TCP connections
//! per second, the model's only knob (in HTTP/1.1 mode still connections, not pages).
//!
//! - Open loop (§1): the first connection opens at `start`; each time a connection opens, the
//!   next inter-arrival is drawn (§3.1: Weibull marginal with mean exactly 1/rate, driven by the
//!   FARIMA+noise sequence of §2.2 with d = 0.33, N = 1000) and the next opening is scheduled at
//!   the scheduled time of this one plus that gap (rounded to the nanosecond per gap), whatever
//!   the network does.
//! - HTTP/1.0: one request and one response per connection. Request size §3.2 (FARIMA-driven,
//!   d = 0.31, N = 5000, two-table inverse CDF), response size §3.3 (alternating
//!   cache-validation/download runs, first response starts a download run). Sizes are floored
//!   to whole bytes, then a size of 0 is sent as 1 byte (ns-2, for both), capped at
//!   `u64::MAX − 1`.
//! - HTTP/1.1 (§3.5–3.7): each connection is persistent with probability 0.09; a
//!   non-persistent one is exactly an HTTP/1.0 connection. A persistent one carries
//!   Σ objects-per-page exchanges ([`Request::more`] holds exchanges 2…n): every request has
//!   the one §3.2 size; response 1 is the §3.3 draw R1, responses 2…n are
//!   `PersistRspSize` draws when R1 > 275 bytes, else repeat R1; the gap before exchange
//!   (page i, object j) is 0 for (0, 0), a between-page gap for j = 0, else a within-page gap
//!   (ns-2 defaults: `pm-persistent-reqsz`/`-rspsz` on).
//! - Server delay (§3.4) for every exchange, in both modes.
//! - Hosts: ns-2 pairs client cloud i with server cloud i and successive connections rotate
//!   through the pairs (§1); here connection n (from 0) uses client `n mod clients` and server
//!   `n mod servers` (the same rotation when clients = servers), with no random draw.
//! - Draw order, all from the workload's one stream. At `start`, HTTP/1.1 mode only: the run's
//!   gap hyper-parameters (`Gaps::new`). Per connection n (§3.9): the inter-arrival to
//!   connection n+1; HTTP/1.1: `persistent`; then non-persistent: request size, response size;
//!   persistent: pages, objects of each page, request size, response size, the gap of each
//!   exchange in order, responses 2…n (if redrawn). Last, one server delay per exchange in
//!   order. ns-2 draws the server delay at the server when the request has arrived (§3.9 step
//!   5) from the variable's own stream; it is i.i.d. and independent of everything else, so
//!   drawing it here gives the same distribution and keeps the workload a function of (config,
//!   stream) alone, independent of network timing. The FARIMA warm-ups (1001 and 5001 steps)
//!   happen inside the first inter-arrival and first request-size draws.
//! - Network RTTs are not part of the PackMime manager (§1): use `crate::packmime::rtt_cdf_s`
//!   / `Xmit` with the DelayBox.
//!
//! Every request has `user` 0, `page` 0, kind `Http`.
//!
//! Validation: `workload::tests::packmime` — `workload_first_at_start_mean_gap_and_hosts`
//! (first connection at start, mean gap · rate within 3 % of 1 over ~100,000 connections,
//! host rotation, sizes ≥ 1), `workload_draw_order_and_determinism` (the emitted sequence equals
//! the §3.9 draw order replayed by hand on the same stream; same stream → same run),
//! `workload_validation`; `workload::tests::packmime11` — HTTP/1.1 statistics and draw order;
//! the samplers' own tests are listed in `crate::packmime`; `workload::tests::packmime_ns2` —
//! bytes per connection against ns-2.35's own draws (validation/ns2/packmime/README.md).

use super::{later, Exchange, FlowKind, HttpVersion, Request};
use crate::packmime::{
    objects, pages, persistent, server_delay_s, FlowArrive, Gaps, PersistRspSize, RequestSize,
    ResponseSize, Tables,
};
use units::{Rng, SimDuration, SimTime};

/// Whole bytes as ns-2 sends them: floor (already applied), 0 → 1, at most `u64::MAX − 1`.
fn bytes(x: f64) -> u64 {
    (x.floor() as u64).clamp(1, u64::MAX - 1)
}

/// First responses up to this size (bytes) are repeated on a persistent connection instead of
/// redrawn (`FSIZE_CACHE_CUTOFF`, §3.7).
const FSIZE_CACHE_CUTOFF: u64 = 275;

/// Boxed so that the `Gen` enum stays small (the tables and FARIMA states are large).
#[derive(Clone, Debug)]
pub(super) struct PackMime(Box<State>);

#[derive(Clone, Debug)]
struct State {
    tables: Tables,
    arrive: FlowArrive,
    req: RequestSize,
    rsp: ResponseSize,
    http: HttpVersion,
    persist_rsp: PersistRspSize,
    /// The run's gap hyper-parameters (HTTP/1.1, drawn at start).
    gaps: Option<Gaps>,
    clients: u32,
    servers: u32,
    /// Connections opened so far.
    count: u64,
    /// Time of the next opening; `None` before start or past the end of the clock.
    next: Option<SimTime>,
}

impl PackMime {
    pub(super) fn new(rate: f64, clients: u32, servers: u32, http: HttpVersion) -> Self {
        PackMime(Box::new(State {
            tables: Tables::ns2(),
            arrive: FlowArrive::new(rate),
            req: RequestSize::new(rate),
            rsp: ResponseSize::new(rate),
            http,
            persist_rsp: PersistRspSize::default(),
            gaps: None,
            clients,
            servers,
            count: 0,
            next: None,
        }))
    }

    pub(super) fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        if self.0.http == HttpVersion::Http11 {
            self.0.gaps = Some(Gaps::new(rng));
        }
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
            let n = s.count;
            s.count += 1;
            let mut r = Request {
                user: 0,
                client: (n % u64::from(s.clients)) as u32,
                server: (n % u64::from(s.servers)) as u32,
                request_bytes: 0,
                response_bytes: 0,
                kind: FlowKind::Http,
                page: 0,
                server_delay: SimDuration::ZERO,
                more: Vec::new(),
                box_rtt: None,
            };
            let gaps = s.gaps.filter(|_| persistent_draw(s.http, rng));
            match gaps {
                None => {
                    r.request_bytes = bytes(s.req.sample(&s.tables, rng));
                    r.response_bytes = bytes(s.rsp.sample(&s.tables, rng).0);
                }
                Some(g) => s.persistent_connection(&g, rng, &mut r),
            }
            r.server_delay = SimDuration::from_secs_f64(server_delay_s(rng));
            for x in &mut r.more {
                x.server_delay = SimDuration::from_secs_f64(server_delay_s(rng));
            }
            out.push(r);
        }
    }
}

/// HTTP/1.1 mode draws `persistent` (one uniform); HTTP/1.0 draws nothing.
fn persistent_draw(http: HttpVersion, rng: &mut Rng) -> bool {
    http == HttpVersion::Http11 && persistent(rng)
}

impl State {
    /// Fill `r` with the exchanges of a persistent connection (§3.6–3.7 draw order; server
    /// delays are left to the caller).
    fn persistent_connection(&mut self, g: &Gaps, rng: &mut Rng, r: &mut Request) {
        let np = pages(rng);
        let objs: Vec<u32> = (0..np).map(|_| objects(rng, np > 1)).collect();
        let request = bytes(self.req.sample(&self.tables, rng));
        let first = bytes(self.rsp.sample(&self.tables, rng).0);
        r.request_bytes = request;
        r.response_bytes = first;
        for (i, &k) in objs.iter().enumerate() {
            for j in 0..k {
                let gap = g.sample(rng, i as u32, j);
                if (i, j) != (0, 0) {
                    r.more.push(Exchange {
                        gap: SimDuration::from_secs_f64(gap),
                        request_bytes: request,
                        response_bytes: first,
                        server_delay: SimDuration::ZERO,
                    });
                }
            }
        }
        if !r.more.is_empty() && first > FSIZE_CACHE_CUTOFF {
            self.persist_rsp.reset();
            for x in &mut r.more {
                x.response_bytes = bytes(self.persist_rsp.sample(rng));
            }
        }
    }
}
