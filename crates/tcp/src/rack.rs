//! RACK-TLP (RFC 8985) as Linux 6.x runs it: a per-segment record of what was sent and when
//! (Linux's retransmission queue with its SACKED_ACKED, LOST and SACKED_RETRANS marks), RACK's
//! time-based loss marks and the tail loss probe's episode state. The endpoint (input.rs,
//! output.rs) decides when to look and what to send; this file owns the marks and the numbers.
//!
//! - Delivery (`tcp_rack_advance`, net/ipv4/tcp_recovery.c): every segment newly SACKed or
//!   cumulatively acknowledged gives RACK.rtt = now − its last transmission, unless it was
//!   retransmitted and that RTT is below the min RTT (the original may have been delivered);
//!   RACK.xmit_ts / end_seq follow the most recently sent of them.
//! - Loss (`tcp_rack_detect_loss`): a segment not SACKed, sent before RACK.xmit_ts (ties by
//!   sequence), is lost once now ≥ its transmission + RACK.rtt + reo_wnd; otherwise the reorder
//!   timer waits for the largest remainder. Retransmissions lost again are marked the same way,
//!   which RFC 6675 cannot see without a timeout. A segment marked lost and not yet resent is
//!   skipped.
//! - reo_wnd (`tcp_rack_reo_wnd` with no reordering seen, which aqmlab's FIFO paths never
//!   show): 0 in recovery or after a timeout, or once ≥ 3 segments (`tcp_reordering`) are
//!   SACKed; otherwise min(min RTT / 4, SRTT). Not modelled: the DSACK-driven reo_wnd steps.
//! - Timeout (`tcp_timeout_mark_lost`, no reneging): every segment not SACKed is lost except
//!   those sent within the last RACK.rtt (not the first); retransmissions in flight are
//!   forgotten. With `sack_on_timeout = "clear"` the SACK marks go too (Linux's reneging path).
//! - In flight (`tcp_packets_in_flight`, in bytes): sent − SACKed − lost + retransmitted and
//!   not yet marked lost again.
//!
//! Sequence space counts, the FIN included (aqmlab's SACK blocks cover payload only, so a FIN
//! is acknowledged cumulatively). min RTT is the least RTT of a never-retransmitted delivery
//! over the connection's life (Linux: a 5-minute window; aqmlab's connections are shorter).
//!
//! Validation: unit tests below (`marks_a_hole_once_rtt_and_reo_wnd_have_passed`,
//! `a_retransmission_lost_again_is_marked`, `in_flight_counts_as_linux`), tests/rack.rs end
//! to end.

use std::collections::VecDeque;
use units::{SimDuration, SimTime};

/// `tcp_reordering` (Linux's default 3): SACKed segments beyond which reo_wnd is 0.
pub const REORDERING: u32 = 3;

/// One transmitted stretch of sequence space, `[start, end)`, at most one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sent {
    start: u64,
    end: u64,
    /// Its latest transmission.
    xmit: SimTime,
    sacked: bool,
    lost: bool,
    /// A retransmission is in flight (Linux TCPCB_SACKED_RETRANS).
    rtx: bool,
    /// Ever retransmitted (Linux TCPCB_EVER_RETRANS).
    ever_rtx: bool,
}

impl Sent {
    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// RACK-TLP state of one sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    q: VecDeque<Sent>,
    /// Sums over `q`, bytes: sent, SACKed, lost, retransmitted in flight.
    out: u64,
    sacked: u64,
    lost: u64,
    rtx: u64,
    /// Segments SACKed (Linux `sacked_out`, packets).
    sacked_segs: u32,
    /// Bytes marked lost and not resent since.
    pending: u64,
    /// RACK.xmit_ts, RACK.end_seq, RACK.rtt (`None` before the first delivery).
    rack: Option<(SimTime, u64, SimDuration)>,
    /// A delivery advanced RACK since the last loss check (Linux `rack.advanced`).
    advanced: bool,
    min_rtt: Option<SimDuration>,
    /// TLP: SND.MAX after the probe of the episode in progress (Linux `tlp_high_seq`).
    pub tlp_high_seq: Option<u64>,
    /// TLP: that probe was a retransmission (Linux `tlp_retrans`).
    pub tlp_retrans: bool,
}

