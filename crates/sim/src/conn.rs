//! Connection table: the two TCP endpoints of each connection, the HTTP/1.0 application logic
//! that drives them, and the request record being filled in.
//!
//! Application (HTTP/1.0, seed 000 §3.4): the client writes its request right after `connect`;
//! the server, once the whole request has arrived (or on connect when the request is empty),
//! writes the response and closes; the client closes when the last response byte arrives —
//! that instant ends the response time. Slots are reused; a generation number tells packets and
//! timer events of a previous occupant to go away.

use metrics::{RequestKind, RequestRecord};
use tcp::{AppEvent, Endpoint};
use traffic::FlowKind;
use units::{SimDuration, SimTime};

/// Client side index into `Conn::eps`.
pub const CLIENT: usize = 0;
/// Server side index into `Conn::eps`.
pub const SERVER: usize = 1;

/// What the application layer asks the engine to do after an endpoint event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppAction {
    None,
    /// The response is complete: tell the workload.
    ResponseComplete,
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
    /// DelayBox extra delay applied in each direction.
    pub extra_one_way: SimDuration,
    pub workload: u32,
    pub user: u32,
    pub kind: FlowKind,
    pub responded: bool,
    pub completed: bool,
    /// The workload has been told this connection ended.
    pub notified: bool,
    pub record: RequestRecord,
}

impl Conn {
    /// Application reaction to an endpoint event on `side`. May call `send`/`close` on that side.
    pub fn on_app_event(&mut self, now: SimTime, side: usize, ev: AppEvent) -> AppAction {
        match (side, ev) {
            (SERVER, AppEvent::Connected) if self.record.request_bytes == 0 && !self.responded => {
                self.respond();
            }
            (SERVER, AppEvent::Data { total })
                if !self.responded && total >= self.record.request_bytes =>
            {
                self.respond();
            }
            (CLIENT, AppEvent::Data { total })
                if !self.completed && total >= self.record.response_bytes =>
            {
                self.completed = true;
                self.record.completed = true;
                self.record.end_ns = now.as_nanos();
                self.eps[CLIENT].close();
                return AppAction::ResponseComplete;
            }
            (CLIENT, AppEvent::PeerClosed) if !self.completed => {
                // The server closed before the whole response arrived (cannot happen with
                // HTTP/1.0 over a working TCP, but close our side rather than hang).
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

    fn respond(&mut self) {
        self.responded = true;
        let bytes = if self.kind == FlowKind::Bulk && self.record.response_bytes == u64::MAX {
            u64::MAX / 4
        } else {
            self.record.response_bytes
        };
        self.eps[SERVER].send(bytes);
        if self.kind == FlowKind::Http || self.record.response_bytes != u64::MAX {
            self.eps[SERVER].close();
        }
    }

    /// The connection can be freed: both ends finished, or one gave up.
    pub fn finished(&self) -> bool {
        self.aborted || (self.done[CLIENT] && self.done[SERVER])
    }

    /// Copy the endpoints' retransmission counters into the record.
    pub fn finalize_record(&mut self, now: SimTime) {
        let (a, b) = (self.eps[CLIENT].stats(), self.eps[SERVER].stats());
        self.record.syn_retx = a.syn_retransmits + b.syn_retransmits;
        self.record.fin_retx = a.fin_retransmits + b.fin_retransmits;
        self.record.data_retx = a.data_retransmits + b.data_retransmits;
        self.record.timeouts = a.timeouts + b.timeouts;
        self.record.fast_retx = a.fast_retransmits + b.fast_retransmits;
        self.record.ecn_reductions = a.ecn_reductions + b.ecn_reductions;
        if !self.completed {
            self.record.end_ns = now.as_nanos();
        }
        if self.kind == FlowKind::Bulk {
            self.record.kind = RequestKind::Bulk;
        }
    }
}

/// Slot of the connection table.
#[derive(Debug, Default)]
pub struct Slot {
    pub gen: u32,
    pub conn: Option<Box<Conn>>,
}
