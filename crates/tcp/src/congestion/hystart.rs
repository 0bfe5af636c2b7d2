//! HyStart, CUBIC's hybrid slow start as Linux runs it (`net/ipv4/tcp_cubic.c`,
//! `hystart_update`; Ha & Rhee, "Taming the elephants: New TCP slow start", Computer Networks
//! 55(9), 2011): slow start ends (ssthresh := cwnd) before the first loss when, within one
//! round (until the data outstanding at the round's start is acknowledged),
//! - **ACK train**: ACKs arriving no more than 2 ms apart (`hystart_ack_delta_us`) have kept
//!   coming for longer than half the min RTT plus an allowance for aggregation,
//!   min(1 ms, 4 · 64 KB / pacing rate) (`hystart_ack_delay`; the halving is skipped when the
//!   sender paces), or
//! - **delay increase**: after 8 RTT samples in the round (`HYSTART_MIN_SAMPLES`) the round's
//!   smallest RTT exceeds the min RTT by clamp(min RTT / 8, 4 ms, 16 ms).
//!
//! Only while cwnd ≥ 16 segments (`hystart_low_window`) and in slow start; once found, not
//! again until a timeout resets it (`cubictcp_state(TCP_CA_Loss)`). RTT samples are the
//! per-ACK ones of the delivery-rate sampler (rate.rs: the most recently sent newly
//! acknowledged segment that was never retransmitted), as Linux's `ca_rtt_us`.
//!
//! Differences from Linux: the "discard delay samples within 1 s of a congestion-avoidance
//! epoch start" rule is not applied (it never acts in slow start before the first loss).
//!
//! Validation: unit tests below (exit points on scripted RTT and ACK sequences).

use units::{SimDuration, SimTime};

/// cwnd (segments) below which HyStart does not act (Linux `hystart_low_window`).
pub const LOW_WINDOW: u64 = 16;
/// Largest ACK spacing that continues a train (Linux `hystart_ack_delta_us`).
pub const ACK_DELTA: SimDuration = SimDuration::from_micros(2000);
/// RTT samples per round before the delay test (Linux `HYSTART_MIN_SAMPLES`).
pub const MIN_SAMPLES: u32 = 8;
/// Bounds of the delay-increase threshold (Linux `HYSTART_DELAY_MIN`/`MAX`).
pub const DELAY_MIN: SimDuration = SimDuration::from_millis(4);
pub const DELAY_MAX: SimDuration = SimDuration::from_millis(16);
/// Bytes per aggregation allowance: 4 · `sk_gso_max_size` (64 KB).
const ACK_DELAY_BYTES: u64 = 4 * 65536;

/// Which test ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

/// HyStart state of one connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HyStart {
    round_start: SimTime,
    last_ack: SimTime,
    /// SND.NXT when the round started: the round ends once SND.UNA passes it.
    end_seq: u64,
    curr_rtt: Option<SimDuration>,
    sample_cnt: u32,
    delay_min: Option<SimDuration>,
    found: Option<Exit>,
}

/// One ACK as HyStart sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HyAck {
    pub now: SimTime,
    /// RTT sample of this ACK (none for an ACK of retransmitted data only).
    pub rtt: Option<SimDuration>,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// cwnd in segments, and whether in slow start (cwnd < ssthresh).
    pub cwnd_segs: u64,
    pub slow_start: bool,
    /// The sender paces (no halving of the ACK-train threshold).
    pub paced: bool,
    /// Linux's pacing rate, bytes/s (pacing.rs `linux_rate`), for the aggregation allowance.
    pub pacing_rate: Option<u64>,
}

impl HyStart {
    /// Start a round at `now` (Linux `bictcp_hystart_reset`).
    pub fn reset_round(&mut self, now: SimTime, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }
    /// A timeout (Linux: `TCP_CA_Loss` resets CUBIC and HyStart): HyStart may act again.
    pub fn on_loss(&mut self, now: SimTime, snd_nxt: u64) {
        self.found = None;
        self.delay_min = None;
        self.reset_round(now, snd_nxt);
    }
    /// The test that ended slow start, if one did.
    pub fn found(&self) -> Option<Exit> {
        self.found
    }
    /// The smallest RTT seen.
    pub fn delay_min(&self) -> Option<SimDuration> {
        self.delay_min
    }

