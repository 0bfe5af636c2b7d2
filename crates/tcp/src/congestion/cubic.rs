//! CUBIC congestion control, RFC 9438 (Xu, Ha, Rhee, Goel & Eggert 2023), with RFC 6582
//! NewReno loss recovery.
//!
//! Window law (§4.2), in segments and seconds: W_cubic(t) = C·(t − K)³ + W_max (Eq. 1),
//! K = ∛((W_max − cwnd_epoch)/C) (Eq. 2), t = now − t_epoch, where the epoch is the start of the
//! current congestion-avoidance stage (the full ACK that ends recovery, or the first ACK in
//! congestion avoidance after slow start or after a timeout). Per new ACK in congestion
//! avoidance (cwnd ≥ ssthresh, not in recovery):
//! - Reno-friendly estimate (§4.3): W_est += α·segments_acked/cwnd (Eq. 4), α = 3(1 − β)/(1 + β)
//!   (Eq. 5; 0.5294 for β = 0.7) until W_est ≥ cwnd_prior, then 1; if W_cubic(t) < W_est,
//!   cwnd = W_est;
//! - otherwise (concave §4.4 / convex §4.5): target = W_cubic(t + RTT) clamped to
//!   [cwnd, 1.5·cwnd] (Eq. 3, RTT = SRTT, 0 before any sample), cwnd += (target − cwnd)/cwnd
//!   segments per ACK ("for each received new ACK").
//!
//! Congestion event (§4.6, fast retransmit and ECN-Echo): with cwnd the window before the
//! event, fast convergence (§4.7): W_max = cwnd·(1 + β)/2 if cwnd < the previous W_max, else
//! W_max = cwnd; cwnd_prior = cwnd; ssthresh = max(FlightSize·β, 2·MSS) (the RFC's
//! flight_size form). Fast retransmit then sets cwnd = ssthresh + k·MSS and runs NewReno
//! recovery exactly as newreno.rs (inflation, partial ACKs, full ACK → cwnd = ssthresh or the
//! `newreno_full_ack` rule); ECN-Echo sets cwnd = max(FlightSize·β, 1 MSS). Timeout (§4.8):
//! ssthresh as above on the first expiry (never raised during recovery, as congestion/mod.rs),
//! cwnd = 1 MSS, and the first congestion-avoidance stage after it uses K = 0, W_max = W_est =
//! cwnd at its start; the same when congestion avoidance starts with no congestion event yet
//! (§4.10: slow start ended at ssthresh, W_max undefined; cwnd_prior = cwnd then). Slow start
//! is RFC 5681's, or with the `hystart` option Linux's HyStart (congestion/hystart.rs) ends it
//! early (ssthresh = cwnd).
//!
//! Parameters ([`CubicParams`]): C = 0.4, β = 0.7, fast convergence on (RFC 9438 §4.1, §4.7).
//! cwnd is kept in bytes; the fractional bytes of each increment are carried, so many tiny
//! increments are not lost to rounding.
//!
//! Differences from Linux (`tcp_cubic.c`): Linux reduces from cwnd, not FlightSize (the same
//! for a window-limited sender), grows per acknowledged segment rather than per ACK, uses
//! HyStart and SACK/RACK recovery, and keeps W_max in fixed point. ns-2 has no CUBIC in Full-TCP.
//! Not modelled: spurious-congestion undo (§4.9), application-limited rules (§5.8).
//!
//! Read RFC 9438 §4 before editing. Validation: unit tests below (`k_and_w_cubic_by_hand`,
//! `loss_reduces_by_beta_with_fast_convergence`, `congestion_avoidance_by_hand`,
//! `timeout_restarts_with_k_zero`); tests/fall_floyd.rs (`fall_floyd_cubic_*`).

use super::hystart::{HyAck, HyStart};
use super::recovery::recovery_in;
use super::{AckInfo, AckVerdict, CongestionControl, NewAck, Recovery};
use crate::config::FullAck;
use units::math::powf;
use units::{SimDuration, SimTime};

/// CUBIC constants (RFC 9438 §4.1 and §4.7 defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// C, segments/s³. Default 0.4 (RFC 9438 §4.1).
    pub c: f64,
    /// β_cubic, multiplicative decrease factor. Default 0.7 (RFC 9438 §4.1).
    pub beta: f64,
    /// Fast convergence (§4.7). Default on.
    pub fast_convergence: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,                 // RFC 9438 §4.1
            beta: 0.7,              // RFC 9438 §4.1
            fast_convergence: true, // RFC 9438 §4.7
        }
    }
}

