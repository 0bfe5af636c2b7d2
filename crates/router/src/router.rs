//! The sans-IO router: both directions of the bottleneck, the DelayBoxes they share (the
//! topology's and the workloads' client and server boxes, `delaybox.rs`), the packet
//! counters and the queue and link monitors of the `metrics` crate, driven with router time the
//! way `crates/sim/src/run.rs` drives them (queue sample every `queue_sample`, rows every
//! `queue_interval` and `link_interval`, a snapshot of the forward counters at the warm-up's
//! end for the summary totals).
//!
//! Call order, `now` never decreasing: `offer` each packet read; `poll` each direction until it
//! returns `None`; sleep until `next_wakeup`; `finish` at the end.
//!
//! Validation: `tests/router.rs` (conservation, shared DelayBox delay, monitor rows and totals).

use crate::delaybox::DelayBox;
use crate::ipv4;
use crate::path::{Departure, Offered, Path};
use crate::report::RouterReport;
use crate::spec::RouterSpec;
use experiment::MonitorConfig;
use metrics::{DropCounts, LaneSojourns, Recorder, SummaryTotals};
use units::SimTime;

/// Direction of a packet through the router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Server side → client side (read from the server TUN).
    Fwd,
    /// Client side → server side (read from the client TUN).
    Rev,
}

/// Forward-direction counters at the end of the warm-up.
#[derive(Clone, Debug, Default)]
struct Snapshot {
    stats: aqm::QueueStats,
    tx_bytes: u64,
}

/// The sans-IO router.
pub struct Router {
    fwd: Path,
    rev: Path,
    delaybox: Option<DelayBox>,
    monitor: MonitorConfig,
    next_sample: SimTime,
    next_queue_row: SimTime,
    next_link_row: SimTime,
    warmup: SimTime,
    snapshot: Option<Snapshot>,
    rows: Recorder,
    not_ipv4: u64,
}

impl Router {
    /// Build both directions and the DelayBox of `spec`; fails on invalid parameters.
    pub fn new(spec: &RouterSpec) -> Result<Router, String> {
        let m = &spec.monitor;
        if m.queue_sample.as_nanos() == 0
            || m.queue_interval.as_nanos() == 0
            || m.link_interval.as_nanos() == 0
        {
            return Err("monitor: intervals must be positive".into());
        }
        let delaybox = if DelayBox::any(spec.delaybox.as_ref(), &spec.workload_boxes) {
            Some(DelayBox::new(
                spec.delaybox.as_ref(),
                &spec.workload_boxes,
                spec.seed,
                &spec.client_hosts,
                &spec.server_hosts,
            )?)
        } else {
            None
        };
        Ok(Router {
            fwd: Path::new(&spec.fwd, spec.seed)?,
            rev: Path::new(&spec.rev, spec.seed)?,
            delaybox,
            monitor: m.clone(),
            next_sample: SimTime::ZERO + m.queue_sample,
            next_queue_row: SimTime::ZERO + m.queue_interval,
            next_link_row: SimTime::ZERO + m.link_interval,
            warmup: SimTime::ZERO + spec.warmup,
            snapshot: None,
            rows: Recorder::default(),
            not_ipv4: 0,
        })
    }

    /// The path of direction `d`.
    pub fn path(&self, d: Direction) -> &Path {
        match d {
            Direction::Fwd => &self.fwd,
            Direction::Rev => &self.rev,
        }
    }

    fn path_mut(&mut self, d: Direction) -> &mut Path {
        match d {
            Direction::Fwd => &mut self.fwd,
            Direction::Rev => &mut self.rev,
        }
    }

    /// Offer a packet read at `now` from the side `d` leaves; `None` if it is not a usable IPv4
    /// packet (discarded, counted in `RouterReport::not_ipv4`).
    pub fn offer(&mut self, now: SimTime, d: Direction, buf: Vec<u8>) -> Option<Offered> {
        self.advance(now);
        let Ok(h) = ipv4::parse(&buf) else {
            self.not_ipv4 += 1;
            return None;
        };
        let mut buf = buf;
        buf.truncate(h.total_len as usize);
        let extra = match &mut self.delaybox {
            Some(b) => b.delay(now, &h),
            None => units::SimDuration::ZERO,
        };
        Some(self.path_mut(d).offer(now, buf, &h, extra))
    }

    /// The next packet of direction `d` due at the far side by `now`.
    pub fn poll(&mut self, now: SimTime, d: Direction) -> Option<Departure> {
        self.advance(now);
        self.path_mut(d).poll(now)
    }

