//! Input handling: segments from the peer (RFC 793 §3.9 "SEGMENT ARRIVES", simplified to what
//! a simulator needs) and expiry of the retransmission timer (RFC 6298 §5).
//!
//! Order per segment, as RFC 793: state-specific handshake checks, then the ACK field (new ACK →
//! RTT sample, congestion control, timer, FIN-acknowledged transitions; duplicate ACK per the
//! RFC 5681 §2 definition → fast retransmit), then payload and FIN (reassembly, ACK policy,
//! PeerClosed transitions).
//!
//! Timeout: one expiry = back off (RTO doubles, capped), count it, give up after
//! `max_syn_retries` (handshake) or `max_retries` (otherwise) consecutive expiries; otherwise
//! retransmit the SYN/SYN-ACK, or go back N: SND.NXT = SND.UNA, congestion control's `on_rto`
//! (ssthresh on the first expiry only, cwnd = 1 MSS, NewReno `recover` = SND.MAX), the SACK
//! scoreboard cleared (RFC 6675 §5.1, ns-2 `clear_on_timeout_`). BSD and ns-2 go back N the
//! same way; both also restart RTT timing (Karn) as we do. With `sack_on_timeout = "keep"`
//! (Linux) and SACK agreed the scoreboard stays, everything unSACKed below SND.MAX counts as
//! lost (`Scoreboard::lost_below`) and, until SND.UNA passes that SND.MAX (Linux's Loss state),
//! output.rs sends by NextSeg and pipe: the holes once each, in order, then new data.
//!
//! Duplicate ACKs: with SACK agreed a duplicate must also SACK new data (RFC 6675 §2), and SACK
//! recovery also starts before the threshold when IsLost(SND.UNA) (RFC 6675 §5 step 2). At a
//! fast retransmit Tahoe goes back N (SND.NXT = SND.UNA); the others resend SND.UNA's segment.
//! FlightSize given to the algorithm excludes Limited Transmit data (RFC 5681 §3.2 step 2).
//! Limited Transmit counts duplicates only outside recovery and once SND.UNA has passed the
//! SND.MAX of the last fast retransmit or timeout. An ACK with ECE goes to ecn.rs after the
//! ACK itself was processed; CE/CWR on arriving segments before the payload. With timestamps
//! agreed (timestamps.rs) TS.Recent is updated before the ACK field is processed, and the RTT
//! sample of a new ACK comes from its TSecr instead of the timed segment.
//!
//! Differences from BSD/ns-2: no RST generation or processing; no simultaneous open; a
//! segment without ACK in a synchronized state is dropped (RFC 793); an ACK for data never sent
//! is answered with an ACK and the segment dropped (RFC 793); a duplicate SYN in SYN-RECEIVED
//! makes us resend the SYN-ACK at once (Linux does; BSD answers with an ACK), unless one was
//! sent at the same instant.
//!
//! Validation: tests/listen.rs, tests/syn_sent.rs, tests/established.rs, tests/recovery.rs,
//! tests/rto.rs, tests/closing.rs, tests/fall_floyd.rs, tests/sack.rs, tests/ecn.rs,
//! tests/limited_transmit.rs, tests/soak.rs.

use crate::config::{SackOnTimeout, Variant};
use crate::congestion::hystart_plus_plus::HyStartPlusPlus;
use crate::congestion::AckInfo;
use crate::endpoint::{Endpoint, State, EV_CLOSED, EV_CONNECTED, EV_DATA, EV_PEER_CLOSED};
use crate::segment::{Flags, Segment};
use crate::timers::Timer;
use units::SimTime;

/// A SYN whose sequence number is at or above this is ignored: aqmlab's endpoints start at 0
/// and sequence numbers never wrap (segment.rs), so only a corrupt peer sends one, and its
/// sequence space would end within reach of u64 overflow (found by tests/fuzz_endpoint.rs).
pub(crate) const MAX_PEER_ISS: u64 = 1 << 62;

