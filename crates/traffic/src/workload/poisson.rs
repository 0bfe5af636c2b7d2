//! Open-loop HTTP/1.0: connections arrive as a Poisson process of `rate` per second, each an
//! independent request/response exchange between a uniformly chosen client and server
//! (`WorkloadConfig::Http10` + `Arrival::Poisson`). No feedback from the network: the arrival
//! times do not depend on when responses complete.
//!
//! Arrival k is at start + g₁ + … + g_k, each gap g = Exp1/rate seconds (rand_distr `Exp1`),
//! rounded to the nanosecond per gap; the first arrival is one gap after `start`. Times are
//! accumulated from the scheduled times, so a late `on_timeout` does not shift the process.
//!
//! Draw order: at `start`, the first gap. At each arrival, in this order: client
//! (`gen_range(0..clients)`), server (`gen_range(0..servers)`), request size, response size, then
//! the gap to the next arrival. Every request has `user` 0 and kind `Http`.
//!
//! Validation: `workload::tests::poisson` — count over 10,000 s at 5/s within 4σ of 50,000;
//! inter-arrival CV within 0.02 of 1; hosts in range; early/late `on_timeout`.

use super::{later, request_bytes, response_bytes, FlowKind, Request};
use crate::distribution::SizeDist;
use rand::Rng as _;
use rand_distr::Exp1;
use units::{Rng, SimDuration, SimTime};

#[derive(Clone, Debug)]
pub(super) struct Poisson {
    rate: f64,
    req: SizeDist,
    resp: SizeDist,
    clients: u32,
    servers: u32,
    /// Time of the next arrival; `None` before start or past the end of the clock.
    next: Option<SimTime>,
}

impl Poisson {
    pub(super) fn new(
        rate: f64,
        req: SizeDist,
        resp: SizeDist,
        clients: u32,
        servers: u32,
    ) -> Self {
        Poisson {
            rate,
            req,
            resp,
            clients,
            servers,
            next: None,
        }
    }

    fn gap(&self, rng: &mut Rng) -> SimDuration {
        let e: f64 = rng.sample(Exp1);
        SimDuration::from_secs_f64(e / self.rate)
    }

    pub(super) fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        let g = self.gap(rng);
        self.next = later(now, g);
        self.emit_due(now, rng, out);
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.next
    }

    pub(super) fn emit_due(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        while let Some(t) = self.next.filter(|&t| t <= now) {
            let client = rng.gen_range(0..self.clients);
            let server = rng.gen_range(0..self.servers);
            let request = request_bytes(self.req.sample(rng));
            let response = response_bytes(self.resp.sample(rng));
            out.push(Request {
                user: 0,
                client,
                server,
                request_bytes: request,
                response_bytes: response,
                kind: FlowKind::Http,
                page: 0,
                server_delay: SimDuration::ZERO,
                more: Vec::new(),
                box_rtt: None,
            });
            let g = self.gap(rng);
            self.next = later(t, g);
        }
    }
}