/// K of Eq. 2, seconds: ∛((W_max − cwnd_epoch)/C) (negative if cwnd_epoch > W_max).
pub fn k_seconds(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    let x = (w_max - cwnd_epoch) / c;
    if x >= 0.0 {
        powf(x, 1.0 / 3.0)
    } else {
        -powf(-x, 1.0 / 3.0)
    }
}

/// W_cubic(t) of Eq. 1, segments: C·(t − K)³ + W_max.
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    let d = t - k;
    c * d * d * d + w_max
}

/// The state of the current congestion-avoidance stage.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    start: SimTime,
    k: f64,
    w_max: f64,
    w_est: f64,
}

/// CUBIC state: the window, NewReno recovery and the cubic law.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    r: Recovery,
    p: CubicParams,
    full_ack: FullAck,
    /// W_max after the last congestion event, segments (None before the first).
    w_max: Option<f64>,
    /// cwnd before the last congestion event, segments (cwnd_prior).
    cwnd_prior: f64,
    /// The next congestion-avoidance stage starts with K = 0 (after a timeout, §4.8).
    k_zero: bool,
    epoch: Option<Epoch>,
    /// Fractional bytes of cwnd growth not yet applied.
    frac: f64,
    now: SimTime,
    srtt: Option<SimDuration>,
    /// RFC 6675 SACK recovery instead of NewReno's (`Variant::CubicSack`, SACK agreed).
    sack: bool,
    /// Linux's HyStart (`hystart` option, congestion/hystart.rs).
    hystart: Option<HyStart>,
}

impl Cubic {
    pub fn new(mss: u32, dupack_threshold: u32, full_ack: FullAck, p: CubicParams) -> Self {
        Cubic {
            r: Recovery::new(mss, dupack_threshold),
            p,
            full_ack,
            w_max: None,
            cwnd_prior: 0.0,
            k_zero: false,
            epoch: None,
            frac: 0.0,
            now: SimTime::ZERO,
            srtt: None,
            sack: false,
            hystart: None,
        }
    }

