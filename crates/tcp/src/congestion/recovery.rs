//! The loss-recovery state every congestion-control variant keeps, and the steps they share:
//! the window ([`Window`]), the duplicate-ACK count, the recovery flag and the recovery point
//! (RFC 6582's `recover`, RFC 6675's RecoveryPoint; stored as SND.MAX, one past the highest
//! sequence number sent, as FreeBSD's `snd_recover` and ns-2's `recover_`).
//!
//! Shared steps: the handshake's initial window and ssthresh; counting duplicate ACKs up to the
//! threshold (RFC 5681 §3.2 step 2); the timeout (RFC 5681 §3.1 via [`Window::on_rto`], then
//! recovery ends and the recovery point moves to SND.MAX, RFC 6582 §4 / RFC 6675 §5.1); and
//! the Reno-family fast recovery of RFC 5681 §3.2 / RFC 6582 §3.2 that Reno, NewReno and CUBIC
//! run ([`Recovery::fast_recovery_dupack`], [`Recovery::newreno_ack`]). What each variant does
//! with the window at those steps stays in its own file.
//!
//! Validation: the variants' unit tests (tahoe.rs, reno.rs, newreno.rs, sack.rs, cubic.rs) and
//! tests/recovery.rs, tests/fall_floyd.rs, tests/sack.rs end to end.

use super::{AckInfo, AckVerdict, Window};
use crate::config::FullAck;

/// Where an ACK of new data leaves NewReno fast recovery (RFC 6582 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAck {
    /// Not in recovery: the caller grows the window.
    Open,
    /// Full ACK (ACK ≥ recover): recovery has ended, cwnd set per [`FullAck`] (step 3).
    Full,
    /// Partial ACK: cwnd deflated, the head is to be retransmitted (step 5).
    Partial,
}

/// The window and recovery bookkeeping of one connection's congestion control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovery {
    /// cwnd and ssthresh, bytes.
    pub w: Window,
    /// Duplicate ACKs since the last ACK of new data.
    pub dupacks: u32,
    /// In fast recovery (never for Tahoe).
    pub in_recovery: bool,
    /// SND.MAX when the last recovery or timeout started; 0 (the ISS) initially. Reno keeps it
    /// but never reads it (no `recover` check).
    pub recover: u64,
    /// A partial ACK has already restarted the timer in this recovery (NewReno, CUBIC).
    pub partial_seen: bool,
    /// Duplicate ACKs that trigger a fast retransmit (≥ 1; RFC 5681: 3).
    pub dupack_threshold: u32,
}

impl Recovery {
    /// Before the handshake: [`Window::new`], no duplicates, not recovering, recover = 0.
    pub fn new(mss: u32, dupack_threshold: u32) -> Self {
        Recovery {
            w: Window::new(mss),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_seen: false,
            dupack_threshold: dupack_threshold.max(1),
        }
    }

    /// Handshake complete: cwnd = `initial_window` bytes (≥ 1 MSS), ssthresh = `peer_window`
    /// bytes (≥ 2 MSS; RFC 5681 §3.1).
    pub fn connect(&mut self, initial_window: u64, peer_window: u64) {
        self.w.cwnd = initial_window.max(self.w.mss);
        self.w.ssthresh = peer_window.max(2 * self.w.mss);
    }

    /// Count a duplicate ACK; true if it is exactly the threshold-th (RFC 5681 §3.2 step 2).
    pub fn count_dupack(&mut self) -> bool {
        self.dupacks = self.dupacks.saturating_add(1);
        self.dupacks == self.dupack_threshold
    }

    /// The answer to an ACK of new data outside recovery: restart the timer (RFC 6298 §5.3);
    /// the duplicate count restarts.
    pub fn open_ack(&mut self) -> AckVerdict {
        self.dupacks = 0;
        AckVerdict {
            retransmit_head: false,
            restart_timer: true,
        }
    }

    /// A duplicate ACK under Reno-family fast recovery (RFC 5681 §3.2): in recovery it inflates
    /// cwnd by 1 MSS; the threshold-th one starts a fast retransmit unless `check_recover` and
    /// the ACK does not cover `recover` (RFC 6582 §3.2 step 2 / §4: duplicates of go-back-N
    /// resends after a timeout). True: recovery has begun (recover = SND.MAX) and the caller
    /// reduces the window.
    pub fn fast_recovery_dupack(&mut self, a: &AckInfo, check_recover: bool) -> bool {
        let at_threshold = self.count_dupack();
        if self.in_recovery {
            self.w.cwnd += self.w.mss;
            return false;
        }
        if !at_threshold || (check_recover && a.ack <= self.recover) {
            return false;
        }
        self.recover = a.snd_max;
        self.partial_seen = false;
        self.in_recovery = true;
        true
    }

    /// [`Recovery::fast_recovery_dupack`] with RFC 5681's window reduction on entry
    /// ([`Window::enter_fast_recovery`]): Reno (`check_recover` false) and NewReno (true).
    pub fn reno_dupack(&mut self, a: &AckInfo, check_recover: bool) -> bool {
        let enter = self.fast_recovery_dupack(a, check_recover);
        if enter {
            self.w.enter_fast_recovery(a.flight, self.dupack_threshold);
        }
        enter
    }

    /// An ACK of new data under NewReno recovery (RFC 6582 §3.2): outside recovery only the
    /// duplicate count restarts ([`NewAck::Open`]; the caller grows the window); a full ACK
    /// ends recovery with cwnd per `full_ack`; a partial ACK deflates cwnd and asks for the
    /// head to be resent, restarting the timer only on the first ("Impatient", §4).
    pub fn newreno_ack(&mut self, a: &AckInfo, full_ack: FullAck) -> (NewAck, AckVerdict) {
        if !self.in_recovery {
            return (NewAck::Open, self.open_ack());
        }
        if a.ack >= self.recover {
            self.in_recovery = false;
            self.w.exit_recovery(full_ack, a.flight);
            return (NewAck::Full, self.open_ack());
        }
        self.w.partial_ack(a.acked);
        let first = !self.partial_seen;
        self.partial_seen = true;
        let verdict = AckVerdict {
            retransmit_head: true,
            restart_timer: first,
        };
        (NewAck::Partial, verdict)
    }

    /// Retransmission timeout with RFC 5681's window response ([`Window::on_rto`]), then
    /// [`Recovery::end_on_rto`].
    pub fn rto(&mut self, a: &AckInfo, first_expiry: bool) {
        self.w.on_rto(a.flight, first_expiry, self.in_recovery);
        self.end_on_rto(a);
    }

    /// After a timeout: recovery ends, the duplicate count restarts and recover = SND.MAX, so
    /// duplicates of the go-back-N resends start no fast retransmit.
    pub fn end_on_rto(&mut self, a: &AckInfo) {
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = a.snd_max;
    }
}

/// The two required `CongestionControl` accessors of a variant whose [`Recovery`] is its field
/// `$r`.
macro_rules! recovery_in {
    ($r:ident) => {
        fn recovery(&self) -> &$crate::congestion::Recovery {
            &self.$r
        }
        fn recovery_mut(&mut self) -> &mut $crate::congestion::Recovery {
            &mut self.$r
        }
    };
}
pub(crate) use recovery_in;
