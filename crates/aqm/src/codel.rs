//! CoDel — Controlled Delay, as RFC 8289 (Nichols, Jacobson, McGregor, Iyengar 2018) §4-5.
//!
//! CoDel watches the *sojourn time* of each packet it dequeues (`now − enqueued_at`). When the
//! sojourn time has stayed at or above `target` for a whole `interval` it enters the dropping
//! state: it drops the packet at the head, and then drops one more packet each time `drop_next`
//! passes, where `drop_next ← drop_next + interval/√count` (the control law) and `count` is the
//! number of drops since entering the state. It leaves the dropping state as soon as a dequeued
//! packet has a sojourn time below `target` (or the queue holds at most one MTU after the
//! dequeue: the RFC's `bytes() <= MAXPACKET` guard, here `mtu`). All drops happen at dequeue
//! time (`DropReason::DequeueTime`); on entering the state again, if the last cycle ended
//! recently (`now − drop_next < 16·interval`) and dropped more than once since the entry
//! before (`delta = count − lastcount > 1`), `count` restarts at `delta` rather than 1
//! (RFC 8289 §5.6, the Linux rule the RFC adopts).
//!
//! Exactly the RFC's `dodequeue`/`dequeue` pseudocode, with:
//! - time in integer nanoseconds; `interval/√count` computed in f64 and truncated to the
//!   nanosecond (IEEE `sqrt` and division are correctly rounded, so bit-identical everywhere);
//!   Linux's 1024-ns clock and Newton reciprocal square root are not reproduced;
//! - a packet buffer of `limit` packets; an arrival finding it full is dropped (`Overflow`);
//!   RFC 8289 leaves the buffer size to the implementation (Linux `sch_codel` default 1000);
//! - ECN (`ecn = true`): where the state machine would drop an ECN-capable packet it marks it
//!   CE and sends it instead, `count` and `drop_next` advancing as for a drop, and that dequeue
//!   ends there (RFC 8289 §5: "marking ... instead of dropping"; the per-step rule is Linux
//!   `codel_dequeue`'s). Non-ECT packets are dropped. The engine learns of the mark through
//!   [`QueueDisc::dequeue_marked`].
//!
//! The state machine is [`CodelVars`], shared with FQ-CoDel (`fq_codel.rs`), which runs one per
//! flow queue. Read RFC 8289 §5 before editing.
//!
//! Validation: tests below, all hand-computed — `no_drop_while_sojourn_below_target`,
//! `first_drop_exactly_interval_after_target_exceeded` (then `interval/√count` spacing: drops at
//! 109, 209, 280, 338, 388, 433, 473, 511 ms), `leaves_dropping_when_sojourn_falls_below_target`,
//! `reentry_soon_restarts_count_at_delta`, `reentry_late_restarts_count_at_one`,
//! `mtu_guard_never_drops_last_packet`, `mtu_guard_counts_bytes_not_packets`,
//! `ecn_marks_at_the_same_instants`, `overflow_at_limit`, `control_law_values`,
//! `bad_parameters_name_their_key`; closed loop in
//! `crates/sim/tests/aqm_modern.rs`.

use crate::admit::Admit;
use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::fifo::{fifo_accessors, Fifo, FifoQueue};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{check_ranges, Model, Param, Range, Syntax};
use crate::stats::QueueStats;
use units::{Rng, SimDuration, SimTime};

/// CoDel parameters (RFC 8289). Defaults are the RFC's, tuned for the open Internet
/// (`target` 5 ms for RTTs of 100 ms order).
#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing queue delay (sojourn time). Default 5 ms (RFC 8289 §4.4); > 0.
    pub target: SimDuration,
    /// Window over which sojourn must stay ≥ `target` before dropping, and the base of the
    /// control law. Default 100 ms (RFC 8289 §4.3); > `target`.
    pub interval: SimDuration,
    /// MAXPACKET of RFC 8289 §5: no drop while at most this many bytes remain queued after a
    /// dequeue. Bytes; default 1500 (one Ethernet MTU, as the RFC recommends); ≥ 1.
    pub mtu: u32,
    /// Buffer size in waiting packets; an arrival finding it full is dropped (`Overflow`).
    /// Default 1000 (Linux `sch_codel`; the RFC sets none); ≥ 1.
    pub limit: u64,
    /// Mark ECN-capable packets instead of dropping them (RFC 8289 §5). Default false.
    pub ecn: bool,
}

