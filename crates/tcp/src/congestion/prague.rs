//! TCP Prague: the L4S sender requirements of RFC 9331 §4.3 as the reference Prague
//! (L4STeam `tcp_prague.c`) meets them, in the parts this model has.
//!
//! - ECT(1) on data (RFC 9331 §4.1; `TcpConfig::ect`).
//! - Scalable response: DCTCP's (dctcp.rs): α, the EWMA (g = 1/16) of the fraction of marked
//!   bytes per window, and cwnd × (1 − α/2) at most once per window on ECE.
//! - Loss: the classic response, NewReno's (RFC 6582), as RFC 9331 §4.3 requires.
//! - RTT independence (`prague_rtt_target`, on by default at 25 ms, the reference's
//!   `prague_rtt_target`): with SRTT R below the target T, each congestion-avoidance increase
//!   is scaled by (R/T)², so the rate grows by MSS/T² per second whatever R — a flow behaves as
//!   if its RTT were T (the reference's RTT-scaling; RFC 9331 §4.3 "reduce RTT dependence").
//!   Fractions of a byte carry over to the next ACK. Off (`false`): Reno's increase.
//! - Pacing: the reference paces; Prague is always paced (`crate::Variant::paced_by_default`)
//!   at Linux's ratio rule (pacing.rs: 200 % of cwnd/SRTT in slow start, 120 % after).
//!
//! Not modelled: AccECN (RFC 9768) — the receiver echoes CE exactly with ECE, DCTCP's
//! receiver (dctcp.rs), which carries the same information without its loss of ACKs; the
//! reference's per-ACK fractional window reduction and its slow-start exit on the first mark.
//!
//! Validation: tests below (window after a mark fraction; the RTT scaling); tests/dctcp.rs.

use super::dctcp::MarkFraction;
use super::newreno::NewReno;
use super::{AckInfo, AckVerdict, CongestionControl, Recovery};
use crate::config::FullAck;
use units::SimDuration;

/// Prague state: NewReno growth and loss, DCTCP's mark fraction, the RTT scaling.
#[derive(Clone, Debug, PartialEq)]
pub struct Prague {
    reno: NewReno,
    /// The mark-fraction estimator (α).
    pub marks: MarkFraction,
    rtt_target: Option<SimDuration>,
    srtt: Option<SimDuration>,
    /// Scaled increase not yet added, bytes (< 1).
    carry: f64,
}

impl Prague {
    pub fn new(
        mss: u32,
        dupack_threshold: u32,
        full_ack: FullAck,
        rtt_target: Option<SimDuration>,
    ) -> Self {
        Prague {
            reno: NewReno::new(mss, dupack_threshold, full_ack),
            marks: MarkFraction::default(),
            rtt_target,
            srtt: None,
            carry: 0.0,
        }
    }
    /// SRTT for the RTT scaling.
    pub fn set_srtt(&mut self, srtt: Option<SimDuration>) {
        self.srtt = srtt;
    }
    /// Every ACK: RFC 8257 §3.3 bookkeeping.
    pub fn on_ecn_feedback(&mut self, ack: u64, acked: u64, ece: bool, snd_nxt: u64) {
        self.marks.on_ack(ack, acked, ece, snd_nxt);
    }
    /// ECE outside recovery, once per window.
    pub fn on_ece(&mut self) {
        self.marks.cut(self.reno.recovery_mut());
    }
    /// The increase factor (R/T)² ≤ 1, or 1 without the option or an RTT sample.
    pub fn ai_factor(&self) -> f64 {
        match (self.rtt_target, self.srtt) {
            (Some(t), Some(r)) if r < t => {
                let x = r.0 as f64 / t.0 as f64;
                x * x
            }
            _ => 1.0,
        }
    }
}

impl CongestionControl for Prague {
    fn recovery(&self) -> &Recovery {
        self.reno.recovery()
    }
    fn recovery_mut(&mut self) -> &mut Recovery {
        self.reno.recovery_mut()
    }
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        let before = *self.window();
        let v = self.reno.on_new_ack(a);
        let f = self.ai_factor();
        let w = self.window_mut();
        let grew = w.cwnd > before.cwnd && before.cwnd >= before.ssthresh;
        if f < 1.0 && grew && w.ssthresh == before.ssthresh {
            let inc = (w.cwnd - before.cwnd) as f64 * f + self.carry;
            let whole = inc.floor();
            self.carry = inc - whole;
            self.window_mut().cwnd = before.cwnd + whole as u64;
        }
        v
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.reno.on_dupack(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prague(target: Option<u64>) -> Prague {
        let mut p = Prague::new(
            1000,
            3,
            FullAck::Ssthresh,
            target.map(SimDuration::from_millis),
        );
        p.on_connected(10_000, 1 << 30);
        p
    }

    #[test]
    fn window_after_a_mark_fraction() {
        // cwnd 10 000 B. The first ACK ends the first window (F = 1, α stays 1); then 39
        // windows of 10 ACKs with 2 marked (F = 0.2): α = 0.2 + 0.8·(15/16)^39 = 0.26455…, and
        // the cut keeps 1 − α/2 of the window: 10 000·0.86772… = 8677 B.
        let mut p = prague(None);
        let (mut ack, mut nxt) = (1u64, 1u64);
        for _ in 0..40 {
            nxt += 10_000;
            for k in 0..10 {
                ack += 1000;
                p.on_ecn_feedback(ack, 1000, k < 2, nxt);
            }
        }
        let want = 0.2 + 0.8 * 0.9375f64.powi(39);
        assert!((p.marks.alpha - want).abs() < 1e-12, "{}", p.marks.alpha);
        p.on_ece();
        let kept = (10_000.0 * (1.0 - want / 2.0)) as u64;
        assert_eq!((p.window().cwnd, kept), (8677, 8677));
    }

    #[test]
    fn rtt_scaling_slows_the_increase_by_r_over_t_squared() {
        // Congestion avoidance at cwnd = ssthresh = 10 000 B: Reno adds 1000²/10 000 = 100 B per
        // ACK. SRTT 5 ms, target 25 ms: (5/25)² = 0.04 → 4 B per ACK.
        let ack = |p: &mut Prague, a: u64| {
            p.on_new_ack(&AckInfo {
                ack: a,
                acked: 1000,
                flight: 0,
                snd_max: a,
            });
        };
        let mut p = prague(Some(25));
        p.window_mut().ssthresh = 10_000;
        p.set_srtt(Some(SimDuration::from_millis(5)));
        ack(&mut p, 1001);
        assert_eq!(p.window().cwnd, 10_004);
        // SRTT at or above the target, or the option off: Reno's 100 B.
        let mut p = prague(Some(25));
        p.window_mut().ssthresh = 10_000;
        p.set_srtt(Some(SimDuration::from_millis(40)));
        ack(&mut p, 1001);
        assert_eq!(p.window().cwnd, 10_100);
        let mut p = prague(None);
        p.window_mut().ssthresh = 10_000;
        p.set_srtt(Some(SimDuration::from_millis(5)));
        ack(&mut p, 1001);
        assert_eq!(p.window().cwnd, 10_100);
        // Slow start is not scaled: below ssthresh + 1000 B per ACK.
        let mut p = prague(Some(25));
        p.set_srtt(Some(SimDuration::from_millis(5)));
        ack(&mut p, 1001);
        assert_eq!(p.window().cwnd, 11_000);
    }
}
