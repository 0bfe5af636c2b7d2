//! A discipline's decision on an arriving packet ([`Admit`]), before the buffer carries it out
//! ([`crate::fifo::FifoQueue::settle`]), and the pieces of that decision the disciplines share:
//! ECN eligibility of an early hit ([`Admit::early`]), the one-draw probability test ([`hit`])
//! and ns-2's size-scaled probability ([`byte_scaled`]).
//!
//! Validation: `tests` below; every discipline's tests decide through it.

use crate::packet::{DropReason, PacketMeta};
use rand::Rng as _;
use units::Rng;

/// What to do with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Store it unchanged.
    Store,
    /// Store it with CE set (only ever for ECN-capable packets: see [`Admit::early`]).
    Mark,
    /// Refuse it for this reason.
    Drop(DropReason),
}

impl Admit {
    /// An arrival hit by the early-drop test: marked CE if the discipline may mark here
    /// (`may_mark`: its ECN option and rule) and the packet is ECN-capable (RFC 3168 §5), else
    /// dropped early.
    #[inline]
    pub fn early(may_mark: bool, pkt: &PacketMeta) -> Admit {
        if may_mark && pkt.ecn.ecn_capable() {
            Admit::Mark
        } else {
            Admit::Drop(DropReason::Early)
        }
    }

    /// True if the packet is to be stored (marked or not).
    #[inline]
    pub fn stores(self) -> bool {
        !matches!(self, Admit::Drop(_))
    }
}

/// The probability test of PI and REM: one uniform draw `U` in [0, 1), made only when `p > 0`,
/// hits when `U < p` (so p = 1 always hits and p = 0 never draws).
#[inline]
pub fn hit(p: f64, rng: &mut Rng) -> bool {
    p > 0.0 && rng.gen::<f64>() < p
}

/// `p·size/mean_pktsize` capped at 1: ns-2's byte-mode probability (PI `bytes_`, REM
/// `bytes_`), for a packet of `size_bytes` and a mean packet of `mean_pktsize` bytes.
#[inline]
pub fn byte_scaled(p: f64, size_bytes: u32, mean_pktsize: u32) -> f64 {
    (p * size_bytes as f64 / mean_pktsize as f64).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(ect: bool) -> PacketMeta {
        crate::pi::fixtures::pkt(0, 1000, 0, ect)
    }

    #[test]
    fn early_marks_only_ect_packets_when_allowed() {
        let drop = Admit::Drop(DropReason::Early);
        assert_eq!(Admit::early(true, &pkt(true)), Admit::Mark);
        assert_eq!(Admit::early(true, &pkt(false)), drop);
        assert_eq!(Admit::early(false, &pkt(true)), drop);
        assert!(Admit::Mark.stores() && Admit::Store.stores() && !drop.stores());
    }

    #[test]
    fn hit_draws_only_for_positive_p_and_scaling_caps_at_one() {
        let mut a = units::stream(1, "t");
        let mut b = units::stream(1, "t");
        assert!(!hit(0.0, &mut a));
        assert!(hit(1.0, &mut a));
        // `a` drew once (for p = 1), `b` not yet: b's first draw equals a's.
        let _ = b.gen::<f64>();
        assert_eq!(a.gen::<f64>(), b.gen::<f64>());
        assert_eq!(byte_scaled(0.1, 500, 1000), 0.05);
        assert_eq!(byte_scaled(0.8, 3000, 1000), 1.0);
    }
}