impl Default for CodelParams {
    /// RFC 8289 with Linux's limit; sources in [`MODEL`].
    fn default() -> Self {
        CodelParams {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            mtu: 1500,
            limit: 1000,
            ecn: false,
        }
    }
}

/// CoDel's scenario keys (`kind = "codel"`): the single declaration of each parameter.
pub const MODEL: Model<CodelParams> = Model {
    kind: "codel",
    title: "CoDel, RFC 8289 (sojourn-time control law, drops at dequeue)",
    params: &[&KEYS],
    rules: &[],
    profiles: &[],
    validate: CodelParams::validate,
    wrap: DisciplineParams::Codel,
};

const KEYS: [Param<CodelParams>; 5] = [
    Param {
        key: "target",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Positive,
        doc: "Acceptable standing queue delay (sojourn time)",
        source: "RFC 8289 §4.4",
        access: field!(target),
    },
    Param {
        key: "interval",
        syntax: Syntax::Duration,
        unit: "s",
        range: Range::Cross("> target"),
        doc: "Window the sojourn must stay ≥ target before dropping; base of the control law",
        source: "RFC 8289 §4.3",
        access: field!(interval),
    },
    Param {
        key: "mtu",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "MAXPACKET: no drop while at most this many bytes remain queued",
        source: "RFC 8289 §5 (one MTU)",
        access: field!(mtu),
    },
    Param {
        key: "limit",
        syntax: Syntax::PacketLimit("CoDel's limit is in packets"),
        unit: "packets",
        range: Range::AtLeast(1.0),
        doc: "Buffer, packets waiting",
        source: "Linux sch_codel (the RFC sets none)",
        access: field!(limit),
    },
    Param {
        key: "ecn",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Mark ECN-capable packets instead of dropping them",
        source: "RFC 8289 §5 (opt-in)",
        access: field!(ecn),
    },
];

impl CodelParams {
    /// The declared ranges ([`MODEL`]), then `interval > target`.
    pub(crate) fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)?;
        check_interval(self.target, self.interval)
    }
}

/// `interval > target` (CoDel and FQ-CoDel).
pub(crate) fn check_interval(target: SimDuration, interval: SimDuration) -> Result<(), ParamError> {
    if interval <= target {
        return Err(ParamError {
            key: "interval".into(),
            reason: format!(
                "must be greater than target ({} ns), got {} ns",
                target.0, interval.0
            ),
        });
    }
    Ok(())
}

/// The control law: `t + interval/√count`, truncated to the nanosecond.
pub(crate) fn control_law(t: SimTime, interval: SimDuration, count: u32) -> SimTime {
    let step = interval.0 as f64 / (count.max(1) as f64).sqrt();
    t + SimDuration(step as u64)
}

/// A FIFO the CoDel state machine pops from (the whole queue for CoDel, one flow queue for
/// FQ-CoDel).
pub(crate) trait HeadQueue {
    /// Remove the head packet.
    fn pop(&mut self) -> Option<PacketMeta>;
    /// Bytes still queued after the last pop (RFC 8289 `bytes()`).
    fn backlog_bytes(&self) -> u64;
}

/// The settings the state machine reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CodelConfig {
    pub target: SimDuration,
    pub interval: SimDuration,
    pub mtu: u32,
    pub ecn: bool,
}

/// CoDel's variables for one queue (RFC 8289 §5.2), reset by re-initialising.
#[derive(Clone, Debug, Default)]
pub(crate) struct CodelVars {
    /// When the sojourn time will have been above target for a whole interval; `None` while
    /// below (the RFC's `first_above_time = 0`).
    pub first_above_time: Option<SimTime>,
    pub drop_next: SimTime,
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
}

