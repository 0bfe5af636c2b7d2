//! Congestion control: one trait, one file per loss-recovery algorithm (STYLE.md §11), dispatched
//! through the [`Congestion`] enum (no `Box<dyn>` on the per-segment path): `tahoe.rs`,
//! `reno.rs`, `newreno.rs`, `sack.rs` (RFC 6675's window side), `cubic.rs` (RFC 9438 with
//! NewReno recovery, or RFC 6675 SACK recovery for `Variant::CubicSack`; it needs the time and
//! SRTT, given by [`Congestion::set_clock`]). The
//! bookkeeping they share — dupACK count, recovery flag and point, the handshake and timeout
//! steps, Reno/NewReno fast recovery — is [`Recovery`] (`recovery.rs`); each variant's file
//! keeps only what differs.
//!
//! Shared arithmetic, RFC 5681 counted in bytes ([`Window`]):
//! - slow start (cwnd < ssthresh): cwnd += min(bytes newly acked, MSS) per ACK (§3.1 eq. 2;
//!   with `SlowStartGrowth::Ns2` one MSS per ACK, [`Window::per_ack`]);
//!   with the `hystart_plus_plus` option min(N, L·MSS), divided by 4 in its Conservative Slow
//!   Start, while it runs ([`Window::ss_growth`], hystart_plus_plus.rs);
//! - congestion avoidance (cwnd ≥ ssthresh): cwnd += max(1, MSS·MSS/cwnd) per ACK (eq. 3);
//! - loss by dupACKs: ssthresh = max(FlightSize/2, 2·MSS) (eq. 4), cwnd = ssthresh + k·MSS where
//!   k = dupACK threshold (3 in the RFC, which names 3·SMSS; ns-2 adds `numdupacks_` too);
//! - loss by timeout: the same ssthresh, computed only on the first expiry for a segment (§3.1
//!   "has not yet been resent by way of the retransmission timer"), and cwnd = 1 MSS (the loss
//!   window). A timeout during fast recovery never raises ssthresh: min(ssthresh, eq. 4), since
//!   FlightSize then counts all the data sent while recovering (without this a NewReno sender
//!   with a large receive window gets ssthresh ≫ the path and loops overshoot → recovery →
//!   timeout; RFC 5681 only bounds ssthresh from above, Linux keeps it).
//!
//! FlightSize counts payload bytes sent and not acknowledged (SYN and FIN excluded).
//! Initial ssthresh: the peer's advertised window ("arbitrarily high … e.g. the largest possible
//! advertised window", RFC 5681 §3.1; ns-2 also starts ssthresh at `window_`). The initial
//! window is set by the endpoint at the end of the handshake. cwnd never drops below 1 MSS.
//!
//! Differences from ns-2: ns-2 counts cwnd in segments and grows it per ACK (+1 / +1/cwnd), not
//! per byte; ns-2 halves the window, not the FlightSize, and recomputes ssthresh on every
//! timeout (it then becomes 2 segments after a second consecutive timeout), RFC 5681 and we do
//! not — unless `ssthresh_rule = SsthreshRule::Ns2` ([`Window::ns2`], below). Neither caps cwnd (ns-2 `maxcwnd_ 0`),
//! so a sender limited by the receive window keeps growing cwnd.
//!
//! Read RFC 5681 §3 before editing. Validation: unit tests here and in tahoe.rs, reno.rs,
//! newreno.rs and sack.rs; tests/recovery.rs, tests/fall_floyd.rs, tests/sack.rs and
//! tests/rto.rs end to end.

pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod hystart;
pub mod hystart_plus_plus;
pub mod newreno;
pub mod prague;
pub mod recovery;
pub mod reno;
pub mod sack;
pub mod tahoe;

pub use bbr::{Bbr, BbrParams};
pub use cubic::{Cubic, CubicParams};
pub use dctcp::Dctcp;
pub use newreno::NewReno;
pub use prague::Prague;
pub use recovery::{NewAck, Recovery};
pub use reno::Reno;
pub use sack::Sack;
pub use tahoe::Tahoe;

use crate::config::{FullAck, SlowStartGrowth, SsthreshRule, TcpConfig, Variant};
use units::{SimDuration, SimTime};

