//! Open-loop workloads drawn ahead on a second thread.
//!
//! The arrivals and sizes of a PackMime or Poisson-arrival workload are a function of its
//! configuration and its own random stream alone, never of the network
//! (`traffic::WorkloadConfig::draws_open_loop`): the engine only ever calls `start` at time zero
//! and then `on_timeout` at each deadline the workload itself announced (a pending deadline is
//! never in the past, so the engine's `max(deadline, now)` is the deadline). Those draws —
//! PackMime's FARIMA sums over 1,000–5,000 lags, Weibull and table inversions (15–19 % of the
//! seed-001 twin's engine time on one core); Poisson gaps and bounded-Pareto sizes (`powf`,
//! about 3 % of the quickstart's) — are made here by a thread that replays exactly that call
//! sequence on its own copy of the workload and stream, and hands the engine each call's
//! requests and the next deadline, in order, in batches. The engine consumes them at the same events, so the run is the same, byte
//! for byte, whatever the threads' timing (test: `prefetched_workload_is_the_inline_one`).
//!
//! Memory: at most [`BATCHES_AHEAD`] batches of [`STEPS`] calls wait in the channel. When the
//! engine stops (end of run, early stop), dropping the [`Prefetch`] closes the channel; the
//! thread's next send fails and it ends, and the drop joins it.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;
use traffic::{Request, Workload};
use units::{Rng, SimTime};

/// Workload calls per batch.
const STEPS: usize = 256;
/// Batches the thread may run ahead of the engine.
const BATCHES_AHEAD: usize = 4;

/// The requests of consecutive workload calls: call `i` emitted `reqs[ends[i-1]..ends[i]]`
/// and left `next[i]` as the next deadline.
#[derive(Default)]
struct Batch {
    reqs: Vec<Request>,
    ends: Vec<usize>,
    next: Vec<Option<SimTime>>,
}

/// A workload running ahead on its own thread (see the module doc).
pub struct Prefetch {
    rx: Option<Receiver<Batch>>,
    /// The current batch's calls (`ends`, `next`) and its requests not handed out yet.
    batch: Batch,
    reqs: std::vec::IntoIter<Request>,
    /// Next call of `batch` to hand out, and where its requests start.
    step: usize,
    req_at: usize,
    thread: Option<JoinHandle<()>>,
}

impl Prefetch {
    /// Start `workload` (not yet started) at `start` with its stream `rng` on a new thread.
    pub fn spawn(mut workload: Workload, mut rng: Rng, start: SimTime) -> Prefetch {
        let (tx, rx) = sync_channel::<Batch>(BATCHES_AHEAD);
        let thread = std::thread::Builder::new()
            .name("aqmlab-workload".into())
            .spawn(move || {
                let mut b = Batch::default();
                workload.start(start, &mut rng, &mut b.reqs);
                let mut next = workload.next_deadline();
                b.ends.push(b.reqs.len());
                b.next.push(next);
                loop {
                    let full = b.ends.len() >= STEPS || next.is_none();
                    // After the last call (no next deadline) the thread ends once it is sent.
                    if full && (tx.send(std::mem::take(&mut b)).is_err() || next.is_none()) {
                        return;
                    }
                    let d = next.expect("checked above");
                    workload.on_timeout(d, &mut rng, &mut b.reqs);
                    next = workload.next_deadline();
                    b.ends.push(b.reqs.len());
                    b.next.push(next);
                }
            })
            .expect("cannot start the workload thread");
        Prefetch {
            rx: Some(rx),
            batch: Batch::default(),
            reqs: Vec::new().into_iter(),
            step: 0,
            req_at: 0,
            thread: Some(thread),
        }
    }

    /// The next call's requests, appended to `out` (the first call is `start`'s, then one per
    /// deadline), and the deadline it left: the same as calling the workload itself.
    pub fn next_call(&mut self, out: &mut Vec<Request>) -> Option<SimTime> {
        if self.step == self.batch.ends.len() {
            let rx = self.rx.as_ref().expect("prefetch channel open");
            match rx.recv() {
                Ok(mut b) => {
                    self.reqs = std::mem::take(&mut b.reqs).into_iter();
                    self.batch = b;
                }
                // The thread ended without the final (no next deadline) call: it panicked.
                Err(_) => panic!("the workload thread stopped unexpectedly"),
            }
            self.step = 0;
            self.req_at = 0;
        }
        let end = self.batch.ends[self.step];
        // Moved, not cloned: no allocation is copied across the threads.
        out.extend(self.reqs.by_ref().take(end - self.req_at));
        self.req_at = end;
        let next = self.batch.next[self.step];
        self.step += 1;
        next
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Close the channel first: a thread blocked on a full channel then fails its send.
        drop(self.rx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use traffic::{Arrival, HttpVersion, SizeDist, WorkloadConfig};

    fn packmime(http: HttpVersion) -> Workload {
        Workload::new(WorkloadConfig::PackMime {
            rate: 300.0,
            clients: 3,
            servers: 2,
            http,
        })
        .unwrap()
    }

    fn poisson() -> Workload {
        Workload::new(WorkloadConfig::Http10 {
            arrival: Arrival::Poisson { rate: 225.0 },
            request_bytes: SizeDist::Constant { value: 300.0 },
            response_bytes: SizeDist::BoundedPareto {
                shape: 1.2,
                min: 1000.0,
                max: 2e6,
            },
            clients: 20,
            servers: 20,
        })
        .unwrap()
    }

    /// The calls handed out equal the workload's own, call by call, over many batches.
    #[test]
    fn prefetched_workload_is_the_inline_one() {
        let make: [fn() -> Workload; 3] = [
            || packmime(HttpVersion::Http10),
            || packmime(HttpVersion::Http11),
            poisson,
        ];
        for make in make {
            assert!(make().config().draws_open_loop());
            let mut inline = make();
            let mut rng = units::stream(7, "workload:0");
            let mut p = Prefetch::spawn(make(), units::stream(7, "workload:0"), SimTime::ZERO);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            inline.start(SimTime::ZERO, &mut rng, &mut a);
            let mut next_b = p.next_call(&mut b);
            let mut calls = 1;
            while calls < 3 * STEPS + 17 {
                assert_eq!(inline.next_deadline(), next_b);
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
                let d = next_b.unwrap();
                a.clear();
                b.clear();
                inline.on_timeout(d, &mut rng, &mut a);
                next_b = p.next_call(&mut b);
                calls += 1;
            }
            assert!(calls > 0 && !a.is_empty());
        }
    }

    /// Dropping a prefetch whose thread is blocked on a full channel ends the thread.
    #[test]
    fn drop_ends_a_blocked_thread() {
        let mut p = Prefetch::spawn(
            packmime(HttpVersion::Http10),
            units::stream(1, "w"),
            SimTime::ZERO,
        );
        let mut out = Vec::new();
        p.next_call(&mut out);
        std::thread::sleep(std::time::Duration::from_millis(50));
        drop(p); // would hang here if the thread kept waiting
    }
}
