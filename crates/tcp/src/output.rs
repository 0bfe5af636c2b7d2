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
//!
//! Options and variants: the SYN offers SACK (`sack_ok`) for `Variant::Sack` and ECN (ECE+CWR)
//! with `ecn`; the SYN-ACK accepts what both ends want (ecn.rs). With ECN agreed, new data is
//! ECT, the first new data segment after a window reduction carries CWR, and every segment
//! carries ECE while the receiver echoes. With SACK agreed, every segment carries up to 3 SACK
//! blocks (recv.rs order); with timestamps agreed every segment carries TSval = now and TSecr
//! = TS.Recent, and RTT is not timed per segment (timestamps.rs); and during SACK loss recovery sending follows RFC 6675 §5 (C):
//! `sack_next` sends NextSeg while cwnd − pipe ≥ 1 MSS (a retransmission stops at the next
//! SACKed range); so does the Loss state after a timeout that kept the scoreboard
//! (`sack_on_timeout = "keep"`, input.rs). Limited Transmit (RFC 3042): outside recovery, on the first two duplicate
//! ACKs a new segment may go out if the outstanding data stays ≤ cwnd + (dupACKs)·MSS.
//!
//! Pacing (pacing.rs, when on): a data segment (new or retransmitted) leaves only at or after
//! the pacer's release time; before it, only an owed pure ACK goes and the `Pacing` timer is
//! armed at the release time.
//!
//! Validation: tests/established.rs (`established_*_segments_are_full_mss_*`, cwnd hints), tests/
//! recovery.rs, tests/rto.rs, tests/closing.rs (FIN piggybacking), tests/ecn.rs, tests/sack.rs,
//! tests/fall_floyd.rs, tests/limited_transmit.rs; the harness checks the ECT rule on every
//! segment of every run.

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
                if let Some(s) = self.ce_ack.take() {
                    return Some(s);
                }
                if self.pure_ack_first {
                    // ns2_fulltcp (a), (c), quickack_mode: the ACK goes alone, before data or FIN.
                    self.pure_ack_first = false;
                    let seq = self.snd_max;
                    return Some(self.finish(now, seq, 0, Flags::ACK, 0, TxKind::New));
                }
                if self.paced() && !self.pacer.may_send(now) {
                    // Paced (pacing.rs): data waits for the release time; an owed ACK does not.
                    self.timers.set(Timer::Pacing, self.pacer.release);
                    return self.ack_now.then(|| {
                        let seq = self.snd_max;
                        self.finish(now, seq, 0, Flags::ACK, 0, TxKind::New)
                    });
                }
                if self.rtx_head {
                    self.rtx_head = false;
                    let limit = self.hole_end(self.snd_una);
                    if let Some(s) = self.emit_at(now, self.snd_una, Win::None, limit) {
                        return Some(s);
                    }
                }
                if std::mem::take(&mut self.tlp_pending) {
                    if let Some(s) = self.emit_probe(now) {
                        return Some(s);
                    }
                }
                let s = if self.rack.is_some() {
                    self.rack_next(now)
                } else if self.sack_ok && (self.cc.in_recovery() || self.in_loss_state()) {
                    self.sack_next(now)
                } else {
                    self.emit_at(now, self.snd_nxt, Win::Cwnd, u64::MAX)
                };
                if s.is_some() {
                    return s;
                }
                self.check_app_limited();
                if self.ack_now {
                    let seq = self.snd_max;
                    return Some(self.finish(now, seq, 0, Flags::ACK, 0, TxKind::New));
                }
                None
            }
        }
    }

    /// Nothing more to send: mark the rate sampler application-limited if the window is not
    /// the limit (rate.rs; Linux `tcp_rate_check_app_limited`).
    fn check_app_limited(&mut self) {
        if self.rate.is_none() || self.snd_nxt < self.data_end || self.cc.in_recovery() {
            return;
        }
        let inflight = self.bbr_inflight();
        if inflight < self.cwnd() {
            if let Some(r) = self.rate.as_deref_mut() {
                r.mark_app_limited(inflight);
            }
        }
    }

    /// End of the unSACKed stretch starting at `seq` (the next SACKed range), or no limit.
    fn hole_end(&self, seq: u64) -> u64 {
        if !self.sack_ok {
            return u64::MAX;
        }
        self.sb.next_sacked_start(seq).unwrap_or(u64::MAX)
    }

    /// RFC 6675 §5 (C) during SACK loss recovery: if cwnd − pipe ≥ 1 MSS, send NextSeg: a lost
    /// hole (rule 1), else new data within the peer's window (rule 2), else an unSACKed hole
    /// below the highest SACK (rule 3). Each retransmission raises HighRxt.
    fn sack_next(&mut self, now: SimTime) -> Option<Segment> {
        let mss = self.eff_mss();
        if self.pipe() + mss > self.cwnd() {
            return None;
        }
        let dt = self.cfg.dupack_threshold;
        let mut hole = self.sb.next_hole(self.snd_una, mss, dt, true);
        if hole.is_none() {
            if let Some(s) = self.emit_at(now, self.snd_max, Win::Peer, u64::MAX) {
                return Some(s);
            }
            hole = self.sb.next_hole(self.snd_una, mss, dt, false);
        }
        let (seq, end) = hole?;
        self.emit_at(now, seq, Win::None, end)
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
        let syn_ack = self.state == State::SynReceived;
        if syn_ack {
            self.last_ack_sent = ack;
        }
        Segment {
            seq: 0,
            ack,
            len: 0,
            flags: flags | self.ecn_syn_flags(syn_ack),
            wnd: self.cfg.receive_window,
            cwnd_hint: 0,
            kind,
            sack_ok: if syn_ack {
                self.sack_ok
            } else {
                self.cfg.variant.uses_sack()
            },
            ts: self.ts_syn_option(now, syn_ack),
            ..Segment::default()
        }
    }

    /// The data/FIN segment starting at `seq`, its payload ending at `limit` at most, if it
    /// fits the window `win`.
    pub(crate) fn emit_at(
        &mut self,
        now: SimTime,
        seq: u64,
        win: Win,
        limit: u64,
    ) -> Option<Segment> {
        let (len, fin) = if seq < self.data_end {
            if self.ns2_holds_last_byte(seq) {
                return None;
            }
            let len = self
                .eff_mss()
                .min(self.data_end - seq)
                .min(limit.saturating_sub(seq).max(1));
            let flight = seq - self.snd_una;
            match win {
                Win::None => {}
                Win::Peer => {
                    if flight > 0 && flight + len > self.peer_wnd {
                        return None;
                    }
                }
                Win::Room(room) => {
                    if len > room || (flight > 0 && flight + len > self.peer_wnd) {
                        return None;
                    }
                }
                Win::Cwnd => {
                    let wnd = self.cwnd().min(self.peer_wnd);
                    if flight > 0 && flight + len > wnd {
                        // RFC 3042: new data on the first two duplicate ACKs, up to cwnd + 2·MSS.
                        let lt = self.lt_dupacks as u64 * self.eff_mss();
                        let lt_wnd = (self.cwnd() + lt).min(self.peer_wnd);
                        if lt == 0 || seq < self.snd_max || flight + len > lt_wnd {
                            return None;
                        }
                        self.lt_bytes += len;
                    }
                }
            }
            (
                len,
                self.fin_queued && seq + len == self.data_end && self.fin_may_go(),
            )
        } else if self.fin_queued && seq == self.data_end && self.fin_may_go() {
            (0, true)
        } else {
            return None;
        };
        let end = seq + len + fin as u64;
        let retransmit = seq < self.snd_max;
        if len > 0 {
            let in_flight = self.data_bytes(self.snd_una, self.snd_max);
            if let Some(r) = self.rate.as_deref_mut() {
                r.on_send(now, seq, len, in_flight, retransmit);
            }
        }
        if retransmit && len > 0 {
            self.stats.data_retransmits += 1;
        }
        if fin && self.snd_max > self.data_end {
            self.stats.fin_retransmits += 1;
        }
        if !retransmit && self.timing.is_none() && !self.ts_ok {
            self.timing = Some((seq, now));
        }
        self.snd_nxt = self.snd_nxt.max(end);
        self.snd_max = self.snd_max.max(end);
        if retransmit && self.sack_ok {
            self.sb.high_rxt = self.sb.high_rxt.max(end);
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_send(seq, end, now, retransmit);
        }
        if !self.timers.is_armed(Timer::Rto) {
            self.restart_rto(now);
        }
        let hint = if len > 0 {
            (self.cwnd() / self.cfg.mss.max(1) as u64).clamp(1, u32::MAX as u64) as u32
        } else {
            0
        };
        let mut flags = if fin {
            Flags::ACK | Flags::FIN
        } else {
            Flags::ACK
        };
        let kind = if retransmit {
            TxKind::Retransmit
        } else {
            TxKind::New
        };
        // RFC 3168 §6.1.2, §6.1.5: ECT and CWR only on new data.
        let new_data = len > 0 && !retransmit;
        if new_data && self.cwr_pending {
            self.cwr_pending = false;
            flags = flags | Flags::CWR;
        }
        if len > 0 && self.paced() {
            self.pacer.sent(now, len);
        }
        if len > 0 && self.cfg.quickack_mode {
            let ato = self.cfg.delayed_ack.unwrap_or(crate::quickack::ATO_MIN);
            self.qa.on_data_sent(now, ato);
        }
        let mut s = self.finish(now, seq, len as u32, flags, hint, kind);
        if new_data && self.ecn_ok {
            s.ecn = self.cfg.ect();
        }
        Some(s)
    }

    /// `ns2_fulltcp` rule (e): the queued data's last byte, when it would go alone in a segment
    /// starting at `seq`, waits until everything before it is acknowledged (Full-TCP's
    /// `send_much` loops while `t_seqno_ < curseq_`, and `curseq_` is that byte's own
    /// sequence number, so only the "quiet" path of `foutput` sends it, with the FIN).
    fn ns2_holds_last_byte(&self, seq: u64) -> bool {
        self.cfg.ns2_fulltcp && seq + 1 == self.data_end && self.snd_una < seq
    }

    /// Whether a FIN may be sent now: always, except with `ns2_fulltcp` before the first FIN
    /// while sequence space is unacknowledged (Full-TCP `close_on_empty_ && quiet`).
    fn fin_may_go(&self) -> bool {
        !self.cfg.ns2_fulltcp || self.snd_una == self.snd_max || self.snd_max > self.data_end
    }

    /// Fill the ACK fields, settle the ACK debt, count the segment.
    pub(crate) fn finish(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        flags: Flags,
        cwnd_hint: u32,
        kind: TxKind,
    ) -> Segment {
        self.ack_now = false;
        self.unacked_rx = 0;
        self.timers.stop(Timer::DelayedAck);
        self.qa.on_ack_sent();
        self.stats.segments_sent += 1;
        self.last_ack_sent = self.rcv.rcv_nxt();
        let flags = if self.ece_echo {
            flags | Flags::ECE
        } else {
            flags
        };
        Segment {
            seq,
            ack: self.rcv.rcv_nxt(),
            len,
            flags,
            wnd: self.cfg.receive_window,
            cwnd_hint,
            kind,
            sack: if self.sack_ok {
                self.rcv.sack_blocks()
            } else {
                Default::default()
            },
            ts: self.ts_option(now),
            ..Segment::default()
        }
    }
}

/// Which window a data segment must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Win {
    /// min(cwnd, peer window) counted from SND.UNA (plus Limited Transmit's allowance).
    Cwnd,
    /// The peer's window only (SACK recovery: cwnd is checked against pipe instead).
    Peer,
    /// None (retransmission of the head: RFC 5681 §3.2 sends it regardless).
    None,
    /// At most this many bytes (cwnd − RACK's in flight), and the peer's window for new data.
    Room(u64),
}