/// cwnd and ssthresh, bytes, with the RFC 5681 arithmetic shared by every variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub mss: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// ns-2's ssthresh rule ([`SsthreshRule::Ns2`]): `Some(peer window in bytes)` once
    /// connected; `None` = RFC 5681.
    pub ns2: Option<u64>,
    /// ns-2's slow-start growth ([`SlowStartGrowth::Ns2`]): one MSS per ACK of new data.
    pub per_ack: bool,
    /// HyStart++'s slow-start increase (RFC 9406, hystart_plus_plus.rs), set by the endpoint
    /// while it runs; `None` = RFC 5681 eq. 2 (or `per_ack`).
    pub ss_growth: Option<hystart_plus_plus::SsGrowth>,
}

impl Window {
    /// Before the handshake completes: 1 MSS (ns-2 `delay_growth_`), ssthresh "infinite".
    pub fn new(mss: u32) -> Self {
        let mss = mss.max(1) as u64;
        Window {
            mss,
            cwnd: mss,
            ssthresh: u64::MAX,
            ns2: None,
            per_ack: false,
            ss_growth: None,
        }
    }
    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF)` in bytes: max(⌊W/2⌋, 2)·MSS with W =
    /// ⌊min(cwnd, peer window)/MSS⌋ segments (ns-2 `window()`, integer halving).
    fn ns2_half(&self, peer_window: u64) -> u64 {
        let w = self.cwnd.min(peer_window) / self.mss;
        (w / 2).max(2) * self.mss
    }
    /// ECN-Echo response: RFC 3168 §6.1.2 as for a loss, ssthresh = max(FlightSize/2, 2·MSS)
    /// and cwnd = ssthresh. With ns-2's rule ([`Window::ns2`]) `slowdown(CLOSE_CWND_HALF |
    /// CLOSE_SSTHRESH_HALF)` from `TcpAgent::ecn()`: cwnd = max(⌊W/2⌋, 1) segments and
    /// ssthresh = max(⌊W/2⌋, 2), so a window of 2 or 3 segments drops to 1 (not 2).
    pub fn on_ece(&mut self, flight: u64) {
        self.halve(flight);
        self.cwnd = match self.ns2 {
            Some(peer) => ((self.cwnd.min(peer) / self.mss) / 2).max(1) * self.mss,
            None => self.ssthresh,
        };
    }
    /// Slow start or congestion avoidance for an ACK that newly acknowledged `acked` bytes.
    pub fn grow(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            self.cwnd += match self.ss_growth {
                Some(g) => g.increase(acked),
                None if self.per_ack => self.mss,
                None => acked.min(self.mss),
            };
        } else {
            self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
        }
    }
    /// RFC 5681 eq. 4: ssthresh = max(FlightSize/2, 2·MSS).
    /// With ns-2's rule ([`Window::ns2`]): half the window instead.
    pub fn halve(&mut self, flight: u64) {
        self.ssthresh = match self.ns2 {
            Some(peer) => self.ns2_half(peer),
            None => (flight / 2).max(2 * self.mss),
        };
    }
    /// RFC 6582 §3.2 step 3, full ACK: leave fast recovery with cwnd = ssthresh (option 2) or
    /// min(ssthresh, max(FlightSize, MSS) + MSS) (option 1); never below 1 MSS.
    pub fn exit_recovery(&mut self, full_ack: FullAck, flight: u64) {
        self.cwnd = match full_ack {
            FullAck::Ssthresh => self.ssthresh,
            FullAck::FlightSize => self.ssthresh.min(flight.max(self.mss) + self.mss),
        }
        .max(self.mss);
    }
    /// RFC 6582 §3.2 step 4, partial ACK: deflate cwnd by the bytes acknowledged, add back one
    /// MSS if at least one MSS was acknowledged; never below 1 MSS.
    pub fn partial_ack(&mut self, acked: u64) {
        self.cwnd = self.cwnd.saturating_sub(acked);
        if acked >= self.mss {
            self.cwnd += self.mss;
        }
        self.cwnd = self.cwnd.max(self.mss);
    }
    /// Fast retransmit: eq. 4, then cwnd = ssthresh + k·MSS (k = dupACK threshold).
    pub fn enter_fast_recovery(&mut self, flight: u64, dupack_threshold: u32) {
        self.halve(flight);
        self.cwnd = self.ssthresh + dupack_threshold as u64 * self.mss;
    }
    /// Retransmission timeout: eq. 4 on the first expiry only, cwnd = loss window (1 MSS).
    /// During fast recovery ssthresh was already reduced for this congestion event and
    /// FlightSize includes everything sent while recovering (NewReno keeps the pipe full), so
    /// ssthresh only ever goes down then: min(ssthresh, eq. 4) — allowed by RFC 5681 ("no more
    /// than" eq. 4) and what Linux does (`tcp_enter_loss` keeps ssthresh in Recovery).
    /// With ns-2's rule: half the window on every expiry (ns-2 `timeout_action`).
    pub fn on_rto(&mut self, flight: u64, first_expiry: bool, in_recovery: bool) {
        if let Some(peer) = self.ns2 {
            self.ssthresh = self.ns2_half(peer);
        } else if first_expiry {
            let old = self.ssthresh;
            self.halve(flight);
            if in_recovery {
                self.ssthresh = self.ssthresh.min(old);
            }
        }
        self.cwnd = self.mss;
    }
}

