//! TCP endpoint state machine — interface; the implementation is being written.

use crate::config::TcpConfig;
use crate::segment::Segment;
use units::SimTime;

/// RFC 793 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// Notifications to the application, drained with [`Endpoint::poll_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEvent {
    /// Handshake complete.
    Connected,
    /// New in-order payload arrived; `total` is all payload received so far, bytes.
    Data { total: u64 },
    /// The peer's FIN arrived (after all its data).
    PeerClosed,
    /// Both directions closed and acknowledged; the endpoint will send nothing more.
    Closed,
    /// Gave up after too many retransmissions.
    Aborted,
}

/// Per-connection counters exposed to metrics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    pub syn_retransmits: u32,
    pub fin_retransmits: u32,
    pub data_retransmits: u32,
    pub timeouts: u32,
    pub fast_retransmits: u32,
    pub segments_sent: u64,
}

/// One end of a TCP connection.
#[derive(Clone, Debug)]
pub struct Endpoint {
    _cfg: TcpConfig,
}

impl Endpoint {
    /// Active open: the first `poll_transmit` returns the SYN.
    pub fn connect(cfg: TcpConfig, _now: SimTime) -> Self {
        Endpoint { _cfg: cfg }
    }
    /// Passive open: waits for a SYN.
    pub fn listen(cfg: TcpConfig) -> Self {
        Endpoint { _cfg: cfg }
    }
    pub fn on_segment(&mut self, _now: SimTime, _seg: &Segment) {
        unimplemented!()
    }
    pub fn on_timeout(&mut self, _now: SimTime) {
        unimplemented!()
    }
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<Segment> {
        unimplemented!()
    }
    pub fn next_deadline(&self) -> Option<SimTime> {
        unimplemented!()
    }
    pub fn poll_event(&mut self) -> Option<AppEvent> {
        unimplemented!()
    }
    /// Queue `bytes` more payload for sending.
    pub fn send(&mut self, _bytes: u64) {
        unimplemented!()
    }
    /// Send a FIN after all queued payload.
    pub fn close(&mut self) {
        unimplemented!()
    }
    pub fn state(&self) -> State {
        unimplemented!()
    }
    pub fn stats(&self) -> &TcpStats {
        unimplemented!()
    }
    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u64 {
        unimplemented!()
    }
}
