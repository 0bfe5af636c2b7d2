//! Pass-through links: a drop-tail link fed by exactly one other link is computed, not
//! simulated event by event.
//!
//! Take link `L` whose every packet comes off one link `B` (in a dumbbell: a server's access
//! link, fed only by the reverse bottleneck). `B` is a FIFO with a fixed delay, so packets reach
//! `L` in the order `B` sends them, each at a time known when `B` starts sending it. If `L` is a
//! drop-tail queue (its verdict depends only on how many packets wait), nothing but this stream
//! touches it, and no one watches it (no monitor), then when `B` starts a packet the engine
//! can at once decide `L`'s verdict, the packet's start and end on `L`, and schedule its arrival
//! at `L`'s far end: the arrival event at `L`'s near end, `L`'s end-of-transmission events and
//! their handlers are not needed. The queue discipline object still sees every enqueue and
//! dequeue at its true time (dequeues are applied lazily, before the next enqueue and at the end
//! of the run), so its statistics and the link's byte counts are the ones the event-by-event
//! engine gives.
//!
//! Order at equal times: when a packet reaches `L` at the very nanosecond a waiting packet is
//! due to start, the event-by-event engine runs whichever of the two was scheduled first:
//! the arrival was scheduled when `B` started the packet, the start when the packet before it
//! started on `L`. [`PassThrough::admit`] applies the same rule (scheduled at the same instant:
//! the arrival first). It matters only to a drop decision with the queue exactly at its limit.
//! The far-end arrival is scheduled when the engine's clock passes the packet's start on `L`
//! (the instant, and the place among that instant's events, where the event-by-event engine
//! would have scheduled it), so it keeps its place among equal-time events at the far end:
//! access links of equal rates make such ties common (a host's ACK arriving at the very
//! nanosecond its own up link finishes a packet). `crates/sim/tests/pass_through.rs` checks
//! that a run gives the same results with and without pass-through links.
//!
//! Which links qualify is decided once, before the run, from the routes between every pair of
//! hosts the workloads may connect and from the nodes where a DelayBox may hold packets (a
//! DelayBox at `L`'s near end reorders the stream): [`plan`].

use crate::network::{Link, Network, NO_ROUTE};
use aqm::{Discipline, PacketMeta, QueueDisc, Verdict};
use std::collections::VecDeque;
use units::SimTime;

/// State of one pass-through link: the packets admitted but not yet dequeued from its
/// discipline, with the time each starts transmission.
#[derive(Debug, Default)]
pub struct PassThrough {
    /// Admitted packets whose start the engine has not reached yet, in FIFO order: (start,
    /// end of transmission, packet). Their far-end arrivals are scheduled when the engine
    /// passes their start (`World::release_pass_through`), so that each arrival event takes
    /// its place among equal-time events exactly as if the link were simulated event by event.
    pub flight: VecDeque<(SimTime, SimTime, u32)>,
    /// The sequence number reserved, at the latest release, for that packet's end of
    /// transmission (the event at which the next waiting packet starts).
    pub last_release_seq: u64,
    /// Per waiting packet, in FIFO order: (start of its transmission, start of the packet
    /// before it, i.e. when the event-by-event engine would have scheduled that start).
    waiting: VecDeque<(SimTime, SimTime)>,
    /// Start of the latest packet admitted (dequeued or waiting).
    last_start: SimTime,
    /// End of the latest admitted packet's transmission: the link is busy until then.
    free_at: SimTime,
}

/// Where an admitted packet goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admitted {
    /// Start of its transmission.
    pub start: SimTime,
    /// Its last bit leaves the link.
    pub end: SimTime,
}

impl PassThrough {
    /// Apply to `link` every dequeue that happens before an arrival at `t` scheduled at
    /// `scheduled_at` (see the module doc for equal times).
    fn settle_before(&mut self, link: &mut Link, t: SimTime, scheduled_at: SimTime) {
        while let Some(&(start, scheduled)) = self.waiting.front() {
            let before = start < t || (start == t && scheduled < scheduled_at);
            if !before {
                break;
            }
            self.waiting.pop_front();
            dequeue_one(link, start);
        }
    }

    /// A packet `pkt` reaches `link` (this state's link) at `t`, its arrival scheduled at
    /// `now`: the discipline's verdict, and where the packet goes on the wire if stored.
    pub fn admit(
        &mut self,
        link: &mut Link,
        now: SimTime,
        t: SimTime,
        pkt: PacketMeta,
    ) -> (Verdict, Option<Admitted>) {
        self.settle_before(link, t, now);
        let ser = link.rate.serialization(pkt.size_bytes as u64);
        let verdict = link.disc.enqueue(t, pkt, &mut link.rng);
        if matches!(verdict, Verdict::Dropped(_)) {
            return (verdict, None);
        }
        let start = t.max(self.free_at);
        let end = start + ser;
        if start == t && self.waiting.is_empty() {
            // The link is idle: the packet goes out at once.
            dequeue_one(link, t);
        } else {
            self.waiting.push_back((start, self.last_start));
        }
        self.last_start = start;
        self.free_at = end;
        (verdict, Some(Admitted { start, end }))
    }