impl Endpoint {
    pub(crate) fn input_segment(&mut self, now: SimTime, seg: &Segment) {
        let syn = seg.flags.contains(Flags::SYN);
        let has_ack = seg.flags.contains(Flags::ACK);
        match self.state {
            State::Closed => return,
            State::Listen => {
                if syn && !has_ack && seg.seq < MAX_PEER_ISS {
                    self.rcv.on_syn(seg.seq);
                    self.peer_wnd = seg.wnd as u64;
                    self.state = State::SynReceived;
                    self.syn_pending = true;
                    self.options_negotiated(seg, false);
                }
                return;
            }
            State::SynSent => {
                if syn
                    && has_ack
                    && seg.ack == self.snd_max
                    && self.snd_max == 1
                    && seg.seq < MAX_PEER_ISS
                {
                    self.rcv.on_syn(seg.seq);
                    self.peer_wnd = seg.wnd as u64;
                    self.options_negotiated(seg, true);
                    self.handshake_acked(now, seg);
                    self.ack_now = true;
                    // ns-2 Full-TCP: "special to ns: generate pure ACK here" (config.rs (a));
                    // Linux sends it at once too, before connect() returns to the writer.
                    self.pure_ack_first = self.cfg.ns2_fulltcp || self.cfg.quickack_mode;
                }
                return;
            }
            State::SynReceived => {
                if syn && !has_ack {
                    self.ts_on_arrival(seg);
                    // The client retransmitted its SYN: our SYN-ACK was lost or is late. Answer
                    // at once, unless a SYN-ACK already left at this instant (our own timer
                    // fires at the same time whenever both sides use the same initial RTO).
                    if now > self.syn_sent_at {
                        self.syn_pending = true;
                        self.handshake_rtx = true;
                        self.timing = None;
                    }
                    return;
                }
                if !has_ack || seg.ack != 1 || self.snd_max != 1 {
                    return;
                }
                self.peer_wnd = seg.wnd as u64;
                self.ts_on_arrival(seg);
                self.handshake_acked(now, seg);
            }
            _ => {
                if syn {
                    // A retransmitted SYN-ACK: our handshake ACK was lost. ACK again.
                    self.ack_now = true;
                    return;
                }
            }
        }
        if self.state != State::SynReceived {
            self.ts_on_arrival(seg);
        }
        if !has_ack || !self.process_ack(now, seg) {
            return;
        }
        self.ecn_on_arrival(now, seg);
        self.process_data(now, seg);
        self.ns2_passive_close();
    }

    /// `ns2_fulltcp` (c): Full-TCP with `halfclose_` false closes by itself in CLOSE-WAIT once
    /// everything it sent is acknowledged (`usrclosed()` at the end of `recv`); an ACK owed
    /// (the peer's FIN) leaves first, alone. Not while unsent data remains.
    fn ns2_passive_close(&mut self) {
        if self.cfg.ns2_fulltcp
            && self.state == State::CloseWait
            && self.snd_una == self.snd_max
            && self.snd_max >= self.data_end
        {
            self.state = State::LastAck;
            self.fin_queued = true;
            self.pure_ack_first = self.ack_now;
        }
    }

    /// SACK-permitted and ECN on the peer's SYN (server) or SYN-ACK (client): each is used only
    /// if both ends want it. A `Sack` endpoint whose peer refused recovers as NewReno.
    fn options_negotiated(&mut self, seg: &Segment, syn_ack: bool) {
        self.sack_ok = seg.sack_ok && self.cfg.variant.uses_sack();
        self.rack = (self.sack_ok && self.cfg.rack_tlp).then(Box::default);
        if !self.sack_ok {
            self.cc.sack_refused(&self.cfg);
        }
        self.ecn_negotiate(seg, syn_ack);
        self.ts_negotiate(seg);
    }

