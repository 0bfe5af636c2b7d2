//! HyStart++, RFC 9406 (Balasubramanian, Huang & Olson 2023): a delay-based exit from the
//! initial slow start of any RFC 5681 slow start (the `hystart_plus_plus` option; variants
//! tahoe, reno, newreno, sack, cubic, cubic_sack).
//!
//! §4.2, as built here:
//! - **rounds** are delimited by sequence number: windowEnd = SND.NXT; the first ACK that
//!   acknowledges the byte at windowEnd (SND.UNA > windowEnd: it covers data sent after the
//!   round began) starts the next round, with lastRoundMinRTT = currentRoundMinRTT,
//!   currentRoundMinRTT = ∞, rttSampleCount = 0 and windowEnd = SND.NXT;
//! - **slow start**: cwnd += min(N, L·SMSS) per ACK (N = bytes newly acknowledged); the round's
//!   minimum RTT is kept; once the round has N_RTT_SAMPLE samples and both minima are known,
//!   RttThresh = clamp(lastRoundMinRTT / MIN_RTT_DIVISOR, MIN_RTT_THRESH, MAX_RTT_THRESH) and
//!   currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh enters Conservative Slow Start with
//!   cssBaselineMinRtt = currentRoundMinRTT;
//! - **CSS**: cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR per ACK; with N_RTT_SAMPLE samples in
//!   the round, currentRoundMinRTT < cssBaselineMinRtt resumes slow start (the exit was
//!   spurious); after CSS_ROUNDS rounds (the partial round CSS began in counts) ssthresh = cwnd:
//!   congestion avoidance;
//! - a loss or an ECN-Echo response in slow start or CSS is the variant's own (the endpoint
//!   calls [`HyStartPlusPlus::on_congestion`] on every window reduction).
//!
//! §4.3: constants as recommended (below; L = 8 unpaced, unbounded when the sender paces);
//! HyStart++ runs in the initial slow start only ("SHOULD"): after a congestion event, after
//! CSS, or once cwnd reaches ssthresh, slow start is RFC 5681's again.
//!
//! The order within one ACK follows §4.2's pseudocode: the round boundary, the cwnd update
//! (by the variant, with the rule this file puts in [`Window::ss_growth`]), then the RTT sample
//! and the exit or resume test, which acts from the next ACK on. RTT samples are the per-ACK
//! ones of the delivery-rate sampler (rate.rs), as for HyStart. The division by
//! CSS_GROWTH_DIVISOR is in whole bytes (the remainder is dropped).
//!
//! Validation: unit tests below, hand-computed from §4.2 on scripted ACK and RTT streams.

use super::Window;
use units::SimDuration;

/// Lower bound of the RTT threshold (RFC 9406 §4.3 MIN_RTT_THRESH).
pub const MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
/// Upper bound of the RTT threshold (§4.3 MAX_RTT_THRESH).
pub const MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
/// lastRoundMinRTT is divided by this for the threshold (§4.3 MIN_RTT_DIVISOR).
pub const MIN_RTT_DIVISOR: u64 = 8;
/// RTT samples a round needs before a decision (§4.3 N_RTT_SAMPLE).
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS grows cwnd by this fraction of slow start's increase (§4.3 CSS_GROWTH_DIVISOR).
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// Rounds CSS lasts at most (§4.3 CSS_ROUNDS).
pub const CSS_ROUNDS: u32 = 5;
/// L, segments counted per ACK, for a sender that does not pace (§4.3; unbounded when paced).
pub const L_UNPACED: u64 = 8;

/// The slow-start increase of one ACK under HyStart++: min(N, `limit`) / `divisor` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsGrowth {
    /// L·SMSS, bytes (`u64::MAX` when paced: L = ∞).
    pub limit: u64,
    /// 1 in slow start, CSS_GROWTH_DIVISOR in CSS.
    pub divisor: u64,
}

impl SsGrowth {
    /// Bytes added to cwnd for an ACK that newly acknowledged `acked` bytes.
    pub fn increase(self, acked: u64) -> u64 {
        acked.min(self.limit) / self.divisor
    }
}

/// Where HyStart++ is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start with the delay-increase test.
    SlowStart,
    /// Conservative Slow Start since an RTT rise to `baseline` (cssBaselineMinRtt); `rounds`
    /// round boundaries passed since.
    Css { baseline: SimDuration, rounds: u32 },
    /// Over: a congestion event, CSS_ROUNDS of CSS, or cwnd reached ssthresh.
    Done,
}