    /// CUBIC with RFC 6675 SACK recovery (`Variant::CubicSack`; Linux's default pair).
    pub fn with_sack(mss: u32, dupack_threshold: u32, p: CubicParams) -> Self {
        let mut c = Cubic::new(mss, dupack_threshold, FullAck::Ssthresh, p);
        c.sack = true;
        c
    }
    /// Turn HyStart on or off (before the handshake completes).
    pub fn set_hystart(&mut self, on: bool) {
        self.hystart = on.then(HyStart::default);
    }
    /// HyStart's state, if on.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }
    /// HyStart on an ACK of new data: when it finds the exit, slow start ends (ssthresh =
    /// cwnd, Linux `hystart_update`).
    pub fn hystart_ack(&mut self, a: &HyAck) {
        if let Some(h) = self.hystart.as_mut() {
            if h.on_ack(a).is_some() {
                self.r.w.ssthresh = self.r.w.cwnd;
            }
        }
    }
    /// Whether loss recovery is RFC 6675's.
    pub fn sack(&self) -> bool {
        self.sack
    }
    /// The peer refused SACK: recover as NewReno (before the handshake completes).
    pub fn sack_refused(&mut self) {
        self.sack = false;
    }
    /// SACK recovery: a new recovery may start at this cumulative ACK (RFC 6675 §5.1).
    pub fn may_enter(&self, ack: u64) -> bool {
        self.sack && !self.r.in_recovery && ack >= self.r.recover
    }
    /// SACK recovery entry (RFC 6675 §5 step 4 with RFC 9438 §4.6's reduction): RecoveryPoint =
    /// SND.MAX, ssthresh = cwnd = max(β·FlightSize, 2·MSS), no inflation.
    pub fn sack_enter(&mut self, a: &AckInfo) {
        self.r.recover = a.snd_max;
        self.reduce(a.flight);
        self.k_zero = false;
        self.r.w.cwnd = self.r.w.ssthresh;
        self.r.in_recovery = true;
    }
    /// One ACK of new data: slow start or the cubic law.
    fn grow(&mut self, acked: u64) {
        if self.r.w.cwnd < self.r.w.ssthresh {
            self.r.w.grow(acked);
        } else {
            self.grow_ca(acked);
        }
    }
    /// An ACK of new data under SACK recovery (RFC 6675 §5 (A)): outside recovery the window
    /// grows; the ACK covering RecoveryPoint ends recovery with cwnd = ssthresh and starts the
    /// congestion-avoidance stage; cwnd is unchanged in between.
    fn sack_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        if !self.r.in_recovery {
            self.grow(a.acked);
        } else if a.ack >= self.r.recover {
            self.r.in_recovery = false;
            if self.r.w.cwnd >= self.r.w.ssthresh {
                self.epoch = Some(self.start_epoch());
            }
        }
        self.r.open_ack()
    }

    /// The time and SRTT the next hook runs at (set by the endpoint before every hook).
    pub fn set_clock(&mut self, now: SimTime, srtt: Option<SimDuration>) {
        self.now = now;
        self.srtt = srtt;
    }
    /// W_max, segments (None before the first congestion event).
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }
    /// K of the current congestion-avoidance stage, seconds (None outside one).
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }
    /// W_est of the current stage, segments.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }
    fn seg(&self, bytes: u64) -> f64 {
        bytes as f64 / self.r.w.mss as f64
    }

    /// §4.6–4.7: W_max, cwnd_prior and ssthresh for a congestion event; returns FlightSize·β.
    fn reduce(&mut self, flight: u64) -> u64 {
        let cwnd = self.seg(self.r.w.cwnd);
        self.w_max = Some(match self.w_max {
            Some(prev) if self.p.fast_convergence && cwnd < prev => {
                cwnd * (1.0 + self.p.beta) / 2.0
            }
            _ => cwnd,
        });
        self.cwnd_prior = cwnd;
        // Rounded to the nearest byte (0.7 is not exact in binary: 90 000·0.7 = 62 999.999…).
        let reduced = (flight as f64 * self.p.beta).round() as u64;
        self.r.w.ssthresh = reduced.max(2 * self.r.w.mss);
        self.epoch = None;
        self.frac = 0.0;
        reduced
    }

    /// ECN-Echo (§4.6 "reduction_on_ece"): cwnd = max(FlightSize·β, 1 MSS).
    pub fn on_ece(&mut self, flight: u64) {
        let reduced = self.reduce(flight);
        self.r.w.cwnd = reduced.max(self.r.w.mss);
        self.k_zero = false;
    }

    /// Start a congestion-avoidance stage now, at the current cwnd.
    fn start_epoch(&mut self) -> Epoch {
        let cwnd = self.seg(self.r.w.cwnd);
        let (k, w_max) = match self.w_max {
            Some(wm) if !self.k_zero => (k_seconds(wm, cwnd, self.p.c), wm),
            _ => {
                if self.w_max.is_none() {
                    self.cwnd_prior = cwnd;
                }
                (0.0, cwnd)
            }
        };
        self.k_zero = false;
        Epoch {
            start: self.now,
            k,
            w_max,
            w_est: cwnd,
        }
    }

    /// One new ACK in congestion avoidance (§4.2–4.5).
    fn grow_ca(&mut self, acked: u64) {
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(),
        };
        let cwnd = self.seg(self.r.w.cwnd);
        let c = self.p.c;
        let t = self.now.saturating_since(e.start).as_secs_f64();
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.p.beta) / (1.0 + self.p.beta)
        };
        e.w_est += alpha * self.seg(acked) / cwnd;
        let new = if w_cubic(t, e.k, e.w_max, c) < e.w_est {
            e.w_est.max(cwnd)
        } else {
            let rtt = self.srtt.map_or(0.0, |r| r.as_secs_f64());
            let target = w_cubic(t + rtt, e.k, e.w_max, c).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd
        };
        self.epoch = Some(e);
        let bytes = new * self.r.w.mss as f64 - self.r.w.cwnd as f64 + self.frac;
        let whole = bytes.floor().max(0.0);
        self.frac = (bytes - whole).max(0.0);
        self.r.w.cwnd += whole as u64;
    }
}