/// What the endpoint tells the algorithm about an ACK. Sequence numbers are the endpoint's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckInfo {
    /// The cumulative ACK (= SND.UNA after it).
    pub ack: u64,
    /// Payload bytes newly acknowledged by this ACK (0 for a duplicate).
    pub acked: u64,
    /// FlightSize after this ACK: payload bytes sent and still unacknowledged.
    pub flight: u64,
    /// Highest sequence number sent, plus one (SND.MAX).
    pub snd_max: u64,
}

/// The algorithm's answer to an ACK of new data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckVerdict {
    /// Retransmit the first unacknowledged segment now (NewReno partial ACK).
    pub retransmit_head: bool,
    /// Restart the retransmission timer (RFC 6298 §5.3; RFC 6582 only on the first partial ACK).
    pub restart_timer: bool,
}

/// Hooks every loss-recovery algorithm implements; the window, the handshake, the timeout and
/// the accessors have the shared defaults of [`Recovery`].
pub trait CongestionControl {
    /// The window and recovery bookkeeping.
    fn recovery(&self) -> &Recovery;
    /// The window and recovery bookkeeping, mutable.
    fn recovery_mut(&mut self) -> &mut Recovery;
    /// cwnd and ssthresh, bytes.
    fn window(&self) -> &Window {
        &self.recovery().w
    }
    /// cwnd and ssthresh, bytes, mutable.
    fn window_mut(&mut self) -> &mut Window {
        &mut self.recovery_mut().w
    }
    /// Handshake complete: cwnd = `initial_window` bytes, ssthresh = `peer_window` bytes.
    fn on_connected(&mut self, initial_window: u64, peer_window: u64) {
        self.recovery_mut().connect(initial_window, peer_window);
    }
    /// An ACK advanced SND.UNA.
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict;
    /// A duplicate ACK (RFC 5681 §2 definition, checked by the endpoint). True: fast retransmit
    /// the first unacknowledged segment now.
    fn on_dupack(&mut self, a: &AckInfo) -> bool;
    /// The retransmission timer expired; `first_expiry` is false for a repeated expiry of the
    /// same segment. Default: RFC 5681's response ([`Recovery::rto`]).
    fn on_rto(&mut self, a: &AckInfo, first_expiry: bool) {
        self.recovery_mut().rto(a, first_expiry);
    }
    /// In fast recovery.
    fn in_recovery(&self) -> bool {
        self.recovery().in_recovery
    }
    /// Duplicate ACKs since the last ACK of new data.
    fn dupacks(&self) -> u32 {
        self.recovery().dupacks
    }
    /// The recovery point: one past the highest sequence number sent when the last recovery or
    /// timeout started (unused by Reno).
    fn recover(&self) -> u64 {
        self.recovery().recover
    }
}

