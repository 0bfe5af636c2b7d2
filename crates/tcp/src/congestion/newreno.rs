//! NewReno fast recovery, RFC 6582 (Henderson, Floyd, Gurtov & Nishida 2012).
//!
//! Entry as Reno (RFC 5681): on the `dupack_threshold`-th duplicate ACK, if the cumulative ACK
//! covers more than `recover` (§3.2 step 2: SND.UNA > recover), set recover = highest sequence
//! sent (we store SND.MAX, one past it, as FreeBSD's `snd_recover` and ns-2's `recover_`),
//! ssthresh = max(FlightSize/2, 2·MSS), retransmit, cwnd = ssthresh + threshold·MSS. If SND.UNA ≤
//! recover the duplicates come from go-back-N retransmissions after a timeout: no fast
//! retransmit, ssthresh untouched (§4; the timeout sets recover = SND.MAX).
//! Further duplicates inflate cwnd by 1 MSS. An ACK of new data while in recovery is
//! - partial (ACK < recover): retransmit the first unacknowledged segment, deflate cwnd by the
//!   bytes acknowledged, add back 1 MSS if at least 1 MSS was acknowledged (§3.2 step 5), and
//!   restart the retransmission timer only on the first partial ACK ("Impatient" variant, §3.2
//!   step 5 and §4, as ns-2 `newreno_changes1_ 1`); cwnd is kept ≥ 1 MSS;
//! - full (ACK ≥ recover): leave recovery with cwnd per [`FullAck`] (§3.2 step 3): by default
//!   cwnd = ssthresh (option 2; ns-2 Full-TCP leaves recovery that way and its one-way NewReno
//!   has `exit_recovery_fix_ 0`), or min(ssthresh, max(FlightSize, MSS) + MSS) (option 1).
//!
//! Parameters: `mss`, `dupack_threshold`, `newreno_full_ack` of [`crate::TcpConfig`].
//! Differences from ns-2 Full-TCP NewReno: ns-2 sets cwnd = ssthresh on every partial ACK and
//! limits bursts in recovery to `recov_maxburst_` (2); we deflate per RFC 6582 and have no
//! burst limit. Limited Transmit (RFC 3042) is an endpoint option (`limited_transmit`, input.rs
//! and output.rs), not part of this file. No heuristics of §4.1/§4.2 (ACK- or timestamp-based):
//! the basic `recover` check only.
//!
//! Validation: unit tests below (`partial_ack_deflates_and_retransmits`,
//! `full_ack_rules`, `no_fast_retransmit_below_recover_after_timeout`); tests/recovery.rs
//! (`recovery_newreno_*`).

use super::recovery::recovery_in;
use super::{AckInfo, AckVerdict, CongestionControl, NewAck, Recovery};
use crate::config::FullAck;

/// NewReno state: the shared recovery bookkeeping and the full-ACK rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReno {
    r: Recovery,
    full_ack: FullAck,
}

impl NewReno {
    pub fn new(mss: u32, dupack_threshold: u32, full_ack: FullAck) -> Self {
        NewReno {
            r: Recovery::new(mss, dupack_threshold),
            full_ack,
        }
    }
}

