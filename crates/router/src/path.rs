//! One direction of the emulated bottleneck: the queue discipline, a link of the scenario's
//! rate, then a fixed delay (propagation + access links) and the packet's DelayBox delay.
//! Sans-IO: every entry point takes `now` (router time, never decreasing).
//!
//! Steps follow `crates/sim/src/world.rs` (`enqueue`, `start_tx`, `Event::Queue`): an arrival is
//! offered to the discipline (CE set in the real header on `EnqueuedMarked`; FQ-CoDel's
//! evictions taken right after); when the link is idle the next packet is dequeued (dequeue-time
//! drops; CE on `dequeue_marked`), serialized for `Rate::serialization(bytes)` and released
//! `delay + access_delay + extra` after its serialization ends; the next dequeue happens at that
//! serialization end (virtual time, so a late caller does not slow the link). Periodic updates
//! run at `next_deadline()`. Internal events are processed in time order up to each `now`.
//!
//! Validation: `tests/path.rs` (exact departure times, delays, drop-tail overflow, RED and CoDel
//! marks with valid checksums, conservation after every step).

use crate::ipv4::{self, Headers};
use crate::report::PathCounters;
use crate::spec::PathSpec;
use aqm::{Discipline, DropReason, Lane, LinkInfo, PacketClass, PacketMeta, QueueDisc, Verdict};
use metrics::{LaneSojourns, LinkMonitor, QueueMonitor};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use units::{Rate, Rng, SimDuration, SimTime};

/// A packet that has left the emulated path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departure {
    /// The IP packet as it leaves (CE set if a queue marked it).
    pub buf: Vec<u8>,
    /// When it is due at the far side (end of serialization + fixed + DelayBox delay).
    pub release: SimTime,
    /// When its serialization ended.
    pub tx_end: SimTime,
    /// Number of the link's busy period it was sent in (1, 2, …; a busy period is a run of
    /// back-to-back serializations).
    pub period: u64,
}

/// A stored packet.
struct Stored {
    buf: Vec<u8>,
    /// One-way DelayBox delay of its connection.
    extra: SimDuration,
}

/// A packet on the emulated wire, ordered by (release, sequence): FIFO among equal releases.
struct OnWire {
    release: SimTime,
    seq: u64,
    dep: Departure,
}

impl PartialEq for OnWire {
    fn eq(&self, o: &Self) -> bool {
        (self.release, self.seq) == (o.release, o.seq)
    }
}
impl Eq for OnWire {}
impl PartialOrd for OnWire {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OnWire {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.release, self.seq).cmp(&(o.release, o.seq))
    }
}

/// What happened to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Stored in the queue (or straight onto the idle link).
    Queued,
    /// Queued with CE set.
    Marked,
    /// Discarded by the queue, with its reason.
    Dropped(DropReason),
}

/// One direction of the bottleneck.
pub struct Path {
    name: String,
    rate: Rate,
    /// Propagation + access delay.
    fixed_delay: SimDuration,
    disc: Discipline,
    rng: Rng,
    slots: Vec<Option<Stored>>,
    free: Vec<u32>,
    /// End of the serialization in progress, if the link is busy.
    busy_until: Option<SimTime>,
    /// Latest time processed (inputs and internal events).
    last: SimTime,
    wire: BinaryHeap<Reverse<OnWire>>,
    seq: u64,
    /// Busy periods started so far.
    periods: u64,
    counters: PathCounters,
    tx_bytes: u64,
    queue_mon: QueueMonitor,
    link_mon: LinkMonitor,
    drops: Vec<(PacketMeta, DropReason)>,
    /// A coupled dual queue's per-queue sojourns (`metrics::sojourn`; None for other queues).
    lanes: Option<LaneSojourns>,
}

impl Path {
    /// Build the direction `spec`; the discipline draws from stream `link:{name}` of `seed`
    /// (as `sim::network::Network::add_link`). Fails on invalid queue parameters.
    pub fn new(spec: &PathSpec, seed: u64) -> Result<Path, String> {
        let disc = spec
            .queue
            .build(LinkInfo {
                rate: spec.rate,
                delay: spec.delay,
            })
            .map_err(|e| format!("{}: {}: {}", spec.name, e.key, e.reason))?;
        Ok(Path {
            name: spec.name.clone(),
            rate: spec.rate,
            fixed_delay: spec.delay + spec.access_delay,
            rng: units::stream(seed, &format!("link:{}", spec.name)),
            slots: Vec::new(),
            free: Vec::new(),
            busy_until: None,
            last: SimTime::ZERO,
            wire: BinaryHeap::new(),
            seq: 0,
            periods: 0,
            counters: PathCounters::default(),
            tx_bytes: 0,
            queue_mon: QueueMonitor::new(&spec.name, 0),
            link_mon: LinkMonitor::new(&spec.name),
            drops: Vec::new(),
            lanes: disc.has_lanes().then(LaneSojourns::default),
            disc,
        })
    }

