//! Linux's quick-ACK and ping-pong modes, receiver side (`quickack_mode = true`): Linux 6.x
//! `tcp_incr_quickack`, `tcp_enter_quickack_mode`, `tcp_in_quickack_mode`,
//! `tcp_event_data_recv`, `__tcp_ack_snd_check` (`net/ipv4/tcp_input.c`), `tcp_event_data_sent`,
//! `tcp_event_ack_sent` (`net/ipv4/tcp_output.c`), `tcp_dec_quickack_mode` (`include/net/tcp.h`),
//! `inet_csk_*_pingpong_mode` (`include/net/inet_connection_sock.h`) and the delayed-ACK timer
//! (`tcp_delack_timer_handler`, `net/ipv4/tcp_timer.c`).
//!
//! - The first in-order data of a connection (Linux: `ato` still 0) grants a budget of quick
//!   ACKs, `min(TCP_MAX_QUICKACKS = 16, max(2, rcv_wnd / (2 · rcv_mss)))` (here `receive_window`
//!   and `mss`; Linux's initial 64 KB window and 536-byte `rcv_mss` give 16 as well). In-order
//!   data that arrives more than one RTO after the previous one tops the budget up again.
//! - While quick ACKs are left and the connection is not in ping-pong mode, each in-order data
//!   segment is ACKed at once (no delayed ACK). Each segment we send while an ACK is owed
//!   spends one (`tcp_event_ack_sent`).
//! - Ping-pong (interactive) mode: sending data within `ato` of the last data received (a reply)
//!   enters it (`tcp_pingpong_thresh` = 1); then ACKs are delayed again, to ride on the reply.
//!   A delayed-ACK timer that fires in ping-pong mode leaves it, and so does a duplicate data
//!   segment (`tcp_enter_quickack_mode`, which also tops the budget up). `ato` is the
//!   `delayed_ack` timeout (Linux's `TCP_ATO_MIN`, 40 ms; Linux adapts it up to 200 ms, here
//!   it stays).
//!
//! Not modelled: `ato`'s adaptation, SACK compression of out-of-order ACKs
//! (`tcp_comp_sack_nr`), `TCP_QUICKACK` socket options, ECN's quick-ACK entries.
//!
//! Validation: unit tests below; tests/quickack.rs end to end (the server's pure ACK of the
//! request before its response, the client's per-segment ACKs of a response).

use units::{SimDuration, SimTime};

/// Linux `TCP_MAX_QUICKACKS`: the largest quick-ACK budget.
pub const MAX_QUICKACKS: u32 = 16;

/// Linux `TCP_ATO_MIN` (HZ/25 = 40 ms): `ato` when `delayed_ack` is off.
pub const ATO_MIN: SimDuration = SimDuration::from_millis(40);

/// Quick-ACK state of one receiver (Linux's `icsk_ack` fields of the same meaning).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuickAck {
    /// Quick ACKs left (`icsk_ack.quick`).
    quick: u32,
    /// In-order data has arrived (Linux: `icsk_ack.ato` ≠ 0).
    started: bool,
    /// Interactive mode (`icsk_ack.pingpong` ≥ 1).
    pingpong: bool,
    /// When in-order data last arrived (`icsk_ack.lrcvtime`).
    lrcvtime: Option<SimTime>,
    /// Data arrived since our last ACK (`ICSK_ACK_SCHED`).
    scheduled: bool,
}

impl QuickAck {
    /// The budget `tcp_incr_quickack` grants: min(16, max(2, window / (2 · mss))), segments.
    pub fn budget(receive_window: u32, mss: u32) -> u32 {
        let q = receive_window / (2 * mss.max(1));
        if q == 0 {
            2
        } else {
            q.min(MAX_QUICKACKS)
        }
    }

    /// A segment with payload or FIN arrived: an ACK is owed.
    pub fn schedule(&mut self) {
        self.scheduled = true;
    }

    /// In-order data arrived at `now` (`tcp_event_data_recv`), `rto` the current RTO: true if
    /// it is to be ACKed at once (quick-ACK mode).
    pub fn on_data(&mut self, now: SimTime, rto: SimDuration, budget: u32) -> bool {
        self.scheduled = true;
        let gap = self.lrcvtime.map(|t| now.saturating_since(t));
        if !self.started || gap.is_some_and(|g| g > rto) {
            self.started = true;
            self.quick = self.quick.max(budget);
        }
        self.lrcvtime = Some(now);
        self.in_quick_mode()
    }

