//! Sans-IO TCP endpoints for aqmlab (quinn-style four-family API, STYLE.md §7).
//!
//! An [`Endpoint`] never reads a clock and never schedules anything: the engine feeds it
//! segments with `on_segment(now, seg)`, wakes it with `on_timeout(now)` at or after
//! `next_deadline()`, drains outgoing segments with `poll_transmit(now)` and application
//! notifications with `poll_event()`. Data is counted, not carried: a "write" is a byte count.

pub mod config;
pub mod endpoint;
pub mod segment;

pub use config::{TcpConfig, Variant};
pub use endpoint::{AppEvent, Endpoint, State, TcpStats};
pub use segment::{Flags, Segment, TxKind};
