//! The observer that writes a run's tables to a directory as the run goes, and its summary at
//! the end, holding memory bounded by the open connections rather than by the records:
//! queue and link rows go straight to their Parquet files row group by row group; request
//! records go to the id-ordered scratch file (`spool.rs`) and are written to
//! `requests.parquet` in id order when the run ends; the summary's counts are running totals
//! (`metrics::tally`) and its response-time quantiles exact order statistics of the response
//! times spooled to a second scratch file (`select.rs`). The summary is the one
//! `metrics::Summary::compute` gives for the same records (same values, bit for bit, while
//! the summed response time stays below 2^53 ns: see `metrics::tally`).
//!
//! Columns not measured: an engine that cannot measure some request columns (the testbed)
//! declares them ([`RunWriter::declare_not_measured`]); they are written as nulls (`tables.rs`)
//! and the summary keys that are their sums are named by
//! [`RunWriter::summary_keys_not_measured`], for the caller to write as null.
//!
//! Errors: the engine's observer interface cannot fail, so the first write error is kept,
//! later records are ignored, and `finish` returns it.

use crate::error::StoreError;
use crate::select::ValueSpool;
use crate::spool::RequestSpool;
use crate::table_file::TableFile;
use crate::tables::check_not_measured;
use metrics::{
    nearest_rank, LinkRow, Observer, QueueRow, QueueTally, RequestRecord, RequestTally, Summary,
    SummaryTotals, SUMMARY_QUANTILES,
};
use std::path::{Path, PathBuf};

/// Scratch file names inside the run directory (deleted by `finish`).
const REQUEST_SPOOL: &str = "requests.spool.part";
const RT_SPOOL: &str = "response_times.spool.part";

/// The summary keys that are sums of the request column of the same name over the measured
/// requests (`metrics::tally::RequestTally`).
pub const SUMMARY_SUMS: [&str; 4] = ["syn_retx", "fin_retx", "data_retx", "timeouts"];

/// Writes `requests.parquet`, `queue.parquet` and `links.parquet` into one directory.
pub struct RunWriter {
    dir: PathBuf,
    requests: RequestSpool,
    rts: ValueSpool,
    tally: RequestTally,
    /// Per monitored link (a handful): the running queue totals.
    queue_tallies: Vec<(String, QueueTally)>,
    queue: TableFile<QueueRow>,
    links: TableFile<LinkRow>,
    warmup_ns: u64,
    /// Request columns written as nulls, in schema order.
    not_measured: Vec<String>,
    error: Option<StoreError>,
}

impl RunWriter {
    /// Start writing into the existing directory `dir` for a run whose warm-up ends at
    /// `warmup_ns`.
    pub fn create(dir: &Path, warmup_ns: u64) -> Result<Self, StoreError> {
        Ok(RunWriter {
            dir: dir.to_path_buf(),
            requests: RequestSpool::create(&dir.join(REQUEST_SPOOL))?,
            rts: ValueSpool::create(&dir.join(RT_SPOOL))?,
            tally: RequestTally::new(warmup_ns),
            queue_tallies: Vec::new(),
            queue: TableFile::create(dir)?,
            links: TableFile::create(dir)?,
            warmup_ns,
            not_measured: Vec::new(),
            error: None,
        })
    }

    /// Declare the request columns `columns` not measured: `requests.parquet` holds nulls in
    /// them (every row) instead of the records' values, and lists them in its footer. Replaces
    /// an earlier declaration; a name that is not a requests column is an error naming it.
    pub fn declare_not_measured(&mut self, columns: &[&str]) -> Result<(), StoreError> {
        self.not_measured = check_not_measured::<RequestRecord>(columns)?;
        Ok(())
    }

    /// The request columns declared not measured, in the table's column order.
    pub fn not_measured(&self) -> &[String] {
        &self.not_measured
    }

    /// The summary keys that are sums of a column not measured ([`SUMMARY_SUMS`]): their
    /// values in the summary `finish` returns are meaningless (sums of the records' zeros) and
    /// must be written as null.
    pub fn summary_keys_not_measured(&self) -> Vec<&'static str> {
        SUMMARY_SUMS
            .into_iter()
            .filter(|k| self.not_measured.iter().any(|c| c == k))
            .collect()
    }

    fn keep(&mut self, r: Result<(), StoreError>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    /// Write the requests table, close every file (renamed to its final name) and return the
    /// run summary, for forward bottleneck `fwd_link` and the run-wide `totals`.
    pub fn finish(self, fwd_link: &str, totals: &SummaryTotals) -> Result<Summary, StoreError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        // One table at a time, so their buffers are never held together.
        self.queue.finish()?;
        self.links.finish()?;
        let not_measured: Vec<&str> = self.not_measured.iter().map(String::as_str).collect();
        let mut requests =
            TableFile::<RequestRecord>::create_not_measured(&self.dir, &not_measured)?;
        self.requests.drain(|r| requests.push(r))?;
        requests.finish()?;
        let n = self.rts.len();
        let ranks: Vec<u64> = SUMMARY_QUANTILES
            .iter()
            .filter_map(|&q| nearest_rank(n, q))
            .collect();
        let values = self.rts.select(&ranks)?;
        let quantiles = if values.is_empty() {
            [f64::NAN; 7]
        } else {
            std::array::from_fn(|i| values[i] as f64)
        };
        let queue = self
            .queue_tallies
            .iter()
            .find(|(l, _)| l == fwd_link)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| QueueTally::new(self.warmup_ns));
        Ok(Summary::assemble(&self.tally, &queue, quantiles, totals))
    }
}

impl Observer for RunWriter {
    fn on_request(&mut self, r: RequestRecord) {
        if self.error.is_some() {
            return;
        }
        let mut res = self.requests.put(&r);
        if let (Ok(()), Some(t)) = (&res, self.tally.add(&r)) {
            res = self.rts.push(t);
        }
        self.keep(res);
    }

    fn on_queue_row(&mut self, r: QueueRow) {
        if self.error.is_some() {
            return;
        }
        match self.queue_tallies.iter_mut().find(|(l, _)| *l == r.link) {
            Some((_, t)) => t.add(&r),
            None => {
                let mut t = QueueTally::new(self.warmup_ns);
                t.add(&r);
                self.queue_tallies.push((r.link.clone(), t));
            }
        }
        let res = self.queue.push(r);
        self.keep(res);
    }

    fn on_link_row(&mut self, r: LinkRow) {
        if self.error.is_some() {
            return;
        }
        let res = self.links.push(r);
        self.keep(res);
    }
}
