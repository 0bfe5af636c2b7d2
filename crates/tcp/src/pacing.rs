//! Sender pacing: the earliest time the next data segment may leave ("not before t").
//!
//! The endpoint never sleeps: when a data segment is due but paced, `poll_transmit` sends
//! nothing (a pure ACK still goes) and arms the `Pacing` timer at the release time; the engine
//! wakes the endpoint then, as for any other deadline (timers.rs).
//!
//! Rate (bytes of payload per second): set by the congestion control when it paces itself
//! (BBR, congestion/bbr.rs), otherwise Linux's `tcp_update_pacing_rate` (net/ipv4/tcp_input.c),
//! recomputed on every ACK: rate = ratio · max(cwnd, FlightSize) / SRTT with ratio
//! `pacing_ss_ratio` (200 %, sysctl `tcp_pacing_ss_ratio`) while cwnd < ssthresh / 2 and
//! `pacing_ca_ratio` (120 %, `tcp_pacing_ca_ratio`) otherwise; no rate (no pacing) before the
//! first RTT sample, as Linux leaves the initial rate unlimited.
//!
//! Release time (Linux `tcp_update_skb_after_send`, the earliest-departure-time model): after a
//! data segment of `len` payload bytes leaves at `now`, the next may leave at
//! max(previous release, now) + len / rate. As Linux, the first [`UNPACED_SEGMENTS`] data
//! segments of a connection are not paced. Pure ACKs, SYNs and FIN-only segments are never paced.
//!
//! Differences from Linux: no credit for OS jitter (Linux forgives up to half a gap when the
//! timer fired late; the simulator's timers are exact), no TSO autosizing (one segment per
//! release), no `sk_max_pacing_rate` cap.
//!
//! Validation: unit tests below (`gap_is_len_over_rate`, `linux_ratios`, `first_ten_unpaced`);
//! tests/pacing.rs (segment times on the pipe).

use units::{SimDuration, SimTime};

/// Data segments sent before pacing starts (Linux `tcp_update_skb_after_send`:
/// `data_segs_out >= 10`).
pub const UNPACED_SEGMENTS: u32 = 10;

/// Linux's default pacing rate, bytes/s: `ratio_percent` % of max(cwnd, flight) per SRTT
/// (`tcp_update_pacing_rate`). `None` without an RTT sample or with SRTT 0.
pub fn linux_rate(
    cwnd: u64,
    ssthresh: u64,
    flight: u64,
    srtt: Option<SimDuration>,
    ss_ratio: u32,
    ca_ratio: u32,
) -> Option<u64> {
    let srtt = srtt?.as_nanos();
    if srtt == 0 {
        return None;
    }
    let ratio = if cwnd < ssthresh / 2 {
        ss_ratio
    } else {
        ca_ratio
    };
    let bytes = cwnd.max(flight) as u128 * ratio as u128;
    let rate = bytes * 1_000_000_000 / (100 * srtt as u128);
    Some(rate.min(u64::MAX as u128) as u64)
}

/// The pacing state of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// Current rate, payload bytes per second (`None` or 0: not paced).
    pub rate: Option<u64>,
    /// Earliest time the next data segment may leave.
    pub release: SimTime,
    /// Data segments sent so far (the first [`UNPACED_SEGMENTS`] are not paced).
    pub segments: u32,
}

impl Pacer {
    /// Whether a data segment may leave at `now`.
    pub fn may_send(&self, now: SimTime) -> bool {
        now >= self.release
    }
    /// A data segment of `len` payload bytes left at `now`: move the release time.
    pub fn sent(&mut self, now: SimTime, len: u64) {
        self.segments = self.segments.saturating_add(1);
        if self.segments <= UNPACED_SEGMENTS {
            return;
        }
        if let Some(rate) = self.rate.filter(|&r| r > 0) {
            let gap = (len as u128 * 1_000_000_000).div_ceil(rate as u128);
            let gap = SimDuration::from_nanos(gap.min(u64::MAX as u128) as u64);
            self.release = self.release.max(now) + gap;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_is_len_over_rate() {
        // 1460 B at 1 250 000 B/s (10 Mbit/s) = 1.168 ms; 1000 B at 3 000 000 B/s = 333 333.33 ns
        // → rounded up to 333 334 ns.
        let mut p = Pacer {
            rate: Some(1_250_000),
            segments: UNPACED_SEGMENTS,
            ..Pacer::default()
        };
        let t0 = SimTime::from_millis(5);
        p.sent(t0, 1460);
        assert_eq!(p.release, t0 + SimDuration::from_nanos(1_168_000));
        assert!(!p.may_send(t0 + SimDuration::from_nanos(1_167_999)));
        assert!(p.may_send(t0 + SimDuration::from_nanos(1_168_000)));
        // Sent late (at 3 ms): the gap counts from the sending time, not the old release.
        let t1 = SimTime::from_millis(8);
        p.rate = Some(3_000_000);
        p.sent(t1, 1000);
        assert_eq!(p.release, t1 + SimDuration::from_nanos(333_334));
        // Two segments at the same instant: their gaps add up.
        p.sent(t1, 1000);
        assert_eq!(p.release, t1 + SimDuration::from_nanos(666_668));
    }

    #[test]
    fn first_ten_unpaced() {
        let mut p = Pacer {
            rate: Some(1000),
            ..Pacer::default()
        };
        for _ in 0..UNPACED_SEGMENTS {
            p.sent(SimTime::ZERO, 1000);
        }
        assert_eq!(p.release, SimTime::ZERO);
        p.sent(SimTime::ZERO, 1000); // the 11th: 1000 B at 1000 B/s = 1 s
        assert_eq!(p.release, SimTime::from_secs(1));
    }

    #[test]
    fn linux_ratios() {
        let ms = SimDuration::from_millis;
        // Slow start (cwnd 10·1460 < ssthresh/2): 200 % · 14 600 B / 40 ms = 730 000 B/s.
        assert_eq!(
            linux_rate(14_600, 65_535, 0, Some(ms(40)), 200, 120),
            Some(730_000)
        );
        // cwnd ≥ ssthresh/2 (14 600 ≥ 29 200/2): 120 % → 438 000 B/s.
        assert_eq!(
            linux_rate(14_600, 29_200, 0, Some(ms(40)), 200, 120),
            Some(438_000)
        );
        // FlightSize above cwnd (after a reduction) counts instead: 120 % · 20 000 / 100 ms.
        assert_eq!(
            linux_rate(10_000, 5_000, 20_000, Some(ms(100)), 200, 120),
            Some(240_000)
        );
        // No RTT sample: not paced.
        assert_eq!(linux_rate(14_600, 65_535, 0, None, 200, 120), None);
    }
}