impl Rack {
    /// A segment `[start, end)` left at `now`; `retransmit`: it starts below SND.MAX.
    pub fn on_send(&mut self, start: u64, end: u64, now: SimTime, retransmit: bool) {
        if !retransmit || self.q.back().is_none_or(|s| s.end <= start) {
            self.q.push_back(Sent {
                start,
                end,
                xmit: now,
                sacked: false,
                lost: false,
                rtx: false,
                ever_rtx: retransmit,
            });
            self.out += end - start;
            return;
        }
        self.split_at(start);
        self.split_at(end);
        let i = self.q.partition_point(|s| s.end <= start);
        for k in i..self.q.len() {
            let s = &mut self.q[k];
            if s.start >= end {
                break;
            }
            if s.sacked {
                continue;
            }
            s.xmit = now;
            s.ever_rtx = true;
            if !s.rtx {
                s.rtx = true;
                self.rtx += s.len();
                if s.lost {
                    self.pending -= s.len();
                }
            }
        }
    }

    /// Split the record holding `seq` in its interior into two at `seq`.
    fn split_at(&mut self, seq: u64) {
        let i = self.q.partition_point(|s| s.end <= seq);
        if let Some(s) = self.q.get(i).copied() {
            if s.start < seq && seq < s.end {
                self.q[i].end = seq;
                let mut hi = s;
                hi.start = seq;
                self.q.insert(i + 1, hi);
                if s.sacked {
                    self.sacked_segs += 1;
                }
            }
        }
    }

    /// An ACK at `now`: SND.UNA is `una`, `sack` its blocks (each a range the receiver holds),
    /// `data_end` the FIN's sequence number: a segment whose payload a block covers is SACKed
    /// with the FIN it carries (the receiver keeps an out-of-order FIN, recv.rs); a lone FIN
    /// only by the cumulative ACK.
    pub fn on_ack(&mut self, now: SimTime, una: u64, sack: &[(u64, u64)], data_end: u64) {
        for &(a, b) in sack {
            let i = self.q.partition_point(|s| s.end <= a);
            for k in i..self.q.len() {
                let s = self.q[k];
                if s.start >= b {
                    break;
                }
                let pay_end = s.end.min(data_end);
                if s.sacked || s.start < a || pay_end > b || s.start >= pay_end {
                    continue;
                }
                self.forget_marks(k);
                self.q[k].sacked = true;
                self.sacked += s.len();
                self.sacked_segs += 1;
                self.advance(now, &s);
            }
        }
        self.split_at(una);
        while let Some(s) = self.q.front().copied() {
            if s.end > una {
                break;
            }
            self.forget_marks(0);
            self.q.pop_front();
            self.out -= s.len();
            if s.sacked {
                self.sacked -= s.len();
                self.sacked_segs -= 1;
            } else {
                self.advance(now, &s);
            }
        }
    }

    /// Clear record `k`'s lost and retransmitted marks (it was delivered).
    fn forget_marks(&mut self, k: usize) {
        let s = &mut self.q[k];
        let n = s.end - s.start;
        if s.lost {
            self.lost -= n;
            if !s.rtx {
                self.pending -= n;
            }
        }
        if s.rtx {
            self.rtx -= n;
        }
        s.lost = false;
        s.rtx = false;
    }

