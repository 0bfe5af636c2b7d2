//! FQ-CoDel — FlowQueue-CoDel, as RFC 8290 (Hoeiland-Joergensen, McKenney, Taht, Gettys,
//! Dumazet 2018) §4-5.
//!
//! Arriving packets are hashed by flow (`PacketMeta::flow`, the connection index) into one of
//! `flows` queues. Each queue runs its own CoDel state machine (RFC 8289, the
//! [`CodelVars`] of `codel.rs`) and is scheduled by byte-based deficit round robin with two
//! lists (§4.2): a queue that becomes active is appended to the *new* list with `quantum` bytes
//! of credit; dequeue serves the head of the new list, else of the old list; a queue whose
//! credit is ≤ 0 ("it has already dequeued at least a quantum of bytes") gets `quantum` more and
//! moves to the tail of the old list; the dequeued packet's size is taken from the credit; a
//! queue found empty moves from the new list to the tail of the old list, or leaves the old list
//! (inactive until its next packet). When the total number of stored packets exceeds `limit`,
//! the head packet of the queue with the most bytes is dropped (§4.1, "fattest queue").
//!
//! Choices and deviations (named here, tested below):
//! - Hash: deterministic Fibonacci hashing, `bucket = ((flow · 0x9E3779B97F4A7C15) mod 2⁶⁴ >>
//!   32) mod flows` ([`flow_bucket`]); Linux hashes the 5-tuple with a random perturbation.
//!   Different flows can share a bucket (as in the RFC); with 1024 buckets that is rare.
//! - CoDel's "at most one MTU queued: no drop" guard reads the whole FQ-CoDel backlog, as
//!   Linux `fq_codel` does (the RFC does not say); a per-queue guard would never drop from many
//!   flows holding one packet each.
//! - Overflow drops one head packet from the fattest queue per excess arrival (the RFC's rule);
//!   Linux drops up to half of that queue in one batch. The victim is reported to the engine
//!   through [`QueueDisc::take_evicted`] and counted as the arrival's overflow drop (class of
//!   the victim); if the victim is the arrival itself it is a plain `Overflow` verdict.
//! - ECN as CoDel's (mark instead of drop at dequeue; `ecn` default false here, Linux turns it
//!   on by default).
//!
//! Read RFC 8290 §4 and `codel.rs` before editing.
//!
//! Validation: tests below — `drr_byte_shares_with_different_packet_sizes` (exact service order
//! by hand, then byte shares within one quantum), `new_flow_is_served_first`,
//! `empty_queue_leaves_lists_and_returns_as_new`, `overflow_drops_head_of_fattest_flow`,
//! `single_flow_drops_like_codel`, `hash_is_stable`, `bad_parameters_name_their_key`;
//! closed loop (Jain index over flows with different RTTs; evictions freed by the engine,
//! `fq_codel_evictions_are_conserved`) in `crates/sim/tests/aqm_modern.rs`.

use crate::codel::check_interval;
use crate::codel::{CodelConfig, CodelVars, HeadQueue};
use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::fifo::Fifo;
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use crate::stats::QueueStats;
use std::collections::VecDeque;
use units::{Rng, SimDuration, SimTime};

/// FQ-CoDel parameters (RFC 8290 §5 and Linux `fq_codel` defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// CoDel target per queue. Default 5 ms (RFC 8290 §5.2.1, as RFC 8289); > 0.
    pub target: SimDuration,
    /// CoDel interval per queue. Default 100 ms (RFC 8290 §5.2.2); > `target`.
    pub interval: SimDuration,
    /// Number of flow queues (hash buckets). Default 1024 (RFC 8290 §5.1, Linux); ≥ 1.
    pub flows: u32,
    /// DRR credit added per round, bytes. Default 1514 (RFC 8290 §5.1: one Ethernet MTU with
    /// its header); ≥ 1.
    pub quantum: u32,
    /// Total stored packets over all queues. Default 10240 (RFC 8290 §5.3, Linux); ≥ 1.
    pub limit: u64,
    /// CoDel's MAXPACKET guard over the whole backlog, bytes. Default 1500; ≥ 1.
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping at dequeue (RFC 8290 §5.4 via RFC 8289).
    /// Default false (Linux: true).
    pub ecn: bool,
}

