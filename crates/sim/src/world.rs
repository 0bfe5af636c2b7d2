//! The simulation world: network, packets, connections, workloads and monitors, and the event
//! handlers that wire `tcp`, `aqm` and `traffic` together. `run.rs` builds a world from an
//! [`Experiment`](crate::Experiment) and drives the loop.
//!
//! Datagrams (CBR, ON/OFF cross traffic): a workload request of kind `FlowKind::Datagram` is
//! not a connection but one packet, sent at once from the request's server host to its client
//! host with class `Other`, `conn = DATAGRAM` and `gen` = the workload index; on delivery only
//! the workload's [`DatagramStats`] change. Datagrams get no DelayBox delay.
//!
//! DelayBox: a connection holds up to three (node, one-way delay) boxes — the topology's box
//! (dumbbell router C) and its workload's client and server boxes (`delaybox.rs`, or the
//! request's own `box_rtt` for a replayed trace) — and a packet of it that arrives at a box's
//! node is held that much longer. Each workload's
//! host indices map to nodes through its placement (`WorldParts::workload_hosts`).

use crate::conn::{AppAction, AppState, Conn, Slot, CLIENT, SERVER};
use crate::delaybox::DelayBoxes;
use crate::event::{Event, EventQueue, NOT_DELIVERED};
use crate::network::{Network, NO_ROUTE};
use crate::output::DatagramStats;
use crate::packet::{Class, Packet, PacketArena, DATAGRAM};
use crate::prefetch::Prefetch;
use crate::{DelayBoxConfig, WorkloadDelayBox};
use aqm::{DropReason, PacketMeta, QueueDisc, Verdict};
use metrics::{LaneSojourns, LinkMonitor, Observer, QueueMonitor, RequestKind, RequestRecord};
use tcp::{Ecn, Endpoint, Segment, TcpConfig};
use traffic::{FlowKind, Request, Workload};
use units::{Rng, SimDuration, SimTime};

/// Monitors attached to one link.
pub struct Monitors {
    pub link: u32,
    pub queue: QueueMonitor,
    pub bytes: LinkMonitor,
    /// A coupled dual queue's per-queue sojourns since the warm-up (None for other links).
    pub lanes: Option<LaneSojourns>,
}

/// Open connections from which the engine prefetches the memory of the next event
/// ([`World::prefetch_next`]): when their state (`Conn`, 1.9 kB each) passes the L2 cache of
/// the CPU it runs on (`cache_hint::l2_bytes`): below it the hints cost more than they save
/// (bench/HISTORY.md, "Measurements behind code choices").
fn prefetch_from_conns() -> u64 {
    (crate::cache_hint::l2_bytes() / std::mem::size_of::<Conn>()) as u64
}

/// Everything that changes during a run.
pub struct World<O: Observer> {
    pub q: EventQueue,
    pub net: Network,
    pub pkts: PacketArena,
    pub slots: Vec<Slot>,
    free_slots: Vec<u32>,
    /// Boxes of closed connections, reused by the next ones (last freed first: its memory is
    /// still in cache, and a 1.9 kB box is past glibc's per-thread cache, so a new one costs a
    /// full malloc and free). Boxed on purpose: the boxes themselves are what is reused.
    #[allow(clippy::vec_box)]
    spare_conns: Vec<Box<Conn>>,
    pub workloads: Vec<Workload>,
    wl_rngs: Vec<Rng>,
    wl_timer_at: Vec<Option<SimTime>>,
    /// Per workload: drawn ahead on a second thread (PackMime, `prefetch.rs`), with the
    /// deadline its last call left; `None`: the workload runs inline.
    wl_prefetch: Vec<Option<(Prefetch, Option<SimTime>)>>,
    /// Per workload: node of each of its client hosts, node of each of its server hosts.
    wl_hosts: Vec<(Vec<u32>, Vec<u32>)>,
    /// Per workload: datagram counters (CBR, ON/OFF).
    pub datagrams: Vec<DatagramStats>,
    delaybox_node: u32,
    delaybox: Option<DelayBoxConfig>,
    delaybox_rng: Rng,
    /// Per-workload client and server boxes.
    wl_boxes: DelayBoxes,
    /// Per node: some connection has a box with a non-zero delay there (packets arriving
    /// elsewhere skip the connection lookup on transmit).
    box_nodes: Vec<bool>,
    /// TCP settings of each workload's connections (index as `workloads`).
    wl_tcp: Vec<TcpConfig>,
    /// Base of the endpoints' seeds (BBR's random gain-cycle phase), from the run's seed.
    tcp_seed: u64,
    pub monitors: Vec<Monitors>,
    /// pcap writers (`[monitor] pcap`); `None`: nothing is recorded and nothing is spent.
    pub pcap: Option<Box<crate::pcap::Tap>>,
    pub obs: O,
    scratch_reqs: Vec<Request>,
    scratch_drops: Vec<(PacketMeta, DropReason)>,
    next_conn_id: u64,
    /// Request (exchange) ids handed out so far (`RequestRecord::id`).
    next_request_id: u64,
    open_conns: u64,
    /// [`prefetch_from_conns`] of this machine, read once.
    prefetch_from_conns: u64,
    pub peak_open: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub warmup: SimTime,
    /// Completed HTTP responses that started after the warm-up.
    pub measured_completions: u64,
}