/// RttThresh of §4.2: clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
pub fn rtt_thresh(last_round_min: SimDuration) -> SimDuration {
    SimDuration::from_nanos(last_round_min.as_nanos() / MIN_RTT_DIVISOR)
        .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

/// HyStart++ state of one sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HyStartPlusPlus {
    phase: Phase,
    /// windowEnd: the round ends once SND.UNA passes it.
    window_end: u64,
    /// lastRoundMinRTT and currentRoundMinRTT (`None` = infinity).
    last_round_min: Option<SimDuration>,
    curr_round_min: Option<SimDuration>,
    /// rttSampleCount of the current round.
    samples: u32,
    /// L·SMSS, bytes.
    limit: u64,
}

impl HyStartPlusPlus {
    /// The data phase begins (cwnd and ssthresh already initial): windowEnd = SND.NXT, and the
    /// window's slow start becomes HyStart++'s. `paced`: L = ∞, else L = 8.
    pub fn start(snd_nxt: u64, paced: bool, w: &mut Window) -> Self {
        let limit = if paced { u64::MAX } else { L_UNPACED * w.mss };
        w.ss_growth = Some(SsGrowth { limit, divisor: 1 });
        HyStartPlusPlus {
            phase: Phase::SlowStart,
            window_end: snd_nxt,
            last_round_min: None,
            curr_round_min: None,
            samples: 0,
            limit,
        }
    }

    /// Where HyStart++ is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// HyStart++ is over: slow start is RFC 5681's from now on.
    fn finish(&mut self, w: &mut Window) {
        self.phase = Phase::Done;
        w.ss_growth = None;
    }

    /// Any window reduction (loss, timeout, ECN-Echo): the variant has responded; HyStart++
    /// does not run again (§4.3: the initial slow start only).
    pub fn on_congestion(&mut self, w: &mut Window) {
        self.finish(w);
    }

