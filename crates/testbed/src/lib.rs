//! aqmlab's real-TCP testbed (issue 12): a dumbbell scenario run with Linux TCP. The hosts of
//! each side live in a network namespace of their own (`netns.rs`), configured from the
//! scenario's `[tcp]` (`tcp_settings.rs`); an HTTP/1.0 and 1.1 client and server on real
//! sockets (`http.rs`, `client.rs`, `server.rs`; a reverse workload's client sockets made in
//! the server namespace by `hop.rs`), driven by the `traffic` crate's workload generators in
//! real time, produce the same connections, sizes and server delays as the simulator for the
//! same scenario and seed;
//! between the sides, the `router` crate's bottleneck (or, without it, a plain veth pair:
//! `path.rs`). `run.rs` puts a run together and writes the same run directory as `aqmlab run`
//! (crates/store), marked `"engine": "testbed-linux"` in summary.json; `rtt_join.rs` gives each
//! record the DelayBox delay the router applied to its connection (`base_rtt_ns`).
//!
//! One process hosts every part: `setns` is per thread, so the client runtime's thread lives in
//! the client namespace, the server's in the server namespace, and sockets belong to the
//! namespace of the thread that made them.
//!
//! Read `run.rs` first. Validation: unit tests in each file; `tests/netns_root.rs` and
//! python/tests/test_testbed.py (as root: end to end through the router).

pub mod client;
pub mod hop;
pub mod http;
pub mod netns;
pub mod path;
pub mod rtt_join;
pub mod run;
pub mod server;
pub mod tcp_settings;
