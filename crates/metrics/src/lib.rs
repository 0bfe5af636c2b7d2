//! Measurement for aqmlab: the records the engine emits through one [`Observer`] interface,
//! the monitors that aggregate per-packet happenings into the studies' tables (seed 000
//! §4.1.3), and the run [`Summary`] with the columns of seed 000's tables.
//!
//! Nothing here changes simulation behaviour.

pub mod link_monitor;
pub mod observer;
pub mod queue_monitor;
pub mod records;
pub mod sojourn;
pub mod steady_state;
pub mod summary;
pub mod tally;

pub use link_monitor::LinkMonitor;
pub use observer::{Observer, Recorder};
pub use queue_monitor::QueueMonitor;
pub use records::{LinkRow, QueueRow, RequestKind, RequestRecord};
pub use sojourn::{DualQueueSummary, LaneSojourns, SojournFigures, SojournHistogram};
pub use steady_state::SteadyState;
pub use summary::{
    nearest_rank, summary_ranks, DropCounts, Summary, SummaryInput, SummaryTotals,
    SUMMARY_QUANTILES,
};
pub use tally::{QueueTally, RequestTally};