    /// Our SYN (client) or SYN-ACK (server) was acknowledged: ESTABLISHED (or FIN-WAIT-1 if
    /// the application already closed).
    fn handshake_acked(&mut self, now: SimTime, seg: &Segment) {
        self.snd_una = 1;
        self.snd_nxt = self.snd_nxt.max(1);
        if !self.ts_sample(now, seg) {
            if let Some((_, sent)) = self.timing.take() {
                self.rtt.sample(sent, now, self.snd_una, self.snd_max);
            }
        }
        // RFC 6298 §5.7: after the timer expired on our SYN/SYN-ACK, data transmission starts
        // from max(initial RTO, 3 s); Karn kept us from sampling it, so the backoff must go.
        if self.retries > 0 {
            self.rtt.syn_timed_out();
        }
        self.rtt.reset_backoff();
        self.retries = 0;
        self.timers.stop(Timer::Rto);
        self.start_data_phase(now);
        if self.close_pending {
            self.state = State::FinWait1;
            self.fin_queued = true;
        } else {
            self.state = State::Established;
        }
    }

    /// The windows of the data phase (the handshake's end, or the one-way open): cwnd = IW,
    /// ssthresh = `initial_ssthresh` segments or the peer's window; then `Connected`.
    pub(crate) fn start_data_phase(&mut self, now: SimTime) {
        let mss = self.cfg.mss.max(1) as u64;
        // RFC 5681 §3.1: IW = 1 segment if the SYN or SYN-ACK was retransmitted.
        let iw = if self.handshake_rtx {
            mss
        } else {
            self.cfg.initial_window.max(1) as u64 * mss
        };
        self.cc.on_connected(
            iw,
            self.peer_wnd,
            self.cfg.ssthresh_rule,
            self.cfg.slow_start,
        );
        if let Some(s) = self.cfg.initial_ssthresh {
            self.cc.window_mut().ssthresh = s.max(1) as u64 * mss;
        }
        if self.cfg.hystart_plus_plus {
            let paced = self.paced();
            self.hspp = Some(HyStartPlusPlus::start(
                self.snd_nxt,
                paced,
                self.cc.window_mut(),
            ));
        }
        let seed = self.seed;
        if let Some(b) = self.cc.bbr_mut() {
            b.seed(seed);
            b.start(now, self.rtt.srtt());
            self.update_pacing_rate();
        }
        self.events |= EV_CONNECTED;
    }