impl CongestionControl for Cubic {
    recovery_in!(r);
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        if self.sack {
            return self.sack_new_ack(a);
        }
        let (phase, verdict) = self.r.newreno_ack(a, self.full_ack);
        match phase {
            NewAck::Open if self.r.w.cwnd < self.r.w.ssthresh => self.r.w.grow(a.acked),
            NewAck::Open => self.grow_ca(a.acked),
            // Full ACK (RFC 6582 §3.2 step 3): the congestion-avoidance stage starts here.
            NewAck::Full if self.r.w.cwnd >= self.r.w.ssthresh => {
                self.epoch = Some(self.start_epoch())
            }
            NewAck::Full | NewAck::Partial => {}
        }
        verdict
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        if self.sack {
            if !self.r.count_dupack() || !self.may_enter(a.ack) {
                return false;
            }
            self.sack_enter(a);
            return true;
        }
        if !self.r.fast_recovery_dupack(a, true) {
            return false;
        }
        self.reduce(a.flight);
        self.k_zero = false;
        self.r.w.cwnd = self.r.w.ssthresh + self.r.dupack_threshold as u64 * self.r.w.mss;
        true
    }
    fn on_rto(&mut self, a: &AckInfo, first_expiry: bool) {
        if first_expiry {
            let old = self.r.w.ssthresh;
            self.reduce(a.flight);
            if self.r.in_recovery {
                self.r.w.ssthresh = self.r.w.ssthresh.min(old);
            }
        }
        self.epoch = None;
        self.k_zero = true;
        self.r.w.cwnd = self.r.w.mss;
        self.r.end_on_rto(a);
        // Linux cubictcp_state(TCP_CA_Loss): HyStart starts over.
        let now = self.now;
        if let Some(h) = self.hystart.as_mut() {
            h.on_loss(now, a.ack);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn k_and_w_cubic_by_hand() {
        // W_max = 100, cwnd_epoch = 70 (β = 0.7), C = 0.4: K = ∛(30/0.4) = ∛75 = 4.2171633 s.
        let k = k_seconds(100.0, 70.0, 0.4);
        assert!(close(k, 4.2171633, 1e-6), "{k}");
        // W_cubic(0) = 0.4·(−∛75)³ + 100 = −30 + 100 = 70 (the window right after the cut).
        assert!(close(w_cubic(0.0, k, 100.0, 0.4), 70.0, 1e-9));
        // W_cubic(K) = W_max (the plateau).
        assert!(close(w_cubic(k, k, 100.0, 0.4), 100.0, 1e-12));
        // t = 2 s: 0.4·(2 − 4.2171633)³ + 100 = 0.4·(−10.899161) + 100 = 95.640336.
        assert!(close(w_cubic(2.0, k, 100.0, 0.4), 95.640336, 1e-5));
        // t = K + 1 = 5.2171633 s: 100 + 0.4 = 100.4 (convex region, symmetric).
        assert!(close(w_cubic(k + 1.0, k, 100.0, 0.4), 100.4, 1e-9));
        // cwnd_epoch above W_max: negative K, ∛(−20/0.4) = −∛50 = −3.6840315.
        assert!(close(k_seconds(100.0, 120.0, 0.4), -3.6840315, 1e-6));
    }

    fn at_cwnd(segs: u64) -> Cubic {
        let mut c = Cubic::new(MSS as u32, 3, FullAck::Ssthresh, CubicParams::default());
        c.on_connected(segs * MSS, 1 << 30);
        c
    }

    fn dup(ack: u64, flight: u64) -> AckInfo {
        AckInfo {
            ack,
            acked: 0,
            flight,
            snd_max: ack + flight,
        }
    }

    #[test]
    fn loss_reduces_by_beta_with_fast_convergence() {
        // cwnd = flight = 100 segments: ssthresh = 70 000 B, cwnd = 70 + 3 = 73 segments,
        // W_max = 100 (first event), cwnd_prior = 100.
        let mut c = at_cwnd(100);
        for i in 0..3 {
            assert_eq!(c.on_dupack(&dup(1, 100 * MSS)), i == 2);
        }
        assert_eq!((c.window().ssthresh, c.window().cwnd), (70_000, 73_000));
        assert_eq!(c.w_max(), Some(100.0));
        // Full ACK at 1 s: cwnd = ssthresh = 70 segments; the stage starts: K = ∛75.
        c.set_clock(SimTime::from_secs(1), None);
        c.on_new_ack(&AckInfo {
            ack: 100_001,
            acked: 100_000,
            flight: 0,
            snd_max: 100_001,
        });
        assert!(!c.in_recovery());
        assert_eq!(c.window().cwnd, 70_000);
        assert!(close(c.k().unwrap(), 4.2171633, 1e-6));
        // A second loss (ACK 110 001, above the recovery point 100 001) at cwnd 90 < W_max 100 (fast convergence): W_max = 90·1.7/2 = 76.5,
        // ssthresh = 0.7·90 000 = 63 000, cwnd 66 000; at the full ACK K = ∛(13.5/0.4) = ∛33.75
        // = 3.2316520 s.
        c.window_mut().cwnd = 90_000;
        for _ in 0..3 {
            c.on_dupack(&dup(110_001, 90 * MSS));
        }
        assert_eq!(c.w_max(), Some(76.5));
        assert_eq!((c.window().ssthresh, c.window().cwnd), (63_000, 66_000));
        c.on_new_ack(&AckInfo {
            ack: 200_001,
            acked: 90_000,
            flight: 0,
            snd_max: 200_001,
        });
        assert!(close(c.k().unwrap(), 3.2316520, 1e-6));
        // Without fast convergence W_max would be 90.
        let mut c = Cubic::new(
            MSS as u32,
            3,
            FullAck::Ssthresh,
            CubicParams {
                fast_convergence: false,
                ..CubicParams::default()
            },
        );
        c.on_connected(100 * MSS, 1 << 30);
        for _ in 0..3 {
            c.on_dupack(&dup(1, 100 * MSS));
        }
        c.on_new_ack(&AckInfo {
            ack: 100_001,
            acked: 100_000,
            flight: 0,
            snd_max: 100_001,
        });
        c.window_mut().cwnd = 90_000;
        for _ in 0..3 {
            c.on_dupack(&dup(110_001, 90 * MSS));
        }
        assert_eq!(c.w_max(), Some(90.0));
    }

    #[test]
    fn congestion_avoidance_by_hand() {
        // Loss at 100 segments, full ACK at 1.0 s → cwnd 70, K = ∛75, W_est = 70.
        let mut c = at_cwnd(100);
        for _ in 0..3 {
            c.on_dupack(&dup(1, 100 * MSS));
        }
        c.set_clock(SimTime::from_secs(1), Some(SimDuration::from_millis(100)));
        c.on_new_ack(&AckInfo {
            ack: 100_001,
            acked: 100_000,
            flight: 0,
            snd_max: 100_001,
        });
        let ack = |c: &mut Cubic, t_ms: u64| {
            c.set_clock(
                SimTime::from_millis(t_ms),
                Some(SimDuration::from_millis(100)),
            );
            c.on_new_ack(&AckInfo {
                ack: 100_001 + MSS,
                acked: MSS,
                flight: 0,
                snd_max: 200_001,
            });
        };
        // Same instant (t = 0): W_est = 70 + 0.5294118·1/70 = 70.0075630 > W_cubic(0) = 70:
        // Reno-friendly region, cwnd = W_est → 70 007.563 B → 70 007 B (0.563 B carried).
        ack(&mut c, 1000);
        assert_eq!(c.window().cwnd, 70_007);
        assert!(close(c.w_est().unwrap(), 70.0075630, 1e-6));
        // t = 1 s: W_cubic(1) = 0.4·(1 − 4.2171633)³ + 100 = 86.680764 > W_est (70.0151) →
        // cubic region: target = W_cubic(1.1) = 0.4·(−3.1171633)³ + 100 = 87.884575, within
        // [cwnd, 1.5·cwnd]; cwnd += (87.884575 − 70.007563)/70.007563 = 0.25536 segments:
        // 70 007.563 + 255.36 = 70 262.92 → 70 262 B.
        ack(&mut c, 2000);
        assert_eq!(c.window().cwnd, 70_262);
        // t = 6 s, in the convex region (t > K): W_cubic(6) = 102.27 > W_est (70.023); target
        // = W_cubic(6.1) = 0.4·(1.8828367)³ + 100 = 102.66992 < 1.5·70.263 = 105.39; cwnd +=
        // (102.66992 − 70.26292)/70.26292 = 0.46122 segments → 70 724.15 B → 70 724 (±1 B: the
        // formula sees cwnd as whole bytes, the carried fraction is added after).
        ack(&mut c, 7000);
        let cw = c.window().cwnd;
        assert!((70_723..=70_725).contains(&cw), "{cw}");
    }

    #[test]
    fn sack_recovery_reduces_by_beta_without_inflation_and_starts_the_cubic_stage_at_exit() {
        // 10 segments of 1000 B in flight (cwnd 10 MSS): the 3rd dupACK sets ssthresh = cwnd =
        // 0.7·10000 = 7000 with no 3·MSS inflation (NewReno-recovering CUBIC: 10000);
        // recover = SND.MAX. Partial ACKs keep cwnd; the ACK of recover ends recovery and
        // starts the stage with W_max = 10 segments: K = ∛((10 − 7)/0.4) = ∛7.5 = 1.957 s.
        let mut c = Cubic::with_sack(1000, 3, CubicParams::default());
        c.on_connected(10_000, 65_535);
        c.r.w.ssthresh = 10_000; // in congestion avoidance
        let d = dup(1001, 10_000);
        assert!(!c.on_dupack(&d) && !c.on_dupack(&d));
        assert!(c.on_dupack(&d));
        assert_eq!((c.window().ssthresh, c.window().cwnd), (7000, 7000));
        assert_eq!((c.w_max(), c.recover()), (Some(10.0), d.snd_max));
        assert!(!c.on_dupack(&d));
        assert_eq!(c.window().cwnd, 7000);
        let partial = AckInfo {
            ack: 5001,
            acked: 4000,
            flight: 6000,
            snd_max: d.snd_max,
        };
        c.on_new_ack(&partial);
        assert!(c.in_recovery());
        assert_eq!(c.window().cwnd, 7000);
        let full = AckInfo {
            ack: d.snd_max,
            acked: 6000,
            flight: 0,
            snd_max: d.snd_max,
        };
        c.on_new_ack(&full);
        assert!(!c.in_recovery());
        assert_eq!(c.window().cwnd, 7000);
        assert!(close(c.k().unwrap(), 7.5f64.cbrt(), 1e-12));
        // Without SACK agreed it recovers as NewReno: cwnd inflated to ssthresh + 3 MSS.
        let mut n = Cubic::with_sack(1000, 3, CubicParams::default());
        n.sack_refused();
        n.on_connected(10_000, 65_535);
        n.r.w.ssthresh = 10_000;
        for _ in 0..3 {
            n.on_dupack(&d);
        }
        assert_eq!((n.window().ssthresh, n.window().cwnd), (7000, 10_000));
    }

    #[test]
    fn timeout_restarts_with_k_zero() {
        // Timeout with 100 segments in flight: ssthresh = 70 000, cwnd = 1 MSS. Slow start to
        // 70 000 (an ACK of 1 MSS adds 1 MSS); the first ACK in congestion avoidance starts a
        // stage with K = 0, W_max = W_est = 70: W_cubic(t) = 0.4·t³ + 70.
        let mut c = at_cwnd(100);
        c.on_rto(&dup(1, 100 * MSS), true);
        assert_eq!((c.window().ssthresh, c.window().cwnd), (70_000, 1000));
        c.set_clock(SimTime::from_secs(2), Some(SimDuration::from_millis(100)));
        for _ in 0..69 {
            c.on_new_ack(&AckInfo {
                ack: 1,
                acked: MSS,
                flight: 0,
                snd_max: 1,
            });
        }
        assert_eq!(c.window().cwnd, 70_000);
        assert_eq!(c.k(), None);
        // First CA ACK at 2 s: t = 0, W_est = 70 + 0.5294·1/70 = 70.00756 > W_cubic(0) = 70.
        c.on_new_ack(&AckInfo {
            ack: 1,
            acked: MSS,
            flight: 0,
            snd_max: 1,
        });
        assert_eq!(c.k(), Some(0.0));
        assert_eq!(c.window().cwnd, 70_007);
        // At 4 s (t = 2): W_cubic(2) = 0.4·8 + 70 = 73.2 > W_est; target = W_cubic(2.1) =
        // 0.4·9.261 + 70 = 73.7044; cwnd += (73.7044 − 70.00756)/70.00756 = 0.052806 →
        // 70 007.56 + 52.81 = 70 060.37 → 70 060 B.
        c.set_clock(SimTime::from_secs(4), Some(SimDuration::from_millis(100)));
        c.on_new_ack(&AckInfo {
            ack: 1,
            acked: MSS,
            flight: 0,
            snd_max: 1,
        });
        assert_eq!(c.window().cwnd, 70_060);
    }
}
