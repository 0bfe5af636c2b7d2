//! Retransmission timeout estimator, RFC 6298 (Paxson, Allman, Chu & Sargent 2011).
//!
//! First sample R: SRTT = R, RTTVAR = R/2. Later samples, RTTVAR first (it uses the old SRTT):
//! RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|, SRTT = 7/8·SRTT + 1/8·R (α = 1/8, β = 1/4), in integer
//! nanoseconds with each division truncated. RTO = SRTT + max(G, 4·RTTVAR), then at least
//! `min_rto` (§2.4) and at most `max_rto` (§2.5). Before any sample the RTO is `initial_rto`
//! (§2.1, 3 s by default as RFC 1122/ns-2 `rtxcur_init_`). Each expiry doubles the timer (§5.5):
//! the timer in use is min(max_rto, RTO·2^backoff); the doubling ends with the next valid sample
//! (Karn & Partridge: the backed-off value is kept until an ACK for a segment that was never
//! retransmitted arrives — the endpoint feeds only such samples).
//!
//! §5.7: if the timer expired on a SYN (or SYN-ACK) and no sample has been taken, data
//! transmission starts from max(`initial_rto`, 3 s) with the backoff cleared ([`syn_timed_out`]
//! then [`reset_backoff`] at the end of the handshake).
//!
//! [`syn_timed_out`]: RttEstimator::syn_timed_out
//! [`reset_backoff`]: RttEstimator::reset_backoff
//!
//! Samples are counted in whole ticks of G, as BSD and ns-2 do (reference/aqm-defaults.md §6.1):
//! the number of tick boundaries between the send and the ACK, at least one tick. ns-2 puts the
//! tick boundaries at a random per-agent phase; an endpoint has no RNG, so here the phase is 0
//! (boundaries at multiples of G since the start of the run). With G = 0 samples are exact.
//!
//! Differences from ns-2: ns-2 keeps SRTT/RTTVAR in fixed point with 3 and 2 fractional bits of a
//! tick and truncates RTO to whole ticks; we keep nanoseconds (same formulas, finer rounding).
//! ns-2 also folds SRTT into RTTVAR after 8 backoffs; RFC 6298 leaves that optional and we don't.
//!
//! BSD rules (`RtoRules::Bsd`, FreeBSD 2.2.8 `tcp_xmit_timer`, for seed 000's hosts): a sample
//! is one tick more than the boundaries crossed (BSD's `t_rtt` counts from 1), so with a 500 ms
//! tick a sub-tick RTT samples as 1 or 2 ticks; the first sample sets SRTT = R, RTTVAR = R/2;
//! later ones use R − 1: Δ = (R − 1) − SRTT, SRTT += Δ/8, RTTVAR += (|Δ| − RTTVAR)/4; RTO =
//! ⌊SRTT + 4·RTTVAR⌋ ticks, at least max(`min_rto`, R + 2 ticks) for the latest R (so 1.5 s or
//! 2 s on seed 000's lab, the "≈ 1.5 s" data timeouts of its §6.1.2). BSD's fixed-point SRTT and
//! RTTVAR (5 and 4 fractional bits) are kept in nanoseconds here.
//!
//! Linux rules (`RtoRules::Linux`, rtt_linux.rs): Linux 6.x's `tcp_rtt_estimator` in its own
//! microsecond state (samples in ticks as above, then whole µs), RTO = SRTT + rttvar with
//! rttvar ≥ `min_rto`, rounded up to whole ticks, at most `max_rto`; backoff, Karn and the
//! §5.7 floor as for RFC 6298 (Linux's `TCP_TIMEOUT_FALLBACK` is the same 3 s).
//!
//! Read RFC 6298 §2 and §5 before editing. Validation: unit tests below
//! (`first_sample_sets_srtt_and_half_rttvar`, `second_sample_updates_by_hand`,
//! `ticks_are_boundaries_crossed`, `backoff_doubles_and_caps`), and tests/rto.rs.

use crate::config::{RtoRules, TcpConfig};
use crate::rtt_linux::LinuxRtt;
use units::{SimDuration, SimTime};