impl CodelVars {
    /// RFC 8289 `dodequeue`: pop the head and say whether it may be dropped.
    fn dodequeue(
        &mut self,
        c: &CodelConfig,
        now: SimTime,
        q: &mut impl HeadQueue,
    ) -> (Option<PacketMeta>, bool) {
        let Some(p) = q.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(p.enqueued_at);
        if sojourn < c.target || q.backlog_bytes() <= c.mtu as u64 {
            self.first_above_time = None;
            return (Some(p), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + c.interval);
                (Some(p), false)
            }
            Some(t) => (Some(p), now >= t),
        }
    }

    /// RFC 8289 `dequeue`. Drops are pushed onto `dropped` and counted in `stats`
    /// (`dequeue_drops`, by class); a CE mark is counted in `stats.marks`. Returns the packet to
    /// send and whether it must carry CE.
    pub(crate) fn dequeue(
        &mut self,
        c: &CodelConfig,
        now: SimTime,
        q: &mut impl HeadQueue,
        stats: &mut QueueStats,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> (Option<PacketMeta>, bool) {
        let mut drop = |p: PacketMeta, stats: &mut QueueStats| {
            stats.count_drop(p.class, DropReason::DequeueTime);
            dropped.push((p, DropReason::DequeueTime));
        };
        let (mut p, ok) = self.dodequeue(c, now, q);
        let Some(mut pkt) = p else {
            self.dropping = false;
            return (None, false);
        };
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if c.ecn && pkt.ecn.ecn_capable() {
                    stats.marks += 1;
                    self.drop_next = control_law(self.drop_next, c.interval, self.count);
                    return (Some(pkt), true);
                }
                drop(pkt, stats);
                let (next, ok) = self.dodequeue(c, now, q);
                p = next;
                match p {
                    Some(n) if ok => {
                        pkt = n;
                        self.drop_next = control_law(self.drop_next, c.interval, self.count);
                    }
                    _ => {
                        self.dropping = false;
                        match p {
                            Some(n) => pkt = n,
                            None => return (None, false),
                        }
                    }
                }
            }
            (Some(pkt), false)
        } else if ok {
            let marked = c.ecn && pkt.ecn.ecn_capable();
            if marked {
                stats.marks += 1;
            } else {
                drop(pkt, stats);
                p = self.dodequeue(c, now, q).0;
            }
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = 1;
            let since = now.0 as i128 - self.drop_next.0 as i128;
            if delta > 1 && since < 16 * c.interval.0 as i128 {
                self.count = delta;
            }
            self.drop_next = control_law(now, c.interval, self.count);
            self.lastcount = self.count;
            if marked {
                (Some(pkt), true)
            } else {
                (p, false)
            }
        } else {
            (Some(pkt), false)
        }
    }
}

impl HeadQueue for Fifo {
    fn pop(&mut self) -> Option<PacketMeta> {
        Fifo::pop(self)
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes()
    }
}

/// CoDel queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct Codel {
    params: CodelParams,
    cfg: CodelConfig,
    vars: CodelVars,
    buf: FifoQueue,
    last_marked: bool,
}

impl Codel {
    /// Validate `params` and build the queue.
    pub fn new(params: CodelParams) -> Result<Self, ParamError> {
        params.validate()?;
        let cfg = CodelConfig {
            target: params.target,
            interval: params.interval,
            mtu: params.mtu,
            ecn: params.ecn,
        };
        Ok(Codel {
            params,
            cfg,
            vars: CodelVars::default(),
            buf: FifoQueue::default(),
            last_marked: false,
        })
    }

    /// Drops (or marks) since the dropping state was last entered, as the control law uses it.
    pub fn count(&self) -> u32 {
        self.vars.count
    }
    /// Time of the next scheduled drop while dropping.
    pub fn drop_next(&self) -> SimTime {
        self.vars.drop_next
    }
    /// In the dropping state.
    pub fn dropping(&self) -> bool {
        self.vars.dropping
    }
    /// When sojourn will have been above target for an interval (`None` while below).
    pub fn first_above_time(&self) -> Option<SimTime> {
        self.vars.first_above_time
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, _rng: &mut Rng) -> Verdict {
        let admit = if self.buf.len() as u64 >= self.params.limit {
            Admit::Drop(DropReason::Overflow)
        } else {
            Admit::Store
        };
        self.buf.settle(now, pkt, admit)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        let (fifo, stats) = self.buf.parts_mut();
        let (p, marked) = self.vars.dequeue(&self.cfg, now, fifo, stats, dropped);
        self.last_marked = marked;
        if p.is_some() {
            stats.dequeued += 1;
        }
        p
    }

    fn dequeue_marked(&self) -> bool {
        self.last_marked
    }
    fn marks_at_dequeue(&self) -> bool {
        true
    }
    fifo_accessors!(buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketClass};

