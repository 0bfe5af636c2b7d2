//! Explicit Congestion Notification for one endpoint, RFC 3168 §6.1 (Ramakrishnan, Floyd &
//! Black 2001).
//!
//! - Negotiation (§6.1.1): a client with `ecn` sends its SYN with ECE and CWR; a server with
//!   `ecn` that sees both answers with ECE (without CWR) on the SYN-ACK; the client agrees on a
//!   SYN-ACK with ECE and without CWR. Both ends must have `ecn`.
//! - Sender: new data segments are ECT; pure ACKs, SYNs, lone FINs and retransmissions never
//!   are (§6.1.5). An ACK with ECE whose cumulative ACK passes `ecn_recover` (SND.MAX at the
//!   last window reduction of any kind) and that arrives outside loss recovery reduces the
//!   window as for a loss without retransmitting: ssthresh = max(FlightSize/2, 2·MSS) (RFC 5681
//!   eq. 4, FlightSize after the ACK), cwnd = ssthresh — once per window of data (CUBIC: its
//!   β = 0.7 reduction, RFC 9438 §4.6). After every
//!   window reduction (ECE, fast retransmit, timeout) the next new data segment carries CWR
//!   (§6.1.2: "reduces its congestion window for any reason").
//! - Receiver (§6.1.3): a CE-marked arrival sets ECE on every segment sent from then on until
//!   a segment with CWR arrives (CWR is processed before CE, so a CE on the CWR segment itself
//!   starts a new echo).
//!
//! Differences: ns-2 and Linux halve cwnd itself (ns-2 `slowdown(CLOSE_CWND_HALF|…)`); we use
//! FlightSize as RFC 5681 does for a loss — the same when the sender is window-limited. With
//! `ssthresh = "ns2"` the response is ns-2's: cwnd = max(⌊W/2⌋, 1) segments, ssthresh =
//! max(⌊W/2⌋, 2) (congestion/mod.rs `Window::on_ece`). Not modelled: ns-2's RTO backoff on a
//! second ECN-Echo at cwnd 1 (`ecn_backoff_`). No
//! immediate ACK on CE with delayed ACKs (Linux's quick-ACK on CE changes is not in RFC 3168).
//! No ECN on SYN-ACK (ns-2 `ecn_syn_ false`), no ECN nonce, no AccECN.
//!
//! Scalable variants (`dctcp`, `prague`, which turn ECN on): the sender sets the variant's
//! codepoint (`TcpConfig::ect`), counts marked bytes on every ACK (RFC 8257 §3.3) and cuts by
//! α/2 (congestion/dctcp.rs); the receiver echoes CE exactly (RFC 8257 §3.2, below).
//!
//! Validation: tests/ecn.rs, tests/dctcp.rs.

use crate::endpoint::Endpoint;
use crate::segment::{Ecn, Flags, Segment, TxKind};
use units::SimTime;

impl Endpoint {
    /// Flags of our SYN (client) or SYN-ACK (server) that offer or accept ECN.
    pub(crate) fn ecn_syn_flags(&self, syn_ack: bool) -> Flags {
        match (syn_ack, self.cfg.wants_ecn(), self.ecn_ok) {
            (false, true, _) => Flags::ECE | Flags::CWR,
            (true, _, true) => Flags::ECE,
            _ => Flags(0),
        }
    }

    /// Server: the peer's SYN arrived. Client: the SYN-ACK arrived.
    pub(crate) fn ecn_negotiate(&mut self, seg: &Segment, syn_ack: bool) {
        let ece = seg.flags.contains(Flags::ECE);
        let cwr = seg.flags.contains(Flags::CWR);
        self.ecn_ok = self.cfg.wants_ecn() && ece && (cwr != syn_ack);
    }

    /// Receiver side, for every segment accepted in a synchronized state.
    pub(crate) fn ecn_on_arrival(&mut self, now: SimTime, seg: &Segment) {
        if !self.ecn_ok {
            return;
        }
        if self.cfg.variant.scalable() {
            // RFC 8257 §3.2: ECE = the CE of the latest data, CWR ignored. A change of state
            // with an ACK owed first acknowledges the data held, with the old state.
            let ce = seg.ecn == Ecn::Ce;
            if seg.len > 0 && ce != self.ece_echo {
                if self.unacked_rx > 0 {
                    let seq = self.snd_max;
                    self.ce_ack = Some(self.finish(now, seq, 0, Flags::ACK, 0, TxKind::New));
                }
                self.ece_echo = ce;
            }
            return;
        }
        if seg.flags.contains(Flags::CWR) {
            self.ece_echo = false;
        }
        if seg.ecn == Ecn::Ce {
            self.ece_echo = true;
        }
    }

    /// Sender side, every acceptable ACK of an ECN connection (after its ACK was processed):
    /// the scalable variants' mark counting over `acked` newly acknowledged bytes (RFC 8257
    /// §3.3), then the ECE response.
    pub(crate) fn ecn_on_ack(&mut self, now: SimTime, ack: u64, acked: u64, ece: bool) {
        if !self.ecn_ok {
            return;
        }
        if self.cfg.variant.scalable() {
            self.cc.on_ecn_feedback(ack, acked, ece, self.snd_nxt);
        }
        if ece {
            self.ecn_on_ece(now, ack);
        }
    }

    /// Sender side: an acceptable ACK with ECE arrived (after its ACK was processed).
    pub(crate) fn ecn_on_ece(&mut self, now: SimTime, ack: u64) {
        if !self.ecn_ok || ack <= self.ecn_recover || self.cc.in_recovery() {
            return;
        }
        let flight = self.flight_size();
        self.cc.set_clock(now, self.rtt.srtt());
        self.cc.on_ece(flight);
        self.stats.ecn_reductions += 1;
        self.window_reduced();
    }

    /// Any window reduction: no further ECE response in this window; CWR on the next new data;
    /// HyStart++ ends.
    pub(crate) fn window_reduced(&mut self) {
        self.ecn_recover = self.snd_max;
        // RFC 9406 §4.2: a loss or ECN-Echo ends HyStart++ as the variant responds.
        if let Some(h) = self.hspp.as_mut() {
            h.on_congestion(self.cc.window_mut());
        }
        if self.ecn_ok {
            self.cwr_pending = true;
        }
    }
}
