//! The TCP timestamps option for one endpoint, RFC 7323 §3–4 (Borman, Braden, Jacobson &
//! Scheffenegger 2014), used for RTT measurement (RTTM).
//!
//! - Negotiation (§3.2): an endpoint with `timestamps` puts the option on its SYN; a server
//!   with `timestamps` that sees it answers with the option on the SYN-ACK; the option is then
//!   sent on every segment of the connection. Both ends must have `timestamps`.
//! - TSval is the sender's clock at transmission: simulated time in ns (segment.rs
//!   `Timestamps`). TSecr is TS.Recent.
//! - TS.Recent (§4.3): the peer's TSval from its SYN / SYN-ACK, then from every arriving
//!   segment with SEG.TSval ≥ TS.Recent and SEG.SEQ ≤ Last.ACK.sent (the ACK field of the last
//!   segment we sent). So a delayed ACK echoes the earlier of the two segments it covers, an
//!   ACK provoked by out-of-order data echoes the last segment that advanced the window, and the
//!   ACK of a segment that fills a hole echoes that segment (a retransmission's own TSval).
//! - RTTM (§4.1): every ACK that advances SND.UNA and carries the option gives one sample,
//!   now − TSecr, counted in whole ticks of `clock_granularity` as the timed-segment samples
//!   are (rtt.rs `tick_sample`). Retransmitted data is sampled too: the echo identifies the
//!   transmission that was acknowledged, so Karn's rule is not needed, and a valid sample ends
//!   the timer backoff (RFC 6298 §5.7's floor only applies while no sample exists). The SYN's
//!   RTT comes from the SYN-ACK's echo, the SYN-ACK's from the handshake ACK. While
//!   timestamps are in use the one-segment timer of output.rs is not used.
//! - Estimator: RFC 6298's α = 1/8, β = 1/4 applied to every sample (per ACK), as FreeBSD and
//!   Linux do. RFC 7323 Appendix G suggests scaling the gains by the samples expected per
//!   window (α' = α / ⌈FlightSize / (2·SMSS)⌉) so that SRTT keeps a memory of about 8 RTTs;
//!   that is not done here: with per-ACK samples SRTT follows about 8 ACKs.
//!
//! Not modelled: PAWS (§5; sequence numbers never wrap here), the 24-day idle rule, timestamps
//! on RST (there are none). ns-2 Full-TCP's `timestamps_` option samples per ACK the same way
//! and counts the option as 10 bytes.
//!
//! Read RFC 7323 §3.2, §4.1 and §4.3 before editing. Validation: tests/timestamps.rs.

use crate::endpoint::Endpoint;
use crate::segment::{Flags, Segment, Timestamps};
use units::SimTime;

impl Endpoint {
    /// The option for our SYN (client, when configured) or SYN-ACK (server, when agreed).
    pub(crate) fn ts_syn_option(&self, now: SimTime, syn_ack: bool) -> Option<Timestamps> {
        let on = if syn_ack {
            self.ts_ok
        } else {
            self.cfg.timestamps
        };
        on.then_some(Timestamps {
            val: now.as_nanos(),
            ecr: if syn_ack { self.ts_recent } else { 0 },
        })
    }

    /// Server: the peer's SYN arrived. Client: the SYN-ACK arrived. Agree and take TS.Recent.
    pub(crate) fn ts_negotiate(&mut self, seg: &Segment) {
        self.ts_ok = self.cfg.timestamps && seg.ts.is_some();
        if let (true, Some(t)) = (self.ts_ok, seg.ts) {
            self.ts_recent = t.val;
        }
    }

    /// RFC 7323 §4.3 step 2 for an arriving segment in a synchronized state.
    pub(crate) fn ts_on_arrival(&mut self, seg: &Segment) {
        if let (true, Some(t)) = (self.ts_ok, seg.ts) {
            if t.val >= self.ts_recent && seg.seq <= self.last_ack_sent {
                self.ts_recent = t.val;
            }
        }
    }

    /// The option for any segment after the handshake (None unless agreed).
    pub(crate) fn ts_option(&self, now: SimTime) -> Option<Timestamps> {
        self.ts_ok.then_some(Timestamps {
            val: now.as_nanos(),
            ecr: self.ts_recent,
        })
    }

    /// RTTM from an ACK that advanced SND.UNA (or completed the handshake). True if timestamps
    /// are in use on this connection (then the caller takes no timed-segment sample).
    pub(crate) fn ts_sample(&mut self, now: SimTime, seg: &Segment) -> bool {
        if !self.ts_ok {
            return false;
        }
        if let (true, Some(t)) = (seg.flags.contains(Flags::ACK), seg.ts) {
            self.rtt
                .sample(SimTime(t.ecr), now, self.snd_una, self.snd_max);
        }
        self.timing = None;
        true
    }
}
