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
//! The workload's own DelayBoxes (`delaybox.rs`: PackMime's `Xmit` RTTs, a FARIMA step over
//! 1,000 lags per box and connection, 5 % of the seed-001 twin's engine thread) draw once per
//! new connection in the workload's request order, also a function of their own streams
//! alone; the thread draws them too and hands them over in the request's `box_rtt` (twice the
//! one-way delay, which the engine halves: exact in integer ns), so the engine draws nothing
//! for that workload (test: `prefetched_boxes_are_the_inline_ones`).
//!
//! Memory: at most [`BATCHES_AHEAD`] batches of [`STEPS`] calls wait in the channel. When the
//! engine stops (end of run, early stop), dropping the [`Prefetch`] closes the channel; the
//! thread's next send fails and it ends, and the drop joins it.

use crate::delaybox::WorkloadBoxes;
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;
use traffic::{FlowKind, Request, Workload};
use units::{Rng, SimDuration, SimTime};

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
    /// Start `workload` (not yet started) at `start` with its stream `rng` on a new thread,
    /// which also draws the workload's `boxes` for each new connection (see the module doc).
    pub fn spawn(
        mut workload: Workload,
        mut rng: Rng,
        start: SimTime,
        mut boxes: Option<WorkloadBoxes>,
    ) -> Prefetch {
        let (tx, rx) = sync_channel::<Batch>(BATCHES_AHEAD);
        let thread = std::thread::Builder::new()
            .name("aqmlab-workload".into())
            .spawn(move || {
                let mut b = Batch::default();
                workload.start(start, &mut rng, &mut b.reqs);
                draw_boxes(&mut boxes, &mut b.reqs[..]);
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
                    let from = b.reqs.len();
                    workload.on_timeout(d, &mut rng, &mut b.reqs);
                    draw_boxes(&mut boxes, &mut b.reqs[from..]);
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

/// The DelayBox draws of the new connections `reqs`, as `World::open` would make them: one
/// per connection (not per datagram), none for a connection that brings its own RTTs.
fn draw_boxes(boxes: &mut Option<WorkloadBoxes>, reqs: &mut [Request]) {
    let Some(boxes) = boxes else { return };
    for r in reqs {
        if r.kind != FlowKind::Datagram && r.box_rtt.is_none() {
            let one_way = boxes.draw();
            r.box_rtt = Some(one_way.map(|d| SimDuration::from_nanos(d.as_nanos() * 2)));
        }
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
            let mut p =
                Prefetch::spawn(make(), units::stream(7, "workload:0"), SimTime::ZERO, None);
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

    /// The boxes drawn on the thread are the engine's own draws, connection by connection
    /// (`box_rtt` = twice the one-way delay), and a workload without boxes is not given any.
    #[test]
    fn prefetched_boxes_are_the_inline_ones() {
        use crate::config::WorkloadDelayBox;
        use crate::delaybox::DelayBoxes;
        let cfg = [
            WorkloadDelayBox::packmime(300.0),
            WorkloadDelayBox::default(),
        ];
        let mut inline_boxes = DelayBoxes::new(&cfg, 2, 5);
        let mut thread_boxes = DelayBoxes::new(&cfg, 2, 5);
        assert!(thread_boxes.take(1).is_none());
        let taken = thread_boxes.take(0);
        assert!(taken.is_some());
        let mut inline = packmime(HttpVersion::Http11);
        let mut rng = units::stream(9, "workload:0");
        let mut p = Prefetch::spawn(
            packmime(HttpVersion::Http11),
            units::stream(9, "workload:0"),
            SimTime::ZERO,
            taken,
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        inline.start(SimTime::ZERO, &mut rng, &mut a);
        let mut next = p.next_call(&mut b);
        let mut conns = 0;
        for _ in 0..2 * STEPS {
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                let [c, s] = inline_boxes.draw(0);
                let twice = |d: SimDuration| SimDuration::from_nanos(2 * d.as_nanos());
                assert_eq!(y.box_rtt, Some([twice(c), twice(s)]));
                assert!(c > SimDuration::ZERO && s > SimDuration::ZERO);
                assert_eq!(x.box_rtt, None);
                conns += 1;
            }
            let d = next.unwrap();
            a.clear();
            b.clear();
            inline.on_timeout(d, &mut rng, &mut a);
            next = p.next_call(&mut b);
        }
        assert!(conns > 100, "{conns} connections");
    }

    /// Dropping a prefetch whose thread is blocked on a full channel ends the thread.
    #[test]
    fn drop_ends_a_blocked_thread() {
        let mut p = Prefetch::spawn(
            packmime(HttpVersion::Http10),
            units::stream(1, "w"),
            SimTime::ZERO,
            None,
        );
        let mut out = Vec::new();
        p.next_call(&mut out);
        std::thread::sleep(std::time::Duration::from_millis(50));
        drop(p); // would hang here if the thread kept waiting
    }
}