impl Default for FqCodelParams {
    /// RFC 8290 / Linux; sources in [`MODEL`].
    fn default() -> Self {
        FqCodelParams {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            flows: 1024,
            quantum: 1514,
            limit: 10240,
            mtu: 1500,
            ecn: false,
        }
    }
}

/// FQ-CoDel's scenario keys (`kind = "fq_codel"`): the single declaration of each parameter.
pub const MODEL: Model<FqCodelParams> = Model {
    kind: "fq_codel",
    title: "FQ-CoDel, RFC 8290 (DRR over hashed flow queues, CoDel per queue)",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: FqCodelParams::validate,
    wrap: DisciplineParams::FqCodel,
};

const KEYS: [Param<FqCodelParams>; 7] = [
    Param {
        key: "target",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "CoDel target per queue",
        source: "RFC 8290 §5.2.1",
        access: field!(target),
    },
    Param {
        key: "interval",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Cross("> target"),
        doc: "CoDel interval per queue",
        source: "RFC 8290 §5.2.2",
        access: field!(interval),
    },
    Param {
        key: "flows",
        syntax: Syntax::Integer(u32::MAX as u64),
        unit: "queues",
        range: Range::AtLeast(1.0),
        doc: "Number of flow queues (hash buckets)",
        source: "RFC 8290 §5.1; Linux",
        access: field!(flows),
    },
    Param {
        key: "quantum",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "DRR credit added per round",
        source: "RFC 8290 §5.1 (MTU + Ethernet header)",
        access: field!(quantum),
    },
    Param {
        key: "mtu",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "CoDel's MAXPACKET guard over the whole backlog",
        source: "RFC 8289 MAXPACKET = one MTU",
        access: field!(mtu),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("FQ-CoDel's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Total stored packets over all queues",
        source: "RFC 8290 §5.3; Linux",
        access: field!(limit),
    },
    Param {
        key: "ecn",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Mark ECN-capable packets instead of dropping at dequeue",
        source: "aqmlab: ECN is opt-in (Linux: on)",
        access: field!(ecn),
    },
];

impl FqCodelParams {
    /// The declared ranges ([`MODEL`]), then `interval > target`.
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)?;
        check_interval(self.target, self.interval)
    }
}

/// Bucket of `flow` among `flows` queues: Fibonacci hashing (see the module documentation).
pub fn flow_bucket(flow: u32, flows: u32) -> u32 {
    let h = (flow as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    (h % flows as u64) as u32
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct FlowQueue {
    fifo: Fifo,
    vars: CodelVars,
    deficit: i64,
    list: List,
}

/// One flow queue seen by CoDel: pops update the FQ-CoDel totals; the MTU guard reads the
/// total backlog.
struct FlowView<'a> {
    fifo: &'a mut Fifo,
    total_bytes: &'a mut u64,
    total_pkts: &'a mut u64,
}

impl HeadQueue for FlowView<'_> {
    fn pop(&mut self) -> Option<PacketMeta> {
        let p = self.fifo.pop()?;
        *self.total_bytes -= p.size_bytes as u64;
        *self.total_pkts -= 1;
        Some(p)
    }
    fn backlog_bytes(&self) -> u64 {
        *self.total_bytes
    }
}

/// FQ-CoDel (see the module documentation).
#[derive(Clone, Debug)]
pub struct FqCodel {
    params: FqCodelParams,
    cfg: CodelConfig,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    total_bytes: u64,
    total_pkts: u64,
    evicted: Vec<(PacketMeta, DropReason)>,
    last_marked: bool,
    stats: QueueStats,
}

impl FqCodel {
    /// Validate `params` and build the queues.
    pub fn new(params: FqCodelParams) -> Result<Self, ParamError> {
        params.validate()?;
        let cfg = CodelConfig {
            target: params.target,
            interval: params.interval,
            mtu: params.mtu,
            ecn: params.ecn,
        };
        let q = FlowQueue {
            fifo: Fifo::default(),
            vars: CodelVars::default(),
            deficit: 0,
            list: List::None,
        };
        Ok(FqCodel {
            queues: vec![q; params.flows as usize],
            params,
            cfg,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            total_bytes: 0,
            total_pkts: 0,
            evicted: Vec::new(),
            last_marked: false,
            stats: QueueStats::default(),
        })
    }

