//! Delivery-rate samples, as Linux `net/ipv4/tcp_rate.c` takes them (Cheng, Cardwell, Hassas
//! Yeganeh & Jacobson, draft-cheng-iccrg-delivery-rate-estimation), for BBR.
//!
//! Every data segment sent (new or retransmitted) is stamped with the connection's state at
//! that moment: `delivered` (payload bytes delivered so far), `delivered_time` (when that count
//! last grew), `first_tx` (send time of the segment whose delivery opened the current sampling
//! interval) and whether the sender was application-limited. When an ACK newly delivers
//! segments (cumulatively or by SACK), the most recently sent of them gives the sample:
//! delivered = now's count − its stamped count, interval = max(send interval, ACK interval)
//! with send interval = its send time − its `first_tx` and ACK interval = now − its
//! `delivered_time`. A sample whose interval is shorter than the connection's minimum RTT is
//! discarded (Linux: ACK compression or a stretched ACK would overestimate the rate).
//!
//! Application-limited (`tcp_rate_check_app_limited`): when the sender has no unsent data,
//! fewer bytes in flight than cwnd and nothing to retransmit, the bytes delivered by the time
//! the data now in flight is acknowledged are marked; samples from segments sent before that
//! point is passed are flagged app-limited.
//!
//! Counting is in payload bytes (Linux counts packets; a byte-counted stack is more exact for
//! partial segments). Losses: the bytes retransmitted since the previous ACK (every
//! retransmission marks its original as lost), a stand-in for Linux's `rs->losses` (segments
//! newly marked lost by SACK/RACK on this ACK).
//!
//! Validation: unit tests below (`sample_by_hand`, `app_limited_marking`,
//! `short_interval_is_discarded`).

use std::collections::VecDeque;
use units::{SimDuration, SimTime};

/// One delivery-rate sample, produced per ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered over `interval`; 0 with `interval` 0: no valid sample.
    pub delivered: u64,
    /// Sampling interval; zero: no valid sample.
    pub interval: SimDuration,
    /// The connection's delivered count stamped on the segment the sample came from.
    pub prior_delivered: u64,
    /// The sample came from data sent while application-limited.
    pub is_app_limited: bool,
    /// RTT of the most recently sent newly delivered segment never retransmitted.
    pub rtt: Option<SimDuration>,
    /// Payload bytes this ACK newly delivered (cumulatively or by SACK).
    pub acked_sacked: u64,
    /// Payload bytes marked lost since the previous ACK (retransmitted).
    pub losses: u64,
}

impl RateSample {
    /// The sample's rate, bytes/s (`None` if invalid).
    pub fn rate(&self) -> Option<u64> {
        let ns = self.interval.as_nanos();
        (ns > 0).then(|| (self.delivered as u128 * 1_000_000_000 / ns as u128) as u64)
    }
}

/// Per-segment stamps taken when it was (last) sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    start: u64,
    end: u64,
    tx_time: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_tx: SimTime,
    app_limited: bool,
    retransmitted: bool,
    sacked: bool,
}

/// The connection's delivery-rate state and the stamps of the segments in flight.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateSampler {
    stamps: VecDeque<Stamp>,
    /// Payload bytes delivered (cumulatively acknowledged or SACKed) so far.
    pub delivered: u64,
    delivered_time: SimTime,
    first_tx: SimTime,
    /// `delivered` value that ends the app-limited period; 0: not app-limited.
    app_limited: u64,
    /// Bytes retransmitted so far (lost).
    pub lost: u64,
    lost_reported: u64,
    /// Smallest RTT sample seen (the discard threshold).
    min_rtt: Option<SimDuration>,
}

