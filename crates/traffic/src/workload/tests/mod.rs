//! Tests of the workload state machines, one file per model. `drive` plays the engine: it opens
//! each emitted request, completes it after a test-chosen duration, and fires the workload's
//! deadlines exactly when due, in time order (completions before timers at equal times).

mod bulk;
mod cbr;
mod determinism;
mod mah;
mod onoff;
mod packmime;
mod packmime11;
mod packmime_ns2;
mod pareto_web;
mod poisson;
mod replay;
mod users;
mod validation;

use super::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(super) fn rng(name: &str) -> Rng {
    units::stream(7, name)
}

pub(super) const fn secs(s: u64) -> SimTime {
    SimTime::from_secs(s)
}

/// Run `w` from time 0 until no event remains at or before `end`. `dur(r)` is how long the
/// engine takes to complete request `r` (`None`: never completes). Returns (open time, request)
/// in emission order.
pub(super) fn drive(
    w: &mut Workload,
    rng: &mut Rng,
    end: SimTime,
    mut dur: impl FnMut(&Request) -> Option<SimDuration>,
) -> Vec<(SimTime, Request)> {
    let mut log = Vec::new();
    let mut done: BinaryHeap<Reverse<(SimTime, u64, u32)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut out = Vec::new();
    let mut record =
        |t: SimTime, out: &mut Vec<Request>, done: &mut BinaryHeap<_>, log: &mut Vec<_>| {
            for r in out.drain(..) {
                if let Some(d) = dur(&r) {
                    done.push(Reverse((t + d, seq, r.user)));
                    seq += 1;
                }
                log.push((t, r));
            }
        };
    w.start(SimTime::ZERO, rng, &mut out);
    record(SimTime::ZERO, &mut out, &mut done, &mut log);
    loop {
        let tc = done.peek().map(|Reverse((t, _, _))| *t);
        let tw = w.next_deadline();
        let t = match (tc, tw) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => break,
            },
        };
        if t > end {
            break;
        }
        if tc == Some(t) {
            let Reverse((_, _, user)) = done.pop().unwrap();
            w.on_response_complete(t, user, rng, &mut out);
        } else {
            w.on_timeout(t, rng, &mut out);
        }
        record(t, &mut out, &mut done, &mut log);
    }
    log
}

/// Times at which `user` opened connections.
pub(super) fn times_of(log: &[(SimTime, Request)], user: u32) -> Vec<SimTime> {
    log.iter()
        .filter(|(_, r)| r.user == user)
        .map(|(t, _)| *t)
        .collect()
}
