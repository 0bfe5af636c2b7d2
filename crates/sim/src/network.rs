//! Nodes, unidirectional links and static routes.
//!
//! A link serializes one packet at a time at its rate (size includes the 40-byte TCP/IP header)
//! and delivers it after its propagation delay; its queue discipline sits at the sending end.
//! Routes are static shortest-hop next-link tables computed once by breadth-first search.

use aqm::{Discipline, DisciplineParams, LinkInfo, QueueDisc};
use units::{Rate, Rng, SimDuration};

/// A unidirectional link.
#[derive(Debug)]
pub struct Link {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: SimDuration,
    pub disc: Discipline,
    /// Random stream of the discipline (derived from the run seed and the link name).
    pub rng: Rng,
    /// True while a packet is being serialized.
    pub busy: bool,
    /// End of the current transmission (time, event sequence number) when nothing was queued
    /// behind it: its `TxDone` event is only scheduled if a packet arrives before then
    /// (`World::settle`), so an uncongested link costs one event per packet, not two.
    pub idle_at: Option<(units::SimTime, u64)>,
    /// Wire bytes and packets that started transmission since the start of the run.
    pub tx_bytes: u64,
    pub tx_packets: u64,
    /// Index into the engine's monitors, if this link is monitored.
    pub monitor: Option<usize>,
    /// The discipline's `marks_at_dequeue`, `evicts` and `hears_idle`, read once (the engine
    /// skips asking for dequeue-time marks and evictions on every packet of the disciplines
    /// without them, and the dequeue that finds the queue empty when the link goes idle of
    /// those to which it is nothing: drop-tail, PI, PISA, PIMC, AVQ).
    pub marks_at_dequeue: bool,
    pub evicts: bool,
    pub hears_idle: bool,
    /// The discipline's `has_lanes` (a coupled dual queue: per-queue sojourns), read once.
    pub has_lanes: bool,
}

/// A network: nodes are indices `0..nodes`; `route[node * nodes + dst]` is the link to take.
#[derive(Debug, Default)]
pub struct Network {
    pub nodes: u32,
    pub links: Vec<Link>,
    route: Vec<u32>,
}

/// What a topology builder says about a link it adds.
#[derive(Clone, Copy, Debug)]
pub struct LinkSpec<'a> {
    /// Name in monitors and outputs, e.g. `bottleneck_fwd`.
    pub name: &'a str,
    pub from: u32,
    pub to: u32,
    /// Transmission rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: SimDuration,
    /// Discipline at the sending end.
    pub queue: &'a DisciplineParams,
}

/// Marker for "no route".
pub const NO_ROUTE: u32 = u32::MAX;

impl Network {
    pub fn new(nodes: u32) -> Self {
        Network {
            nodes,
            links: Vec::new(),
            route: Vec::new(),
        }
    }

    /// Add the link `spec`; returns its index. Fails if the queue parameters are invalid.
    pub fn add_link(&mut self, spec: LinkSpec<'_>, seed: u64) -> Result<u32, aqm::ParamError> {
        let LinkSpec {
            name,
            from,
            to,
            rate,
            delay,
            queue,
        } = spec;
        let disc = queue.build(LinkInfo { rate, delay })?;
        let (marks_at_dequeue, evicts, hears_idle, has_lanes) = (
            disc.marks_at_dequeue(),
            disc.evicts(),
            disc.hears_idle(),
            disc.has_lanes(),
        );
        self.links.push(Link {
            name: name.to_string(),
            from,
            to,
            rate,
            delay,
            disc,
            rng: units::stream(seed, &format!("link:{name}")),
            busy: false,
            idle_at: None,
            tx_bytes: 0,
            tx_packets: 0,
            monitor: None,
            marks_at_dequeue,
            evicts,
            hears_idle,
            has_lanes,
        });
        Ok((self.links.len() - 1) as u32)
    }

    /// Compute shortest-hop routes between every pair of nodes (ties: lowest link index).
    pub fn compute_routes(&mut self) {
        let n = self.nodes as usize;
        self.route = vec![NO_ROUTE; n * n];
        // For each destination, BFS backwards over links.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            incoming[l.to as usize].push(i as u32);
        }
        let mut dist = vec![u32::MAX; n];
        let mut frontier = std::collections::VecDeque::new();
        for dst in 0..n {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            frontier.clear();
            frontier.push_back(dst);
            while let Some(v) = frontier.pop_front() {
                for &li in &incoming[v] {
                    let u = self.links[li as usize].from as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        self.route[u * n + dst] = li;
                        frontier.push_back(u);
                    }
                }
            }
        }
    }

    /// The link to take from `node` towards `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next_link(&self, node: u32, dst: u32) -> u32 {
        self.route[(node * self.nodes + dst) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm::DropTailParams;

    #[test]
    fn routes_follow_shortest_hops() {
        // 0 -> 1 -> 2 and 2 -> 0 directly; 3 is isolated.
        let mut n = Network::new(4);
        let q = DisciplineParams::DropTail(DropTailParams::default());
        let r = Rate::from_mbps(10);
        let d = SimDuration::from_millis(1);
        let a = n
            .add_link(
                LinkSpec {
                    name: "a",
                    from: 0,
                    to: 1,
                    rate: r,
                    delay: d,
                    queue: &q,
                },
                1,
            )
            .unwrap();
        let b = n
            .add_link(
                LinkSpec {
                    name: "b",
                    from: 1,
                    to: 2,
                    rate: r,
                    delay: d,
                    queue: &q,
                },
                1,
            )
            .unwrap();
        let c = n
            .add_link(
                LinkSpec {
                    name: "c",
                    from: 2,
                    to: 0,
                    rate: r,
                    delay: d,
                    queue: &q,
                },
                1,
            )
            .unwrap();
        n.compute_routes();
        assert_eq!(n.next_link(0, 2), a);
        assert_eq!(n.next_link(1, 2), b);
        assert_eq!(n.next_link(1, 0), b);
        assert_eq!(n.next_link(2, 1), c);
        assert_eq!(n.next_link(0, 3), NO_ROUTE);
    }
}