impl CongestionControl for NewReno {
    recovery_in!(r);
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        let (phase, verdict) = self.r.newreno_ack(a, self.full_ack);
        if phase == NewAck::Open {
            self.r.w.grow(a.acked);
        }
        verdict
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.r.reno_dupack(a, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn nr(rule: FullAck) -> NewReno {
        // 8 segments [1, 8001) in flight, cwnd 8000.
        let mut n = NewReno::new(1000, 3, rule);
        n.on_connected(8000, 65535);
        for _ in 0..3 {
            n.on_dupack(&AckInfo {
                ack: 1,
                acked: 0,
                flight: 8000,
                snd_max: 8001,
            });
        }
        n
    }

    #[test]
    fn partial_ack_deflates_and_retransmits() {
        // Entry: ssthresh = 4000, cwnd = 7000, recover = 8001.
        let mut n = nr(FullAck::Ssthresh);
        assert!(n.in_recovery());
        assert_eq!(
            (n.window().ssthresh, n.window().cwnd, n.recover()),
            (4000, 7000, 8001)
        );
        // Two more dupACKs: 9000.
        for _ in 0..2 {
            n.on_dupack(&AckInfo {
                ack: 1,
                acked: 0,
                flight: 8000,
                snd_max: 8001,
            });
        }
        assert_eq!(n.window().cwnd, 9000);
        // Partial ACK of 3 segments (3000 B): 9000 − 3000 + 1000 = 7000; first → restart timer.
        let v = n.on_new_ack(&AckInfo {
            ack: 3001,
            acked: 3000,
            flight: 5000,
            snd_max: 8001,
        });
        assert_eq!(
            v,
            AckVerdict {
                retransmit_head: true,
                restart_timer: true
            }
        );
        assert_eq!(n.window().cwnd, 7000);
        // A second partial ACK of 500 B (< MSS): 7000 − 500 = 6500, no add-back, no restart.
        let v = n.on_new_ack(&AckInfo {
            ack: 3501,
            acked: 500,
            flight: 4500,
            snd_max: 8001,
        });
        assert_eq!(
            v,
            AckVerdict {
                retransmit_head: true,
                restart_timer: false
            }
        );
        assert_eq!(n.window().cwnd, 6500);
        assert!(n.in_recovery());
        // Full ACK: cwnd = ssthresh = 4000.
        let v = n.on_new_ack(&AckInfo {
            ack: 8001,
            acked: 4500,
            flight: 0,
            snd_max: 8001,
        });
        assert_eq!(
            v,
            AckVerdict {
                retransmit_head: false,
                restart_timer: true
            }
        );
        assert!(!n.in_recovery());
        assert_eq!(n.window().cwnd, 4000);
        assert_eq!(n.window().ssthresh, 4000);
    }

    #[test]
    fn full_ack_rules() {
        // Option 1 with 1000 B still in flight after the full ACK (new data sent in recovery):
        // min(4000, max(1000, 1000) + 1000) = 2000.
        let mut n = nr(FullAck::FlightSize);
        n.on_new_ack(&AckInfo {
            ack: 8001,
            acked: 8000,
            flight: 1000,
            snd_max: 9001,
        });
        assert_eq!(n.window().cwnd, 2000);
        // Option 1 with a large flight: capped at ssthresh.
        let mut n = nr(FullAck::FlightSize);
        n.on_new_ack(&AckInfo {
            ack: 8001,
            acked: 8000,
            flight: 6000,
            snd_max: 14001,
        });
        assert_eq!(n.window().cwnd, 4000);
        // Option 2: ssthresh whatever the flight.
        let mut n = nr(FullAck::Ssthresh);
        n.on_new_ack(&AckInfo {
            ack: 8001,
            acked: 8000,
            flight: 0,
            snd_max: 8001,
        });
        assert_eq!(n.window().cwnd, 4000);
    }

    #[test]
    fn timeout_in_recovery_never_raises_ssthresh() {
        // In recovery with ssthresh 4000; 20 segments sent while recovering make FlightSize
        // 20000 at the timeout: eq. 4 says 10000, we keep 4000.
        let mut n = nr(FullAck::Ssthresh);
        n.on_rto(
            &AckInfo {
                ack: 1,
                acked: 0,
                flight: 20_000,
                snd_max: 20_001,
            },
            true,
        );
        assert_eq!(
            (n.window().ssthresh, n.window().cwnd, n.recover()),
            (4000, 1000, 20_001)
        );
        assert!(!n.in_recovery());
    }

    #[test]
    fn no_fast_retransmit_below_recover_after_timeout() {
        let mut n = NewReno::new(1000, 3, FullAck::Ssthresh);
        n.on_connected(8 * MSS, 65535);
        // Timeout with SND.MAX = 8001: recover = 8001, ssthresh = 4000, cwnd = 1000.
        n.on_rto(
            &AckInfo {
                ack: 1,
                acked: 0,
                flight: 8000,
                snd_max: 8001,
            },
            true,
        );
        assert_eq!(
            (n.window().ssthresh, n.window().cwnd, n.recover()),
            (4000, 1000, 8001)
        );
        // Go-back-N duplicates produce dupACKs at 3001 ≤ recover: no fast retransmit.
        for _ in 0..5 {
            assert!(!n.on_dupack(&AckInfo {
                ack: 3001,
                acked: 0,
                flight: 5000,
                snd_max: 8001
            }));
        }
        assert_eq!((n.window().ssthresh, n.window().cwnd), (4000, 1000));
        // After an ACK beyond recover, three dupACKs do trigger it.
        n.on_new_ack(&AckInfo {
            ack: 9001,
            acked: 6000,
            flight: 2000,
            snd_max: 11001,
        });
        for _ in 0..2 {
            assert!(!n.on_dupack(&AckInfo {
                ack: 9001,
                acked: 0,
                flight: 2000,
                snd_max: 11001
            }));
        }
        assert!(n.on_dupack(&AckInfo {
            ack: 9001,
            acked: 0,
            flight: 2000,
            snd_max: 11001
        }));
        assert_eq!(n.recover(), 11001);
    }
}