    /// Link name (`bottleneck_fwd`, `bottleneck_rev`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Propagation + access delay of this direction, ns.
    pub fn fixed_delay(&self) -> SimDuration {
        self.fixed_delay
    }

    /// Link rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Offer the IPv4 packet `buf` (headers `h`) at `now`; `extra` is its connection's one-way
    /// DelayBox delay.
    pub fn offer(
        &mut self,
        now: SimTime,
        buf: Vec<u8>,
        h: &Headers,
        extra: SimDuration,
    ) -> Offered {
        self.advance(now);
        let size = buf.len() as u32;
        self.counters.in_packets += 1;
        self.counters.in_bytes += size as u64;
        let class = match h.tcp {
            Some(t) if t.payload > 0 => PacketClass::Http,
            Some(_) => PacketClass::Control,
            None => PacketClass::Other,
        };
        let id = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(None);
                (self.slots.len() - 1) as u32
            }
        };
        self.slots[id as usize] = Some(Stored { buf, extra });
        let meta = PacketMeta {
            id,
            size_bytes: size,
            ecn: h.ecn,
            class,
            // Real TCP carries no congestion window (PISA/PIMC apply their hintless policy).
            cwnd_hint: 0,
            flow: h.flow_id(),
            enqueued_at: now,
        };
        let verdict = self.disc.enqueue(now, meta, &mut self.rng);
        let qlen = self.disc.len_packets();
        let out = match verdict {
            Verdict::Enqueued => {
                self.queue_mon.on_enqueue(qlen, false);
                Offered::Queued
            }
            Verdict::EnqueuedMarked => {
                let s = self.slots[id as usize].as_mut().expect("stored");
                debug_assert!(h.ecn.ecn_capable(), "CE mark on a non-ECT packet");
                if ipv4::set_ce(&mut s.buf) {
                    self.counters.marked_packets += 1;
                }
                self.queue_mon.on_enqueue(qlen, true);
                Offered::Marked
            }
            Verdict::Dropped(r) => {
                self.queue_mon.on_drop(r as u8, qlen);
                self.discard(id);
                Offered::Dropped(r)
            }
        };
        // Stored packets pushed out by this arrival (FQ-CoDel's fattest-flow drop).
        self.drops.clear();
        self.disc.take_evicted(&mut self.drops);
        if !self.drops.is_empty() {
            let qlen = self.disc.len_packets();
            let drops = std::mem::take(&mut self.drops);
            for (m, r) in &drops {
                self.queue_mon.on_drop(*r as u8, qlen);
                self.discard(m.id);
            }
            self.drops = drops;
        }
        if self.busy_until.is_none() {
            self.start_tx(now, true);
        }
        out
    }

    fn discard(&mut self, id: u32) {
        let s = self.slots[id as usize].take().expect("stored packet");
        self.free.push(id);
        self.counters.dropped_packets += 1;
        self.counters.dropped_bytes += s.buf.len() as u64;
    }

    /// The link is free at `t`: dequeue the next packet and put it on the wire.
    fn start_tx(&mut self, t: SimTime, after_idle: bool) {
        self.drops.clear();
        let next = self.disc.dequeue(t, &mut self.drops);
        let marked = next.is_some() && self.disc.dequeue_marked();
        let qlen = self.disc.len_packets();
        let drops = std::mem::take(&mut self.drops);
        for (m, r) in &drops {
            self.queue_mon.on_drop(*r as u8, qlen);
            self.discard(m.id);
        }
        self.drops = drops;
        let Some(m) = next else {
            self.busy_until = None;
            return;
        };
        if after_idle {
            self.periods += 1;
        }
        let mut s = self.slots[m.id as usize].take().expect("stored packet");
        self.free.push(m.id);
        if let Some(lanes) = self.lanes.as_mut() {
            // The queue the packet left, as the simulator counts it (`sim::lanes`).
            let sojourn_ns = t.as_nanos().saturating_sub(m.enqueued_at.as_nanos());
            match self.disc.dequeued_lane() {
                Some(Lane::L) => lanes.l.add(sojourn_ns),
                Some(Lane::C) => lanes.c.add(sojourn_ns),
                None => {}
            }
        }
        if marked && ipv4::set_ce(&mut s.buf) {
            self.counters.marked_packets += 1;
            self.queue_mon.on_dequeue_mark();
        }
        self.queue_mon.on_dequeue(qlen);
        self.link_mon.on_transmit(m.size_bytes);
        self.tx_bytes += m.size_bytes as u64;
        let tx_end = t + self.rate.serialization(m.size_bytes as u64);
        self.busy_until = Some(tx_end);
        let release = tx_end + self.fixed_delay + s.extra;
        self.counters.in_flight_packets += 1;
        self.counters.in_flight_bytes += s.buf.len() as u64;
        self.seq += 1;
        self.wire.push(Reverse(OnWire {
            release,
            seq: self.seq,
            dep: Departure {
                buf: s.buf,
                release,
                tx_end,
                period: self.periods,
            },
        }));
    }

    /// Run every internal event (end of a serialization, a periodic queue update) due at or
    /// before `now`, in time order.
    pub fn advance(&mut self, now: SimTime) {
        loop {
            let tx = self.busy_until.filter(|&t| t <= now);
            let upd = self.disc.next_deadline().filter(|&t| t <= now);
            match (tx, upd) {
                (None, None) => break,
                (Some(t), u) if u.is_none_or(|u| t <= u) => {
                    let t = t.max(self.last);
                    self.last = t;
                    self.start_tx(t, false);
                }
                (_, Some(u)) => {
                    let u = u.max(self.last);
                    self.last = u;
                    self.disc.on_timeout(u);
                }
                (Some(_), None) => unreachable!("covered by the guard above"),
            }
        }
        self.last = self.last.max(now);
    }

    /// The next packet due at the far side by `now`, if any.
    pub fn poll(&mut self, now: SimTime) -> Option<Departure> {
        self.advance(now);
        if self.wire.peek().is_some_and(|w| w.0.release <= now) {
            let w = self.wire.pop().expect("peeked").0;
            let n = w.dep.buf.len() as u64;
            self.counters.in_flight_packets -= 1;
            self.counters.in_flight_bytes -= n;
            self.counters.out_packets += 1;
            self.counters.out_bytes += n;
            return Some(w.dep);
        }
        None
    }

    /// The earliest time something happens without new input: a release, the end of the
    /// serialization in progress, or a periodic queue update.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        [
            self.wire.peek().map(|w| w.0.release),
            self.busy_until,
            self.disc.next_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Counters, with the queue and wire occupancy of this instant.
    pub fn counters(&self) -> PathCounters {
        let mut c = self.counters;
        c.queued_packets = self.disc.len_packets() as u64;
        c.queued_bytes = self.disc.len_bytes();
        c
    }

    /// Whether the discipline is of the RED family (seed 000's forced split defined).
    pub fn defines_forced_split(&self) -> bool {
        self.disc.defines_forced_split()
    }

    /// The discipline's counters.
    pub fn queue_stats(&self) -> &aqm::QueueStats {
        self.disc.stats()
    }

    /// Packets stored in the queue now.
    pub fn queue_len(&self) -> u32 {
        self.disc.len_packets()
    }

    /// A coupled dual queue's per-queue sojourns so far (None for other queues).
    pub fn lanes(&self) -> Option<&LaneSojourns> {
        self.lanes.as_ref()
    }

    /// Forget the per-queue sojourns counted so far (at the warm-up's end).
    pub fn reset_lanes(&mut self) {
        if let Some(l) = self.lanes.as_mut() {
            *l = LaneSojourns::default();
        }
    }

    /// Wire bytes whose transmission started so far.
    pub fn tx_bytes(&self) -> u64 {
        self.tx_bytes
    }

    /// The queue monitor (sampled and closed by the router on its monitor schedule).
    pub fn queue_monitor(&mut self) -> &mut QueueMonitor {
        &mut self.queue_mon
    }

    /// The link monitor.
    pub fn link_monitor(&mut self) -> &mut LinkMonitor {
        &mut self.link_mon
    }
}