    /// Linux `tcp_rack_advance` for the delivered segment `s`.
    fn advance(&mut self, now: SimTime, s: &Sent) {
        let rtt = now.saturating_since(s.xmit);
        if s.ever_rtx && self.min_rtt.is_none_or(|m| rtt < m) {
            return;
        }
        if !s.ever_rtx {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        self.advanced = true;
        let (xmit, end_seq) = match self.rack {
            Some((x, e, _)) if !sent_after(s.xmit, s.end, x, e) => (x, e),
            _ => (s.xmit, s.end),
        };
        self.rack = Some((xmit, end_seq, rtt));
    }

    /// The reordering window (Linux `tcp_rack_reo_wnd`, no reordering seen): 0 when
    /// `recovering` (recovery or after a timeout) or with ≥ [`REORDERING`] segments SACKed,
    /// else min(min RTT / 4, SRTT).
    pub fn reo_wnd(&self, recovering: bool, srtt: Option<SimDuration>) -> SimDuration {
        if recovering || self.sacked_segs >= REORDERING {
            return SimDuration::ZERO;
        }
        let quarter = self.min_rtt.map(|m| SimDuration(m.0 / 4));
        match (quarter, srtt) {
            (Some(q), Some(s)) => q.min(s),
            (Some(q), None) => q,
            (None, Some(s)) => s,
            (None, None) => SimDuration::ZERO,
        }
    }

    /// Linux `tcp_rack_mark_lost`: if a delivery advanced RACK, mark what it proves lost.
    /// Returns (something newly marked, the reorder timer's wait if some segment is not yet
    /// due).
    pub fn detect_loss(
        &mut self,
        now: SimTime,
        reo_wnd: SimDuration,
    ) -> (bool, Option<SimDuration>) {
        if !std::mem::take(&mut self.advanced) {
            return (false, None);
        }
        self.detect_loss_now(now, reo_wnd)
    }

    /// Linux `tcp_rack_detect_loss` (also what the reorder timer runs).
    pub fn detect_loss_now(
        &mut self,
        now: SimTime,
        reo_wnd: SimDuration,
    ) -> (bool, Option<SimDuration>) {
        let Some((rx, rend, rtt)) = self.rack else {
            return (false, None);
        };
        let (mut marked, mut wait) = (false, None::<SimDuration>);
        for k in 0..self.q.len() {
            let s = self.q[k];
            if s.sacked || (s.lost && !s.rtx) {
                continue;
            }
            if !sent_after(rx, rend, s.xmit, s.end) {
                // Records after a never-resent one that was sent later were all sent later.
                if !s.ever_rtx {
                    break;
                }
                continue;
            }
            let due = s.xmit + rtt + reo_wnd;
            if now >= due {
                self.mark_lost(k);
                marked = true;
            } else {
                let left = due.saturating_since(now);
                wait = Some(wait.map_or(left, |w| w.max(left)));
            }
        }
        (marked, wait)
    }

    /// Mark record `k` lost (Linux `tcp_mark_skb_lost`: a retransmission in flight is lost too).
    fn mark_lost(&mut self, k: usize) {
        let s = &mut self.q[k];
        let n = s.end - s.start;
        if s.rtx {
            s.rtx = false;
            self.rtx -= n;
        }
        if !s.lost {
            s.lost = true;
            self.lost += n;
        }
        self.pending += n;
    }

    /// A retransmission timeout at `now` (Linux `tcp_timeout_mark_lost`); `keep_sack` false
    /// forgets the SACK marks first.
    pub fn on_timeout(&mut self, now: SimTime, keep_sack: bool) {
        if !keep_sack {
            for s in self.q.iter_mut() {
                s.sacked = false;
            }
            self.sacked = 0;
            self.sacked_segs = 0;
        }
        let rtt = self.rack.map(|r| r.2);
        for k in 0..self.q.len() {
            let s = self.q[k];
            if s.sacked || (s.lost && !s.rtx) {
                continue;
            }
            let recent = rtt.is_some_and(|r| now < s.xmit + r);
            if k > 0 && recent {
                continue;
            }
            self.mark_lost(k);
        }
        self.tlp_high_seq = None;
    }

    /// The first segment marked lost and not resent since, `[start, end)`.
    pub fn next_lost(&self) -> Option<(u64, u64)> {
        if self.pending == 0 {
            return None;
        }
        self.q
            .iter()
            .find(|s| s.lost && !s.rtx && !s.sacked)
            .map(|s| (s.start, s.end))
    }

    /// The highest segment sent, `[start, end)` (what a probe resends).
    pub fn last(&self) -> Option<(u64, u64)> {
        self.q.back().map(|s| (s.start, s.end))
    }

    /// Bytes in flight, Linux `tcp_packets_in_flight`: sent − SACKed − lost + retransmitted.
    pub fn in_flight(&self) -> u64 {
        (self.out + self.rtx).saturating_sub(self.sacked + self.lost)
    }

    /// Segments sent and not acknowledged (Linux `packets_out`).
    pub fn segments_out(&self) -> usize {
        self.q.len()
    }

    /// Bytes marked lost (Linux `lost_out`), resent or not.
    pub fn lost_out(&self) -> u64 {
        self.lost
    }

    /// Nothing SACKed, lost or retransmitted is outstanding (Linux's Open state, as far as the
    /// marks go).
    pub fn clean(&self) -> bool {
        self.sacked == 0 && self.lost == 0 && self.rtx == 0
    }

    /// The least RTT of a never-retransmitted delivery so far.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }
}

/// Linux `tcp_skb_sent_after`: (t1, seq1) sent after (t2, seq2).
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    fn d(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    /// Four 100-byte segments: k-th is [1 + 100(k−1), 1 + 100k), sent at 10·k ms.
    fn four() -> Rack {
        let mut r = Rack::default();
        for k in 1..=4u64 {
            r.on_send(1 + 100 * (k - 1), 1 + 100 * k, ms(10 * k), false);
        }
        r
    }

    #[test]
    fn marks_a_hole_once_rtt_and_reo_wnd_have_passed() {
        // Segment 1 acknowledged at 110 ms (RTT 100, min RTT 100); segment 2 lost; 3 SACKed at
        // 130 ms (RACK.rtt 100 ms, RACK.xmit_ts 30 ms). One segment SACKed: reo_wnd = min RTT/4
        // = 25 ms (SRTT 100 ms larger). Segment 2 (sent at 20 ms) is due at 20 + 100 + 25 =
        // 145 ms: at 130 ms the reorder timer waits 15 ms; segment 4, sent after RACK.xmit_ts,
        // is not examined.
        let mut r = four();
        r.on_ack(ms(110), 101, &[], 1000);
        assert_eq!(r.min_rtt(), Some(d(100)));
        r.on_ack(ms(130), 101, &[(201, 301)], 1000);
        let reo = r.reo_wnd(false, Some(d(100)));
        assert_eq!(reo, d(25));
        assert_eq!(r.detect_loss(ms(130), reo), (false, Some(d(15))));
        assert_eq!(r.next_lost(), None);
        // The reorder timer at 145 ms marks it.
        assert_eq!(r.detect_loss_now(ms(145), reo), (true, None));
        assert_eq!(r.next_lost(), Some((101, 201)));
        // In flight: 2 lost, 3 SACKed, 4 out → 100 bytes.
        assert_eq!(r.in_flight(), 100);
        // In recovery reo_wnd is 0; so it is with 3 segments SACKed.
        assert_eq!(r.reo_wnd(true, Some(d(100))), SimDuration::ZERO);
    }

    #[test]
    fn a_retransmission_lost_again_is_marked() {
        // Segment 2 lost, marked at 145 ms and resent at 150 ms; that copy is lost too. Segment
        // 4 SACKed at 160 ms would not prove it (sent at 40 ms, before the retransmission);
        // new segment 5 sent at 155 ms and SACKed at 255 ms (RACK.rtt 100 ms) does, once
        // 150 + 100 ms have passed (reo_wnd 0 in recovery): at 255 ms.
        let mut r = four();
        r.on_ack(ms(110), 101, &[], 1000);
        r.on_ack(ms(130), 101, &[(201, 301)], 1000);
        r.detect_loss_now(ms(145), d(25));
        r.on_send(101, 201, ms(150), true);
        assert_eq!(r.next_lost(), None);
        assert_eq!(r.in_flight(), 200, "the retransmission and segment 4");
        r.on_send(401, 501, ms(155), false);
        r.on_ack(ms(160), 101, &[(201, 301), (301, 401)], 1000);
        assert_eq!(r.detect_loss(ms(160), SimDuration::ZERO), (false, None));
        r.on_ack(ms(255), 101, &[(201, 501)], 1000);
        assert_eq!(r.detect_loss(ms(255), SimDuration::ZERO), (true, None));
        assert_eq!(r.next_lost(), Some((101, 201)));
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn in_flight_counts_as_linux() {
        // A probe-style retransmission of segment 4 that was never marked lost counts twice
        // (packets_out 1 + retrans_out 1); the timeout marks all but the SACKed lost.
        let mut r = four();
        r.on_send(301, 401, ms(60), true);
        assert_eq!(r.in_flight(), 500);
        r.on_ack(ms(120), 1, &[(101, 201)], 1000);
        assert_eq!(r.in_flight(), 400);
        // Timeout at 1 s: RACK.rtt 100 ms (segment 2); nothing was sent in the last 100 ms, so
        // 1, 3 and 4 are lost and the retransmission of 4 is forgotten.
        r.on_timeout(ms(1000), true);
        assert_eq!(r.in_flight(), 0);
        assert_eq!(r.next_lost(), Some((1, 101)));
        // Resent, acknowledged through 201: 3 is next; the SACK mark of 2 left with it.
        r.on_send(1, 101, ms(1000), true);
        r.on_ack(ms(1100), 201, &[], 1000);
        assert_eq!(r.next_lost(), Some((201, 301)));
        assert_eq!(r.segments_out(), 2);
        // clear: the SACK marks go as well.
        let mut r = four();
        r.on_ack(ms(120), 1, &[(101, 201)], 1000);
        r.on_timeout(ms(1000), false);
        assert_eq!(r.next_lost(), Some((1, 101)));
        assert_eq!(r.in_flight(), 0);
        r.on_send(1, 101, ms(1000), true);
        r.on_ack(ms(1100), 101, &[], 1000);
        assert_eq!(r.next_lost(), Some((101, 201)));
    }
}
