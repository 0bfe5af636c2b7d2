//! Closed-loop HTTP/1.0 browsing users (`WorkloadConfig::Http10` + `Arrival::Users`): each of
//! `users` users repeats request → (engine runs the connection) → response complete → think →
//! request, forever, one connection at a time. User u always uses client host u % clients; the
//! server is drawn uniformly per request.
//!
//! Start: user u's first request is at start + Uniform(0, E[think]) — an offset of
//! `E[think]·v` seconds with one uniform v per user, drawn for u = 0, 1, …, users−1 in that order
//! — so users do not begin in lock-step; with E[think] = 0 all begin at `start`. After
//! `on_response_complete(now, u)` the next request is at now + one think sample (seconds,
//! rounded to the nanosecond); a zero think time emits it within that same call.
//!
//! Pending requests sit in a min-heap keyed by (time, user), so equal times are emitted in user
//! order whatever the call order.
//!
//! Draw order: at `start`, the users' offsets (u ascending). At each emitted request: server
//! (`gen_range(0..servers)`), request size, response size. At each accepted completion: one
//! think sample. Stale or duplicate completions (user with no request outstanding, or u ≥
//! users) draw nothing and are ignored.
//!
//! Validation: `workload::tests::users` — constant 2 s think with instant responses gives user u
//! requests at exactly offset_u + k·2 s; offsets as drawn; stale completions ignored.

use super::{later, request_bytes, response_bytes, FlowKind, Request};
use crate::distribution::{unit, SizeDist};
use rand::Rng as _;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use units::{Rng, SimDuration, SimTime};

#[derive(Clone, Debug)]
pub(super) struct Users {
    users: u32,
    think_s: SizeDist,
    req: SizeDist,
    resp: SizeDist,
    clients: u32,
    servers: u32,
    /// Next request time per thinking user, earliest (then lowest user) first.
    pending: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// `outstanding[u]`: user u has a connection open (its request was emitted).
    outstanding: Vec<bool>,
}

impl Users {
    pub(super) fn new(
        users: u32,
        think_s: SizeDist,
        req: SizeDist,
        resp: SizeDist,
        clients: u32,
        servers: u32,
    ) -> Self {
        Users {
            users,
            think_s,
            req,
            resp,
            clients,
            servers,
            pending: BinaryHeap::with_capacity(users as usize),
            outstanding: vec![false; users as usize],
        }
    }

    pub(super) fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        let mean_think = self.think_s.mean();
        for u in 0..self.users {
            let offset = SimDuration::from_secs_f64(mean_think * unit(rng));
            if let Some(t) = later(now, offset) {
                self.pending.push(Reverse((t, u)));
            }
        }
        self.emit_due(now, rng, out);
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.pending.peek().map(|Reverse((t, _))| *t)
    }

    pub(super) fn emit_due(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        while let Some(&Reverse((t, u))) = self.pending.peek() {
            if t > now {
                break;
            }
            self.pending.pop();
            self.outstanding[u as usize] = true;
            let server = rng.gen_range(0..self.servers);
            let request = request_bytes(self.req.sample(rng));
            let response = response_bytes(self.resp.sample(rng));
            out.push(Request {
                user: u,
                client: u % self.clients,
                server,
                request_bytes: request,
                response_bytes: response,
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
        u: u32,
        rng: &mut Rng,
        out: &mut Vec<Request>,
    ) {
        match self.outstanding.get_mut(u as usize) {
            Some(o) if *o => *o = false,
            _ => return,
        }
        let think = SimDuration::from_secs_f64(self.think_s.sample(rng));
        if let Some(t) = later(now, think) {
            self.pending.push(Reverse((t, u)));
        }
        self.emit_due(now, rng, out);
    }
}