impl RateSampler {
    /// A data segment `[seq, seq + len)` leaves at `now` with `in_flight` payload bytes
    /// already outstanding (Linux `tcp_rate_skb_sent`).
    pub fn on_send(&mut self, now: SimTime, seq: u64, len: u64, in_flight: u64, retransmit: bool) {
        if in_flight == 0 {
            // Nothing in flight: the sampling interval starts now.
            self.first_tx = now;
            self.delivered_time = now;
        }
        let end = seq + len;
        let mut stamp = Stamp {
            start: seq,
            end,
            tx_time: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx: self.first_tx,
            app_limited: self.app_limited != 0,
            retransmitted: retransmit,
            sacked: false,
        };
        if !retransmit {
            self.stamps.push_back(stamp);
            return;
        }
        self.lost += len;
        // A retransmission restamps the segments it covers.
        let from = self.stamps.partition_point(|s| s.end <= seq);
        let mut covered = false;
        for s in self.stamps.iter_mut().skip(from) {
            if s.start >= end {
                break;
            }
            stamp.start = s.start;
            stamp.end = s.end;
            stamp.sacked = s.sacked;
            *s = stamp;
            covered = true;
        }
        if !covered {
            self.stamps.push_back(stamp);
        }
    }

    /// An ACK at `now` with cumulative ACK `ack` and SACK blocks `sack`: deliver what it newly
    /// covers and return the sample (Linux `tcp_rate_skb_delivered` + `tcp_rate_gen`).
    pub fn on_ack(&mut self, now: SimTime, ack: u64, sack: &[(u64, u64)]) -> RateSample {
        let mut rs = RateSample::default();
        let mut newest: Option<Stamp> = None;
        let mut newest_clean: Option<Stamp> = None;
        // Nothing at or beyond the highest acknowledged byte can be newly delivered.
        let limit = sack.iter().fold(ack, |m, b| m.max(b.1));
        for s in self.stamps.iter_mut() {
            if s.start >= limit {
                break;
            }
            if s.sacked && s.end > ack {
                continue;
            }
            let cum = s.end <= ack;
            if !cum && !sack.iter().any(|&(a, b)| a <= s.start && s.end <= b) {
                continue;
            }
            if !s.sacked {
                rs.acked_sacked += s.end - s.start;
                let later =
                    |n: &Option<Stamp>| n.is_none_or(|n| (s.tx_time, s.end) > (n.tx_time, n.end));
                if later(&newest) {
                    newest = Some(*s);
                }
                if !s.retransmitted && later(&newest_clean) {
                    newest_clean = Some(*s);
                }
            }
            s.sacked = true;
        }
        while self.stamps.front().is_some_and(|s| s.end <= ack) {
            self.stamps.pop_front();
        }
        rs.losses = self.lost - self.lost_reported;
        self.lost_reported = self.lost;
        if rs.acked_sacked > 0 {
            self.delivered += rs.acked_sacked;
            self.delivered_time = now;
        }
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if let Some(n) = newest_clean {
            let rtt = now - n.tx_time;
            rs.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        let Some(n) = newest else {
            return rs;
        };
        self.first_tx = n.tx_time;
        rs.prior_delivered = n.delivered;
        rs.is_app_limited = n.app_limited;
        let send = n.tx_time - n.first_tx;
        let ack_iv = now - n.delivered_time;
        let interval = send.max(ack_iv);
        if self.min_rtt.is_some_and(|m| interval < m) || interval == SimDuration::ZERO {
            return rs;
        }
        rs.delivered = self.delivered - n.delivered;
        rs.interval = interval;
        rs
    }

    /// The sender has no unsent data, `in_flight` < cwnd and nothing to retransmit: mark the
    /// connection application-limited (Linux `tcp_rate_check_app_limited`).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// When `delivered` last grew (or the interval restarted after idle).
    pub fn delivered_time(&self) -> SimTime {
        self.delivered_time
    }

    /// Whether the sender is application-limited now.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn sample_by_hand() {
        // Four 1000-B segments sent 10 ms apart from t = 0, each acknowledged 100 ms later.
        let mut r = RateSampler::default();
        for k in 0..4 {
            r.on_send(ms(10 * k), 1 + 1000 * k, 1000, 1000 * k, false);
        }
        // ACK of the first at 100 ms: stamped delivered 0 at 0 ms, send interval 0, ACK
        // interval 100 ms → 1000 B / 100 ms = 10 000 B/s; RTT 100 ms.
        let s = r.on_ack(ms(100), 1001, &[]);
        assert_eq!(
            (s.delivered, s.interval),
            (1000, SimDuration::from_millis(100))
        );
        assert_eq!(s.rate(), Some(10_000));
        assert_eq!(s.rtt, Some(SimDuration::from_millis(100)));
        // Second at 110 ms: stamped (delivered 0, delivered_time 0, first_tx 0, sent 10 ms):
        // send interval 10 ms, ACK interval 110 ms → 2000 B / 110 ms.
        let s = r.on_ack(ms(110), 2001, &[]);
        assert_eq!(
            (s.delivered, s.interval),
            (2000, SimDuration::from_millis(110))
        );
        // Segment 4 SACKed at 130 ms (3 still missing): 3000 B delivered since its stamp (0).
        let s = r.on_ack(ms(130), 2001, &[(3001, 4001)]);
        assert_eq!((s.acked_sacked, s.delivered), (1000, 3000));
        assert_eq!(s.interval, SimDuration::from_millis(130));
        // A cumulative ACK covering 3 and the SACKed 4 delivers only 3's 1000 B.
        let s = r.on_ack(ms(135), 4001, &[]);
        assert_eq!((s.acked_sacked, r.delivered), (1000, 4000));
    }

