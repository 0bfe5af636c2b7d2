//! Workload models as pure state machines: what to request, when, how big. They never touch
//! packets; the engine opens the connections they ask for and tells them when a response
//! completes. Time comes in as `units::SimTime`, randomness as the workload's own
//! `&mut units::Rng` stream (ARCHITECTURE.md, Determinism; STYLE.md §5).
//!
//! Call order (time never decreases): `start(now)` once; then whenever `next_deadline()` is due,
//! `on_timeout(now)`; and `on_response_complete(now, user)` when the engine finishes (or
//! abandons) a connection of a closed-loop user. Each call appends the connections to open to
//! `out`.
//!
//! - `dist`: size/time distributions (`SizeDist`, `EmpiricalCdf`) — sample, analytic mean,
//!   validate, CSV tables.
//! - `workload`: configs (`WorkloadConfig`) and the `Workload` state machine; one file per model
//!   (Poisson HTTP/1.0, browsing users, seed 003's Pareto web, bulk flows).
//! - `packmime`: the ns-2.35 PackMime-HTTP random variables (inter-arrivals, sizes, RTTs, the
//!   FARIMA driver) used by `workload::packmime`.
//! - portable exp/ln/pow come from `units::math`, so draws are bit-identical across machines.
//!
//! Validation: unit tests in `distribution/tests.rs` and `workload/tests/` (see each file's header).

pub mod distribution;
pub mod packmime;
pub mod workload;

pub use distribution::{EmpiricalCdf, SizeDist};
pub use workload::{
    pareto_web_mean_bytes, Arrival, BulkFlow, DatagramFlow, FlowKind, MahConfig, MahTables,
    ParetoSizes, PrimaryReplies, Request, ServerChoice, Workload, WorkloadConfig,
};
pub use workload::{parse_replay_csv, ReplayConn, REPLAY_MAX_TIME_S};
pub use workload::{Exchange, HttpVersion};
