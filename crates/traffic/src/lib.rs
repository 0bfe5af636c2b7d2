//! Workload models as pure state machines: what to request, when, how big. They never touch
//! packets; the engine opens the connections they ask for and tells them when a response
//! completes.
//!
//! Call order (time never decreases): `start(now)` once; then whenever `next_deadline()` is due,
//! `on_timeout(now)`; and `on_response_complete(now, user)` when the engine finishes (or
//! abandons) a connection of a closed-loop user. Each call appends the connections to open to
//! `out`.

pub mod dist;
pub mod workload;

pub use dist::{EmpiricalCdf, SizeDist};
pub use workload::{Arrival, BulkFlow, FlowKind, Request, Workload, WorkloadConfig};