/// Parts of a world that `run.rs` assembles.
pub struct WorldParts<O: Observer> {
    pub net: Network,
    pub client_nodes: Vec<u32>,
    pub server_nodes: Vec<u32>,
    /// Per workload: (client host nodes, server host nodes); a missing entry means
    /// (`client_nodes`, `server_nodes`).
    pub workload_hosts: Vec<(Vec<u32>, Vec<u32>)>,
    pub delaybox_node: Option<u32>,
    pub delaybox: Option<DelayBoxConfig>,
    /// Per-workload DelayBoxes (index as `workloads`).
    pub workload_boxes: Vec<WorkloadDelayBox>,
    pub workloads: Vec<Workload>,
    pub tcp: TcpConfig,
    /// Per workload: its own TCP settings; a missing or `None` entry means `tcp`.
    pub workload_tcp: Vec<Option<TcpConfig>>,
    pub seed: u64,
    pub obs: O,
    pub warmup: SimTime,
}

impl<O: Observer> World<O> {
    pub fn new(p: WorldParts<O>) -> Self {
        let n = p.workloads.len();
        let wl_boxes = DelayBoxes::new(&p.workload_boxes, n, p.seed);
        let box_nodes = vec![false; p.net.nodes as usize];
        World {
            q: EventQueue::new(),
            net: p.net,
            pkts: PacketArena::default(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            spare_conns: Vec::new(),
            wl_rngs: (0..n)
                .map(|i| units::stream(p.seed, &format!("workload:{i}")))
                .collect(),
            wl_timer_at: vec![None; n],
            wl_prefetch: (0..n).map(|_| None).collect(),
            workloads: p.workloads,
            wl_hosts: (0..n)
                .map(|i| {
                    p.workload_hosts
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| (p.client_nodes.clone(), p.server_nodes.clone()))
                })
                .collect(),
            datagrams: vec![DatagramStats::default(); n],
            delaybox_node: p.delaybox_node.unwrap_or(u32::MAX),
            delaybox: p.delaybox,
            delaybox_rng: units::stream(p.seed, "delaybox"),
            wl_boxes,
            box_nodes,
            wl_tcp: (0..n)
                .map(|i| {
                    p.workload_tcp
                        .get(i)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| p.tcp.clone())
                })
                .collect(),
            tcp_seed: p.seed ^ units::rng::fnv1a64(b"tcp"),
            monitors: Vec::new(),
            pcap: None,
            obs: p.obs,
            scratch_reqs: Vec::new(),
            scratch_drops: Vec::new(),
            next_conn_id: 0,
            next_request_id: 0,
            open_conns: 0,
            prefetch_from_conns: prefetch_from_conns(),
            peak_open: 0,
            delivered: 0,
            dropped: 0,
            warmup: p.warmup,
            measured_completions: 0,
        }
    }

    /// Dispatch one event.
    #[inline]
    pub fn handle(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::Arrive { pkt, node, .. } => self.arrive(now, pkt, node),
            Event::TxDone { link } => {
                self.net.links[link as usize].busy = false;
                self.start_tx(now, link);
            }
            Event::Endpoint { conn, gen, side } => {
                self.endpoint_timer(now, conn, gen, side as usize)
            }
            Event::App { conn, gen, side } => self.app_timer(now, conn, gen, side as usize),
            Event::Workload { w } => self.workload_timer(now, w as usize),
            Event::Queue { link } => {
                self.settle(now, link);
                let l = &mut self.net.links[link as usize];
                l.disc.on_timeout(now);
                if let Some(d) = l.disc.next_deadline() {
                    self.q.schedule(d.max(now), Event::Queue { link });
                }
            }
            // Monitoring events are handled by the run loop.
            Event::QueueSample | Event::QueueInterval | Event::LinkInterval | Event::WarmupEnd => {}
        }
    }

    // ----- packets and links -------------------------------------------------------------

    fn arrive(&mut self, now: SimTime, pkt: u32, node: u32) {
        let dst = self.pkts.get(pkt).dst;
        if node == dst {
            self.deliver(now, pkt);
            return;
        }
        let l = self.net.next_link(node, dst);
        debug_assert_ne!(l, NO_ROUTE, "no route from {node} to {dst}");
        self.enqueue(now, l, pkt);
    }

    /// Bring link `l` up to the event being handled: if its transmission ended, with nothing
    /// queued, before this event, the link went idle then. The discipline hears of it at that
    /// time (the `dequeue` that returns `None`), exactly as if the `TxDone` event had run;
    /// one to which that dequeue is nothing (`Link::hears_idle`) is not asked (quickstart: 44 %
    /// of the calls to `start_tx` were these).
    #[inline]
    fn settle(&mut self, now: SimTime, l: u32) {
        if let Some((t, seq)) = self.net.links[l as usize].idle_at {
            if self.q.is_past(t, seq) {
                self.went_idle(t, l);
                debug_assert!(!self.net.links[l as usize].busy && t <= now);
            }
        }
    }

    /// Link `l`'s transmission ended at `t` with nothing queued: it is idle from then, and
    /// its discipline hears of it if it must.
    #[inline]
    fn went_idle(&mut self, t: SimTime, l: u32) {
        let link = &mut self.net.links[l as usize];
        link.idle_at = None;
        link.busy = false;
        if link.hears_idle {
            self.start_tx(t, l);
        }
    }

    /// At the end of the run: settle every link whose transmission ended before the run
    /// stopped (at or before `end` if the run went to its end, `stopped_early` false; before
    /// the event being handled if it stopped there).
    pub fn settle_all(&mut self, end: SimTime, stopped_early: bool) {
        for l in 0..self.net.links.len() as u32 {
            if let Some((t, seq)) = self.net.links[l as usize].idle_at {
                let ended = if stopped_early {
                    self.q.is_past(t, seq)
                } else {
                    t <= end
                };
                if ended {
                    self.went_idle(t, l);
                }
            }
        }
    }

    fn enqueue(&mut self, now: SimTime, l: u32, pkt: u32) {
        self.settle(now, l);
        let p = self.pkts.get(pkt);
        let meta = PacketMeta {
            id: pkt,
            size_bytes: p.seg.wire_bytes(),
            ecn: p.seg.ecn,
            class: p.class.to_aqm(),
            cwnd_hint: p.seg.cwnd_hint,
            flow: p.conn,
            enqueued_at: now,
        };
        let link = &mut self.net.links[l as usize];
        // An idle link with nothing stored whose discipline would store the packet and hand it
        // straight back (drop-tail with room): counted by the discipline in one call and put on
        // the wire, exactly as the enqueue and dequeue below would (quickstart: 78 % of the
        // arrivals at a link).
        if !link.busy && link.disc.pass_through(&meta) {
            if let Some(m) = link.monitor {
                self.monitors[m].queue.on_enqueue(1, false);
            }
            self.transmit(now, l, meta.id, meta.size_bytes, 0);
            return;
        }
        let verdict = link.disc.enqueue(now, meta, &mut link.rng);
        let mon = link.monitor;
        match verdict {
            Verdict::Enqueued => {
                if let Some(m) = mon {
                    let qlen = link.disc.len_packets();
                    self.monitors[m].queue.on_enqueue(qlen, false);
                }
            }
            Verdict::EnqueuedMarked => {
                debug_assert!(
                    self.pkts.get(pkt).seg.ecn.ecn_capable(),
                    "CE mark on a non-ECT packet"
                );
                self.pkts.get_mut(pkt).seg.ecn = Ecn::Ce;
                if let Some(m) = mon {
                    let qlen = link.disc.len_packets();
                    self.monitors[m].queue.on_enqueue(qlen, true);
                }
            }
            Verdict::Dropped(r) => {
                if let Some(m) = mon {
                    let qlen = link.disc.len_packets();
                    self.monitors[m].queue.on_drop(r as u8, qlen);
                }
                self.pkts.free(pkt);
                self.dropped += 1;
            }
        }
        // Stored packets pushed out by this arrival (FQ-CoDel's fattest-flow drop).
        let link = &mut self.net.links[l as usize];
        self.scratch_drops.clear();
        if link.evicts {
            link.disc.take_evicted(&mut self.scratch_drops);
        }
        if !self.scratch_drops.is_empty() {
            let qlen = link.disc.len_packets();
            for (m, r) in self.scratch_drops.drain(..) {
                if let Some(mi) = link.monitor {
                    self.monitors[mi].queue.on_drop(r as u8, qlen);
                }
                self.pkts.free(m.id);
                self.dropped += 1;
            }
        }
        let link = &mut self.net.links[l as usize];
        if !link.busy {
            self.start_tx(now, l);
        } else if let Some((t, seq)) = link.idle_at {
            if link.disc.len_packets() > 0 {
                // A packet waits: the end of transmission must now run as an event, in the
                // place its sequence number gives it.
                link.idle_at = None;
                self.q.schedule_at_seq(t, seq, Event::TxDone { link: l });
            }
        }
    }

    /// The link is free: take the next packet from its discipline and put it on the wire.
    fn start_tx(&mut self, now: SimTime, l: u32) {
        let link = &mut self.net.links[l as usize];
        self.scratch_drops.clear();
        let next = link.disc.dequeue(now, &mut self.scratch_drops);
        let marked = link.marks_at_dequeue && next.is_some() && link.disc.dequeue_marked();
        let qlen = link.disc.len_packets();
        // Dequeue-time drops (CoDel, PIE, …); most dequeues have none.
        if !self.scratch_drops.is_empty() {
            for (m, r) in self.scratch_drops.drain(..) {
                if let Some(mi) = link.monitor {
                    self.monitors[mi].queue.on_drop(r as u8, qlen);
                }
                self.pkts.free(m.id);
                self.dropped += 1;
            }
        }
        let Some(m) = next else { return };
        if link.has_lanes {
            if let Some(lanes) = link.monitor.and_then(|mi| self.monitors[mi].lanes.as_mut()) {
                crate::lanes::record_departure(lanes, &link.disc, &m, now);
            }
        }
        if marked {
            debug_assert!(
                self.pkts.get(m.id).seg.ecn.ecn_capable(),
                "CE mark on a non-ECT packet"
            );
            self.pkts.get_mut(m.id).seg.ecn = Ecn::Ce;
            if let Some(mi) = link.monitor {
                self.monitors[mi].queue.on_dequeue_mark();
            }
        }
        self.transmit(now, l, m.id, m.size_bytes, qlen);
    }

    /// Put packet `pkt` (`size` wire bytes), just taken from link `l`'s discipline with `qlen`
    /// packets left stored, on the wire: the link is busy until its serialization ends, and the
    /// packet arrives at the far end after the propagation delay (and any DelayBox there).
    #[inline]
    fn transmit(&mut self, now: SimTime, l: u32, pkt: u32, size: u32, qlen: u32) {
        let link = &mut self.net.links[l as usize];
        link.busy = true;
        link.tx_bytes += size as u64;
        link.tx_packets += 1;
        if let Some(mi) = link.monitor {
            self.monitors[mi].queue.on_dequeue(qlen);
            self.monitors[mi].bytes.on_transmit(size);
        }
        let ser = link.rate.serialization(size as u64);
        let to = link.to;
        let arrival = now + ser + link.delay;
        let seq = self.q.reserve_seq();
        // `qlen` is still the backlog: nothing was stored or taken since the packet was taken.
        if qlen == 0 {
            link.idle_at = Some((now + ser, seq));
        } else {
            self.q
                .schedule_at_seq(now + ser, seq, Event::TxDone { link: l });
        }
        let arrival = self.held_in_box(pkt, to, arrival);
        if let Some(tap) = self.pcap.as_deref_mut() {
            tap.on_transmit(l, now, arrival, self.pkts.get(pkt), &self.slots);
        }
        let to_ep = if self.open_conns >= self.prefetch_from_conns {
            let p = self.pkts.get(pkt);
            if p.dst == to && p.conn != DATAGRAM {
                p.conn.wrapping_mul(2) | u32::from(p.to_server)
            } else {
                NOT_DELIVERED
            }
        } else {
            NOT_DELIVERED // no prefetching: not worth the packet's read
        };
        self.q.schedule(
            arrival,
            Event::Arrive {
                pkt,
                node: to,
                to_ep,
            },
        );
    }

    /// Ask the CPU to bring the endpoint the next event will most likely deliver a packet to
    /// into cache while this event is handled. With thousands of open connections (bench_1gbps:
    /// 7,850, 1.9 kB each) the endpoint is seldom cached, and the first read of it stalled
    /// `Endpoint::on_segment` (perf: two thirds of its samples on one load, 10 % of the
    /// engine). A hint only: nothing the run computes depends on it.
    #[inline]
    pub fn prefetch_next(&self) {
        // With a few hundred connections everything is cached already, and the hints would
        // only cost instructions (quickstart: +12 %, 1.14x the wall time).
        if self.open_conns < self.prefetch_from_conns {
            return;
        }
        if let Some(&Event::Arrive { pkt, to_ep, .. }) = self.q.peek_second_event() {
            self.pkts.prefetch(pkt);
            if let Some(slot) = self.slots.get((to_ep / 2) as usize) {
                crate::cache_hint::prefetch(slot);
            }
        }
        let Some(&Event::Arrive { pkt, to_ep, .. }) = self.q.peek_event() else {
            return;
        };
        self.pkts.prefetch(pkt);
        if to_ep == NOT_DELIVERED {
            return;
        }
        let Some(slot) = self.slots.get((to_ep / 2) as usize) else {
            return;
        };
        if let Some(c) = slot.conn.as_deref() {
            // The endpoint, and the lines `service` reads next: the wake-up times and the
            // connection's small fields (`kind` among them).
            crate::cache_hint::prefetch(&c.eps[(to_ep & 1) as usize]);
            crate::cache_hint::prefetch(&c.timer_at);
            crate::cache_hint::prefetch(&c.kind);
        }
    }

    /// When packet `pkt`, arriving at node `to` at `at`, leaves the DelayBoxes there (`at` off
    /// the boxes' nodes).
    #[inline]
    fn held_in_box(&self, pkt: u32, to: u32, mut at: SimTime) -> SimTime {
        if self.box_nodes[to as usize] && self.pkts.get(pkt).conn != DATAGRAM {
            let p = self.pkts.get(pkt);
            let s = &self.slots[p.conn as usize];
            if s.gen == p.gen && s.conn.is_some() {
                for &(node, d) in &s.boxes {
                    if node == to {
                        at += d;
                    }
                }
            }
        }
        at
    }

    /// The node after `from` on the route to `to` (a host's access router); `u32::MAX` (no
    /// node) when there is no route.
    fn first_hop(&self, from: u32, to: u32) -> u32 {
        match self.net.next_link(from, to) {
            NO_ROUTE => u32::MAX,
            l => self.net.links[l as usize].to,
        }
    }

    /// One-way propagation delay in ns along the route from `from` to `to` (link delays only).
    fn propagation(&self, from: u32, to: u32) -> u64 {
        let (mut at, mut sum) = (from, 0u64);
        while at != to {
            let l = match self.net.next_link(at, to) {
                NO_ROUTE => break,
                l => &self.net.links[l as usize],
            };
            sum = sum.saturating_add(l.delay.as_nanos());
            at = l.to;
        }
        sum
    }

    // ----- endpoints -----------------------------------------------------------------------

    fn deliver(&mut self, now: SimTime, pkt: u32) {
        // Read the packet in place (a copy of its segment costs more than the rest of this).
        let p = self.pkts.get(pkt);
        self.delivered += 1;
        if p.conn == DATAGRAM {
            let d = &mut self.datagrams[p.gen as usize];
            let bytes = p.seg.wire_bytes() as u64;
            d.delivered_packets += 1;
            d.delivered_bytes += bytes;
            if now >= self.warmup {
                d.delivered_bytes_measured += bytes;
            }
            self.pkts.free(pkt);
            return;
        }
        let (ci, side) = (p.conn, if p.to_server { SERVER } else { CLIENT });
        let slot = &mut self.slots[ci as usize];
        let live = match slot.conn.as_deref_mut() {
            Some(c) if slot.gen == p.gen => {
                c.eps[side].on_segment(now, &p.seg);
                true
            }
            // The connection is gone: the packet is delivered to a closed socket.
            _ => false,
        };
        self.pkts.free(pkt);
        if live {
            self.service(now, ci, side);
        }
    }

    /// A server delay or a client gap (HTTP/1.1) ended: let the application act, then send.
    fn app_timer(&mut self, now: SimTime, ci: u32, gen: u32, side: usize) {
        let slot = &mut self.slots[ci as usize];
        if slot.gen != gen {
            return;
        }
        let Some(c) = slot.conn.as_deref_mut() else {
            return;
        };
        if c.app.at[side] != Some(now) {
            return;
        }
        c.on_app_timer(now, side, &mut self.next_request_id);
        self.service(now, ci, side);
    }

    fn endpoint_timer(&mut self, now: SimTime, ci: u32, gen: u32, side: usize) {
        let slot = &mut self.slots[ci as usize];
        if slot.gen != gen {
            return;
        }
        let Some(c) = slot.conn.as_deref_mut() else {
            return;
        };
        if c.timer_at[side] != Some(now) {
            return; // stale: a newer wake-up is pending
        }
        c.timer_at[side] = None;
        c.eps[side].on_timeout(now);
        self.service(now, ci, side);
    }

    /// After any input to an endpoint: send what it wants to send, run the application on its
    /// events, re-arm its wake-up, and free the connection when it is over.
    fn service(&mut self, now: SimTime, ci: u32, side: usize) {
        // The application reacts first, so what it writes or closes leaves in the same segments
        // as the ACK of what it received (a server's response carries the ACK of the request; a
        // client's FIN carries the ACK of the last response byte), as in a real stack.
        let mut complete = false;
        let warmup_ns = self.warmup.as_nanos();
        loop {
            while let Some(ev) = self.slot_conn(ci).eps[side].poll_event() {
                let c = self.slots[ci as usize].conn.as_deref_mut().expect("live");
                let kind = c.kind;
                let act = c.on_app_event(now, side, ev, &mut self.next_request_id);
                if let AppAction::ResponseComplete { start_ns, last } = act {
                    if start_ns >= warmup_ns && kind == FlowKind::Http {
                        self.measured_completions += 1;
                    }
                    complete |= last;
                }
            }
            while let Some(seg) = self.slot_conn(ci).eps[side].poll_transmit(now) {
                self.send_segment(now, ci, side, seg);
            }
            // The endpoint just said nothing more can go, and nothing changes that until the
            // application acts on new events: another pass only if sending raised some (it
            // raises none today; the pass that found nothing was ≈ 2 % of the quickstart's
            // instructions).
            if !self.slot_conn(ci).eps[side].has_events() {
                break;
            }
        }
        let gen = self.slots[ci as usize].gen;
        let c = self.slot_conn(ci);
        if let Some(d) = c.eps[side].next_deadline() {
            let d = d.max(now);
            if c.timer_at[side].is_none_or(|t| d < t) {
                c.timer_at[side] = Some(d);
                self.q.set_timer(
                    ci * 2 + side as u32,
                    d,
                    Event::Endpoint {
                        conn: ci,
                        gen,
                        side: side as u8,
                    },
                );
            }
        }
        let c = self.slots[ci as usize].conn.as_deref_mut().expect("live");
        if std::mem::take(&mut c.app.unscheduled[side]) {
            if let Some(t) = c.app.at[side] {
                let ev = Event::App {
                    conn: ci,
                    gen,
                    side: side as u8,
                };
                self.q.schedule(t, ev);
            }
        }
        if !c.app.done.is_empty() {
            let mut done = std::mem::take(&mut c.app.done);
            for r in done.drain(..) {
                self.obs.on_request(r);
            }
            self.slot_conn(ci).app.done = done;
        }
        if complete {
            self.notify_workload(now, ci);
        }
        if self.slot_conn(ci).finished() {
            self.close_conn(now, ci);
        }
    }

    #[inline]
    fn slot_conn(&mut self, ci: u32) -> &mut Conn {
        self.slots[ci as usize]
            .conn
            .as_deref_mut()
            .expect("live connection")
    }

    fn send_segment(&mut self, now: SimTime, ci: u32, side: usize, seg: Segment) {
        let gen = self.slots[ci as usize].gen;
        let c = self.slot_conn(ci);
        let (src, dst) = if side == CLIENT {
            (c.client_node, c.server_node)
        } else {
            (c.server_node, c.client_node)
        };
        let class = if seg.len == 0 {
            Class::Control
        } else if c.kind == FlowKind::Bulk {
            Class::Bulk
        } else {
            Class::Http
        };
        let pkt = self.pkts.alloc(Packet {
            seg,
            conn: ci,
            gen,
            to_server: side == CLIENT,
            dst,
            class,
        });
        let l = self.net.next_link(src, dst);
        self.enqueue(now, l, pkt);
    }

    fn notify_workload(&mut self, now: SimTime, ci: u32) {
        let c = self.slot_conn(ci);
        if c.notified {
            return;
        }
        c.notified = true;
        let (w, user) = (c.workload as usize, c.user);
        let mut reqs = std::mem::take(&mut self.scratch_reqs);
        self.workloads[w].on_response_complete(now, user, &mut self.wl_rngs[w], &mut reqs);
        self.open_requests(now, w, &mut reqs);
        self.scratch_reqs = reqs;
        self.arm_workload(now, w);
    }

    fn close_conn(&mut self, now: SimTime, ci: u32) {
        self.notify_workload(now, ci);
        let slot = &mut self.slots[ci as usize];
        let mut c = slot.conn.take().expect("live connection");
        slot.gen = slot.gen.wrapping_add(1);
        self.q.cancel_timer(ci * 2);
        self.q.cancel_timer(ci * 2 + 1);
        self.free_slots.push(ci);
        self.open_conns -= 1;
        if let Some(r) = c.finalize_record(now) {
            self.obs.on_request(r);
        }
        self.spare_conns.push(c);
    }

    /// End of run: write the records of connections still open.
    pub fn close_all(&mut self, now: SimTime) {
        for i in 0..self.slots.len() {
            if let Some(mut c) = self.slots[i].conn.take() {
                if let Some(r) = c.finalize_record(now) {
                    self.obs.on_request(r);
                }
            }
        }
    }

    // ----- workloads -----------------------------------------------------------------------

    /// Start every workload at time zero. Open-loop workloads that draw (PackMime, Poisson
    /// arrivals: `WorkloadConfig::draws_open_loop`) start on a thread of their own that draws
    /// ahead (`prefetch.rs`); the others run inline.
    pub fn start_workloads(&mut self, now: SimTime) {
        for w in 0..self.workloads.len() {
            let mut reqs = std::mem::take(&mut self.scratch_reqs);
            if self.workloads[w].config().draws_open_loop() {
                let rng = std::mem::replace(&mut self.wl_rngs[w], units::stream(0, "unused"));
                let boxes = self.wl_boxes.take(w);
                let mut p = Prefetch::spawn(self.workloads[w].clone(), rng, now, boxes);
                let next = p.next_call(&mut reqs);
                self.wl_prefetch[w] = Some((p, next));
            } else {
                self.workloads[w].start(now, &mut self.wl_rngs[w], &mut reqs);
            }
            self.open_requests(now, w, &mut reqs);
            self.scratch_reqs = reqs;
            self.arm_workload(now, w);
        }
    }

    fn workload_timer(&mut self, now: SimTime, w: usize) {
        if self.wl_timer_at[w] != Some(now) {
            return;
        }
        self.wl_timer_at[w] = None;
        let mut reqs = std::mem::take(&mut self.scratch_reqs);
        match &mut self.wl_prefetch[w] {
            // The deadline just reached is the one the last call left (never in the past).
            Some((p, next)) => *next = p.next_call(&mut reqs),
            None => self.workloads[w].on_timeout(now, &mut self.wl_rngs[w], &mut reqs),
        }
        self.open_requests(now, w, &mut reqs);
        self.scratch_reqs = reqs;
        self.arm_workload(now, w);
    }

    fn arm_workload(&mut self, now: SimTime, w: usize) {
        let deadline = match &self.wl_prefetch[w] {
            Some((_, next)) => *next,
            None => self.workloads[w].next_deadline(),
        };
        if let Some(d) = deadline {
            let d = d.max(now);
            if self.wl_timer_at[w].is_none_or(|t| d < t) {
                self.wl_timer_at[w] = Some(d);
                self.q.schedule(d, Event::Workload { w: w as u32 });
            }
        }
    }

    fn open_requests(&mut self, now: SimTime, w: usize, reqs: &mut Vec<Request>) {
        for r in reqs.drain(..) {
            self.open(now, w, r);
        }
    }

    /// Send one datagram of `r.response_bytes` wire bytes from the server host of `r` to its
    /// client host (workload `w`; no connection, no DelayBox).
    fn send_datagram(&mut self, now: SimTime, w: usize, r: &Request) {
        let (src, dst) = (
            self.wl_hosts[w].1[r.server as usize],
            self.wl_hosts[w].0[r.client as usize],
        );
        let wire = r.response_bytes as u32;
        let seg = Segment {
            len: wire - units::TCPIP_HEADER_BYTES,
            ..Segment::default()
        };
        debug_assert_eq!(seg.wire_bytes(), wire);
        let d = &mut self.datagrams[w];
        d.sent_packets += 1;
        d.sent_bytes += wire as u64;
        let pkt = self.pkts.alloc(Packet {
            seg,
            conn: DATAGRAM,
            gen: w as u32,
            to_server: false,
            dst,
            class: Class::Other,
        });
        let l = self.net.next_link(src, dst);
        self.enqueue(now, l, pkt);
    }

    /// Open one connection for request `r` of workload `w`.
    fn open(&mut self, now: SimTime, w: usize, r: Request) {
        if r.kind == FlowKind::Datagram {
            self.send_datagram(now, w, &r);
            return;
        }
        let extra_rtt = match &self.delaybox {
            None => SimDuration::ZERO,
            Some(DelayBoxConfig::Distribution { rtt_s }) => {
                SimDuration::from_secs_f64(rtt_s.sample(&mut self.delaybox_rng))
            }
            Some(DelayBoxConfig::Matrix { rtt }) => rtt[r.client as usize][r.server as usize],
        };
        let extra_one_way = SimDuration::from_nanos(extra_rtt.as_nanos() / 2);
        let client_node = self.wl_hosts[w].0[r.client as usize];
        let server_node = self.wl_hosts[w].1[r.server as usize];
        // A replayed connection brings its own box RTTs, and a workload drawn ahead on its own
        // thread the RTTs that thread drew from its boxes (`prefetch.rs`); otherwise the
        // workload's boxes draw now.
        let [client_box, server_box] = match r.box_rtt {
            Some(rtt) => rtt.map(|x| SimDuration::from_nanos(x.as_nanos() / 2)),
            None => self.wl_boxes.draw(w),
        };
        let boxes = [
            (self.delaybox_node, extra_one_way),
            (self.first_hop(client_node, server_node), client_box),
            (self.first_hop(server_node, client_node), server_box),
        ];
        for &(node, d) in &boxes {
            if d > SimDuration::ZERO && (node as usize) < self.box_nodes.len() {
                self.box_nodes[node as usize] = true;
            }
        }
        // Saturating: a sampled RTT may be huge (a heavy-tailed distribution); the sum must
        // never wrap around (units::time's module doc).
        let held = boxes
            .iter()
            .fold(0u64, |a, b| a.saturating_add(b.1.as_nanos()));
        let base_rtt = SimDuration::from_nanos(
            self.propagation(client_node, server_node)
                .saturating_add(self.propagation(server_node, client_node))
                .saturating_add(held.saturating_mul(2)),
        );
        let id = self.next_conn_id;
        self.next_conn_id += 1;
        let mut client = Endpoint::connect(self.wl_tcp[w].clone(), now);
        if r.request_bytes > 0 {
            client.send(r.request_bytes);
        }
        // The endpoints' random choices (BBR's gain-cycle phase): one stream per connection.
        let tcp_seed = self.tcp_seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        client.set_seed(tcp_seed);
        let mut server = Endpoint::listen(self.wl_tcp[w].clone());
        server.set_seed(tcp_seed.rotate_left(32));
        let conn = Conn {
            eps: [client, server],
            timer_at: [None, None],
            done: [false, false],
            aborted: false,
            client_node,
            server_node,
            workload: w as u32,
            user: r.user,
            kind: r.kind,
            responded: false,
            completed: false,
            notified: false,
            app: AppState::new(r.server_delay, r.more, r.request_bytes, r.response_bytes),
            record: RequestRecord {
                id: self.next_request_id,
                conn_id: id,
                exchange: 0,
                workload: w as u32,
                page: r.page,
                kind: if r.kind == FlowKind::Bulk {
                    RequestKind::Bulk
                } else {
                    RequestKind::Http
                },
                client: r.client,
                server: r.server,
                start_ns: now.as_nanos(),
                end_ns: now.as_nanos(),
                request_bytes: r.request_bytes,
                response_bytes: r.response_bytes,
                server_delay_ns: r.server_delay.as_nanos(),
                base_rtt_ns: base_rtt.as_nanos(),
                completed: false,
                ..Default::default()
            },
        };
        let ci = match self.free_slots.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let conn = match self.spare_conns.pop() {
            Some(mut b) => {
                *b = conn;
                b
            }
            None => Box::new(conn),
        };
        self.slots[ci as usize].conn = Some(conn);
        self.slots[ci as usize].boxes = boxes;
        self.next_request_id += 1;
        self.open_conns += 1;
        self.peak_open = self.peak_open.max(self.open_conns);
        self.service(now, ci, CLIENT);
        // One-way agents (`handshake = false`): the server is ESTABLISHED already, with
        // `Connected` pending, and sends at once.
        if !self.wl_tcp[w].handshake {
            self.service(now, ci, SERVER);
        }
    }

    pub fn connections_opened(&self) -> u64 {
        self.next_conn_id
    }
}