    /// The earliest time the router has something to do without new input (a departure, an
    /// internal queue or link event, a monitor instant).
    pub fn next_wakeup(&self) -> SimTime {
        let mut t = self
            .next_sample
            .min(self.next_queue_row)
            .min(self.next_link_row);
        if self.snapshot.is_none() {
            t = t.min(self.warmup);
        }
        for p in [&self.fwd, &self.rev] {
            if let Some(w) = p.next_wakeup() {
                t = t.min(w);
            }
        }
        t
    }

    /// Run the monitors' instants and both paths' internal events up to `now`, in time order.
    pub fn advance(&mut self, now: SimTime) {
        loop {
            let mut t = self
                .next_sample
                .min(self.next_queue_row)
                .min(self.next_link_row);
            if self.snapshot.is_none() {
                t = t.min(self.warmup);
            }
            if t > now {
                break;
            }
            self.fwd.advance(t);
            self.rev.advance(t);
            if self.snapshot.is_none() && t == self.warmup {
                self.snapshot = Some(Snapshot {
                    stats: self.fwd.queue_stats().clone(),
                    tx_bytes: self.fwd.tx_bytes(),
                });
                self.fwd.reset_lanes();
            }
            if t == self.next_sample {
                for p in [&mut self.fwd, &mut self.rev] {
                    let q = p.queue_len();
                    p.queue_monitor().sample(q);
                }
                self.next_sample = t + self.monitor.queue_sample;
            }
            if t == self.next_queue_row {
                for p in [&mut self.fwd, &mut self.rev] {
                    let q = p.queue_len();
                    p.queue_monitor()
                        .close_interval(t.as_nanos(), q, &mut self.rows);
                }
                self.next_queue_row = t + self.monitor.queue_interval;
            }
            if t == self.next_link_row {
                for p in [&mut self.fwd, &mut self.rev] {
                    p.link_monitor()
                        .close_interval(t.as_nanos(), &mut self.rows);
                }
                self.next_link_row = t + self.monitor.link_interval;
            }
        }
        self.fwd.advance(now);
        self.rev.advance(now);
    }

    /// The DelayBoxes' connection table and counters (`None` when the run has no box).
    pub fn delaybox(&self) -> Option<&DelayBox> {
        self.delaybox.as_ref()
    }

    /// Delay-box draws so far.
    pub fn delaybox_draws(&self) -> u64 {
        self.delaybox.as_ref().map_or(0, |b| b.draws)
    }

    /// End the run at `end`: counters, queue stats, monitor rows and the forward bottleneck's
    /// totals over the measured period (zero if the run ended before the warm-up did), as
    /// `crates/sim/src/run.rs` computes them. Pacing fields are left default (the IO layer
    /// fills them).
    pub fn finish(mut self, end: SimTime) -> RouterReport {
        self.advance(end);
        let st = self.fwd.queue_stats().clone();
        let totals = match &self.snapshot {
            Some(s) => SummaryTotals {
                fwd_bytes: self.fwd.tx_bytes() - s.tx_bytes,
                bottleneck_bps: self.fwd.rate().bps,
                drops: DropCounts {
                    arrivals: st.arrivals - s.stats.arrivals,
                    early: st.early_drops - s.stats.early_drops,
                    forced: st.forced_drops - s.stats.forced_drops,
                    overflow: st.overflow_drops - s.stats.overflow_drops,
                    dequeue: st.dequeue_drops - s.stats.dequeue_drops,
                    marks: st.marks - s.stats.marks,
                },
                measured_ns: (end - self.warmup).as_nanos(),
                forced_defined: self.fwd.defines_forced_split(),
                dual_queue: self.fwd.lanes().map(LaneSojourns::summary),
            },
            None => SummaryTotals {
                bottleneck_bps: self.fwd.rate().bps,
                forced_defined: self.fwd.defines_forced_split(),
                // As the simulator: a dual queue's keys, empty, when the run ended before the warm-up.
                dual_queue: self.fwd.lanes().map(|_| LaneSojourns::default().summary()),
                ..SummaryTotals::default()
            },
        };
        let rows = std::mem::take(&mut self.rows);
        RouterReport {
            fwd: self.fwd.counters(),
            rev: self.rev.counters(),
            fwd_queue: st,
            rev_queue: self.rev.queue_stats().clone(),
            queue_rows: rows.queue,
            link_rows: rows.links,
            totals,
            fwd_link: self.fwd.name().to_string(),
            end_ns: end.as_nanos(),
            not_ipv4: self.not_ipv4,
            delaybox_draws: self.delaybox_draws(),
            delaybox_unknown_workload: self.delaybox.as_ref().map_or(0, |b| b.unknown_workload),
            delaybox_log: self
                .delaybox
                .as_mut()
                .map_or_else(Vec::new, |b| std::mem::take(&mut b.log)),
            ..RouterReport::default()
        }
    }
}