    fn pkt(id: u32, size: u32, ect: bool) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes: size,
            ecn: Ecn::rfc3168(ect),
            class: PacketClass::Bulk,
            cwnd_hint: 0,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }
    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }
    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    /// Script: a list of (time, action) with arrivals before departures at equal times.
    /// Returns the times of dequeue-time drops and of CE marks.
    struct Run {
        q: Codel,
        rng: Rng,
        id: u32,
        drops: Vec<SimTime>,
        marks: Vec<SimTime>,
        sent: Vec<(SimTime, PacketMeta)>,
    }
    impl Run {
        fn new(p: CodelParams) -> Self {
            Run {
                q: Codel::new(p).unwrap(),
                rng: units::stream(1, "codel"),
                id: 0,
                drops: Vec::new(),
                marks: Vec::new(),
                sent: Vec::new(),
            }
        }
        fn arrive(&mut self, t: SimTime, ect: bool) {
            let v = self.q.enqueue(t, pkt(self.id, 1500, ect), &mut self.rng);
            assert_eq!(v, Verdict::Enqueued);
            self.id += 1;
        }
        fn depart(&mut self, t: SimTime) -> Option<PacketMeta> {
            let mut d = Vec::new();
            let p = self.q.dequeue(t, &mut d);
            for (_, r) in &d {
                assert_eq!(*r, DropReason::DequeueTime);
                self.drops.push(t);
            }
            if self.q.dequeue_marked() {
                assert!(p.unwrap().ecn.ecn_capable());
                self.marks.push(t);
            }
            if let Some(p) = p {
                self.sent.push((t, p));
            }
            self.q
                .stats()
                .check_identities(self.q.len_packets() as u64)
                .unwrap();
            p
        }
    }

    #[test]
    fn control_law_values() {
        let i = SimDuration::from_millis(100);
        assert_eq!(control_law(ms(0), i, 1), ms(100));
        // 1e8/√2 = 70 710 678.118… ns, truncated.
        assert_eq!(control_law(ms(0), i, 2), SimTime(70_710_678));
        assert_eq!(control_law(ms(0), i, 4), ms(50));
        // 1e8/√3 = 57 735 026.918…
        assert_eq!(control_law(ms(10), i, 3), SimTime(10_000_000 + 57_735_026));
    }

    /// One arrival per ms at k ms, each dequeued 4.9 ms later: sojourn 4.9 ms < 5 ms for a
    /// second, with ~5 packets (7.5 KB > MTU) queued: never above target, never a drop.
    #[test]
    fn no_drop_while_sojourn_below_target() {
        let mut r = Run::new(CodelParams::default());
        for k in 0..1000u64 {
            r.arrive(ms(k), false);
            if k >= 5 {
                let p = r.depart(us((k - 5) * 1000 + 4900)).unwrap();
                assert_eq!(p.enqueued_at, ms(k - 5));
                assert_eq!(r.q.first_above_time(), None);
            }
        }
        assert!(r.drops.is_empty());
        assert!(!r.q.dropping());
        assert_eq!(r.q.stats().dequeue_drops, 0);
    }

    /// Two arrivals per ms (at 0, 0.5, 1, … ms), one departure per ms (at 1, 2, … ms): the
    /// head dequeued at d ms arrived at (d−1)/2 ms, sojourn (d+1)/2 ms — first ≥ 5 ms at
    /// d = 9 ms, so `first_above_time` = 109 ms and the first drop is at 109 ms. Then
    /// drop_next = 109 + 100 = 209 ms; 209 + 100/√2 = 279.710678; then adding 100/√3,
    /// 100/√4, 100/√5, 100/√6 and 100/√7 gives 337.445704, 387.445704, 432.167063, 472.991892
    /// and 510.788339 ms — the drops happen at the first departure at or after each: 209,
    /// 280, 338, 388, 433, 473, 511 ms.
    fn growing_queue(ecn: bool, ect: bool) -> Run {
        let mut r = Run::new(CodelParams {
            ecn,
            limit: 100_000,
            ..Default::default()
        });
        for d in 0..=511u64 {
            r.arrive(us(d * 1000), ect);
            if d > 0 {
                if d == 9 {
                    assert_eq!(r.q.first_above_time(), None);
                }
                r.depart(ms(d));
                if d == 9 {
                    assert_eq!(r.q.first_above_time(), Some(ms(109)));
                }
            }
            r.arrive(us(d * 1000 + 500), ect);
        }
        r
    }

    const DROP_TIMES_MS: [u64; 8] = [109, 209, 280, 338, 388, 433, 473, 511];

    #[test]
    fn first_drop_exactly_interval_after_target_exceeded() {
        let r = growing_queue(false, false);
        assert_eq!(r.drops, DROP_TIMES_MS.map(ms).to_vec());
        assert!(r.q.dropping());
        assert_eq!(r.q.count(), 8);
        // 510 788 339 + 1e8/√8 (35 355 339.06) ns.
        assert_eq!(r.q.drop_next(), SimTime(546_143_678));
        // At a drop instant two packets leave: the dropped head and the one sent.
        let sent_at_109: Vec<_> = r.sent.iter().filter(|(t, _)| *t == ms(109)).collect();
        assert_eq!(sent_at_109.len(), 1);
        assert_eq!(r.q.stats().dequeue_drops, 8);
        assert_eq!(
            r.q.stats().drops_by_class[PacketClass::Bulk as usize]
                [DropReason::DequeueTime as usize],
            8
        );
    }

    /// Arrivals at k ms, departures at k + 6 ms: sojourn 6 ms, first above at 6 ms → first
    /// drop at 106 ms; afterwards each packet waits 5 ms (one fewer queued) — still ≥ target —
    /// until the drop at 206 ms (= 106 + 100/√1) leaves 4 ms sojourn: dropping ends there.
    #[test]
    fn leaves_dropping_when_sojourn_falls_below_target() {
        let mut r = Run::new(CodelParams::default());
        for k in 0..600u64 {
            r.arrive(ms(k), false);
            if k >= 6 {
                r.depart(ms(k));
                if k == 106 {
                    assert!(r.q.dropping());
                    assert_eq!(r.q.drop_next(), ms(206));
                }
            }
        }
        assert_eq!(r.drops, vec![ms(106), ms(206)]);
        assert!(!r.q.dropping());
        assert_eq!(r.q.first_above_time(), None);
        assert_eq!(r.q.count(), 2);
        // The packet sent at 206 ms arrived at 202 ms (201 was dropped): sojourn 4 ms.
        let (_, p) = r.sent.iter().find(|(t, _)| *t == ms(206)).unwrap();
        assert_eq!(p.enqueued_at, ms(202));
    }

    /// After the growing-queue cycle (count 8, lastcount 1, drop_next 546.143678 ms), drain at
    /// 512 ms (the last packets leave the MTU guard), then a new backlog with sojourn 6 ms from
    /// 600 ms: above target at 606 ms → entry at 706 ms, where now − drop_next = 159.9 ms
    /// < 16·interval and delta = 8 − 1 = 7 > 1, so count restarts at 7 and the next drop is
    /// 100/√7 = 37.796447 ms later (743.796447 ms → departure at 744 ms).
    fn reenter(start_ms: u64) -> Run {
        let mut r = growing_queue(false, false);
        while r.q.len_packets() > 0 {
            r.depart(ms(512));
        }
        assert!(r.depart(ms(512)).is_none());
        assert!(!r.q.dropping());
        assert_eq!(r.drops.len(), 8);
        for k in start_ms..start_ms + 250 {
            r.arrive(ms(k), false);
            if k >= start_ms + 6 {
                r.depart(ms(k));
            }
        }
        r
    }

    #[test]
    fn reentry_soon_restarts_count_at_delta() {
        let r = reenter(600);
        assert_eq!(&r.drops[8..], &[ms(706), ms(744)]);
        // Entry at 706 with count 7; the drop at 744 made it 8 and left 4 ms sojourn.
        assert_eq!(r.q.count(), 8);
        assert!(!r.q.dropping());
    }

    /// The same second cycle starting at 2200 ms: entry at 2306 ms, now − drop_next =
    /// 1759.9 ms ≥ 1600 ms, so count restarts at 1 and the next drop is 100 ms later.
    #[test]
    fn reentry_late_restarts_count_at_one() {
        let r = reenter(2200);
        assert_eq!(&r.drops[8..], &[ms(2306), ms(2406)]);
        assert_eq!(r.q.count(), 2);
    }

    /// Packets of 1000 B with mtu 1500: after each dequeue at most one packet (≤ 1500 B)
    /// remains, so even a 50 ms sojourn never arms the drop timer.
    #[test]
    fn mtu_guard_never_drops_last_packet() {
        let mut q = Codel::new(CodelParams::default()).unwrap();
        let mut rng = units::stream(1, "codel");
        let mut d = Vec::new();
        for k in 0..200u64 {
            q.enqueue(ms(50 * k), pkt(k as u32, 1000, false), &mut rng);
            q.enqueue(ms(50 * k), pkt(k as u32, 1000, false), &mut rng);
            assert!(q.dequeue(ms(50 * k + 50), &mut d).is_some());
            assert!(q.dequeue(ms(50 * k + 50), &mut d).is_some());
            assert_eq!(q.first_above_time(), None);
        }
        assert!(d.is_empty());
    }

    /// The MTU guard counts bytes, as Linux's `backlog <= mtu`: a queue of n 52-byte ACKs, all
    /// enqueued at 0 and dequeued one per 10 ms. After the k-th dequeue (at 10k ms, sojourn 10k
    /// ms ≥ target) (n − k)·52 bytes remain, above 1500 B while n − k ≥ 29. With n = 40 the
    /// first dequeue arms the timer (first_above_time = 110 ms) and the 11th, at 110 ms, still
    /// leaves 29·52 = 1508 B: one drop at 110 ms; the next packet leaves 1456 B, so the state
    /// ends at once. With n = 39 the 11th leaves 1456 B: no drop, though 28 packets wait.
    #[test]
    fn mtu_guard_counts_bytes_not_packets() {
        let acks = |n: u32| {
            let mut q = Codel::new(CodelParams::default()).unwrap();
            let mut rng = units::stream(1, "codel");
            for i in 0..n {
                q.enqueue(ms(0), pkt(i, 52, false), &mut rng);
            }
            let mut drops = Vec::new();
            let mut sent = 0;
            for k in 1..=u64::from(n) {
                let mut d = Vec::new();
                sent += q.dequeue(ms(10 * k), &mut d).is_some() as u32;
                drops.extend(d.iter().map(|_| ms(10 * k)));
                if k == 1 {
                    assert_eq!(q.first_above_time(), Some(ms(110)));
                }
            }
            (drops, sent)
        };
        assert_eq!(acks(40), (vec![ms(110)], 39));
        assert_eq!(acks(39), (vec![], 39));
    }

    /// Same growing queue with ECT packets and ecn: a mark at exactly the drop instants and no
    /// drop (the control law does not depend on which packets left).
    #[test]
    fn ecn_marks_at_the_same_instants() {
        let r = growing_queue(true, true);
        assert!(r.drops.is_empty());
        assert_eq!(r.marks, DROP_TIMES_MS.map(ms).to_vec());
        assert_eq!(r.q.stats().marks, 8);
        assert_eq!(r.q.drop_next(), SimTime(546_143_678));
        // Non-ECT packets are still dropped with ecn on.
        let r = growing_queue(true, false);
        assert_eq!(r.drops, DROP_TIMES_MS.map(ms).to_vec());
        assert!(r.marks.is_empty());
    }

    #[test]
    fn overflow_at_limit() {
        let mut q = Codel::new(CodelParams {
            limit: 3,
            ..Default::default()
        })
        .unwrap();
        let mut rng = units::stream(1, "codel");
        let v: Vec<_> = (0..5)
            .map(|i| q.enqueue(ms(0), pkt(i, 100, false), &mut rng))
            .collect();
        assert_eq!(v[..3], [Verdict::Enqueued; 3]);
        assert_eq!(v[3..], [Verdict::Dropped(DropReason::Overflow); 2]);
        assert_eq!(q.len_bytes(), 300);
        q.stats().check_identities(3).unwrap();
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: CodelParams| Codel::new(p).unwrap_err().key;
        assert_eq!(
            bad(CodelParams {
                target: SimDuration::ZERO,
                ..Default::default()
            }),
            "target"
        );
        assert_eq!(
            bad(CodelParams {
                interval: SimDuration::from_millis(5),
                ..Default::default()
            }),
            "interval"
        );
        assert_eq!(
            bad(CodelParams {
                limit: 0,
                ..Default::default()
            }),
            "limit"
        );
        assert_eq!(
            bad(CodelParams {
                mtu: 0,
                ..Default::default()
            }),
            "mtu"
        );
    }
}
