//! The window side of SACK loss recovery, RFC 6675 §5 (Blanton, Allman, Wang, Järvinen, Kojo &
//! Nishida 2012). What to send during recovery (scoreboard, IsLost, pipe, NextSeg) is in
//! `scoreboard.rs` and `output.rs`; this file only owns cwnd, ssthresh and the recovery point.
//!
//! - Entry (§5 step 4), on the `dupack_threshold`-th duplicate ACK (RFC 6675 §2 definition: it
//!   must SACK new data — checked by the endpoint) or earlier when IsLost(HighACK + 1) (§5
//!   step 2, decided by the endpoint, which calls [`Sack::enter`]): RecoveryPoint = HighData
//!   (stored as SND.MAX, one past it), ssthresh = cwnd = max(FlightSize/2, 2·MSS) (§5 step 4.2
//!   with RFC 5681 eq. 4). No inflation: the sender is clocked by pipe, not by cwnd growth.
//! - During recovery cwnd does not change; cumulative ACKs below the recovery point restart the
//!   timer (RFC 6298 §5.3).
//! - Exit (§5 (A)): a cumulative ACK at or beyond SND.MAX-at-entry (covering RecoveryPoint).
//!   cwnd stays = ssthresh; growth resumes with the next ACK.
//! - Timeout (§5.1): RecoveryPoint = HighData, recovery ends, and a new recovery may start only
//!   once SND.UNA ≥ RecoveryPoint (the endpoint also clears the scoreboard, or with
//!   `sack_on_timeout = "keep"` marks its holes lost). ssthresh as for
//!   every variant (congestion/mod.rs `Window::on_rto`).
//!
//! Differences from ns-2 FullTcp/Sack: ns-2 counts pipe in whole segments and reduces it by one
//! segment per partial ACK; RFC 6675 pipe is recomputed from the scoreboard (SetPipe). No
//! rescue retransmission (NextSeg rule 4, a MAY).
//!
//! Validation: unit test below (`entry_sets_cwnd_to_half_the_flight_without_inflation`);
//! tests/sack.rs and tests/fall_floyd.rs (`sack_*`).

use super::recovery::recovery_in;
use super::{AckInfo, AckVerdict, CongestionControl, Recovery};

/// SACK recovery window state: the shared recovery bookkeeping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sack {
    r: Recovery,
}

impl Sack {
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Sack {
            r: Recovery::new(mss, dupack_threshold),
        }
    }
    /// A new recovery may start at this cumulative ACK (RFC 6675 §5.1: HighACK ≥ RecoveryPoint).
    pub fn may_enter(&self, ack: u64) -> bool {
        !self.r.in_recovery && ack >= self.r.recover
    }
    /// Enter loss recovery (§5 step 4.1–4.2).
    pub fn enter(&mut self, a: &AckInfo) {
        self.r.recover = a.snd_max;
        self.r.w.halve(a.flight);
        self.r.w.cwnd = self.r.w.ssthresh;
        self.r.in_recovery = true;
    }
}

impl CongestionControl for Sack {
    recovery_in!(r);
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        if !self.r.in_recovery {
            self.r.w.grow(a.acked);
        } else if a.ack >= self.r.recover {
            self.r.in_recovery = false;
        }
        self.r.open_ack()
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        if !self.r.count_dupack() || !self.may_enter(a.ack) {
            return false;
        }
        self.enter(a);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_sets_cwnd_to_half_the_flight_without_inflation() {
        // 8 segments of 1000 B in flight: ssthresh = cwnd = 4000; more dupACKs change nothing;
        // a partial ACK keeps recovery and cwnd; the ACK of SND.MAX-at-entry ends it.
        let mut s = Sack::new(1000, 3);
        s.on_connected(8000, 65535);
        let d = AckInfo {
            ack: 1001,
            acked: 0,
            flight: 8000,
            snd_max: 9001,
        };
        assert!(!s.on_dupack(&d));
        assert!(!s.on_dupack(&d));
        assert!(s.on_dupack(&d));
        assert_eq!(
            (s.window().ssthresh, s.window().cwnd, s.recover()),
            (4000, 4000, 9001)
        );
        assert!(!s.on_dupack(&d));
        assert_eq!(s.window().cwnd, 4000);
        s.on_new_ack(&AckInfo {
            ack: 3001,
            acked: 2000,
            flight: 6000,
            snd_max: 10001,
        });
        assert!(s.in_recovery());
        assert_eq!(s.window().cwnd, 4000);
        s.on_new_ack(&AckInfo {
            ack: 9001,
            acked: 6000,
            flight: 1000,
            snd_max: 10001,
        });
        assert!(!s.in_recovery());
        assert_eq!(s.window().cwnd, 4000);
        // Timeout: recover = SND.MAX; dupACKs below it cannot start recovery.
        s.on_rto(
            &AckInfo {
                ack: 9001,
                acked: 0,
                flight: 1000,
                snd_max: 10001,
            },
            true,
        );
        assert_eq!((s.window().ssthresh, s.window().cwnd), (2000, 1000));
        assert!(!s.may_enter(9001));
        assert!(s.may_enter(10001));
    }
}
