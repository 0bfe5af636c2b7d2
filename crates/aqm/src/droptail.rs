//! Drop-tail (FIFO) queue with a limit in packets or in bytes.
//!
//! An arriving packet is dropped (reason `Overflow`) when storing it would exceed the limit:
//! in packet mode when `len_packets + 1 > limit`, in byte mode when `len_bytes + size > limit`.
//! The packet being transmitted is not in the queue (as in ns-2 and ALTQ), so a limit of N
//! packets holds N waiting packets plus one on the wire.
//!
//! Differs from ns-2's `Queue/DropTail`, which drops when `backlog + 1 ≥ limit_` and so holds at
//! most `limit_ − 1` waiting packets (reference/aqm-defaults.md §1); set `ns2_off_by_one` to get
//! that behaviour.
//!
//! Validation: tests below (`packet_limit_*`, `byte_limit_*`, `ns2_off_by_one_*`).

use crate::admit::Admit;
use crate::discipline::{DisciplineParams, ParamError, QueueDisc};
use crate::field;
use crate::fifo::{fifo_accessors, FifoQueue};
use crate::packet::{DropReason, PacketMeta, Verdict};
use crate::params::{
    check_ranges, Access, Model, Param, Profile, ProfileSet, Range, Syntax, Value,
};
use units::{Rng, SimTime};

/// Unit of a queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitUnit {
    Packets,
    Bytes,
}

/// Drop-tail parameters. Defaults: 50 packets (ns-2 `Queue set limit_ 50`).
#[derive(Clone, Debug, PartialEq)]
pub struct DropTailParams {
    /// Buffer size, in `unit`s; ≥ 1. Default 50 packets (ns-2 `limit_`).
    pub limit: u64,
    /// Packets or bytes. Default packets (ns-2 `queue_in_bytes_ false`).
    pub unit: LimitUnit,
    /// Hold at most `limit − 1` waiting packets/bytes as ns-2 does. Default false.
    pub ns2_off_by_one: bool,
}

impl Default for DropTailParams {
    /// ns-2's `Queue/DropTail` in packets; sources in [`MODEL`].
    fn default() -> Self {
        DropTailParams {
            limit: 50,
            unit: LimitUnit::Packets,
            ns2_off_by_one: false,
        }
    }
}

/// Drop-tail's scenario keys (`kind = "droptail"`): the single declaration of each parameter.
pub const MODEL: Model<DropTailParams> = Model {
    kind: "droptail",
    title: "Drop-tail FIFO with a limit in packets or bytes",
    params: &[&KEYS],
    rules: &[],
    profiles: &[Profile {
        name: "ns2",
        doc: "ns-2.35's Queue/DropTail, which holds limit − 1 packets (drop-tail.cc)",
        sets: &[ProfileSet {
            key: "ns2_off_by_one",
            value: Value::Bool(true),
            unless: &[],
            when: None,
        }],
    }],
    validate: DropTailParams::validate,
    wrap: DisciplineParams::DropTail,
};

const KEYS: [Param<DropTailParams>; 2] = [
    Param {
        key: "limit",
        syntax: Syntax::PacketsOrBytes,
        unit: "packets or bytes",
        range: Range::AtLeast(1.0),
        doc: "Buffer: an integer = packets waiting, a size string (\"180KB\") = bytes waiting",
        source: "ns-2 Queue limit_ 50, queue_in_bytes_ false",
        access: Access {
            set: |p, v| {
                if let Value::Limit(n, bytes) = v {
                    p.limit = n;
                    p.unit = if bytes {
                        LimitUnit::Bytes
                    } else {
                        LimitUnit::Packets
                    };
                }
            },
            get: |p| Value::Limit(p.limit, p.unit == LimitUnit::Bytes),
        },
    },
    Param {
        key: "ns2_off_by_one",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Hold at most limit − 1 waiting packets/bytes, as ns-2 does",
        source: "aqmlab: the limit is the number waiting",
        access: field!(ns2_off_by_one),
    },
];

impl DropTailParams {
    /// The declared ranges ([`MODEL`]).
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)
    }
}

/// FIFO with tail drop.
#[derive(Clone, Debug)]
pub struct DropTail {
    params: DropTailParams,
    buf: FifoQueue,
}

impl DropTail {
    pub fn new(params: DropTailParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(DropTail {
            params,
            buf: FifoQueue::default(),
        })
    }

    fn fits(&self, size: u64) -> bool {
        let slack = if self.params.ns2_off_by_one { 1 } else { 0 };
        match self.params.unit {
            LimitUnit::Packets => self.buf.len() as u64 + 1 + slack <= self.params.limit,
            LimitUnit::Bytes => self.buf.bytes() + size + slack <= self.params.limit,
        }
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, now: SimTime, pkt: PacketMeta, _rng: &mut Rng) -> Verdict {
        let admit = if self.fits(pkt.size_bytes as u64) {
            Admit::Store
        } else {
            Admit::Drop(DropReason::Overflow)
        };
        self.buf.settle(now, pkt, admit)
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        _dropped: &mut Vec<(PacketMeta, DropReason)>,
    ) -> Option<PacketMeta> {
        self.buf.release()
    }
    #[inline]
    fn pass_through(&mut self, pkt: &PacketMeta) -> bool {
        if self.buf.is_empty() && self.fits(pkt.size_bytes as u64) {
            self.buf.count_passed();
            true
        } else {
            false
        }
    }
    fn hears_idle(&self) -> bool {
        false
    }

    fifo_accessors!(buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketClass};

