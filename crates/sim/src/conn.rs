//! Connection table: the two TCP endpoints of each connection, the HTTP application logic that
//! drives them, and the request records being filled in.
//!
//! Application (HTTP/1.0, seed 000 §3.4): the client writes its request right after `connect`;
//! the server, once the whole request has arrived (or on connect when the request is empty),
//! waits the request's server delay (PackMime §3.4; 0 = at once, in the same instant), writes
//! the response and closes; the client closes when the last response byte arrives — that
//! instant ends the response time.
//!
//! HTTP/1.1 persistent connections (`Request::more` not empty; PackMime §3.5–3.7): exchange
//! k + 1 starts `gap` after the last byte of response k reached the client, with the client
//! writing request k + 1 (non-pipelined); the server recognises each request by the cumulative
//! request bytes received, waits that exchange's server delay and writes its response; only
//! the last response is followed by the server's close, and the client closes after it. A
//! server delay or gap of zero acts at once, without an engine event; otherwise the engine
//! schedules `Event::App` at [`AppState::at`].
//!
//! Records: one [`RequestRecord`] per exchange. Exchange 0 runs from the first SYN, later
//! exchanges from the instant the client wrote their request, to the last response byte. Its
//! retransmission counters are the connection's counters accumulated since the previous
//! exchange's record (the last record also gets those of the close). Records of exchanges
//! before the last are queued in [`AppState::done`] when they complete; the last (or only) one
//! is written when the connection is freed. An exchange never started (connection aborted
//! before it) has no record.
//!
//! Slots are reused; a generation number tells packets and timer events of a previous occupant
//! to go away.
//!
//! Validation: `crates/sim/tests/http_exchanges.rs` (exact times of a delayed 1-segment
//! exchange and of two exchanges on one connection, records per exchange).

use metrics::{RequestKind, RequestRecord};
use tcp::{AppEvent, Endpoint};
use traffic::{Exchange, FlowKind};
use units::{SimDuration, SimTime};

/// Client side index into `Conn::eps`.
pub const CLIENT: usize = 0;
/// Server side index into `Conn::eps`.
pub const SERVER: usize = 1;

/// What the application layer asks the engine to do after an endpoint event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppAction {
    None,
    /// The response of an exchange that started at `start_ns` is complete; `last`: it was the
    /// connection's last exchange (tell the workload).
    ResponseComplete {
        start_ns: u64,
        last: bool,
    },
}

/// HTTP state of one connection: which exchange each side is in, pending application timers,
/// finished records.
#[derive(Debug)]
pub struct AppState {
    /// Server delay of exchange 0.
    pub server_delay: SimDuration,
    /// Exchanges 1… (HTTP/1.1); empty for HTTP/1.0.
    pub more: Vec<Exchange>,
    /// Exchange the client is in, and the cumulative response bytes that end it.
    cli_k: usize,
    cli_until: u64,
    /// Exchange the server answers next, and the cumulative request bytes that complete it.
    srv_k: usize,
    srv_until: u64,
    /// The server has a response pending behind its delay.
    srv_waiting: bool,
    /// Pending application wake-up per side: the server's delay, the client's gap.
    pub at: [Option<SimTime>; 2],
    /// `at[side]` was set and the engine has not scheduled it yet.
    pub unscheduled: [bool; 2],
    /// Finished records of exchanges before the last, for the engine to hand on.
    pub done: Vec<RequestRecord>,
    /// `Conn::record` belongs to an exchange in progress (false during a gap).
    record_open: bool,
    /// Connection counters already attributed to earlier records.
    counted: [u64; 11],
}

impl AppState {
    /// State of a connection whose first exchange sends `request_bytes` and expects
    /// `response_bytes`.
    pub fn new(
        server_delay: SimDuration,
        more: Vec<Exchange>,
        request_bytes: u64,
        response_bytes: u64,
    ) -> AppState {
        AppState {
            server_delay,
            more,
            cli_k: 0,
            cli_until: response_bytes,
            srv_k: 0,
            srv_until: request_bytes,
            srv_waiting: false,
            at: [None, None],
            unscheduled: [false, false],
            done: Vec::new(),
            record_open: true,
            counted: [0; 11],
        }
    }

    fn exchanges(&self) -> usize {
        1 + self.more.len()
    }

    fn delay_of(&self, k: usize) -> SimDuration {
        if k == 0 {
            self.server_delay
        } else {
            self.more[k - 1].server_delay
        }
    }

