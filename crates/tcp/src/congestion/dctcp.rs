//! DCTCP, RFC 8257 (Bensley et al. 2017) §3: a congestion window cut in proportion to the
//! fraction of CE-marked bytes, on NewReno's loss recovery and window growth.
//!
//! Sender (§3.3): per ACK, `bytes_acked += acked` and, if the ACK carries ECE, `bytes_marked +=
//! acked`; when SND.UNA passes `window_end` (one window of data since the last update),
//! α ← (1 − g)·α + g·F with F = bytes_marked / bytes_acked and g = 1/16 (§4.2), the counters are
//! cleared and `window_end` = SND.NXT. An ACK with ECE then (§3.4) sets ssthresh =
//! max(cwnd·(1 − α/2), 2·MSS) and cwnd = ssthresh — at most once per window of data (the
//! endpoint's RFC 3168 gate, ecn.rs). α starts at 1 (Linux `dctcp_alpha_on_init`; the safe
//! start of §3.3). Loss (§3.5): the classic response of NewReno (RFC 6582), untouched.
//!
//! Receiver (§3.2): ECE echoes the CE state exactly, ignoring CWR: every ACK carries ECE iff
//! the latest data segment had CE; with delayed ACKs an arrival whose CE differs from the state
//! first releases an immediate ACK for the data already held, with the old state (ecn.rs
//! `ecn_on_arrival`).
//!
//! Differences: RFC 8257 counts bytes, Linux counts packets (`tcp_sock.delivered`) and keeps α
//! in 1/1024; Linux reduces through PRR, here cwnd is set at once. No SACK recovery.
//!
//! Validation: tests below (α after scripted windows, by hand; the cut); tests/dctcp.rs (the
//! receiver's ACK sequence under CE changes, with and without delayed ACKs; end to end).

use super::newreno::NewReno;
use super::{AckInfo, AckVerdict, CongestionControl, Recovery};
use crate::config::FullAck;

/// EWMA gain g of α (RFC 8257 §4.2: 1/16; Linux `dctcp_shift_g` 4).
pub const DCTCP_G: f64 = 1.0 / 16.0;

/// The mark-fraction estimator and window cut shared by DCTCP and Prague (prague.rs).
#[derive(Clone, Debug, PartialEq)]
pub struct MarkFraction {
    /// α, the smoothed fraction of marked bytes, in [0, 1].
    pub alpha: f64,
    bytes_acked: u64,
    bytes_marked: u64,
    window_end: u64,
}

impl Default for MarkFraction {
    fn default() -> Self {
        MarkFraction {
            alpha: 1.0,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: 0,
        }
    }
}

impl MarkFraction {
    /// RFC 8257 §3.3 for one ACK: `acked` bytes newly acknowledged, `ece` its flag, `ack` the
    /// cumulative ACK and `snd_nxt` SND.NXT. True if an observation window ended (α updated).
    pub fn on_ack(&mut self, ack: u64, acked: u64, ece: bool, snd_nxt: u64) -> bool {
        self.bytes_acked += acked;
        if ece {
            self.bytes_marked += acked;
        }
        if ack <= self.window_end || self.bytes_acked == 0 {
            return false;
        }
        let f = self.bytes_marked as f64 / self.bytes_acked as f64;
        self.alpha = (1.0 - DCTCP_G) * self.alpha + DCTCP_G * f;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
        self.window_end = snd_nxt;
        true
    }

    /// RFC 8257 §3.4: ssthresh = max(cwnd·(1 − α/2), 2·MSS) (whole bytes), cwnd = ssthresh.
    pub fn cut(&self, r: &mut Recovery) {
        let w = &mut r.w;
        let kept = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
        w.ssthresh = kept.max(2 * w.mss);
        w.cwnd = w.ssthresh;
    }
}

/// DCTCP state: NewReno for growth and loss, plus the mark fraction.
#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    reno: NewReno,
    /// The mark-fraction estimator (α).
    pub marks: MarkFraction,
}

impl Dctcp {
    pub fn new(mss: u32, dupack_threshold: u32, full_ack: FullAck) -> Self {
        Dctcp {
            reno: NewReno::new(mss, dupack_threshold, full_ack),
            marks: MarkFraction::default(),
        }
    }
    /// Every ACK (new or not): RFC 8257 §3.3 bookkeeping.
    pub fn on_ecn_feedback(&mut self, ack: u64, acked: u64, ece: bool, snd_nxt: u64) {
        self.marks.on_ack(ack, acked, ece, snd_nxt);
    }
    /// ECE outside recovery, once per window: RFC 8257 §3.4.
    pub fn on_ece(&mut self) {
        self.marks.cut(self.reno.recovery_mut());
    }
}

impl CongestionControl for Dctcp {
    fn recovery(&self) -> &Recovery {
        self.reno.recovery()
    }
    fn recovery_mut(&mut self) -> &mut Recovery {
        self.reno.recovery_mut()
    }
    fn on_new_ack(&mut self, a: &AckInfo) -> AckVerdict {
        self.reno.on_new_ack(a)
    }
    fn on_dupack(&mut self, a: &AckInfo) -> bool {
        self.reno.on_dupack(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_after_scripted_windows_by_hand() {
        let mut m = MarkFraction::default();
        // Window 1 (window_end 0): the first ACK of 1000 B with ECE ends it: F = 1,
        // α = 15/16·1 + 1/16·1 = 1; window_end = 10 001.
        assert!(m.on_ack(1001, 1000, true, 10_001));
        assert_eq!(m.alpha, 1.0);
        // Window 2: 10 ACKs of 1000 B, 5 with ECE; the 10th passes 10 001: F = 0.5,
        // α = 15/16 + 0.5/16 = 0.96875.
        for k in 1..=10u64 {
            let ended = m.on_ack(1001 + 1000 * k, 1000, k % 2 == 0, 20_001);
            assert_eq!(ended, k == 10, "k = {k}");
        }
        assert_eq!(m.alpha, 0.96875);
        // Window 3: nothing marked: α = 0.96875·15/16 = 0.908203125.
        for k in 11..=20u64 {
            m.on_ack(1001 + 1000 * k, 1000, false, 30_001);
        }
        assert_eq!(m.alpha, 0.908203125);
        // Window 4: 1 of 4 marked (F = 0.25): α = 0.908203125·15/16 + 0.25/16 = 0.8670654296875.
        for k in 21..=30u64 {
            m.on_ack(
                1001 + 1000 * k,
                if k > 26 { 1000 } else { 0 },
                k == 30,
                40_001,
            );
        }
        assert_eq!(m.alpha, 0.8670654296875);
    }

    #[test]
    fn the_cut_is_alpha_over_two_with_a_floor_of_two_segments() {
        let mut r = Recovery::new(1000, 3);
        r.w.cwnd = 20_000;
        let m = MarkFraction {
            alpha: 0.908203125,
            ..Default::default()
        };
        // 20 000·(1 − 0.4541015625) = 10 917.96875 → 10 917.
        m.cut(&mut r);
        assert_eq!((r.w.cwnd, r.w.ssthresh), (10_917, 10_917));
        // α = 1 halves; at 3000 B the floor 2·MSS holds.
        let m = MarkFraction::default();
        m.cut(&mut r);
        assert_eq!(r.w.cwnd, 5458);
        r.w.cwnd = 3000;
        m.cut(&mut r);
        assert_eq!((r.w.cwnd, r.w.ssthresh), (2000, 2000));
    }
}