    /// A duplicate data segment (`tcp_enter_quickack_mode`): budget topped up, ping-pong left.
    pub fn on_duplicate(&mut self, budget: u32) {
        self.scheduled = true;
        self.quick = self.quick.max(budget);
        self.pingpong = false;
    }

    /// We sent a segment (it carries the ACK): one quick ACK spent if one was owed.
    pub fn on_ack_sent(&mut self) {
        if self.scheduled {
            self.quick = self.quick.saturating_sub(1);
        }
        self.scheduled = false;
    }

    /// We sent payload at `now` (`tcp_event_data_sent`): a reply within `ato` of the last data
    /// received enters ping-pong mode.
    pub fn on_data_sent(&mut self, now: SimTime, ato: SimDuration) {
        if self.lrcvtime.is_some_and(|t| now.saturating_since(t) < ato) {
            self.pingpong = true;
        }
    }

    /// The delayed-ACK timer fired: leave ping-pong mode.
    pub fn on_delack_timeout(&mut self) {
        self.pingpong = false;
    }

    /// Quick ACKs left and not interactive (`tcp_in_quickack_mode`).
    pub fn in_quick_mode(&self) -> bool {
        self.quick > 0 && !self.pingpong
    }

    /// Quick ACKs left.
    pub fn quick_left(&self) -> u32 {
        self.quick
    }

    /// In ping-pong (interactive) mode.
    pub fn pingpong(&self) -> bool {
        self.pingpong
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }
    const RTO: SimDuration = SimDuration::from_millis(300);
    const ATO: SimDuration = SimDuration::from_millis(40);

    #[test]
    fn budget_is_half_the_window_in_segments_between_2_and_16() {
        // 6 MB / (2 · 1448) = 2172 → 16; 65535 / 2896 = 22 → 16; 16384 / 2896 = 5;
        // 2000 / 2896 = 0 → 2.
        assert_eq!(QuickAck::budget(6_291_456, 1448), 16);
        assert_eq!(QuickAck::budget(65_535, 1448), 16);
        assert_eq!(QuickAck::budget(16_384, 1448), 5);
        assert_eq!(QuickAck::budget(2_000, 1448), 2);
    }

    #[test]
    fn sixteen_quick_acks_then_delayed() {
        let mut q = QuickAck::default();
        for i in 0..16 {
            assert!(q.on_data(t(i), RTO, 16), "segment {i}");
            q.on_ack_sent();
        }
        assert_eq!(q.quick_left(), 0);
        assert!(!q.on_data(t(16), RTO, 16));
        // A gap longer than the RTO refills the budget.
        assert!(q.on_data(t(400), RTO, 16));
        assert_eq!(q.quick_left(), 16);
    }

    #[test]
    fn a_reply_within_ato_enters_pingpong_and_the_delack_timer_leaves_it() {
        let mut q = QuickAck::default();
        assert!(q.on_data(t(100), RTO, 16));
        q.on_ack_sent(); // the request's quick ACK: 15 left
        q.on_data_sent(t(139), ATO); // the reply 39 ms later
        assert!(q.pingpong());
        q.on_ack_sent(); // nothing owed: nothing spent
        assert_eq!(q.quick_left(), 15);
        assert!(!q.on_data(t(200), RTO, 16)); // the next request waits for the reply
        q.on_delack_timeout();
        assert!(q.on_data(t(250), RTO, 16));
        // A reply 40 ms after the data (not < ato) stays out of ping-pong; so does data sent
        // before any arrived.
        let mut q = QuickAck::default();
        q.on_data_sent(t(0), ATO);
        assert!(!q.pingpong());
        q.on_data(t(100), RTO, 16);
        q.on_data_sent(t(140), ATO);
        assert!(!q.pingpong());
        // A duplicate leaves ping-pong and tops the budget up.
        q.on_data(t(200), RTO, 16);
        q.on_data_sent(t(220), ATO);
        assert!(q.pingpong());
        q.on_duplicate(16);
        assert!(q.in_quick_mode());
    }
}