    fn arm(&mut self, side: usize, t: SimTime) {
        self.at[side] = Some(t);
        self.unscheduled[side] = true;
    }
}

/// One open connection.
#[derive(Debug)]
pub struct Conn {
    pub eps: [Endpoint; 2],
    /// Time of the pending wake-up event of each endpoint, if any.
    pub timer_at: [Option<SimTime>; 2],
    /// Each side has emitted Closed or Aborted.
    pub done: [bool; 2],
    pub aborted: bool,
    pub client_node: u32,
    pub server_node: u32,
    pub workload: u32,
    pub user: u32,
    pub kind: FlowKind,
    /// The server has written its last response.
    pub responded: bool,
    /// The last response has fully arrived.
    pub completed: bool,
    /// The workload has been told this connection ended.
    pub notified: bool,
    pub app: AppState,
    /// Record of the current (or last) exchange.
    pub record: RequestRecord,
}

impl Conn {
    /// Application reaction to an endpoint event on `side`. May call `send`/`close` on that
    /// side. `next_id` is the engine's request-id counter (a later exchange takes the next id
    /// when its request is written).
    pub fn on_app_event(
        &mut self,
        now: SimTime,
        side: usize,
        ev: AppEvent,
        next_id: &mut u64,
    ) -> AppAction {
        match (side, ev) {
            (SERVER, AppEvent::Connected) if self.record.request_bytes == 0 => {
                self.request_arrived(now);
            }
            (SERVER, AppEvent::Data { total }) if total >= self.app.srv_until => {
                self.request_arrived(now);
            }
            (CLIENT, AppEvent::Data { total })
                if !self.completed && self.app.record_open && total >= self.app.cli_until =>
            {
                return self.response_arrived(now, next_id);
            }
            (CLIENT, AppEvent::PeerClosed) if !self.completed => {
                // The server closed before the whole response arrived (cannot happen with
                // HTTP over a working TCP, but close our side rather than hang).
                self.eps[CLIENT].close();
            }
            (_, AppEvent::Closed) => self.done[side] = true,
            (_, AppEvent::Aborted) => {
                self.done[side] = true;
                self.aborted = true;
            }
            _ => {}
        }
        AppAction::None
    }

    /// An application timer of `side` is due (the engine checked `app.at[side] == Some(now)`).
    pub fn on_app_timer(&mut self, now: SimTime, side: usize, next_id: &mut u64) {
        self.app.at[side] = None;
        if side == SERVER {
            self.respond();
        } else {
            self.next_request(now, next_id);
        }
    }

    /// The whole request of the server's current exchange is in: respond now or after the
    /// delay.
    fn request_arrived(&mut self, now: SimTime) {
        if self.responded || self.app.srv_waiting || self.app.srv_k >= self.app.exchanges() {
            return;
        }
        let d = self.app.delay_of(self.app.srv_k);
        if d == SimDuration::ZERO {
            self.respond();
        } else {
            self.app.srv_waiting = true;
            self.app.arm(SERVER, now + d);
        }
    }

    /// Write the response of the server's current exchange (and close after the last).
    fn respond(&mut self) {
        self.app.srv_waiting = false;
        let k = self.app.srv_k;
        self.app.srv_k += 1;
        let last = self.app.srv_k == self.app.exchanges();
        if k == 0 {
            let bytes = if self.kind == FlowKind::Bulk && self.record.response_bytes == u64::MAX {
                u64::MAX / 4
            } else {
                self.record.response_bytes
            };
            self.eps[SERVER].send(bytes);
        } else {
            self.eps[SERVER].send(self.app.more[k - 1].response_bytes);
        }
        if last {
            self.responded = true;
            if self.kind == FlowKind::Http || self.record.response_bytes != u64::MAX {
                self.eps[SERVER].close();
            }
        } else {
            self.app.srv_until += self.app.more[k].request_bytes.max(1);
        }
    }

    /// The client has the whole response of its current exchange.
    fn response_arrived(&mut self, now: SimTime, next_id: &mut u64) -> AppAction {
        let start_ns = self.record.start_ns;
        self.record.completed = true;
        self.record.end_ns = now.as_nanos();
        let last = self.app.cli_k + 1 == self.app.exchanges();
        if last {
            self.completed = true;
            // ns2_fulltcp: PackMime's client never closes; its Full-TCP closes by itself on the
            // server's FIN (tcp config.rs (c)).
            if !self.eps[CLIENT].config().ns2_fulltcp {
                self.eps[CLIENT].close();
            }
        } else {
            let mut r = self.record.clone();
            self.take_counters(&mut r);
            self.app.done.push(r);
            self.app.record_open = false;
            let gap = self.app.more[self.app.cli_k].gap;
            if gap == SimDuration::ZERO {
                self.next_request(now, next_id);
            } else {
                self.app.arm(CLIENT, now + gap);
            }
        }
        AppAction::ResponseComplete { start_ns, last }
    }