    /// The ACK field in a synchronized state. False: drop the rest of the segment.
    fn process_ack(&mut self, now: SimTime, seg: &Segment) -> bool {
        let ack = seg.ack;
        if ack > self.snd_max {
            self.ack_now = true;
            return false;
        }
        let prior_inflight = if self.rate.is_some() {
            self.bbr_inflight()
        } else {
            0
        };
        // RFC 6675 Update(): the scoreboard first, against the new SND.UNA.
        let new_sack = self.sack_ok
            && self.sb.update(
                ack.max(self.snd_una),
                self.snd_max.min(self.data_end),
                seg.sack.as_slice(),
            );
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_ack(
                now,
                ack.max(self.snd_una),
                seg.sack.as_slice(),
                self.data_end,
            );
        }
        let una_before = self.snd_una;
        let mut newly_acked = 0;
        // Delivery-rate sample (BBR, HyStart): what this ACK newly delivers (rate.rs).
        let una = ack.max(self.snd_una);
        let rs = self
            .rate
            .as_deref_mut()
            .map(|r| r.on_ack(now, una, seg.sack.as_slice()));
        if ack > self.snd_una {
            let acked = self.data_bytes(self.snd_una, ack);
            newly_acked = acked;
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.retries = 0;
            self.peer_wnd = seg.wnd as u64;
            self.lt_dupacks = 0;
            self.lt_bytes = 0;
            if !self.ts_sample(now, seg) {
                if let Some((timed, sent)) = self.timing {
                    if ack > timed {
                        self.rtt.sample(sent, now, self.snd_una, self.snd_max);
                        self.timing = None;
                    }
                }
            }
            if self.cfg.backoff_reset == crate::config::BackoffReset::NewAck {
                self.rtt.reset_backoff();
            }
            let info = AckInfo {
                ack,
                acked,
                flight: self.flight_size(),
                snd_max: self.snd_max,
            };
            if let Some(rs) = &rs {
                self.hystart_ack(now, rs.rtt);
            }
            self.hystart_pp_ack(rs.as_ref().and_then(|r| r.rtt));
            self.cc.set_clock(now, self.rtt.srtt());
            let v = self.cc.on_new_ack(&info);
            if v.retransmit_head && self.snd_una < self.snd_max {
                self.rtx_head = true;
                self.timing = None;
            }
            if self.snd_una == self.snd_max {
                self.timers.stop(Timer::Rto);
            } else if v.restart_timer {
                self.restart_rto(now);
            }
            if self.fin_queued && self.snd_una > self.data_end {
                self.our_fin_acked();
            }
            self.finish_one_way();
        } else if ack == self.snd_una
            && seg.len == 0
            && !seg.flags.contains(Flags::FIN)
            && self.snd_max > self.snd_una
            && seg.wnd as u64 == self.peer_wnd
            && (!self.sack_ok || new_sack)
        {
            // RFC 5681 §2 duplicate ACK (SYN excluded by the caller); with SACK, RFC 6675 §2
            // also asks that it SACK new data.
            self.on_duplicate_ack(now, ack);
        }
        if self.rack.is_some() {
            let pure_dup =
                seg.len == 0 && ack == una_before && !new_sack && seg.wnd as u64 == self.peer_wnd;
            self.rack_after_ack(now, ack, self.snd_una > una_before, pure_dup);
        }
        self.ecn_on_ack(now, ack, newly_acked, seg.flags.contains(Flags::ECE));
        if seg.flags.contains(Flags::ECE) {
            self.ecn_on_ece(now, ack);
        }
        if let Some(rs) = rs {
            self.bbr_on_ack(now, &rs, prior_inflight);
        }
        if self.paced() {
            self.update_pacing_rate();
        }
        true
    }

    fn on_duplicate_ack(&mut self, now: SimTime, ack: u64) {
        if self.rack.is_some() {
            // RACK's marks start recovery instead (rack_tlp.rs).
            return;
        }
        let lt_eligible = !self.cc.in_recovery() && self.snd_una >= self.loss_recover;
        let info = AckInfo {
            ack,
            acked: 0,
            // RFC 5681 §3.2 step 2: data sent by Limited Transmit is not part of FlightSize.
            flight: self.flight_size().saturating_sub(self.lt_bytes),
            snd_max: self.snd_max,
        };
        let cwnd_before = self.cwnd();
        self.cc.set_clock(now, self.rtt.srtt());
        let mut enter = self.cc.on_dupack(&info);
        // RFC 6675 §5 step 2: enough SACKed above HighACK + 1 before DupThresh dupACKs.
        if !enter
            && self.cc.sack_may_enter(ack)
            && self.sb.is_lost(
                self.snd_una,
                self.cfg.mss.max(1) as u64,
                self.cfg.dupack_threshold,
            )
        {
            self.cc.sack_enter(&info);
            enter = true;
        }
        if enter {
            self.entered_recovery(cwnd_before);
            if self.cfg.variant == Variant::Tahoe {
                // No fast recovery: go back to SND.UNA in slow start (congestion/tahoe.rs).
                self.snd_nxt = self.snd_una;
            } else {
                self.rtx_head = true;
                self.sb.high_rxt = self.snd_una;
            }
            self.restart_rto(now);
        } else if lt_eligible && self.cfg.limited_transmit {
            self.lt_dupacks = (self.lt_dupacks + 1).min(2);
        }
    }

    fn our_fin_acked(&mut self) {
        match self.state {
            State::FinWait1 => self.state = State::FinWait2,
            State::Closing => {
                self.state = State::TimeWait;
                self.events |= EV_CLOSED;
            }
            State::LastAck => {
                self.state = State::Closed;
                self.events |= EV_CLOSED;
                self.timers.stop_all();
            }
            _ => {}
        }
    }

    /// Payload and FIN; decides when to acknowledge (RFC 5681 §4.2, RFC 1122 §4.2.3.2). With
    /// delayed ACKs, "every second full-sized segment" is counted in bytes: an ACK goes out once
    /// 2·MSS payload bytes are unacknowledged (both ends share `mss` in aqmlab).
    fn process_data(&mut self, now: SimTime, seg: &Segment) {
        let fin = seg.flags.contains(Flags::FIN);
        if seg.len == 0 && !fin {
            return;
        }
        // RFC 793 acceptability, as far as a conforming peer can miss it: payload beyond the
        // window we always advertise (`receive_window` past RCV.NXT) is never sent by one, so
        // such a segment is dropped and answered with an ACK (found by tests/fuzz_endpoint.rs:
        // a sequence number near 2^64 overflowed the reassembly arithmetic).
        let window_end = self
            .rcv
            .rcv_nxt()
            .saturating_add(self.cfg.receive_window as u64);
        if seg.seq.saturating_add(seg.len as u64) > window_end {
            self.ack_now = true;
            return;
        }
        let a = self.rcv.on_segment(seg.seq, seg.len, fin);
        if a.new_bytes > 0 {
            self.events |= EV_DATA;
        }
        let immediate = a.out_of_order || a.filled_hole || a.duplicate || a.fin;
        if self.cfg.ns2_fulltcp {
            // Full-TCP need_send() and its periodic delayed-ACK tick (config.rs (d)).
            let (segs, tick) = match self.cfg.delayed_ack {
                None => (1, units::SimDuration::from_millis(100)),
                Some(d) => (2, d),
            };
            if immediate {
                self.ack_now = true;
            } else if a.new_bytes > 0 {
                self.unacked_rx += a.new_bytes;
                if self.unacked_rx >= segs * self.cfg.mss as u64 {
                    self.ack_now = true;
                } else if !self.timers.is_armed(Timer::DelayedAck) {
                    let t = tick.0.max(1);
                    let next = (now.as_nanos() / t + 1) * t;
                    self.timers.set(Timer::DelayedAck, SimTime(next));
                }
            }
        } else {
            let quick = self.cfg.quickack_mode && self.quick_ack(now, &a, seg.len);
            self.default_ack_policy(now, immediate || quick, a.new_bytes);
            // The ACK leaves at the arrival, ahead of what the application writes in reply
            // (already-queued data would carry it instead, as Linux's tcp_data_snd_check).
            let unsent =
                self.snd_nxt < self.data_end || (self.fin_queued && self.snd_max <= self.data_end);
            if quick && !unsent {
                self.pure_ack_first = true;
            }
        }
        if a.fin {
            self.events |= EV_PEER_CLOSED;
            match self.state {
                State::Established => self.state = State::CloseWait,
                State::FinWait1 => self.state = State::Closing,
                State::FinWait2 => {
                    self.state = State::TimeWait;
                    self.events |= EV_CLOSED;
                }
                _ => {}
            }
        }
    }

    /// The RFC 1122 policy (`delayed_ack`): every second full segment, or after the delay.
    /// `quickack_mode` (quickack.rs): account one arrival; true if its in-order data is to be
    /// ACKed at once in quick-ACK mode (not a segment carrying the FIN: Linux's `tcp_fin`
    /// enters ping-pong mode, the ACK waits for the application's reply or close).
    fn quick_ack(&mut self, now: SimTime, a: &crate::recv::Arrival, len: u32) -> bool {
        let budget = crate::quickack::QuickAck::budget(self.cfg.receive_window, self.cfg.mss);
        if len > 0 || a.fin {
            self.qa.schedule();
        }
        if a.duplicate && len > 0 {
            self.qa.on_duplicate(budget);
            return false;
        }
        if a.new_bytes == 0 {
            return false;
        }
        let quick = self.qa.on_data(now, self.rtt.rto(), budget);
        quick && !a.fin
    }

    fn default_ack_policy(&mut self, now: SimTime, immediate: bool, new_bytes: u64) {
        match self.cfg.delayed_ack {
            Some(delay) if !immediate => {
                if new_bytes > 0 {
                    self.unacked_rx += new_bytes;
                    if self.unacked_rx >= 2 * self.cfg.mss as u64 {
                        self.ack_now = true;
                    } else if !self.timers.is_armed(Timer::DelayedAck) {
                        self.timers.set(Timer::DelayedAck, now + delay);
                    }
                }
            }
            _ => self.ack_now = true,
        }
    }

    /// The retransmission timer expired (RFC 6298 §5.4–5.6).
    pub(crate) fn fire_rto(&mut self, now: SimTime) {
        if self.snd_una == self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        let handshake = matches!(self.state, State::SynSent | State::SynReceived);
        let limit = if handshake {
            self.cfg.max_syn_retries
        } else {
            self.cfg.max_retries
        };
        if self.retries >= limit {
            self.abort();
            return;
        }
        let first_expiry = self.retries == 0;
        self.retries += 1;
        self.rtt.back_off();
        self.timing = None;
        self.rtx_head = false;
        if handshake {
            self.syn_pending = true;
            self.handshake_rtx = true;
        } else {
            let info = AckInfo {
                ack: self.snd_una,
                acked: 0,
                flight: self.flight_size(),
                snd_max: self.snd_max,
            };
            self.stats.loss_event(self.cwnd());
            self.cc.set_clock(now, self.rtt.srtt());
            self.cc.on_rto(&info, first_expiry);
            if self.sack_ok && self.cfg.sack_on_timeout == SackOnTimeout::Keep {
                // Linux tcp_timeout_mark_lost: the SACKed marks stay, everything else sent is
                // lost and nothing retransmitted is in flight; only the holes go again.
                self.sb.high_rxt = self.snd_una;
                self.sb.lost_below = self.snd_max;
                self.loss_until = self.snd_max;
            } else {
                // RFC 6675 §5.1 / RFC 2018 §8: forget the SACK information (the receiver may
                // have reneged); go back N from SND.UNA.
                self.snd_nxt = self.snd_una;
                self.sb.clear();
            }
            let keep = self.cfg.sack_on_timeout == SackOnTimeout::Keep;
            if let Some(r) = self.rack.as_deref_mut() {
                r.on_timeout(now, keep);
            }
            self.tlp_pending = false;
            self.timers.stop(Timer::LossProbe);
            self.timers.stop(Timer::Reorder);
            self.lt_dupacks = 0;
            self.lt_bytes = 0;
            self.loss_recover = self.snd_max;
            self.window_reduced();
        }
        self.restart_rto(now);
    }

    /// Bookkeeping of a fast-recovery entry, by dupACKs, SACK (RFC 6675) or RACK (RFC 8985):
    /// the loss event with the window it reduced (`cwnd_before`), no RTT timing across it,
    /// limited transmit over, the recovery point at SND.MAX, CWR for ECN.
    pub(crate) fn entered_recovery(&mut self, cwnd_before: u64) {
        self.stats.fast_retransmits += 1;
        self.stats.loss_event(cwnd_before);
        self.timing = None;
        self.lt_dupacks = 0;
        self.lt_bytes = 0;
        self.loss_recover = self.snd_max;
        self.window_reduced();
    }
}