/// RFC 6298 state: SRTT, RTTVAR and the backoff exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// Number of doublings applied to the base RTO (consecutive expiries since the last sample).
    backoff: u32,
    min_rto: SimDuration,
    max_rto: SimDuration,
    initial_rto: SimDuration,
    granularity: SimDuration,
    /// A SYN or SYN-ACK timed out: without a sample the RTO is at least 3 s (§5.7).
    syn_floor: bool,
    rules: RtoRules,
    /// BSD rules: the latest raw sample R (ticks · G), for the R + 2 ticks floor.
    last_raw: SimDuration,
    /// Linux rules: Linux's own state (rtt_linux.rs).
    linux: LinuxRtt,
}

/// RFC 6298 §5.7: the RTO used once data transmission starts after a SYN timed out, at least.
pub const SYN_TIMEOUT_RTO: SimDuration = SimDuration::from_secs(3);

impl RttEstimator {
    pub fn new(cfg: &TcpConfig) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimDuration(0),
            backoff: 0,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            initial_rto: cfg.initial_rto,
            granularity: cfg.clock_granularity,
            syn_floor: false,
            rules: cfg.rto_rules,
            last_raw: SimDuration(0),
            linux: LinuxRtt::default(),
        }
    }

    /// The RTT sample for a segment sent at `sent` and acknowledged at `now`: tick boundaries
    /// crossed (boundaries at multiples of `g`), at least one tick. `g = 0`: the exact time.
    pub fn tick_sample(g: SimDuration, sent: SimTime, now: SimTime) -> SimDuration {
        if g.0 == 0 {
            return now.saturating_since(sent);
        }
        let ticks = (now.0 / g.0).saturating_sub(sent.0 / g.0).max(1);
        SimDuration(ticks.saturating_mul(g.0))
    }

    /// Feed one sample `r` (already in ticks) from an ACK that left SND.UNA at `snd_una`, with
    /// SND.NXT `snd_nxt`, and end any backoff. Only Linux rules read the sequence numbers.
    pub fn on_sample_at(&mut self, r: SimDuration, snd_una: u64, snd_nxt: u64) {
        if self.rules != RtoRules::Linux {
            self.on_sample(r);
            return;
        }
        let us = |d: SimDuration| d.as_nanos() / 1_000;
        self.linux
            .on_sample(us(r), us(self.min_rto), snd_una, snd_nxt);
        self.srtt = Some(SimDuration::from_micros(self.linux.srtt_us()));
        self.rttvar = SimDuration::from_micros(self.linux.rttvar_us() / 4);
        self.backoff = 0;
    }

    /// Feed one sample `r` (already in ticks; under BSD rules the raw `t_rtt`, one tick more
    /// than the boundaries crossed) and end any backoff. Linux rules need the sequence numbers:
    /// [`on_sample_at`](RttEstimator::on_sample_at).
    pub fn on_sample(&mut self, r: SimDuration) {
        match self.rules {
            RtoRules::Bsd => {
                self.on_bsd_sample(r);
                return;
            }
            RtoRules::Linux => {
                self.on_sample_at(r, 0, 0);
                return;
            }
            RtoRules::Rfc6298 => {}
        }
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            Some(s) => {
                let delta = s.0.abs_diff(r.0);
                self.rttvar = SimDuration(((3 * self.rttvar.0 as u128 + delta as u128) / 4) as u64);
                self.srtt = Some(SimDuration(((7 * s.0 as u128 + r.0 as u128) / 8) as u64));
            }
        }
        self.backoff = 0;
    }

    /// BSD `tcp_xmit_timer` (module doc), all in nanoseconds.
    fn on_bsd_sample(&mut self, r: SimDuration) {
        let r_ns = r.0 as i128;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            Some(s) => {
                let delta = (r_ns - self.granularity.0 as i128) - s.0 as i128;
                // BSD keeps SRTT at least one fixed-point unit (1/32 tick) above zero.
                let unit = (self.granularity.0 / 32).max(1) as i128;
                let srtt = (s.0 as i128 + delta / 8).max(unit);
                let var = self.rttvar.0 as i128;
                let rttvar = (var + (delta.abs() - var) / 4).max(unit);
                self.srtt = Some(SimDuration(srtt as u64));
                self.rttvar = SimDuration(rttvar as u64);
            }
        }
        self.last_raw = r;
        self.backoff = 0;
    }

    /// Sample a segment sent at `sent`, acknowledged at `now` (tick-quantised, see module doc),
    /// by an ACK that left SND.UNA at `snd_una` with `snd_nxt` the highest sequence sent (Linux
    /// rules end a round on them; the others ignore them).
    pub fn sample(&mut self, sent: SimTime, now: SimTime, snd_una: u64, snd_nxt: u64) {
        let r = Self::tick_sample(self.granularity, sent, now);
        let r = match self.rules {
            RtoRules::Rfc6298 => r,
            RtoRules::Linux => {
                self.on_sample_at(r, snd_una, snd_nxt);
                return;
            }
            // BSD counts from 1: one tick more than the boundaries crossed.
            RtoRules::Bsd => {
                let g = self.granularity.0;
                let crossed = (now.0.checked_div(g).unwrap_or(0))
                    .saturating_sub(sent.0.checked_div(g).unwrap_or(0));
                SimDuration(crossed.saturating_add(1).saturating_mul(g))
            }
        };
        self.on_sample(r);
    }

    /// RTO before backoff: `initial_rto` without a sample, else
    /// clamp(SRTT + max(G, 4·RTTVAR), min_rto, max_rto) (Linux rules: SRTT + rttvar in whole
    /// ticks, at most max_rto).
    pub fn base_rto(&self) -> SimDuration {
        if self.rules == RtoRules::Linux && self.linux.has_sample() {
            let rto = self.linux.rto_us().saturating_mul(1_000);
            let g = self.granularity.0.max(1);
            return SimDuration(rto.div_ceil(g).saturating_mul(g)).min(self.max_rto);
        }
        if let (RtoRules::Bsd, Some(s)) = (self.rules, self.srtt) {
            let g = self.granularity.0.max(1);
            let value = s.0.saturating_add(self.rttvar.0.saturating_mul(4)) / g * g;
            let floor = self
                .min_rto
                .max(SimDuration(self.last_raw.0.saturating_add(2 * g)));
            return SimDuration(value).max(floor).min(self.max_rto);
        }
        match self.srtt {
            None if self.syn_floor => self.initial_rto.max(SYN_TIMEOUT_RTO).min(self.max_rto),
            None => self.initial_rto.min(self.max_rto),
            Some(s) => {
                let var = SimDuration(self.rttvar.0.saturating_mul(4)).max(self.granularity);
                SimDuration(s.0.saturating_add(var.0))
                    .max(self.min_rto)
                    .min(self.max_rto)
            }
        }
    }

    /// The timer value in use: min(max_rto, base_rto · 2^backoff).
    pub fn rto(&self) -> SimDuration {
        let mult = 1u64 << self.backoff.min(63);
        self.base_rto().saturating_mul(mult).min(self.max_rto)
    }

    /// One more expiry: double the timer (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(63);
    }

    /// The handshake completed after the timer expired on our SYN or SYN-ACK (§5.7): until the
    /// first sample the RTO is at least 3 s. Call at the end of the handshake, not at the expiry
    /// (the SYN's own backoff starts from `initial_rto`).
    pub fn syn_timed_out(&mut self) {
        self.syn_floor = self.rules != RtoRules::Bsd;
    }

    /// Forget the backoff without a sample (RFC 6298 §5.7: after a retransmitted SYN, data
    /// transmission starts again from `initial_rto`).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn est(min_rto_ms: u64) -> RttEstimator {
        let cfg = TcpConfig {
            min_rto: ms(min_rto_ms),
            ..TcpConfig::default()
        };
        RttEstimator::new(&cfg)
    }

    #[test]
    fn no_sample_uses_initial_rto() {
        let e = est(1000);
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), SimDuration::from_secs(3));
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + max(10, 200) = 300 ms,
        // then max(min_rto, ·): 1 s with the default min_rto, 300 ms with min_rto = 200 ms.
        let mut e = est(1000);
        e.on_sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(1000));
        let mut e = est(200);
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        // A tiny sample: R = 1 ms → RTO = 1 + max(G = 10, 2) = 11 ms (G dominates), min_rto 0.
        let mut e = est(0);
        e.on_sample(ms(1));
        assert_eq!(e.rto(), ms(11));
    }

    #[test]
    fn second_sample_updates_by_hand() {
        // R1 = 100 ms → SRTT 100, RTTVAR 50. R2 = 180 ms: |SRTT − R2| = 80;
        // RTTVAR = 3/4·50 + 1/4·80 = 37.5 + 20 = 57.5 ms; SRTT = 7/8·100 + 1/8·180 = 87.5 + 22.5
        // = 110 ms; RTO = 110 + 4·57.5 = 340 ms (min_rto 200 ms).
        let mut e = est(200);
        e.on_sample(ms(100));
        e.on_sample(ms(180));
        assert_eq!(e.rttvar(), SimDuration::from_micros(57_500));
        assert_eq!(e.srtt(), Some(ms(110)));
        assert_eq!(e.rto(), ms(340));
    }

    #[test]
    fn ticks_are_boundaries_crossed() {
        let g = ms(10);
        let t = SimTime::from_micros;
        // 5 ms → 104 ms: boundaries at 10, 20, …, 100 → 10 ticks = 100 ms.
        assert_eq!(RttEstimator::tick_sample(g, t(5_000), t(104_000)), ms(100));
        // 9.9 ms → 10.1 ms crosses one boundary: 10 ms.
        assert_eq!(RttEstimator::tick_sample(g, t(9_900), t(10_100)), ms(10));
        // Within one tick: at least one tick.
        assert_eq!(RttEstimator::tick_sample(g, t(1_000), t(2_000)), ms(10));
        // G = 0: exact.
        assert_eq!(
            RttEstimator::tick_sample(SimDuration(0), t(1_000), t(2_500)),
            SimDuration::from_micros(1_500)
        );
    }

    #[test]
    fn syn_timeout_floors_the_unsampled_rto_at_3s() {
        // initial_rto 1 s (RFC 6298's own value): after a SYN timeout and the handshake, 3 s.
        let cfg = TcpConfig {
            initial_rto: ms(1000),
            ..TcpConfig::default()
        };
        let mut e = RttEstimator::new(&cfg);
        assert_eq!(e.rto(), ms(1000));
        e.back_off();
        e.syn_timed_out();
        e.reset_backoff();
        assert_eq!(e.rto(), ms(3000));
        // The first sample replaces it.
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        // No sample: 3, 6, 12, 24, 48, 60 (cap), 60 s.
        let mut e = est(1000);
        let mut seen = vec![];
        for _ in 0..7 {
            seen.push(e.rto().as_nanos() / 1_000_000_000);
            e.back_off();
        }
        assert_eq!(seen, vec![3, 6, 12, 24, 48, 60, 60]);
        // A valid sample ends the backoff.
        e.on_sample(ms(100));
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), ms(1000));
        // Many expiries never overflow.
        for _ in 0..200 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
    }

    fn bsd() -> RttEstimator {
        // Seed 000's FreeBSD hosts: 500 ms tick, 1 s minimum RTO.
        RttEstimator::new(&TcpConfig {
            rto_rules: RtoRules::Bsd,
            clock_granularity: ms(500),
            min_rto: ms(1000),
            ..TcpConfig::default()
        })
    }

    #[test]
    fn bsd_samples_count_from_one_tick() {
        let t = SimTime::from_millis;
        // An 80 ms RTT within one tick: R = 1 tick; across a boundary: R = 2 ticks.
        let mut e = bsd();
        e.sample(t(100), t(180), 0, 0);
        assert_eq!(e.srtt(), Some(ms(500)));
        let mut e = bsd();
        e.sample(t(450), t(530), 0, 0);
        assert_eq!(e.srtt(), Some(ms(1000)));
    }

    #[test]
    fn bsd_rto_by_hand_has_the_r_plus_two_ticks_floor() {
        // First R = 1 tick (500 ms): SRTT 500, RTTVAR 250, SRTT + 4·RTTVAR = 1500 ms; floor
        // max(1 s, R + 2 ticks = 1.5 s): RTO 1.5 s.
        let mut e = bsd();
        e.on_sample(ms(500));
        assert_eq!((e.srtt(), e.rttvar()), (Some(ms(500)), ms(250)));
        assert_eq!(e.rto(), ms(1500));
        // R = 1 tick again: Δ = (500 − 500) − 500 = −500 ms; SRTT = 500 − 62.5 = 437.5 ms;
        // RTTVAR = 250 + (500 − 250)/4 = 312.5 ms; 437.5 + 1250 = 1687.5 → 3 whole ticks =
        // 1500 ms; floor 1.5 s: RTO 1.5 s.
        e.on_sample(ms(500));
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(437_500)));
        assert_eq!(e.rttvar(), SimDuration::from_micros(312_500));
        assert_eq!(e.rto(), ms(1500));
        // Ten more R = 1 samples: SRTT → 0, RTTVAR → 0, but the floor keeps 1.5 s, where the
        // RFC 6298 rules with the same tick and min_rto give 1 s.
        for _ in 0..10 {
            e.on_sample(ms(500));
        }
        assert_eq!(e.rto(), ms(1500));
        // R = 2 ticks: floor 2 s.
        e.on_sample(ms(1000));
        assert_eq!(e.rto(), ms(2000));
        let mut rfc = RttEstimator::new(&TcpConfig {
            clock_granularity: ms(500),
            min_rto: ms(1000),
            ..TcpConfig::default()
        });
        for _ in 0..12 {
            rfc.sample(SimTime::from_millis(100), SimTime::from_millis(180), 0, 0);
        }
        assert_eq!(rfc.rto(), ms(1000));
    }

    #[test]
    fn linux_rto_is_srtt_plus_rto_min_for_a_steady_rtt() {
        // The linux profile's timers (min_rto 200 ms, 1 ms tick, max_rto 120 s): 100 ms per
        // round for 30 rounds. Linux: SRTT 100 + rttvar 200 = 300 ms throughout; RFC 6298 with
        // the same keys: 100 + 4·RTTVAR, RTTVAR → 0, floored at 200 ms.
        let cfg = |rules| TcpConfig {
            rto_rules: rules,
            min_rto: ms(200),
            clock_granularity: ms(1),
            max_rto: SimDuration::from_secs(120),
            ..TcpConfig::default()
        };
        let mut linux = RttEstimator::new(&cfg(RtoRules::Linux));
        let mut rfc = RttEstimator::new(&cfg(RtoRules::Rfc6298));
        for i in 0..30u64 {
            let (sent, acked) = (ms(100 * i), ms(100 * i + 100));
            let (sent, acked) = (SimTime(sent.0), SimTime(acked.0));
            linux.sample(sent, acked, 1 + 10 * i, 11 + 10 * i);
            rfc.sample(sent, acked, 1 + 10 * i, 11 + 10 * i);
            assert_eq!(linux.rto(), ms(300), "sample {i}");
        }
        assert_eq!(rfc.rto(), ms(200));
        assert_eq!(linux.srtt(), Some(ms(100)));
        assert_eq!(linux.rttvar(), ms(50)); // rttvar_us / 4, RFC 6298's scale
    }

    #[test]
    fn linux_rto_rounds_up_to_the_tick_caps_and_backs_off() {
        // rtt_linux.rs `scripted_samples_by_hand` steps 1–3: 693.75 ms → 694 ms at a 1 ms tick.
        let mut e = RttEstimator::new(&TcpConfig {
            rto_rules: RtoRules::Linux,
            min_rto: ms(200),
            clock_granularity: ms(1),
            max_rto: SimDuration::from_secs(120),
            ..TcpConfig::default()
        });
        e.on_sample_at(ms(100), 1, 11);
        assert_eq!(e.rto(), ms(300));
        e.on_sample_at(ms(500), 5, 21);
        e.on_sample_at(ms(100), 12, 31);
        assert_eq!(e.rto(), ms(694));
        // Backoff doubles from the rounded value; a sample ends it.
        e.back_off();
        assert_eq!(e.rto(), ms(1388));
        e.on_sample_at(ms(100), 32, 41);
        assert_eq!(e.backoff(), 0);
        // Capped at max_rto.
        let mut e = RttEstimator::new(&TcpConfig {
            rto_rules: RtoRules::Linux,
            min_rto: ms(200),
            max_rto: ms(250),
            ..TcpConfig::default()
        });
        e.on_sample_at(ms(100), 1, 11);
        assert_eq!(e.rto(), ms(250));
    }

    #[test]
    fn bsd_has_no_syn_timeout_floor() {
        let mut e = RttEstimator::new(&TcpConfig {
            rto_rules: RtoRules::Bsd,
            initial_rto: ms(1000),
            ..TcpConfig::default()
        });
        e.back_off();
        e.syn_timed_out();
        e.reset_backoff();
        assert_eq!(e.rto(), ms(1000));
    }
}
