//! Segment generation: `poll_transmit` returns at most one segment per call.
//!
//! Priority: the SYN or SYN-ACK when (re)due; a retransmission of the first unacknowledged
//! segment (fast retransmit or NewReno partial ACK; sent regardless of the window, RFC 5681
//! §3.2); the next segment at SND.NXT if all of it fits in min(cwnd, peer window) − (SND.NXT −
//! SND.UNA) (a first segment always fits, since cwnd ≥ 1 MSS); a lone FIN once all data is sent
//! (no window needed, as BSD); finally a pure ACK if one is owed. Every segment after the
//! handshake carries ACK = RCV.NXT, so data piggybacks pending ACKs and cancels the delayed-ACK
//! timer.
//!
//! Segment sizes: full MSS except the last bytes queued (Nagle off, seed 000 §3.4.3); the FIN
//! rides on the segment that carries the last byte. After a timeout the data is re-cut from
//! SND.UNA in full segments (BSD and ns-2 do the same). The retransmission timer is started
//! whenever something that occupies sequence space is sent and the timer is idle (RFC 6298
//! §5.1); one segment at a time is timed for RTT, new sequence space only (Karn).
//!
//! `cwnd_hint` = max(1, ⌊cwnd / MSS⌋) on segments with payload, 0 on others; `kind` =
//! Retransmit when the segment starts below SND.MAX (data, FIN) or is a repeated SYN/SYN-ACK.
//! ECN is not negotiated yet: `ect` is false.
//!
//! Validation: tests/established.rs (`established_*_segments_are_full_mss_*`, cwnd hints), tests/
//! recovery.rs, tests/rto.rs, tests/closing.rs (FIN piggybacking).

use crate::endpoint::{Endpoint, State};
use crate::segment::{Flags, Segment, TxKind};
use crate::timers::Timer;
use units::SimTime;

impl Endpoint {
    pub(crate) fn output(&mut self, now: SimTime) -> Option<Segment> {
        match self.state {
            State::Closed | State::Listen => None,
            State::SynSent | State::SynReceived => {
                if self.syn_pending {
                    Some(self.emit_syn(now))
                } else {
                    None
                }
            }
            _ => {
                if self.rtx_head {
                    self.rtx_head = false;
                    if let Some(s) = self.emit_at(now, self.snd_una, false) {
                        return Some(s);
                    }
                }
                if let Some(s) = self.emit_at(now, self.snd_nxt, true) {
                    return Some(s);
                }
                if self.ack_now {
                    let seq = self.snd_max;
                    return Some(self.finish(seq, 0, Flags::ACK, 0, TxKind::New));
                }
                None
            }
        }
    }

    fn emit_syn(&mut self, now: SimTime) -> Segment {
        self.syn_pending = false;
        self.syn_sent_at = now;
        let kind = if self.snd_max > 0 {
            self.stats.syn_retransmits += 1;
            TxKind::Retransmit
        } else {
            self.timing = Some((0, now));
            TxKind::New
        };
        self.snd_nxt = 1;
        self.snd_max = 1;
        // A repeated SYN-ACK answering a duplicate SYN restarts the timer too, so that the
        // timer does not fire right after it (an expiry already re-armed it at `now`).
        if kind == TxKind::Retransmit || !self.timers.is_armed(Timer::Rto) {
            self.restart_rto(now);
        }
        self.stats.segments_sent += 1;
        let (flags, ack) = if self.state == State::SynReceived {
            (Flags::SYN | Flags::ACK, self.rcv.rcv_nxt())
        } else {
            (Flags::SYN, 0)
        };
        Segment {
            seq: 0,
            ack,
            len: 0,
            flags,
            wnd: self.cfg.receive_window,
            ect: false,
            ce: false,
            cwnd_hint: 0,
            kind,
        }
    }

    /// The data/FIN segment starting at `seq`; with `windowed`, only if it fits the window.
    fn emit_at(&mut self, now: SimTime, seq: u64, windowed: bool) -> Option<Segment> {
        let (len, fin) = if seq < self.data_end {
            let len = self.eff_mss().min(self.data_end - seq);
            if windowed {
                let flight = seq - self.snd_una;
                let wnd = self.cwnd().min(self.peer_wnd);
                if flight > 0 && flight + len > wnd {
                    return None;
                }
            }
            (len, self.fin_queued && seq + len == self.data_end)
        } else if self.fin_queued && seq == self.data_end {
            (0, true)
        } else {
            return None;
        };
        let end = seq + len + fin as u64;
        let retransmit = seq < self.snd_max;
        if retransmit && len > 0 {
            self.stats.data_retransmits += 1;
        }
        if fin && self.snd_max > self.data_end {
            self.stats.fin_retransmits += 1;
        }
        if !retransmit && self.timing.is_none() {
            self.timing = Some((seq, now));
        }
        self.snd_nxt = self.snd_nxt.max(end);
        self.snd_max = self.snd_max.max(end);
        if !self.timers.is_armed(Timer::Rto) {
            self.restart_rto(now);
        }
        let hint = if len > 0 {
            (self.cwnd() / self.cfg.mss.max(1) as u64).clamp(1, u32::MAX as u64) as u32
        } else {
            0
        };
        let flags = if fin {
            Flags::ACK | Flags::FIN
        } else {
            Flags::ACK
        };
        let kind = if retransmit {
            TxKind::Retransmit
        } else {
            TxKind::New
        };
        Some(self.finish(seq, len as u32, flags, hint, kind))
    }

    /// Fill the ACK fields, settle the ACK debt, count the segment.
    fn finish(
        &mut self,
        seq: u64,
        len: u32,
        flags: Flags,
        cwnd_hint: u32,
        kind: TxKind,
    ) -> Segment {
        self.ack_now = false;
        self.unacked_rx = 0;
        self.timers.stop(Timer::DelayedAck);
        self.stats.segments_sent += 1;
        Segment {
            seq,
            ack: self.rcv.rcv_nxt(),
            len,
            flags,
            wnd: self.cfg.receive_window,
            ect: false,
            ce: false,
            cwnd_hint,
            kind,
        }
    }
}