    #[test]
    fn short_interval_is_discarded() {
        let mut r = RateSampler::default();
        r.on_send(ms(0), 1, 1000, 0, false);
        assert!(r.on_ack(ms(100), 1001, &[]).rate().is_some()); // min RTT 100 ms
                                                                // B sent after idle at 150 ms (interval starts), C at 151 ms; B spuriously resent at
                                                                // 160 ms; the ACK of B's original at 200 ms samples the resent stamp: send interval
                                                                // 10 ms, ACK interval 50 ms → 50 ms < 100 ms minimum RTT: no sample, no RTT (Karn),
                                                                // but B's bytes count as delivered.
        r.on_send(ms(150), 1001, 1000, 0, false);
        r.on_send(ms(151), 2001, 1000, 1000, false);
        r.on_send(ms(160), 1001, 1000, 2000, true);
        let s = r.on_ack(ms(200), 2001, &[]);
        assert_eq!((s.rate(), s.rtt, s.acked_sacked), (None, None, 1000));
        assert_eq!(r.delivered, 2000);
        // C at 251 ms: stamped (delivered 1000, delivered_time 150, first_tx 150), sent 151:
        // send interval 1 ms, ACK interval 101 ms; delivered since the stamp: B and C, 2000 B.
        let s = r.on_ack(ms(251), 3001, &[]);
        assert_eq!(
            (s.delivered, s.interval),
            (2000, SimDuration::from_millis(101))
        );
    }

    #[test]
    fn app_limited_marking() {
        let mut r = RateSampler::default();
        r.on_send(ms(0), 1, 1000, 0, false);
        r.mark_app_limited(1000); // delivered 0 + 1000 in flight
        r.on_send(ms(1), 1001, 1000, 1000, false);
        // The first segment was sent before the mark: not app-limited; delivered = 1000 ≤ mark.
        let s = r.on_ack(ms(100), 1001, &[]);
        assert!(!s.is_app_limited && r.is_app_limited());
        // The second carries the mark; its delivery (2000 > 1000) ends the period.
        let s = r.on_ack(ms(101), 2001, &[]);
        assert!(s.is_app_limited && !r.is_app_limited());
        // Retransmissions count as losses, reported once on the next ACK.
        r.on_send(ms(102), 2001, 1000, 0, false);
        r.on_send(ms(300), 2001, 1000, 1000, true);
        assert_eq!(r.on_ack(ms(301), 2001, &[]).losses, 1000);
        assert_eq!(r.on_ack(ms(302), 2001, &[]).losses, 0);
    }
}
