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

use super::recovery::recovery_in;
use super::{AckInfo, AckVerdict, CongestionControl, Recovery};

/// Reno state: the shared recovery bookkeeping (its recovery point unused).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reno {
    r: Recovery,
}

impl Reno {
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Reno {
            r: Recovery::new(mss, dupack_threshold),
        }
    }
}

impl CongestionControl for Reno {
    recovery_in!(r);
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        let w = &mut self.r.w;
        if self.r.in_recovery {
            self.r.in_recovery = false;
            w.cwnd = w.ssthresh.max(w.mss);
        } else {
            w.grow(a.acked);
        }
        self.r.open_ack()
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.r.reno_dupack(a, false)
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
