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
//!   once SND.UNA ≥ RecoveryPoint (the endpoint also clears the scoreboard). ssthresh as for
//!   every variant (congestion/mod.rs `Window::on_rto`).
//!
//! Differences from ns-2 FullTcp/Sack: ns-2 counts pipe in whole segments and reduces it by one
//! segment per partial ACK; RFC 6675 pipe is recomputed from the scoreboard (SetPipe). No
//! rescue retransmission (NextSeg rule 4, a MAY).
//!
//! Validation: unit test below (`entry_sets_cwnd_to_half_the_flight_without_inflation`);
//! tests/sack.rs and tests/fall_floyd.rs (`sack_*`).

use super::{AckInfo, AckVerdict, CongestionControl, Window};

/// SACK recovery window state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sack {
    w: Window,
    dupacks: u32,
    in_recovery: bool,
    /// SND.MAX at the start of the last recovery or timeout; 0 initially.
    recover: u64,
    dupack_threshold: u32,
}

impl Sack {
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Sack {
            w: Window::new(mss),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            dupack_threshold: dupack_threshold.max(1),
        }
    }
    /// The recovery point (one past HighData when recovery or the last timeout started).
    pub fn recover(&self) -> u64 {
        self.recover
    }
    /// A new recovery may start at this cumulative ACK (RFC 6675 §5.1: HighACK ≥ RecoveryPoint).
    pub fn may_enter(&self, ack: u64) -> bool {
        !self.in_recovery && ack >= self.recover
    }
    /// Enter loss recovery (§5 step 4.1–4.2).
    pub fn enter(&mut self, a: &AckInfo) {
        self.recover = a.snd_max;
        self.w.halve(a.flight);
        self.w.cwnd = self.w.ssthresh;
        self.in_recovery = true;
    }
}

impl CongestionControl for Sack {
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
        self.dupacks = 0;
        if self.in_recovery {
            if a.ack >= self.recover {
                self.in_recovery = false;
            }
        } else {
            self.w.grow(a.acked);
        }
        AckVerdict {
            retransmit_head: false,
            restart_timer: true,
        }
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.dupacks = self.dupacks.saturating_add(1);
        if self.dupacks != self.dupack_threshold || !self.may_enter(a.ack) {
            return false;
        }
        self.enter(a);
        true
    }
    fn on_rto(&mut self, a: &AckInfo, first_expiry: bool) {
        self.w.on_rto(a.flight, first_expiry, self.in_recovery);
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = a.snd_max;
    }
    fn in_recovery(&self) -> bool {
        self.in_recovery
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
