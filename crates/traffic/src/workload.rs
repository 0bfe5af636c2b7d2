//! Workload configs and generators — interface; implementation being written.

use crate::dist::SizeDist;
use units::{SimDuration, SimTime};

/// What a connection carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// One request/response exchange (HTTP/1.0), response time recorded.
    Http,
    /// Long-lived transfer (FTP) from server to client.
    Bulk,
}

/// A connection the engine must open now.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Index of the user (closed-loop models) or 0; passed back in `on_response_complete`.
    pub user: u32,
    /// Client host index within the workload's client hosts.
    pub client: u32,
    /// Server host index within the workload's server hosts.
    pub server: u32,
    /// Bytes the client sends (the request).
    pub request_bytes: u64,
    /// Bytes the server sends back; `u64::MAX` for an endless bulk flow.
    pub response_bytes: u64,
    pub kind: FlowKind,
}

/// How HTTP/1.0 connections arrive.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// Open loop: connections start as a Poisson process, `rate` per second.
    Poisson { rate: f64 },
    /// Closed loop: `users` users, each request → response → think (seconds) → request.
    Users { users: u32, think_s: SizeDist },
}

/// A long-lived flow.
#[derive(Clone, Debug, PartialEq)]
pub struct BulkFlow {
    pub start: SimTime,
    pub client: u32,
    pub server: u32,
    /// Bytes to send; `None` = endless.
    pub bytes: Option<u64>,
}

/// A workload as a scenario describes it.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadConfig {
    /// HTTP/1.0: one request and one response per connection, then close.
    Http10 {
        arrival: Arrival,
        request_bytes: SizeDist,
        response_bytes: SizeDist,
        clients: u32,
        servers: u32,
    },
    /// Seed 003 §3.1/§4.7: `flows` sources, each: one object (bounded Pareto size) per
    /// connection from server to client, then a fixed off time, forever.
    ParetoWeb {
        flows: u32,
        shape: f64,
        mean_bytes: f64,
        min_bytes: f64,
        max_bytes: f64,
        off_time: SimDuration,
        clients: u32,
        servers: u32,
    },
    /// Long-lived flows with start times.
    Bulk { flows: Vec<BulkFlow> },
}

/// A running workload (state machine).
#[derive(Clone, Debug)]
pub struct Workload {
    _cfg: WorkloadConfig,
}

impl Workload {
    pub fn new(cfg: WorkloadConfig) -> Self {
        Workload { _cfg: cfg }
    }
}