    /// The client writes the request of its next exchange and opens its record.
    fn next_request(&mut self, now: SimTime, next_id: &mut u64) {
        let x = self.app.more[self.app.cli_k];
        self.app.cli_k += 1;
        self.app.cli_until += x.response_bytes;
        self.eps[CLIENT].send(x.request_bytes.max(1));
        let r = &mut self.record;
        r.id = *next_id;
        *next_id += 1;
        r.exchange = self.app.cli_k as u32;
        r.start_ns = now.as_nanos();
        r.end_ns = now.as_nanos();
        r.request_bytes = x.request_bytes.max(1);
        r.response_bytes = x.response_bytes;
        r.server_delay_ns = x.server_delay.as_nanos();
        r.completed = false;
        self.app.record_open = true;
    }

    /// The connection can be freed: both ends finished, or one gave up.
    pub fn finished(&self) -> bool {
        self.aborted || (self.done[CLIENT] && self.done[SERVER])
    }

    /// Both endpoints' counters (SYN, FIN, data retransmissions, timeouts, fast retransmits,
    /// ECN reductions, loss events, sum of cwnd bytes at the loss events), summed over the two
    /// ends, then the server end's SYN, FIN and data retransmissions alone.
    fn counters(&self) -> [u64; 11] {
        let (a, b) = (self.eps[CLIENT].stats(), self.eps[SERVER].stats());
        [
            (a.syn_retransmits + b.syn_retransmits) as u64,
            (a.fin_retransmits + b.fin_retransmits) as u64,
            (a.data_retransmits + b.data_retransmits) as u64,
            (a.timeouts + b.timeouts) as u64,
            (a.fast_retransmits + b.fast_retransmits) as u64,
            (a.ecn_reductions + b.ecn_reductions) as u64,
            (a.loss_events + b.loss_events) as u64,
            a.loss_cwnd_sum + b.loss_cwnd_sum,
            b.syn_retransmits as u64,
            b.fin_retransmits as u64,
            b.data_retransmits as u64,
        ]
    }

    /// Put the counters accumulated since the previous record into `r`.
    fn take_counters(&mut self, r: &mut RequestRecord) {
        let now = self.counters();
        let d: [u64; 11] = std::array::from_fn(|i| now[i] - self.app.counted[i]);
        self.app.counted = now;
        let c = |x: u64| x as u32;
        (r.syn_retx, r.fin_retx, r.data_retx) = (c(d[0]), c(d[1]), c(d[2]));
        (r.timeouts, r.fast_retx, r.ecn_reductions) = (c(d[3]), c(d[4]), c(d[5]));
        (r.loss_events, r.loss_cwnd_bytes) = (c(d[6]), d[7]);
        (r.server_syn_retx, r.server_fin_retx, r.server_data_retx) = (c(d[8]), c(d[9]), c(d[10]));
    }

    /// The record of the current exchange with its counters, or `None` if no exchange is in
    /// progress (the connection ended in a gap between exchanges).
    pub fn finalize_record(&mut self, now: SimTime) -> Option<RequestRecord> {
        if !self.app.record_open {
            return None;
        }
        let mut r = self.record.clone();
        self.take_counters(&mut r);
        if !r.completed {
            r.end_ns = now.as_nanos();
        }
        if self.kind == FlowKind::Bulk {
            r.kind = RequestKind::Bulk;
        }
        Some(r)
    }
}

/// Slot of the connection table.
#[derive(Debug, Default)]
pub struct Slot {
    pub gen: u32,
    pub conn: Option<Box<Conn>>,
    /// DelayBoxes of the slot's connection: (node, one-way delay); a packet of the connection
    /// that arrives at `node` is held the delay longer. Unused entries have node `u32::MAX` or a
    /// zero delay. Order: topology box, client box, server box. Kept here, not in the boxed
    /// `Conn`, so the check on every packet reaching a box node reads the contiguous slot
    /// table instead of a connection's cache lines.
    pub boxes: [(u32, SimDuration); 3],
}
