//! Sans-IO TCP endpoints for aqmlab (quinn-style four-family API, STYLE.md §7).
//!
//! An [`Endpoint`] never reads a clock and never schedules anything: the engine feeds it
//! segments with `on_segment(now, seg)`, wakes it with `on_timeout(now)` at or after
//! `next_deadline()`, drains outgoing segments with `poll_transmit(now)` and application
//! notifications with `poll_event()`. Data is counted, not carried: a "write" is a byte count.
//! The call contract and event semantics are on [`Endpoint`].
//!
//! Map: `endpoint.rs` (public API, state), `input.rs` (segment arrival, timeouts),
//! `output.rs` (segment generation), `recv.rs` (reassembly, SACK blocks), `rtt.rs` (RFC 6298; Linux's estimator in `rtt_linux.rs`),
//! `timers.rs` (deadline table), `quickack.rs` (Linux's quick-ACK mode), `pacing.rs` (sender pacing), `scoreboard.rs` (RFC 6675 sender scoreboard), `rack.rs` (RFC 8985
//! RACK-TLP marks) with `rack_tlp.rs` (its endpoint side: recovery entry, reorder and probe timers),
//! `congestion/` (RFC 5681 window arithmetic, `tahoe.rs`, `reno.rs`, `newreno.rs`,
//! `sack.rs`, `cubic.rs` with `hystart.rs`, `hystart_plus_plus.rs` (RFC 9406, any slow start), `bbr.rs`), `rate.rs` (delivery-rate samples), `ecn.rs` (RFC 3168), `timestamps.rs` (RFC 7323), `config.rs` (every default and its source), `segment.rs`
//! (wire format).
//! Tests: `tests/<state>.rs` with the shared pipe harness in `tests/util/`.

pub mod config;
pub mod congestion;
mod ecn;
pub mod endpoint;
mod input;
mod output;
pub mod pacing;
pub mod params;
pub mod quickack;
pub mod rack;
mod rack_tlp;
pub mod rate;
pub mod recv;
pub mod rtt;
pub mod rtt_linux;
pub mod scoreboard;
pub mod segment;
pub mod timers;
mod timestamps;

pub use config::{
    BackoffReset, FullAck, RtoRules, SackOnTimeout, SlowStartGrowth, SsthreshRule, TcpConfig,
    Variant,
};
pub use endpoint::{AppEvent, Endpoint, State, TcpStats, LOSS_TRACE_LEN};
pub use segment::{Ecn, Flags, SackBlocks, Segment, Timestamps, TxKind};