    /// An ACK of new data (Linux `cubictcp_acked`). `Some(exit)`: slow start ends now
    /// (the caller sets ssthresh = cwnd).
    pub fn on_ack(&mut self, a: &HyAck) -> Option<Exit> {
        let delay = a.rtt?.max(SimDuration::from_nanos(1));
        let min = self.delay_min.map_or(delay, |m| m.min(delay));
        self.delay_min = Some(min);
        if self.found.is_some() || !a.slow_start || a.cwnd_segs < LOW_WINDOW {
            return None;
        }
        if a.snd_una > self.end_seq {
            self.reset_round(a.now, a.snd_nxt);
        }
        if a.now - self.last_ack <= ACK_DELTA {
            self.last_ack = a.now;
            let allowance = a.pacing_rate.filter(|&r| r > 0).map_or(0, |r| {
                (ACK_DELAY_BYTES as u128 * 1_000_000_000 / r as u128).min(1_000_000) as u64
            });
            let mut threshold = min.as_nanos() + allowance;
            if !a.paced {
                threshold /= 2;
            }
            if (a.now - self.round_start).as_nanos() > threshold {
                self.found = Some(Exit::AckTrain);
                return self.found;
            }
        }
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = SimDuration::from_nanos(min.as_nanos() / 8).clamp(DELAY_MIN, DELAY_MAX);
            if curr > min + thresh {
                self.found = Some(Exit::Delay);
                return self.found;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> SimTime {
        SimTime::from_nanos(x * 1000)
    }
    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn ack(now: SimTime, rtt: u64, una: u64, cwnd: u64) -> HyAck {
        HyAck {
            now,
            rtt: Some(ms(rtt)),
            snd_una: una,
            snd_nxt: una + cwnd * 1000,
            cwnd_segs: cwnd,
            slow_start: true,
            paced: false,
            pacing_rate: None,
        }
    }

    #[test]
    fn delay_increase_exits_after_eight_samples() {
        // Min RTT 40 ms: threshold clamp(5 ms, 4, 16) = 5 ms. ACKs 3 ms apart (no train).
        // Round 1 (end_seq 20 000): RTTs 40 ms. Round 2: RTTs 46 ms; the 9th sample of the
        // round (8 counted first) finds the round's minimum 46 > 45 → exit.
        let mut h = HyStart::default();
        h.reset_round(us(0), 20_000);
        let mut t = 0;
        for k in 0..10 {
            t += 3000;
            assert_eq!(h.on_ack(&ack(us(t), 40, 1000 * k, 20)), None);
        }
        let mut exit_at = None;
        for k in 0..12 {
            t += 3000;
            if let Some(e) = h.on_ack(&ack(us(t), 46, 20_001 + 1000 * k, 20)) {
                assert_eq!(e, Exit::Delay);
                exit_at = Some(k);
                break;
            }
        }
        assert_eq!(exit_at, Some(8));
        // 44 ms (within 40 + 5) would not have exited.
        let mut h = HyStart::default();
        h.reset_round(us(0), 20_000);
        for k in 0..30 {
            let rtt = if k < 10 { 40 } else { 44 };
            assert_eq!(h.on_ack(&ack(us(3000 * (k + 1)), rtt, 1000 * k, 20)), None);
        }
    }

    #[test]
    fn ack_train_exits_past_half_the_min_rtt() {
        // Min RTT 40 ms, not paced, no pacing rate: threshold 20 ms. ACKs 1 ms apart from the
        // round's start at 0: the first ACK more than 20 ms after it (at 21 ms) exits.
        let mut h = HyStart::default();
        h.reset_round(us(0), 1 << 40);
        let mut exit = None;
        for k in 1..=30 {
            if let Some(e) = h.on_ack(&ack(us(1000 * k), 40, 1, 20)) {
                exit = Some((k, e));
                break;
            }
        }
        assert_eq!(exit, Some((21, Exit::AckTrain)));
        // Paced, with a pacing rate of 1 310 720 B/s: allowance 4·65 536 / 1 310 720 s =
        // 200 ms → capped at 1 ms; threshold 40 + 1 = 41 ms, not halved: exit at 42 ms.
        let mut h = HyStart::default();
        h.reset_round(us(0), 1 << 40);
        let mut exit = None;
        for k in 1..=60 {
            let a = HyAck {
                paced: true,
                pacing_rate: Some(1_310_720),
                ..ack(us(1000 * k), 40, 1, 20)
            };
            if h.on_ack(&a).is_some() {
                exit = Some(k);
                break;
            }
        }
        assert_eq!(exit, Some(42));
    }

    #[test]
    fn a_gap_breaks_the_train_and_low_windows_are_ignored() {
        // ACKs 3 ms apart never extend the train.
        let mut h = HyStart::default();
        h.reset_round(us(0), 1 << 40);
        for k in 1..=8 {
            assert_eq!(h.on_ack(&ack(us(3000 * k), 40, 1, 20)), None);
        }
        // Below 16 segments nothing fires, even with RTTs far above the minimum.
        let mut h = HyStart::default();
        h.reset_round(us(0), 1 << 40);
        for k in 1..=40 {
            let rtt = if k < 3 { 40 } else { 200 };
            assert_eq!(h.on_ack(&ack(us(1000 * k), rtt, 1, 15)), None);
        }
        assert_eq!(h.delay_min(), Some(ms(40)));
    }
}
