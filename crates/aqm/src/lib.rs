//! Queue disciplines (AQM) for aqmlab: one discipline per file behind the [`QueueDisc`] trait,
//! dispatched through the [`Discipline`] enum (no `Box<dyn>` on the hot path).
//!
//! Every discipline is pure: time (`now`) and randomness (`rng`) come in as arguments, so the
//! same code runs in the simulator and in the testbed router.
//!
//! Counter identities every test checks (STYLE.md §10), see [`QueueStats::check_identities`]:
//! `arrivals = enqueued + early_drops + forced_drops + overflow_drops` and
//! `queued_now = enqueued − dequeued − dequeue_drops`.

pub mod discipline;
pub mod droptail;
pub mod packet;
pub mod red;
pub mod stats;

pub use discipline::{Discipline, DisciplineParams, LinkInfo, ParamError, QueueDisc};
pub use droptail::{DropTail, DropTailParams, LimitUnit};
pub use packet::{DropReason, PacketClass, PacketMeta, Verdict};
pub use red::{Red, RedParams};
pub use stats::QueueStats;
