//! A run's output files written from Rust as the run goes, with memory bounded by the open
//! connections instead of the number of records: the Parquet tables `requests.parquet`,
//! `queue.parquet` and `links.parquet` (layout in `tables.rs`, the same columns, types and row
//! order as before; request columns an engine cannot measure written as nulls) and the run
//! summary with exact quantiles. [`RunWriter`] is the engine's
//! observer (`sim::run_with`), which hands the records to a writer thread (`sink.rs`) that
//! writes them while the run goes on; `python/aqmlab` reads the files back.
//!
//! Validation: the unit tests here (spool order, completed prefix, exact selection, the
//! writer thread's determinism, errors and panics) and `tests/run_writer.rs`
//! (the files and summary of real runs equal the in-memory `sim::run`'s records and summary).

mod column_chunks;
mod error;
mod frontier;
mod run_writer;
mod select;
mod sink;
mod spool;
mod table_file;
mod tables;

pub use error::StoreError;
pub use run_writer::{RunWriter, SUMMARY_SUMS};
pub use select::ValueSpool;
pub use spool::RequestSpool;
pub use table_file::{TableFile, NOT_MEASURED_KEY};
pub use tables::{column_names, TableRow};