/// Every algorithm, for static dispatch.
#[derive(Clone, Debug, PartialEq)]
pub enum Congestion {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Cubic(Cubic),
    Dctcp(Dctcp),
    Prague(Prague),
    Bbr(Box<Bbr>),
}

macro_rules! each {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            Congestion::Tahoe($c) => $e,
            Congestion::Reno($c) => $e,
            Congestion::NewReno($c) => $e,
            Congestion::Sack($c) => $e,
            Congestion::Cubic($c) => $e,
            Congestion::Dctcp($c) => $e,
            Congestion::Prague($c) => $e,
            Congestion::Bbr($c) => $e,
        }
    };
}

impl Congestion {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.variant {
            Variant::Tahoe => Congestion::Tahoe(Tahoe::new(cfg.mss, cfg.dupack_threshold)),
            Variant::Reno => Congestion::Reno(Reno::new(cfg.mss, cfg.dupack_threshold)),
            Variant::NewReno => Congestion::NewReno(NewReno::new(
                cfg.mss,
                cfg.dupack_threshold,
                cfg.newreno_full_ack,
            )),
            Variant::Sack => Congestion::Sack(Sack::new(cfg.mss, cfg.dupack_threshold)),
            Variant::Cubic => {
                let mut c = Cubic::new(
                    cfg.mss,
                    cfg.dupack_threshold,
                    cfg.newreno_full_ack,
                    CubicParams::default(),
                );
                c.set_hystart(cfg.hystart);
                Congestion::Cubic(c)
            }
            Variant::CubicSack => {
                let mut c = Cubic::with_sack(cfg.mss, cfg.dupack_threshold, CubicParams::default());
                c.set_hystart(cfg.hystart);
                Congestion::Cubic(c)
            }
            Variant::Dctcp => Congestion::Dctcp(Dctcp::new(
                cfg.mss,
                cfg.dupack_threshold,
                cfg.newreno_full_ack,
            )),
            Variant::Prague => Congestion::Prague(Prague::new(
                cfg.mss,
                cfg.dupack_threshold,
                cfg.newreno_full_ack,
                cfg.prague_rtt_target,
            )),
            Variant::Bbr => Congestion::Bbr(Box::new(Bbr::new(
                cfg.mss,
                cfg.dupack_threshold,
                true,
                BbrParams {
                    lt_bw: cfg.bbr_lt_bw,
                },
            ))),
        }
    }
    /// The time and SRTT of the hook about to run (CUBIC uses both, Prague the SRTT).
    pub fn set_clock(&mut self, now: SimTime, srtt: Option<SimDuration>) {
        match self {
            Congestion::Cubic(c) => c.set_clock(now, srtt),
            Congestion::Prague(p) => p.set_srtt(srtt),
            _ => {}
        }
    }
    /// Every acceptable ACK of an ECN connection, before its ECE response: the scalable
    /// variants' mark-fraction bookkeeping (RFC 8257 §3.3); nothing for the others.
    pub fn on_ecn_feedback(&mut self, ack: u64, acked: u64, ece: bool, snd_nxt: u64) {
        match self {
            Congestion::Dctcp(d) => d.on_ecn_feedback(ack, acked, ece, snd_nxt),
            Congestion::Prague(p) => p.on_ecn_feedback(ack, acked, ece, snd_nxt),
            _ => {}
        }
    }
    /// The pacing rate the algorithm sets itself, payload bytes/s (BBR); `None`: the
    /// endpoint's default rule applies (pacing.rs).
    pub fn pacing_rate(&self) -> Option<u64> {
        match self {
            Congestion::Bbr(b) => Some(b.pacing_rate()),
            _ => None,
        }
    }
    /// HyStart's look at an ACK of new data (CUBIC with `hystart` only).
    pub fn hystart_ack(&mut self, a: &hystart::HyAck) {
        if let Congestion::Cubic(c) = self {
            c.hystart_ack(a);
        }
    }
    /// BBR, if this is BBR.
    pub fn bbr_mut(&mut self) -> Option<&mut Bbr> {
        match self {
            Congestion::Bbr(b) => Some(b),
            _ => None,
        }
    }
    /// BBR, if this is BBR.
    pub fn bbr(&self) -> Option<&Bbr> {
        match self {
            Congestion::Bbr(b) => Some(b),
            _ => None,
        }
    }
    /// ECN-Echo window reduction (RFC 3168 §6.1.2): Reno family [`Window::on_ece`]; CUBIC its
    /// β reduction (RFC 9438 §4.6).
    pub fn on_ece(&mut self, flight: u64) {
        match self {
            Congestion::Cubic(c) => c.on_ece(flight),
            Congestion::Dctcp(d) => d.on_ece(),
            Congestion::Prague(p) => p.on_ece(),
            Congestion::Bbr(_) => {} // BBR v1 does not respond to ECN
            _ => self.window_mut().on_ece(flight),
        }
    }
    /// A `Sack` endpoint whose peer did not agree to SACK recovers as NewReno (before the
    /// handshake completes, so the window state is still the initial one).
    pub fn sack_refused(&mut self, cfg: &TcpConfig) {
        if let Congestion::Cubic(c) = self {
            c.sack_refused();
        }
        if let Congestion::Bbr(b) = self {
            b.sack_refused();
        }
        if matches!(self, Congestion::Sack(_)) {
            *self = Congestion::NewReno(NewReno::new(
                cfg.mss,
                cfg.dupack_threshold,
                cfg.newreno_full_ack,
            ));
        }
    }
    /// RFC 6675 §5.1 for the SACK-recovering variants: a new recovery may start at `ack`
    /// (false for the others).
    pub fn sack_may_enter(&self, ack: u64) -> bool {
        match self {
            Congestion::Sack(s) => s.may_enter(ack),
            Congestion::Cubic(c) => c.may_enter(ack),
            Congestion::Bbr(b) => b.may_enter(ack),
            _ => false,
        }
    }
    /// Enter SACK recovery before DupThresh duplicates (RFC 6675 §5 step 2, IsLost(HighACK + 1)).
    pub fn sack_enter(&mut self, a: &AckInfo) {
        match self {
            Congestion::Sack(s) => s.enter(a),
            Congestion::Cubic(c) if c.sack() => c.sack_enter(a),
            Congestion::Bbr(b) if b.sack() => b.sack_enter(a),
            _ => {}
        }
    }
    /// Mutable window, for reductions that are not loss recovery (ECN, RFC 3168 §6.1.2).
    pub fn window_mut(&mut self) -> &mut Window {
        each!(self, c => c.window_mut())
    }
    pub fn window(&self) -> &Window {
        each!(self, c => c.window())
    }
    /// Handshake complete; `rule` = the endpoint's ssthresh rule (the peer's window caps ns-2's),
    /// `growth` its slow-start growth.
    pub fn on_connected(
        &mut self,
        initial_window: u64,
        peer_window: u64,
        rule: SsthreshRule,
        growth: SlowStartGrowth,
    ) {
        each!(self, c => c.on_connected(initial_window, peer_window));
        let w = self.window_mut();
        w.ns2 = (rule == SsthreshRule::Ns2).then_some(peer_window);
        w.per_ack = growth == SlowStartGrowth::Ns2;
    }
    pub fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        each!(self, c => c.on_new_ack(a))
    }
    pub fn on_dupack(&mut self, a: &AckInfo) -> bool {
        each!(self, c => c.on_dupack(a))
    }
    pub fn on_rto(&mut self, a: &AckInfo, first_expiry: bool) {
        each!(self, c => c.on_rto(a, first_expiry))
    }
    pub fn in_recovery(&self) -> bool {
        each!(self, c => c.in_recovery())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_at_most_one_mss_per_ack() {
        let mut w = Window {
            mss: 1000,
            cwnd: 2000,
            ssthresh: 65535,
            ns2: None,
            per_ack: false,
            ss_growth: None,
        };
        w.grow(2000); // a stretch ACK of 2 segments still adds 1 MSS (RFC 5681 eq. 2)
        assert_eq!(w.cwnd, 3000);
        w.grow(300);
        assert_eq!(w.cwnd, 3300);
    }

    #[test]
    fn ecn_response_halves_the_window_to_one_segment_with_ns2s_rule() {
        let w0 = Window {
            mss: 1000,
            cwnd: 3000,
            ssthresh: 65535,
            ns2: None,
            per_ack: false,
            ss_growth: None,
        };
        // RFC 3168 / 5681: cwnd = ssthresh = max(FlightSize/2, 2 MSS) = 2000
        let mut w = w0;
        w.on_ece(3000);
        assert_eq!((w.cwnd, w.ssthresh), (2000, 2000));
        // ns-2 slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF): W = 3, ⌊3/2⌋ = 1
        let mut w = Window {
            ns2: Some(65535),
            ..w0
        };
        w.on_ece(3000);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 2000));
        // W = 9 segments, peer window 6: W = min(cwnd, wnd) = 6 → 3 and 3
        let mut w = Window {
            cwnd: 9000,
            ns2: Some(6000),
            ..w0
        };
        w.on_ece(9000);
        assert_eq!((w.cwnd, w.ssthresh), (3000, 3000));
        // W = 1 stays 1
        let mut w = Window {
            cwnd: 1000,
            ns2: Some(65535),
            ..w0
        };
        w.on_ece(1000);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 2000));
    }

    #[test]
    fn ns2_slow_start_adds_one_mss_per_ack_however_little_it_acknowledges() {
        let mut w = Window {
            mss: 1000,
            cwnd: 2000,
            ssthresh: 4500,
            ns2: None,
            per_ack: true,
            ss_growth: None,
        };
        w.grow(300); // ns-2 opencwnd(): cwnd_ += 1 segment
        assert_eq!(w.cwnd, 3000);
        w.grow(2000);
        assert_eq!(w.cwnd, 4000);
        w.grow(1); // 4000 < 4500: still slow start
        assert_eq!(w.cwnd, 5000);
        w.grow(1); // congestion avoidance: MSS²/cwnd, as without the rule
        assert_eq!(w.cwnd, 5200);
    }

    #[test]
    fn congestion_avoidance_adds_mss_squared_over_cwnd() {
        // cwnd = ssthresh = 4000: 1000·1000/4000 = 250 bytes; then 1000·1000/4250 = 235.29 → 235.
        let mut w = Window {
            mss: 1000,
            cwnd: 4000,
            ssthresh: 4000,
            ns2: None,
            per_ack: false,
            ss_growth: None,
        };
        w.grow(1000);
        assert_eq!(w.cwnd, 4250);
        w.grow(1000);
        assert_eq!(w.cwnd, 4485);
        // At least one byte per ACK: mss 10, cwnd 1000 → 100/1000 = 0 → 1.
        let mut w = Window {
            mss: 10,
            cwnd: 1000,
            ssthresh: 10,
            ns2: None,
            per_ack: false,
            ss_growth: None,
        };
        w.grow(10);
        assert_eq!(w.cwnd, 1001);
    }

    #[test]
    fn halving_has_a_floor_of_two_segments() {
        let mut w = Window {
            mss: 1000,
            cwnd: 10_000,
            ssthresh: u64::MAX,
            ns2: None,
            per_ack: false,
            ss_growth: None,
        };
        w.enter_fast_recovery(7000, 3);
        assert_eq!((w.ssthresh, w.cwnd), (3500, 6500));
        w.enter_fast_recovery(3000, 3);
        assert_eq!((w.ssthresh, w.cwnd), (2000, 5000));
        w.on_rto(9000, true, false);
        assert_eq!((w.ssthresh, w.cwnd), (4500, 1000));
        // A repeated expiry keeps ssthresh.
        w.on_rto(9000, false, false);
        assert_eq!((w.ssthresh, w.cwnd), (4500, 1000));
        // In fast recovery (ssthresh 4500 already halved) with 40000 B now in flight: kept.
        w.on_rto(40_000, true, true);
        assert_eq!((w.ssthresh, w.cwnd), (4500, 1000));
        // In recovery with a smaller flight: eq. 4 applies, max(3000/2, 2000) = 2000.
        w.on_rto(3000, true, true);
        assert_eq!((w.ssthresh, w.cwnd), (2000, 1000));
    }
}
