//! The endpoint's side of RACK-TLP (`rack_tlp`, rack.rs holds the marks): when to look for
//! losses, when recovery starts, the reorder timer, the tail loss probe, and what to send.
//!
//! Per ACK (Linux `tcp_ack`): the marks first (SACKed, delivered), then the probe's episode
//! (`tcp_process_tlp_ack`: an ACK above the probe's SND.MAX after a retransmitted probe means
//! the probe repaired a loss: one cwnd reduction, as Linux's CWR — the variant's ECN-style
//! response; a pure duplicate means both copies arrived), then RACK (`tcp_rack_mark_lost`):
//! marks and the reorder timer; recovery starts once something is lost and the recovery point
//! allows (`tcp_time_to_recover`: "the loss is proven"), with the variant's RFC 6675 entry.
//! DupThresh and RFC 6675's IsLost no longer start recovery or pick what to resend.
//!
//! Sending (Linux `tcp_xmit_retransmit_queue`, then `tcp_write_xmit`): while in flight (rack.rs)
//! leaves room in cwnd, the first segment marked lost and not yet resent, else new data within
//! the peer's window.
//!
//! Probe (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`, Linux 6.x): armed after new data
//! is sent and after an ACK that advances SND.UNA, when data is outstanding, no recovery or
//! Loss state, and nothing SACKed, lost or retransmitted is out (Linux's Open state); PTO =
//! 2·SRTT + (`min_rto` with one segment out — the peer's delayed ACK — else 2 ms), or
//! `initial_rto` without SRTT, never later than the retransmission timer. On expiry: new data
//! if the peer's window takes it (cwnd ignored), else the highest segment again; one probe per
//! episode (a second expiry only restarts the RTO); the RTO restarts from the probe.
//!
//! Simplified: the probe and reorder timers run beside the RTO timer (Linux has one timer
//! slot: its reorder timer and probe replace the RTO until they fire); no 2-jiffy slack on the
//! reorder timer; no PRR (cwnd is set at recovery entry as RFC 6675's variants do).
//!
//! Validation: tests/rack.rs (tail drop repaired by the probe at 2·SRTT, lost retransmission
//! found without a timeout, reo_wnd and the reorder timer, a probe of new data).

use crate::congestion::AckInfo;
use crate::endpoint::{Endpoint, State};
use crate::output::Win;
use crate::segment::Segment;
use crate::timers::Timer;
use units::{SimDuration, SimTime};

/// Linux `TCP_TIMEOUT_MIN_US`: the probe timeout's slack with more than one segment out.
const PTO_SLACK: SimDuration = SimDuration::from_millis(2);