    /// Packets admitted that have not started transmission.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// At the end of the run: apply the dequeues at or before `end` (before `end` if the run
    /// stopped while handling an event at `end`).
    pub fn settle_at_end(&mut self, link: &mut Link, end: SimTime, stopped_early: bool) {
        while let Some(&(start, _)) = self.waiting.front() {
            if start > end || (stopped_early && start == end) {
                break;
            }
            self.waiting.pop_front();
            dequeue_one(link, start);
        }
    }
}

/// Take the head packet off `link`'s discipline at `at` and count it as sent.
fn dequeue_one(link: &mut Link, at: SimTime) {
    let mut dropped = Vec::new();
    let m = link.disc.dequeue(at, &mut dropped);
    debug_assert!(dropped.is_empty(), "drop-tail dropped at dequeue");
    match m {
        Some(m) => {
            link.tx_bytes += m.size_bytes as u64;
            link.tx_packets += 1;
        }
        None => debug_assert!(false, "pass-through: nothing to dequeue"),
    }
}

/// Which links may pass packets through (index = link): drop-tail, unmonitored, fed by exactly
/// one link, whose near end is not a DelayBox node. `pairs` are the (source, destination)
/// nodes of every packet the run may send; `box_nodes` the nodes where a DelayBox may hold a
/// packet; `monitored[l]` whether link `l` is watched. Returns, per link, its feeder.
pub fn plan(
    net: &Network,
    pairs: impl Iterator<Item = (u32, u32)>,
    box_nodes: &[bool],
    monitored: &[bool],
) -> Vec<Option<u32>> {
    const ORIGIN: u32 = u32::MAX - 1;
    const MANY: u32 = u32::MAX;
    // Per link: no feeder seen yet (None), one link, ORIGIN (a packet starts on it) or MANY.
    let mut feeder: Vec<Option<u32>> = vec![None; net.links.len()];
    let mut note = |l: u32, from: u32| {
        let f = &mut feeder[l as usize];
        *f = match *f {
            None => Some(from),
            Some(x) if x == from => Some(x),
            Some(_) => Some(MANY),
        };
    };
    for (src, dst) in pairs {
        let (mut at, mut prev) = (src, ORIGIN);
        let mut hops = 0;
        while at != dst && hops <= net.links.len() {
            let l = net.next_link(at, dst);
            if l == NO_ROUTE {
                break;
            }
            note(l, prev);
            prev = l;
            at = net.links[l as usize].to;
            hops += 1;
        }
    }
    net.links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let ok = matches!(l.disc, Discipline::DropTail(_))
                && !monitored[i]
                && !box_nodes.get(l.from as usize).copied().unwrap_or(false);
            match feeder[i] {
                Some(f) if ok && f != ORIGIN && f != MANY => Some(f),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::LinkSpec;
    use aqm::{DisciplineParams, DropTailParams, LimitUnit, PacketClass};
    use units::{Rate, SimDuration};

    fn droptail(limit: u64) -> DisciplineParams {
        DisciplineParams::DropTail(DropTailParams {
            limit,
            unit: LimitUnit::Packets,
            ns2_off_by_one: false,
        })
    }

    fn pkt(id: u32) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes: 1000,
            ect: false,
            class: PacketClass::Http,
            cwnd_hint: 0,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }

    /// One 8 Mbps drop-tail link with room for one waiting packet: 1000-byte packets take 1 ms.
    fn one_link() -> Network {
        let mut net = Network::new(2);
        net.add_link(
            LinkSpec {
                name: "l",
                from: 0,
                to: 1,
                rate: Rate::from_mbps(8),
                delay: SimDuration::ZERO,
                queue: &droptail(1),
            },
            1,
        )
        .unwrap();
        net
    }

    #[test]
    fn fifo_times_drops_and_lazy_dequeues_by_hand() {
        let mut net = one_link();
        let link = &mut net.links[0];
        let ms = SimTime::from_millis;
        let us = SimTime::from_micros;
        let mut p = PassThrough::default();
        // t = 10: idle, starts at once. t = 10.2 and 10.4: the first waits (start 11), the
        // second finds one waiting and is dropped.
        let a = p.admit(link, ms(5), ms(10), pkt(1));
        assert_eq!(a, (Verdict::Enqueued, Some(Admitted { start: ms(10), end: ms(11) })));
        assert_eq!(link.tx_packets, 1);
        let b = p.admit(link, ms(5), us(10_200), pkt(2));
        assert_eq!(b, (Verdict::Enqueued, Some(Admitted { start: ms(11), end: ms(12) })));
        let c = p.admit(link, ms(5), us(10_400), pkt(3));
        assert!(matches!(c, (Verdict::Dropped(_), None)));
        assert_eq!((link.disc.len_packets(), link.tx_packets), (1, 1));
        // t = 11.5: packet 2 started at 11, so the queue is empty again and packet 4 waits
        // until 12.
        let d = p.admit(link, ms(6), us(11_500), pkt(4));
        assert_eq!(d, (Verdict::Enqueued, Some(Admitted { start: ms(12), end: ms(13) })));
        assert_eq!((link.disc.len_packets(), link.tx_packets), (1, 2));
        // Arrival at exactly 12, when packet 4 starts: packet 4's start was scheduled at 11
        // (packet 2's start), this arrival at 11.9 > 11, so the start runs first, packet 4
        // leaves the queue, and packet 5 is stored (limit 1).
        let e = p.admit(link, us(11_900), ms(12), pkt(5));
        assert_eq!(e, (Verdict::Enqueued, Some(Admitted { start: ms(13), end: ms(14) })));
        assert_eq!(p.waiting(), 1);
        // The run ends at 12.5: packet 5 (start 13) never left the queue.
        p.settle_at_end(link, us(12_500), false);
        assert_eq!((link.disc.len_packets(), p.waiting(), link.tx_packets), (1, 1, 3));
        let st = link.disc.stats();
        assert_eq!((st.arrivals, st.dequeued), (5, 3));
        assert_eq!(link.tx_bytes, 3000);
        p.settle_at_end(link, ms(13), false);
        assert_eq!((link.disc.len_packets(), link.tx_packets), (0, 4));
    }

    #[test]
    fn equal_time_arrival_scheduled_first_sees_the_waiting_packet() {
        // As above up to packet 4 (waiting, start 12, its start scheduled at 11); packet 5
        // reaches the link at 12 but was scheduled at 10.5 < 11: it runs before packet 4's
        // start, finds the queue full and is dropped.
        let mut net = one_link();
        let link = &mut net.links[0];
        let ms = SimTime::from_millis;
        let us = SimTime::from_micros;
        let mut p = PassThrough::default();
        for (id, t) in [(1, ms(10)), (2, us(10_200)), (4, us(11_500))] {
            assert!(p.admit(link, ms(5), t, pkt(id)).1.is_some());
        }
        let e = p.admit(link, us(10_500), ms(12), pkt(5));
        assert!(matches!(e, (Verdict::Dropped(_), None)));
    }

    #[test]
    fn plan_finds_single_feeder_droptail_links_only() {
        // Hosts 0, 1 — router 2 ══ router 3 — hosts 4, 5 (access links both ways).
        let mut net = Network::new(6);
        let r = Rate::from_mbps(10);
        let d = SimDuration::from_millis(1);
        let q = droptail(50);
        let mut add = |name: &str, from, to| {
            net.add_link(
                LinkSpec {
                    name,
                    from,
                    to,
                    rate: r,
                    delay: d,
                    queue: &q,
                },
                1,
            )
            .unwrap()
        };
        let up0 = add("0up", 0, 2);
        let dn0 = add("0dn", 2, 0);
        let up1 = add("1up", 1, 2);
        let dn1 = add("1dn", 2, 1);
        let fwd = add("fwd", 2, 3);
        let rev = add("rev", 3, 2);
        let up4 = add("4up", 4, 3);
        let dn4 = add("4dn", 3, 4);
        let up5 = add("5up", 5, 3);
        let dn5 = add("5dn", 3, 5);
        net.compute_routes();
        let pairs = || [(0, 4), (4, 0), (1, 5), (5, 1), (0, 5), (5, 0)].into_iter();
        let none = vec![false; 6];
        let unmonitored = vec![false; net.links.len()];
        let p = plan(&net, pairs(), &none, &unmonitored);
        // Down access links are fed by the bottleneck of their side only; the bottlenecks have
        // several feeders; up links are where packets start.
        assert_eq!(p[dn0 as usize], Some(rev));
        assert_eq!(p[dn1 as usize], Some(rev));
        assert_eq!(p[dn4 as usize], Some(fwd));
        assert_eq!(p[dn5 as usize], Some(fwd));
        for l in [up0, up1, up4, up5, fwd, rev] {
            assert_eq!(p[l as usize], None, "link {l}");
        }
        // A DelayBox at router 2 reorders what reaches 0dn and 1dn.
        let mut boxes = vec![false; 6];
        boxes[2] = true;
        let p = plan(&net, pairs(), &boxes, &unmonitored);
        assert_eq!((p[dn0 as usize], p[dn4 as usize]), (None, Some(fwd)));
        // Host 0 talking to host 1 on the same side feeds 1dn from 0up as well.
        let p = plan(&net, pairs().chain([(0, 1)]), &none, &unmonitored);
        assert_eq!((p[dn1 as usize], p[dn0 as usize]), (None, Some(rev)));
        // A monitored link is simulated in full.
        let mut mon = unmonitored.clone();
        mon[dn4 as usize] = true;
        assert_eq!(plan(&net, pairs(), &none, &mon)[dn4 as usize], None);
    }
}
