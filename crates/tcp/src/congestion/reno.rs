//! Reno fast retransmit / fast recovery, RFC 5681 §3.2 (Jacobson 1990; Stevens 1997).
//!
//! On the `dupack_threshold`-th duplicate ACK (3 by default): ssthresh = max(FlightSize/2, 2·MSS),
//! retransmit the first unacknowledged segment, cwnd = ssthresh + threshold·MSS. Each further
//! duplicate ACK inflates cwnd by 1 MSS (the endpoint then sends new data if the window allows).
//! The first ACK of new data ends recovery — even a partial one — with cwnd = ssthresh and no
//! growth on that ACK. A later loss in the same window therefore needs another
//! `dupack_threshold` duplicates (a second halving) or the retransmission timer: Reno has no
//! memory of the previous recovery (no `recover` variable, unlike NewReno).
//!
//! Parameters come from [`crate::TcpConfig`]: `mss`, `dupack_threshold` (no Reno-only knobs).
//! Differences from ns-2 Full-TCP Reno (`reno_fastrecov_`): same arithmetic, but in bytes; ns-2
//! also suppresses a second fast retransmit inside one window with `bugFix_` (the NewReno
//! `recover` check); plain Reno here does not.
//!
//! Validation: unit tests below (`three_dupacks_halve_and_inflate`,
//! `first_new_ack_deflates_to_ssthresh`, `timeout_resets_to_loss_window`); tests/recovery.rs
//! (`recovery_reno_*`).

use super::{AckInfo, AckVerdict, CongestionControl, Window};

/// Reno state: the window, the duplicate-ACK count and whether fast recovery is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reno {
    w: Window,
    dupacks: u32,
    in_recovery: bool,
    dupack_threshold: u32,
}

impl Reno {
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Reno {
            w: Window::new(mss),
            dupacks: 0,
            in_recovery: false,
            dupack_threshold: dupack_threshold.max(1),
        }
    }
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
}

impl CongestionControl for Reno {
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
        if self.in_recovery {
            self.in_recovery = false;
            self.w.cwnd = self.w.ssthresh.max(self.w.mss);
        } else {
            self.w.grow(a.acked);
        }
        self.dupacks = 0;
        AckVerdict {
            retransmit_head: false,
            restart_timer: true,
        }
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.dupacks = self.dupacks.saturating_add(1);
        if self.in_recovery {
            self.w.cwnd += self.w.mss;
            false
        } else if self.dupacks == self.dupack_threshold {
            self.w.enter_fast_recovery(a.flight, self.dupack_threshold);
            self.in_recovery = true;
            true
        } else {
            false
        }
    }
    fn on_rto(&mut self, a: &AckInfo, first_expiry: bool) {
        self.w.on_rto(a.flight, first_expiry, self.in_recovery);
        self.in_recovery = false;
        self.dupacks = 0;
    }
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dup(flight: u64) -> AckInfo {
        AckInfo {
            ack: 1001,
            acked: 0,
            flight,
            snd_max: 1001 + flight,
        }
    }

    fn reno_at(cwnd: u64) -> Reno {
        let mut r = Reno::new(1000, 3);
        r.on_connected(cwnd, 65535);
        r
    }

    #[test]
    fn three_dupacks_halve_and_inflate() {
        // 8 segments in flight (8000 B): ssthresh = 4000, cwnd = 4000 + 3·1000 = 7000.
        let mut r = reno_at(8000);
        assert!(!r.on_dupack(&dup(8000)));
        assert!(!r.on_dupack(&dup(8000)));
        assert!(r.on_dupack(&dup(8000)));
        assert_eq!((r.window().ssthresh, r.window().cwnd), (4000, 7000));
        assert!(r.in_recovery());
        // Two more dupACKs: +1000 each.
        assert!(!r.on_dupack(&dup(8000)));
        assert!(!r.on_dupack(&dup(8000)));
        assert_eq!(r.window().cwnd, 9000);
    }

    #[test]
    fn first_new_ack_deflates_to_ssthresh() {
        let mut r = reno_at(8000);
        for _ in 0..4 {
            r.on_dupack(&dup(8000));
        }
        // Even a partial ACK (1 segment of 8) ends Reno recovery: cwnd = ssthresh = 4000.
        let v = r.on_new_ack(&AckInfo {
            ack: 2001,
            acked: 1000,
            flight: 7000,
            snd_max: 9001,
        });
        assert_eq!(
            v,
            AckVerdict {
                retransmit_head: false,
                restart_timer: true
            }
        );
        assert!(!r.in_recovery());
        assert_eq!(r.window().cwnd, 4000);
        // Next ACK: congestion avoidance (cwnd = ssthresh): +1000·1000/4000 = 250.
        r.on_new_ack(&AckInfo {
            ack: 3001,
            acked: 1000,
            flight: 6000,
            snd_max: 9001,
        });
        assert_eq!(r.window().cwnd, 4250);
        // Three more dupACKs start a second recovery: ssthresh = max(6000/2, 2000) = 3000.
        for _ in 0..2 {
            assert!(!r.on_dupack(&dup(6000)));
        }
        assert!(r.on_dupack(&dup(6000)));
        assert_eq!((r.window().ssthresh, r.window().cwnd), (3000, 6000));
    }

    #[test]
    fn timeout_resets_to_loss_window() {
        let mut r = reno_at(8000);
        r.on_rto(&dup(8000), true);
        assert_eq!((r.window().ssthresh, r.window().cwnd), (4000, 1000));
        // Slow start again: +1000 per ACK below ssthresh.
        r.on_new_ack(&AckInfo {
            ack: 2001,
            acked: 1000,
            flight: 7000,
            snd_max: 9001,
        });
        assert_eq!(r.window().cwnd, 2000);
    }
}