impl Endpoint {
    /// After the ACK field was processed: the probe's episode, RACK's marks, recovery entry and
    /// the probe timer. `advanced`: SND.UNA moved; `pure_dup`: nothing new in it (no data, no
    /// window change, nothing newly acknowledged or SACKed).
    pub(crate) fn rack_after_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        advanced: bool,
        pure_dup: bool,
    ) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if let Some(high) = r.tlp_high_seq {
            if ack >= high {
                if !r.tlp_retrans || (ack == high && pure_dup) {
                    r.tlp_high_seq = None;
                } else if ack > high {
                    // Linux tcp_init_cwnd_reduction + tcp_end_cwnd_reduction: ssthresh from
                    // cwnd (Reno cwnd/2, CUBIC β·cwnd), cwnd = ssthresh.
                    r.tlp_high_seq = None;
                    let cwnd = self.cwnd();
                    self.cc.set_clock(now, self.rtt.srtt());
                    self.cc.on_ece(cwnd);
                }
            }
        }
        self.rack_detect(now, false);
        if advanced {
            self.schedule_loss_probe(now, true);
        }
    }

    /// RACK's loss check (`timer`: the reorder timer fired, look whether or not a delivery
    /// advanced RACK), the reorder timer, and recovery entry on a proven loss.
    pub(crate) fn rack_detect(&mut self, now: SimTime, timer: bool) {
        let recovering = self.cc.in_recovery() || self.in_loss_state();
        let srtt = self.rtt.srtt();
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let reo = r.reo_wnd(recovering, srtt);
        let (_, wait) = if timer {
            r.detect_loss_now(now, reo)
        } else {
            r.detect_loss(now, reo)
        };
        let lost = r.lost_out() > 0;
        match wait {
            Some(w) => self.timers.set(Timer::Reorder, now + w),
            None => self.timers.stop(Timer::Reorder),
        }
        if lost && !recovering && self.cc.sack_may_enter(self.snd_una) {
            self.rack_enter_recovery(now);
        }
    }

    /// Enter loss recovery on RACK's marks (Linux `tcp_enter_recovery`): the variant's RFC 6675
    /// entry, counted as a fast retransmit.
    fn rack_enter_recovery(&mut self, now: SimTime) {
        let info = AckInfo {
            ack: self.snd_una,
            acked: 0,
            flight: self.flight_size(),
            snd_max: self.snd_max,
        };
        let cwnd_before = self.cwnd();
        self.cc.set_clock(now, self.rtt.srtt());
        self.cc.sack_enter(&info);
        self.entered_recovery(cwnd_before);
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp_high_seq = None;
        }
        self.timers.stop(Timer::LossProbe);
        self.restart_rto(now);
    }

    /// Arm the probe timer if Linux would (`tcp_schedule_loss_probe`); `after_ack`: called for
    /// an ACK, which disarms it when not eligible.
    pub(crate) fn schedule_loss_probe(&mut self, now: SimTime, after_ack: bool) {
        let Some(r) = self.rack.as_deref() else {
            return;
        };
        let open = matches!(
            self.state,
            State::Established | State::CloseWait | State::FinWait1 | State::LastAck
        );
        let eligible = open
            && self.snd_una < self.snd_max
            && !self.cc.in_recovery()
            && !self.in_loss_state()
            && r.clean();
        if !eligible {
            if after_ack {
                self.timers.stop(Timer::LossProbe);
            }
            return;
        }
        let pto = match self.rtt.srtt() {
            Some(s) => {
                let slack = if r.segments_out() == 1 {
                    self.cfg.min_rto
                } else {
                    PTO_SLACK
                };
                s.saturating_mul(2) + slack
            }
            None => self.cfg.initial_rto,
        };
        let rto_left = self
            .timers
            .get(Timer::Rto)
            .map_or(self.rtt.rto(), |at| at.saturating_since(now));
        let pto = if rto_left > SimDuration::ZERO {
            pto.min(rto_left)
        } else {
            pto
        };
        self.timers.set(Timer::LossProbe, now + pto);
    }

    /// The probe timer fired (`tcp_send_loss_probe`): the next `poll_transmit` sends the probe,
    /// unless one is already out; the RTO restarts from now.
    pub(crate) fn fire_loss_probe(&mut self, now: SimTime) {
        let Some(r) = self.rack.as_deref() else {
            return;
        };
        if self.snd_una == self.snd_max {
            return;
        }
        if r.tlp_high_seq.is_none() {
            self.tlp_pending = true;
        }
        self.restart_rto(now);
    }

    /// The probe: new data if the peer's window takes it (cwnd ignored), else the highest
    /// segment again.
    pub(crate) fn emit_probe(&mut self, now: SimTime) -> Option<Segment> {
        let mut retrans = false;
        let mut s = self.emit_at(now, self.snd_max, Win::Peer, u64::MAX);
        if s.is_none() {
            let (a, b) = self.rack.as_deref()?.last()?;
            s = self.emit_at(now, a, Win::None, b);
            retrans = true;
        }
        s.inspect(|_| {
            let high = self.snd_max;
            if let Some(r) = self.rack.as_deref_mut() {
                r.tlp_high_seq = Some(high);
                r.tlp_retrans = retrans;
            }
        })
    }

    /// Sending under RACK: the first segment marked lost and not resent, else new data, while
    /// in flight leaves room in cwnd (a segment always goes when nothing is in flight).
    pub(crate) fn rack_next(&mut self, now: SimTime) -> Option<Segment> {
        let r = self.rack.as_deref()?;
        let inflight = r.in_flight();
        let lost = r.next_lost();
        let room = if inflight == 0 {
            u64::MAX
        } else {
            self.cwnd().saturating_sub(inflight)
        };
        if room == 0 {
            return None;
        }
        match lost {
            Some((a, b)) => self.emit_at(now, a, Win::Room(room), b),
            None => {
                let s = self.emit_at(now, self.snd_max, Win::Room(room), u64::MAX);
                if s.is_some() {
                    self.schedule_loss_probe(now, false);
                }
                s
            }
        }
    }
}
