//! Tahoe: fast retransmit without fast recovery (Jacobson 1988, 4.3BSD-Tahoe; Fall & Floyd 1996
//! §2; ns-2 one-way `Agent/TCP`).
//!
//! On the `dupack_threshold`-th duplicate ACK: ssthresh = max(FlightSize/2, 2·MSS) (RFC 5681
//! eq. 4), cwnd = 1 MSS, recover = SND.MAX, and the endpoint goes back to SND.UNA (SND.NXT =
//! SND.UNA) and slow-starts from there — exactly what a timeout does, minus the timer backoff.
//! Go-back-N resends segments the receiver may already hold; that is Tahoe's cost, and what
//! Fall & Floyd's figures show. Further duplicate ACKs do nothing; duplicates whose ACK is ≤
//! recover (produced by the go-back-N resends themselves) never start a second fast retransmit
//! (ns-2 `bugFix_ true`, the NewReno `recover` check; RFC 6582 §4).
//!
//! Differences from 4.3BSD-Tahoe: BSD restored SND.NXT after resending the one segment (so a
//! second loss in the window waited for the timer); ns-2's Tahoe (`reset_rtx_timer(0,0)` in
//! `dupack_action`) goes back N as here, and Fall & Floyd's simulations used it.
//!
//! Validation: unit test below (`third_dupack_collapses_to_one_segment`); tests/fall_floyd.rs
//! (`tahoe_*`).

use super::recovery::recovery_in;
use super::{AckInfo, AckVerdict, CongestionControl, Recovery};

/// Tahoe state: the shared recovery bookkeeping (never in fast recovery).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tahoe {
    r: Recovery,
}

impl Tahoe {
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Tahoe {
            r: Recovery::new(mss, dupack_threshold),
        }
    }
}

impl CongestionControl for Tahoe {
    recovery_in!(r);
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        self.r.w.grow(a.acked);
        self.r.open_ack()
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        if !self.r.count_dupack() || a.ack <= self.r.recover {
            return false;
        }
        self.r.recover = a.snd_max;
        self.r.w.halve(a.flight);
        self.r.w.cwnd = self.r.w.mss;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_dupack_collapses_to_one_segment() {
        // 8 segments of 1000 B in flight: ssthresh = 4000, cwnd = 1000 (no inflation).
        let mut t = Tahoe::new(1000, 3);
        t.on_connected(8000, 65535);
        let d = AckInfo {
            ack: 1001,
            acked: 0,
            flight: 8000,
            snd_max: 9001,
        };
        assert!(!t.on_dupack(&d));
        assert!(!t.on_dupack(&d));
        assert!(t.on_dupack(&d));
        assert_eq!(
            (t.window().ssthresh, t.window().cwnd, t.recover()),
            (4000, 1000, 9001)
        );
        // More duplicates: nothing.
        assert!(!t.on_dupack(&d));
        assert_eq!(t.window().cwnd, 1000);
        // The ACK of the resent segment: slow start, +1 MSS.
        t.on_new_ack(&AckInfo {
            ack: 3001,
            acked: 2000,
            flight: 6000,
            snd_max: 9001,
        });
        assert_eq!(t.window().cwnd, 2000);
        // Three duplicates at 3001 ≤ recover (from go-back-N resends): no second reduction.
        let d2 = AckInfo { ack: 3001, ..d };
        for _ in 0..3 {
            assert!(!t.on_dupack(&d2));
        }
        assert_eq!((t.window().ssthresh, t.window().cwnd), (4000, 2000));
    }
}
