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

use super::{AckInfo, AckVerdict, CongestionControl, Window};

/// Tahoe state: the window, the dupACK count and the recovery point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tahoe {
    w: Window,
    dupacks: u32,
    recover: u64,
    dupack_threshold: u32,
}

impl Tahoe {
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Tahoe {
            w: Window::new(mss),
            dupacks: 0,
            recover: 0,
            dupack_threshold: dupack_threshold.max(1),
        }
    }
    /// One past the highest sequence number sent at the last fast retransmit or timeout.
    pub fn recover(&self) -> u64 {
        self.recover
    }
}

impl CongestionControl for Tahoe {
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    fn on_connected(&mut self, initial_window: u64, peer_window: u64) {
        self.w.cwnd = initial_window.max(self.w.mss);
        self.w.ssthresh = peer_window.max(2 * self.w.mss);
    }
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        self.w.grow(a.acked);
        self.dupacks = 0;
        AckVerdict {
            retransmit_head: false,
            restart_timer: true,
        }
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.dupacks = self.dupacks.saturating_add(1);
        if self.dupacks != self.dupack_threshold || a.ack <= self.recover {
            return false;
        }
        self.recover = a.snd_max;
        self.w.halve(a.flight);
        self.w.cwnd = self.w.mss;
        true
    }
    fn on_rto(&mut self, a: &AckInfo, first_expiry: bool) {
        self.w.on_rto(a.flight, first_expiry, false);
        self.dupacks = 0;
        self.recover = a.snd_max;
    }
    fn in_recovery(&self) -> bool {
        false
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