    fn pkt(id: u32, size: u32) -> PacketMeta {
        PacketMeta {
            id,
            size_bytes: size,
            ecn: Ecn::NotEct,
            class: PacketClass::Http,
            cwnd_hint: 0,
            flow: 0,
            enqueued_at: SimTime::ZERO,
        }
    }

    fn offer(q: &mut DropTail, sizes: &[u32]) -> Vec<Verdict> {
        let mut rng = units::stream(1, "t");
        sizes
            .iter()
            .enumerate()
            .map(|(i, s)| q.enqueue(SimTime::ZERO, pkt(i as u32, *s), &mut rng))
            .collect()
    }

    /// `pass_through` counts exactly what `enqueue` then `dequeue` count, and only when that
    /// pair would hand the packet straight back: an empty buffer with room for it.
    #[test]
    fn pass_through_is_an_enqueue_and_a_dequeue_of_an_empty_buffer_with_room() {
        let params = |limit, unit, ns2_off_by_one| DropTailParams {
            limit,
            unit,
            ns2_off_by_one,
        };
        let mut q = DropTail::new(params(2, LimitUnit::Packets, false)).unwrap();
        let mut r = q.clone();
        assert!(q.pass_through(&pkt(7, 1500)));
        assert_eq!(offer(&mut r, &[1500]), [Verdict::Enqueued]);
        assert_eq!(
            r.dequeue(SimTime::ZERO, &mut Vec::new()).map(|p| p.id),
            Some(0)
        );
        assert_eq!(q.stats(), r.stats());
        assert_eq!(
            (q.stats().arrivals, q.stats().enqueued, q.stats().dequeued),
            (1, 1, 1)
        );
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
        // Something stored: the arrival must wait behind it; nothing is counted.
        offer(&mut q, &[40]);
        let before = q.stats().clone();
        assert!(!q.pass_through(&pkt(8, 1500)));
        assert_eq!(q.stats(), &before);
        // No room even when empty: ns-2's off-by-one with a limit of 1 packet drops every
        // arrival, and a 1500 B packet does not fit a 1000 B buffer.
        let mut q = DropTail::new(params(1, LimitUnit::Packets, true)).unwrap();
        assert!(!q.pass_through(&pkt(9, 40)));
        let mut q = DropTail::new(params(1000, LimitUnit::Bytes, false)).unwrap();
        assert!(!q.pass_through(&pkt(10, 1500)));
        assert!(q.pass_through(&pkt(11, 1000)));
        assert_eq!(q.stats().arrivals, 1);
    }

    #[test]
    fn packet_limit_holds_exactly_limit_packets() {
        let mut q = DropTail::new(DropTailParams {
            limit: 3,
            ..Default::default()
        })
        .unwrap();
        let v = offer(&mut q, &[1500, 40, 1500, 1500, 40]);
        assert_eq!(v[..3], [Verdict::Enqueued; 3]);
        assert_eq!(v[3..], [Verdict::Dropped(DropReason::Overflow); 2]);
        assert_eq!(q.len_packets(), 3);
        assert_eq!(q.len_bytes(), 3040);
        let mut d = Vec::new();
        assert_eq!(q.dequeue(SimTime::ZERO, &mut d).unwrap().id, 0);
        assert_eq!(q.stats().overflow_drops, 2);
        q.stats().check_identities(q.len_packets() as u64).unwrap();
    }

    #[test]
    fn byte_limit_admits_small_packets_after_large_is_refused() {
        let mut q = DropTail::new(DropTailParams {
            limit: 3000,
            unit: LimitUnit::Bytes,
            ..Default::default()
        })
        .unwrap();
        // 1500 + 1460 = 2960 fits; next 1500 would make 4460 > 3000; a 40-byte ACK fits (3000).
        let v = offer(&mut q, &[1500, 1460, 1500, 40, 1]);
        assert_eq!(
            v,
            vec![
                Verdict::Enqueued,
                Verdict::Enqueued,
                Verdict::Dropped(DropReason::Overflow),
                Verdict::Enqueued,
                Verdict::Dropped(DropReason::Overflow)
            ]
        );
        assert_eq!(q.len_bytes(), 3000);
        q.stats().check_identities(3).unwrap();
    }

    #[test]
    fn ns2_off_by_one_holds_limit_minus_one() {
        let mut q = DropTail::new(DropTailParams {
            limit: 3,
            ns2_off_by_one: true,
            ..Default::default()
        })
        .unwrap();
        let v = offer(&mut q, &[100, 100, 100]);
        assert_eq!(v[2], Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.len_packets(), 2);
    }

    #[test]
    fn zero_limit_is_rejected() {
        let e = DropTail::new(DropTailParams {
            limit: 0,
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.key, "limit");
    }

    #[test]
    fn fifo_order_and_enqueue_time() {
        let mut q = DropTail::new(DropTailParams::default()).unwrap();
        let mut rng = units::stream(1, "t");
        q.enqueue(SimTime::from_millis(5), pkt(7, 100), &mut rng);
        q.enqueue(SimTime::from_millis(6), pkt(8, 100), &mut rng);
        let mut d = Vec::new();
        let a = q.dequeue(SimTime::from_millis(9), &mut d).unwrap();
        assert_eq!((a.id, a.enqueued_at), (7, SimTime::from_millis(5)));
        assert_eq!(q.dequeue(SimTime::from_millis(9), &mut d).unwrap().id, 8);
        assert!(q.dequeue(SimTime::from_millis(9), &mut d).is_none());
        q.stats().check_identities(0).unwrap();
    }
}
