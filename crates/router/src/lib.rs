//! The testbed router (issue 12): one process between two network namespaces, holding a TUN
//! device per side, forwarding IPv4 packets through the scenario's dumbbell bottleneck in each
//! direction with the `aqm` crate's queue disciplines, a link of the scenario's rate, the
//! propagation delay and the DelayBox — the same parameters the simulator uses
//! ([`RouterSpec::from_experiment`]).
//!
//! Sans-IO core (time is an argument, `units::SimTime` from the router's start): `ipv4.rs`
//! (header fields, CE marking + RFC 1624 checksum), `path.rs` (one direction: queue, link,
//! delays), `delaybox.rs` (per-connection delay keyed on the 4-tuple), `ports.rs` (workload of a
//! connection from its server port), `router.rs` (both
//! directions, counters, monitors). IO layer: `tun.rs` (TUN in a named netns), `run.rs` (the
//! blocking loop, pacing measurement), `pcap.rs`.
//!
//! Read before editing: `crates/sim/src/world.rs` (`enqueue`, `start_tx`): the path follows it
//! step for step so both give the same queue behaviour for the same arrivals.

pub mod delaybox;
pub mod ipv4;
pub mod path;
pub mod pcap;
pub mod ports;
pub mod report;
pub mod router;
pub mod run;
pub mod spec;
pub mod tun;

pub use report::{Pacing, PathCounters, RouterReport};
pub use router::{Direction, Router};
pub use run::run;
pub use spec::{PathSpec, RouterSpec, DEFAULT_SPIN};
pub use tun::open_tun_in_netns;