    /// Packets stored in the queue of `bucket`.
    pub fn bucket_len(&self, bucket: u32) -> usize {
        self.queues[bucket as usize].fifo.len()
    }
    /// DRR credit of the queue of `bucket`, bytes.
    pub fn deficit(&self, bucket: u32) -> i64 {
        self.queues[bucket as usize].deficit
    }
    /// Buckets on the new and old lists, head first.
    pub fn lists(&self) -> (Vec<u32>, Vec<u32>) {
        (
            self.new_flows.iter().copied().collect(),
            self.old_flows.iter().copied().collect(),
        )
    }

    /// Index of the queue with the most bytes (lowest index on ties).
    fn fattest(&self) -> usize {
        let mut best = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.fifo.bytes() > self.queues[best].fifo.bytes() {
                best = i;
            }
        }
        best
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, _rng: &mut Rng) -> Verdict {
        self.stats.arrivals += 1;
        let b = flow_bucket(pkt.flow, self.params.flows) as usize;
        let q = &mut self.queues[b];
        q.fifo.push(now, pkt);
        self.total_bytes += pkt.size_bytes as u64;
        self.total_pkts += 1;
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.params.quantum as i64;
            self.new_flows.push_back(b as u32);
        }
        if self.total_pkts > self.params.limit {
            let f = self.fattest();
            let victim = self.queues[f]
                .fifo
                .pop()
                .expect("fattest queue holds a packet");
            self.total_bytes -= victim.size_bytes as u64;
            self.total_pkts -= 1;
            self.stats.count_drop(victim.class, DropReason::Overflow);
            if victim.id == pkt.id && f == b {
                return Verdict::Dropped(DropReason::Overflow);
            }
            // The arrival takes over the victim's place (and its `enqueued` count).
            self.evicted.push((victim, DropReason::Overflow));
            return Verdict::Enqueued;
        }
        self.stats.enqueued += 1;
        Verdict::Enqueued
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        self.last_marked = false;
        loop {
            let (b, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&b), _) => (b, true),
                (None, Some(&b)) => (b, false),
                (None, None) => return None,
            };
            let q = &mut self.queues[b as usize];
            if q.deficit <= 0 {
                q.deficit += self.params.quantum as i64;
                q.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(b);
                continue;
            }
            let mut view = FlowView {
                fifo: &mut q.fifo,
                total_bytes: &mut self.total_bytes,
                total_pkts: &mut self.total_pkts,
            };
            let (p, marked) = q
                .vars
                .dequeue(&self.cfg, now, &mut view, &mut self.stats, dropped);
            match p {
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        self.old_flows.push_back(b);
                        q.list = List::Old;
                    } else {
                        self.old_flows.pop_front();
                        q.list = List::None;
                    }
                }
                Some(p) => {
                    q.deficit -= p.size_bytes as i64;
                    self.stats.dequeued += 1;
                    self.last_marked = marked;
                    return Some(p);
                }
            }
        }
    }

    fn dequeue_marked(&self) -> bool {
        self.last_marked
    }
    fn take_evicted(&mut self, out: &mut Vec<(PacketMeta, DropReason)>) {
        out.append(&mut self.evicted);
    }
    fn marks_at_dequeue(&self) -> bool {
        true
    }
    fn evicts(&self) -> bool {
        true
    }
    fn len_packets(&self) -> u32 {
        self.total_pkts as u32
    }
    fn len_bytes(&self) -> u64 {
        self.total_bytes
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketClass};

    fn pkt(id: u32, flow: u32, size: u32) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes: size,
            ecn: Ecn::NotEct,
            class: PacketClass::Bulk,
            cwnd_hint: 0,
            flow,
            enqueued_at: SimTime::ZERO,
        }
    }
    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    fn fq(p: FqCodelParams) -> (FqCodel, Rng) {
        (FqCodel::new(p).unwrap(), units::stream(1, "fq"))
    }

    #[test]
    fn hash_is_stable() {
        // 1·0x9E3779B97F4A7C15 >> 32 = 0x9E3779B9; its low 10 bits 0x1B9 = 441.
        assert_eq!(flow_bucket(1, 1024), 441);
        assert_eq!(flow_bucket(0, 1024), 0);
        // 2·0x9E3779B97F4A7C15 wraps to 0x3C6EF372FE94F82A; >> 32 = 0x3C6EF372; 0x372 = 882.
        assert_eq!(flow_bucket(2, 1024), 882);
        assert_eq!(flow_bucket(7, 1), 0);
    }

    /// Flow 1 sends 1500-byte packets, flow 2 500-byte ones, both backlogged, quantum 1514.
    /// By hand: flow 1 (credit 1514) sends 2 (1514 → 14 → −1486), refills to 28 and goes to
    /// the old list; flow 2 sends 4 (1514 → 1014 → 514 → 14 → −486), refills to 1028; then
    /// round robin on the old list: flow 1 one packet (28 → −1472, refill 42), flow 2 three
    /// (1028 → −472, refill 1042), flow 1 one (42 → −1458), flow 2 three, …
    #[test]
    fn drr_byte_shares_with_different_packet_sizes() {
        let (mut q, mut rng) = fq(FqCodelParams::default());
        let (a, b) = (flow_bucket(1, 1024), flow_bucket(2, 1024));
        assert_ne!(a, b);
        for i in 0..1000 {
            q.enqueue(ms(0), pkt(i, 1, 1500), &mut rng);
            q.enqueue(ms(0), pkt(10_000 + i, 2, 500), &mut rng);
        }
        let mut d = Vec::new();
        let order: Vec<u32> = (0..15)
            .map(|_| q.dequeue(ms(0), &mut d).unwrap().flow)
            .collect();
        assert_eq!(order, [1, 1, 2, 2, 2, 2, 1, 2, 2, 2, 1, 2, 2, 2, 1]);
        assert_eq!(q.deficit(a), -1444);
        // Over many rounds each flow gets `quantum` bytes per round: at any point the bytes
        // sent differ by less than one quantum plus one large packet.
        let (mut ba, mut bb) = (7500i64, 5000i64);
        for _ in 0..1200 {
            let p = q.dequeue(ms(0), &mut d).unwrap();
            if p.flow == 1 {
                ba += p.size_bytes as i64;
            } else {
                bb += p.size_bytes as i64;
            }
            assert!((ba - bb).abs() < 1514 + 1500, "{ba} vs {bb}");
        }
        assert!(d.is_empty());
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    /// A backlogged flow has used its quantum; a packet of a new flow arrives and is sent
    /// next, ahead of the backlog.
    #[test]
    fn new_flow_is_served_first() {
        let (mut q, mut rng) = fq(FqCodelParams::default());
        let mut d = Vec::new();
        for i in 0..10 {
            q.enqueue(ms(0), pkt(i, 1, 1500), &mut rng);
        }
        for _ in 0..2 {
            assert_eq!(q.dequeue(ms(0), &mut d).unwrap().flow, 1);
        }
        q.enqueue(ms(1), pkt(100, 3, 100), &mut rng);
        let (newl, _) = q.lists();
        assert_eq!(newl, vec![flow_bucket(1, 1024), flow_bucket(3, 1024)]);
        assert_eq!(q.dequeue(ms(1), &mut d).unwrap().id, 100);
        assert_eq!(q.dequeue(ms(1), &mut d).unwrap().flow, 1);
    }

    /// A sparse flow's queue, once empty, moves from the new list to the old list, then leaves
    /// the lists when found empty there; its next packet makes it new again with a full quantum.
    #[test]
    fn empty_queue_leaves_lists_and_returns_as_new() {
        let (mut q, mut rng) = fq(FqCodelParams::default());
        let mut d = Vec::new();
        let c = flow_bucket(3, 1024);
        q.enqueue(ms(0), pkt(1, 3, 100), &mut rng);
        assert_eq!(q.dequeue(ms(0), &mut d).unwrap().id, 1);
        assert_eq!(q.deficit(c), 1414);
        assert_eq!(q.lists(), (vec![c], vec![]));
        // Next dequeue: empty new queue → old list; empty old queue → removed; nothing left.
        assert!(q.dequeue(ms(0), &mut d).is_none());
        assert_eq!(q.lists(), (vec![], vec![]));
        q.enqueue(ms(2), pkt(2, 3, 100), &mut rng);
        assert_eq!(q.lists(), (vec![c], vec![]));
        assert_eq!(q.deficit(c), 1514);
    }

    #[test]
    fn overflow_drops_head_of_fattest_flow() {
        // limit 6: flow 1 has 2 × 1500 B = 3000 B, flow 2 has 4 × 500 B = 2000 B (more packets,
        // fewer bytes). A seventh packet (flow 2) → drop flow 1's head (id 0).
        let (mut q, mut rng) = fq(FqCodelParams {
            limit: 6,
            ..Default::default()
        });
        q.enqueue(ms(0), pkt(0, 1, 1500), &mut rng);
        q.enqueue(ms(0), pkt(1, 1, 1500), &mut rng);
        for i in 2..6 {
            q.enqueue(ms(0), pkt(i, 2, 500), &mut rng);
        }
        let mut ev = Vec::new();
        q.take_evicted(&mut ev);
        assert!(ev.is_empty());
        assert_eq!(
            q.enqueue(ms(1), pkt(6, 2, 500), &mut rng),
            Verdict::Enqueued
        );
        q.take_evicted(&mut ev);
        assert_eq!(ev.len(), 1);
        assert_eq!((ev[0].0.id, ev[0].1), (0, DropReason::Overflow));
        assert_eq!(q.len_packets(), 6);
        assert_eq!(q.len_bytes(), 1500 + 5 * 500);
        assert_eq!(q.bucket_len(flow_bucket(2, 1024)), 5);
        let s = q.stats();
        assert_eq!((s.arrivals, s.enqueued, s.overflow_drops), (7, 6, 1));
        s.check_identities(6).unwrap();
        // A flow-2 arrival makes flow 2 the fattest (3000 B vs 1500 B): its head (id 2) goes.
        q.enqueue(ms(2), pkt(7, 2, 500), &mut rng);
        ev.clear();
        q.take_evicted(&mut ev);
        assert_eq!(ev[0].0.id, 2);
        // limit 1, one flow: the older head is dropped and the arrival stays.
        let (mut q, mut rng) = fq(FqCodelParams {
            limit: 1,
            ..Default::default()
        });
        q.enqueue(ms(0), pkt(0, 1, 1500), &mut rng);
        assert_eq!(
            q.enqueue(ms(0), pkt(1, 1, 1500), &mut rng),
            Verdict::Enqueued
        );
        ev.clear();
        q.take_evicted(&mut ev);
        assert_eq!(ev[0].0.id, 0);
        q.stats().check_identities(1).unwrap();
        // limit 1: 100 B of flow 2 stored; a 1500 B flow-1 arrival makes its own queue the
        // fattest with only itself in it: the arrival is the victim (plain Overflow verdict).
        let (mut q, mut rng) = fq(FqCodelParams {
            limit: 1,
            ..Default::default()
        });
        q.enqueue(ms(0), pkt(0, 2, 100), &mut rng);
        assert_eq!(
            q.enqueue(ms(0), pkt(1, 1, 1500), &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        ev.clear();
        q.take_evicted(&mut ev);
        assert!(ev.is_empty());
        assert_eq!((q.len_packets(), q.len_bytes()), (1, 100));
        let s = q.stats();
        assert_eq!((s.arrivals, s.enqueued, s.overflow_drops), (2, 1, 1));
        s.check_identities(1).unwrap();
    }

    /// One flow with the script of codel.rs `leaves_dropping_when_sojourn_falls_below_target`
    /// (arrivals at k ms, departures at k + 6 ms): CoDel inside the flow queue drops at exactly
    /// 106 and 206 ms.
    #[test]
    fn single_flow_drops_like_codel() {
        let (mut q, mut rng) = fq(FqCodelParams::default());
        let mut drops = Vec::new();
        for k in 0..600u64 {
            q.enqueue(ms(k), pkt(k as u32, 1, 1500), &mut rng);
            if k >= 6 {
                let mut d = Vec::new();
                q.dequeue(ms(k), &mut d).unwrap();
                drops.extend(d.iter().map(|_| k));
            }
            q.stats().check_identities(q.len_packets() as u64).unwrap();
        }
        assert_eq!(drops, vec![106, 206]);
        assert_eq!(q.stats().dequeue_drops, 2);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: FqCodelParams| FqCodel::new(p).unwrap_err().key;
        assert_eq!(
            bad(FqCodelParams {
                flows: 0,
                ..Default::default()
            }),
            "flows"
        );
        assert_eq!(
            bad(FqCodelParams {
                quantum: 0,
                ..Default::default()
            }),
            "quantum"
        );
        assert_eq!(
            bad(FqCodelParams {
                interval: SimDuration::from_millis(1),
                ..Default::default()
            }),
            "interval"
        );
    }
}