    /// An ACK of new data, before the variant grows the window: `ack` = SND.UNA after it,
    /// `snd_nxt` before this ACK releases anything, `rtt` its RTT sample if it has one.
    pub fn on_ack(&mut self, ack: u64, snd_nxt: u64, rtt: Option<SimDuration>, w: &mut Window) {
        if self.phase == Phase::Done {
            return;
        }
        if w.cwnd >= w.ssthresh {
            // Slow start reached ssthresh (RFC 5681): not HyStart++'s exit, but its end.
            self.finish(w);
            return;
        }
        if ack > self.window_end {
            self.window_end = snd_nxt;
            self.last_round_min = self.curr_round_min;
            self.curr_round_min = None;
            self.samples = 0;
            if let Phase::Css { rounds, .. } = &mut self.phase {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    w.ssthresh = w.cwnd;
                    self.finish(w);
                    return;
                }
            }
        }
        // This ACK's increase follows the phase before its own RTT test.
        let divisor = match self.phase {
            Phase::Css { .. } => CSS_GROWTH_DIVISOR,
            _ => 1,
        };
        w.ss_growth = Some(SsGrowth {
            limit: self.limit,
            divisor,
        });
        let Some(rtt) = rtt else {
            return;
        };
        let curr = self.curr_round_min.map_or(rtt, |c| c.min(rtt));
        self.curr_round_min = Some(curr);
        self.samples += 1;
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min {
                    if curr >= last + rtt_thresh(last) {
                        self.phase = Phase::Css {
                            baseline: curr,
                            rounds: 0,
                        };
                    }
                }
            }
            Phase::Css { baseline, .. } if curr < baseline => self.phase = Phase::SlowStart,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    /// A sender that always fills its window, IW 4 segments, one ACK per 1000-byte segment;
    /// the variant's part is Window::grow (RFC 5681 slow start and congestion avoidance).
    struct Flow {
        h: HyStartPlusPlus,
        w: Window,
        una: u64,
        nxt: u64,
        acks: u64,
    }

    impl Flow {
        fn new(paced: bool) -> Self {
            let mut w = Window::new(MSS as u32);
            w.cwnd = 4 * MSS;
            w.ssthresh = 1 << 30;
            let h = HyStartPlusPlus::start(0, paced, &mut w);
            Flow {
                h,
                w,
                una: 0,
                nxt: 4 * MSS,
                acks: 0,
            }
        }
        /// One ACK of `segs` segments with this RTT sample (`None`: no sample).
        fn ack_n(&mut self, segs: u64, rtt: Option<SimDuration>) {
            self.una += segs * MSS;
            self.acks += 1;
            self.h.on_ack(self.una, self.nxt, rtt, &mut self.w);
            self.w.grow(segs * MSS);
            self.nxt = self.nxt.max(self.una + self.w.cwnd);
        }
        fn ack(&mut self, rtt: SimDuration) {
            self.ack_n(1, Some(rtt));
        }
        /// ACKs up to number `last` (1-based), all with this RTT.
        fn acks_to(&mut self, last: u64, rtt: SimDuration) {
            while self.acks < last {
                self.ack(rtt);
            }
        }
    }

    // Rounds of this stream in plain slow start: round 1 = ACKs 1–4 (windowEnd 4000), round 2 =
    // ACKs 5–12 (windowEnd = SND.NXT after ACK 4 = 4000 + 8000 = 12 000), round 3 = ACKs
    // 13–28 (windowEnd 12 000 + 16 000 = 28 000), round 4 = ACKs 29–60: cwnd doubles per round.

    #[test]
    fn a_no_rtt_rise_is_plain_slow_start_doubling() {
        let mut f = Flow::new(false);
        f.acks_to(4, ms(100));
        assert_eq!(f.w.cwnd, 8 * MSS);
        f.acks_to(12, ms(100));
        assert_eq!(f.w.cwnd, 16 * MSS);
        f.acks_to(28, ms(100));
        assert_eq!(f.w.cwnd, 32 * MSS);
        f.acks_to(60, ms(100));
        assert_eq!(f.w.cwnd, 64 * MSS);
        assert_eq!(f.h.phase(), Phase::SlowStart);
        assert_eq!(f.w.ssthresh, 1 << 30);
    }

    #[test]
    fn slow_start_counts_up_to_l_segments_per_ack() {
        // A delayed ACK of 2 segments adds 2 MSS (RFC 5681 alone: 1); a stretch ACK of 10 adds
        // L = 8 MSS unpaced, all 10 when paced (L = ∞).
        let mut f = Flow::new(false);
        f.ack_n(2, Some(ms(100)));
        assert_eq!(f.w.cwnd, 6 * MSS);
        f.ack_n(10, Some(ms(100)));
        assert_eq!(f.w.cwnd, 14 * MSS);
        let mut f = Flow::new(true);
        f.ack_n(10, Some(ms(100)));
        assert_eq!(f.w.cwnd, 14 * MSS);
    }

    /// Rounds 1–2 at 100 ms, from round 3 (ACK 13) on `rise`: threshold 100/8 = 12.5 ms.
    fn rise_in_round_3(rise: SimDuration) -> Flow {
        let mut f = Flow::new(false);
        f.acks_to(12, ms(100));
        for _ in 13..=19 {
            f.ack(rise);
            assert_eq!(f.h.phase(), Phase::SlowStart, "fewer than 8 samples");
        }
        f.ack(rise);
        f
    }

    #[test]
    fn b_an_rtt_rise_enters_css_at_the_eighth_sample_with_a_quarter_of_the_growth() {
        // The 8th sample of round 3 is ACK 20; 112.5 ms ≥ 100 + 12.5 ms: CSS, baseline 112.5.
        let mut f = rise_in_round_3(SimDuration::from_micros(112_500));
        assert_eq!(
            f.h.phase(),
            Phase::Css {
                baseline: SimDuration::from_micros(112_500),
                rounds: 0
            }
        );
        // ACK 20 still grew as slow start: 4 + 20 segments.
        assert_eq!(f.w.cwnd, 24 * MSS);
        // From ACK 21: 1000/4 = 250 bytes per ACK.
        f.ack(ms(113));
        assert_eq!(f.w.cwnd, 24_250);
        f.ack(ms(113));
        assert_eq!(f.w.cwnd, 24_500);
        // 1 ns below the threshold: no CSS, slow start goes on.
        let mut f = rise_in_round_3(SimDuration::from_nanos(112_499_999));
        assert_eq!(f.h.phase(), Phase::SlowStart);
        f.ack(ms(112));
        assert_eq!(f.w.cwnd, 25 * MSS);
    }

    #[test]
    fn c_an_rtt_below_the_baseline_in_css_resumes_slow_start() {
        // CSS from ACK 20 (baseline 113 ms); cwnd after ACK n ≥ 20 is 24 000 + 250·(n − 20),
        // SND.NXT after it 1250·n + 19 000. Round 4 starts at ACK 29 (SND.UNA 29 000 >
        // 28 000). Its RTTs are 105 ms < 113: the 8th sample (ACK 36) resumes slow start;
        // ACK 36 itself still grew by 250, ACK 37 by a whole segment.
        let mut f = rise_in_round_3(ms(113));
        f.acks_to(28, ms(113));
        for n in 29..=35 {
            f.ack(ms(105));
            assert!(
                matches!(f.h.phase(), Phase::Css { rounds: 1, .. }),
                "ACK {n}"
            );
        }
        f.ack(ms(105));
        assert_eq!(f.h.phase(), Phase::SlowStart);
        assert_eq!(f.w.cwnd, 24_000 + 16 * 250);
        f.ack(ms(105));
        assert_eq!(f.w.cwnd, 29_000);
    }

    #[test]
    fn d_five_css_rounds_end_slow_start_with_ssthresh_cwnd() {
        // RTT 113 ms from round 3 on, CSS from ACK 20. Round boundaries (windowEnd = SND.NXT
        // after the previous ACK = 1250·(m − 1) + 19 000): ACK 29 (windowEnd 54 000), 55
        // (86 500), 87 (126 500), 127 (176 500), 177: the 5th boundary since CSS began (the
        // partial round 3 counts). At ACK 177 ssthresh = cwnd = 24 000 + 250·156 = 63 000, and
        // that ACK already grows by congestion avoidance: 1000²/63 000 = 15 bytes.
        let mut f = rise_in_round_3(ms(113));
        for (last_ack, rounds) in [(28, 0), (54, 1), (86, 2), (126, 3), (176, 4)] {
            f.acks_to(last_ack, ms(113));
            assert!(
                matches!(f.h.phase(), Phase::Css { rounds: r, .. } if r == rounds),
                "{last_ack}: {:?}",
                f.h.phase()
            );
            assert_eq!(f.w.ssthresh, 1 << 30);
        }
        assert_eq!(f.w.cwnd, 63_000);
        f.ack(ms(113));
        assert_eq!(f.h.phase(), Phase::Done);
        assert_eq!((f.w.ssthresh, f.w.cwnd), (63_000, 63_015));
    }

    #[test]
    fn e_the_threshold_is_an_eighth_clamped_to_4_and_16_ms() {
        assert_eq!(rtt_thresh(ms(20)), ms(4)); // 2.5 ms → 4
        assert_eq!(rtt_thresh(ms(32)), ms(4));
        assert_eq!(rtt_thresh(ms(64)), ms(8));
        assert_eq!(rtt_thresh(ms(128)), ms(16));
        assert_eq!(rtt_thresh(ms(200)), ms(16)); // 25 ms → 16
                                                 // On the stream: 20 ms base → CSS at 24 ms, not 23.9; 200 ms base → 216, not 215.9.
        for (base, below, at) in [(20, 23_900, 24_000), (200, 215_900, 216_000)] {
            let mut f = Flow::new(false);
            f.acks_to(12, ms(base));
            f.acks_to(20, SimDuration::from_micros(below));
            assert_eq!(f.h.phase(), Phase::SlowStart, "{base}");
            let mut f = Flow::new(false);
            f.acks_to(12, ms(base));
            f.acks_to(20, SimDuration::from_micros(at));
            assert!(matches!(f.h.phase(), Phase::Css { .. }), "{base}");
        }
    }

    #[test]
    fn f_fewer_than_eight_samples_make_no_decision() {
        // Round 2 (ACKs 5–12) doubles the RTT, but two of its ACKs carry no sample (only
        // retransmitted data acknowledged): 6 samples, no test. Round 3 then compares 200 ms
        // with 200 ms: no rise, slow start throughout.
        let mut f = Flow::new(false);
        f.acks_to(4, ms(100));
        for n in 5..=12 {
            let rtt = (n % 4 != 0).then(|| ms(200));
            f.ack_n(1, rtt);
        }
        assert_eq!(f.h.phase(), Phase::SlowStart);
        f.acks_to(28, ms(200));
        assert_eq!(f.h.phase(), Phase::SlowStart);
        assert_eq!(f.w.cwnd, 32 * MSS);
        // Round 1 has no previous round (lastRoundMinRTT = ∞): no test there either.
        let mut f = Flow::new(false);
        f.acks_to(4, ms(500));
        assert_eq!(f.h.phase(), Phase::SlowStart);
    }

    #[test]
    fn a_congestion_event_ends_hystart_plus_plus_for_good() {
        // Loss in CSS: the variant's response, then RFC 5681 slow start (a 2-segment ACK adds
        // 1 MSS, not 2), and no CSS however high the RTT goes.
        let mut f = rise_in_round_3(ms(113));
        f.w.on_rto(20 * MSS, true, false);
        f.h.on_congestion(&mut f.w);
        assert_eq!((f.w.ssthresh, f.w.cwnd), (10 * MSS, MSS));
        f.ack_n(2, Some(ms(113)));
        assert_eq!(f.w.cwnd, 2 * MSS);
        f.acks_to(100, ms(400));
        assert_eq!(f.h.phase(), Phase::Done);
        // Slow start that reaches ssthresh ends it too.
        let mut f = Flow::new(false);
        f.w.ssthresh = 6 * MSS;
        f.acks_to(3, ms(100));
        assert_eq!(f.h.phase(), Phase::Done);
        assert_eq!(f.w.ss_growth, None);
    }
}
