//! The observer that writes a run's tables to a directory as the run goes, and its summary at
//! the end, holding memory bounded by the open connections rather than by the records. The
//! engine's thread only gathers records and rows into batches; a writer thread of its own
//! (`sink.rs`) spools, totals and encodes them, so on a machine with a second core the
//! writing overlaps the simulation (issue 14): the requests table's row groups are written
//! as their ids become final, and what is left at `finish` is the last group, the queue and
//! link tables' last groups and the response-time selection. The summary is the one
//! `metrics::Summary::compute` gives for the same records (same values, bit for bit, while
//! the summed response time stays below 2^53 ns: see `metrics::tally`).
//!
//! Determinism: the thread sees every table's records in the order the engine produced them,
//! whatever the batching and the threads' timing, and what it writes depends only on that
//! order (`sink.rs`): the same run gives the same bytes.
//!
//! Columns not measured: an engine that cannot measure some request columns (the testbed)
//! declares them ([`RunWriter::declare_not_measured`], before its first request record); they
//! are written as nulls (`tables.rs`) and the summary keys that are their sums are named by
//! [`RunWriter::summary_keys_not_measured`], for the caller to write as null.
//!
//! Errors: the engine's observer interface cannot fail, so the first error of the writer
//! thread ends it, later records are dropped, and `finish` returns the error; a panic of the
//! thread is returned by `finish` as an error naming it (the engine never blocks on a thread
//! that is gone). Memory: at most `QUEUED + 2` batches of `BATCH` records in flight.

use crate::error::StoreError;
use crate::sink::{Batch, Sink};
use crate::tables::check_not_measured;
use metrics::{LinkRow, Observer, QueueRow, RequestRecord, Summary, SummaryTotals};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

/// The summary keys that are sums of the request column of the same name over the measured
/// requests (`metrics::tally::RequestTally`).
pub const SUMMARY_SUMS: [&str; 4] = ["syn_retx", "fin_retx", "data_retx", "timeouts"];

/// Records and rows per batch handed to the writer thread.
const BATCH: usize = 1024;
/// Batches waiting for the writer thread at most (the engine waits beyond): enough for the
/// records a fast engine produces while the thread encodes a row group of requests.
const QUEUED: usize = 32;

/// What the engine's side sends the writer thread.
enum Msg {
    Batch(Batch),
    NotMeasured(Vec<String>),
    Finish(String, SummaryTotals),
}

/// Writes `requests.parquet`, `queue.parquet` and `links.parquet` into one directory.
pub struct RunWriter {
    /// `None` once the writer thread has ended (an error or a panic there).
    tx: Option<SyncSender<Msg>>,
    /// Emptied batches coming back from the thread, for reuse.
    empties: Receiver<Batch>,
    batch: Batch,
    batch_len: usize,
    thread: Option<JoinHandle<Result<Summary, StoreError>>>,
    /// Request columns written as nulls, in schema order.
    not_measured: Vec<String>,
}

impl RunWriter {
    /// Start writing into the existing directory `dir` for a run whose warm-up ends at
    /// `warmup_ns`.
    pub fn create(dir: &Path, warmup_ns: u64) -> Result<Self, StoreError> {
        Self::with_batches(Sink::create(dir, warmup_ns)?, BATCH, QUEUED)
    }

    /// Hand `sink` to a writer thread fed batches of `batch_len` items, at most `queued`
    /// waiting.
    fn with_batches(sink: Sink, batch_len: usize, queued: usize) -> Result<Self, StoreError> {
        let (tx, rx) = mpsc::sync_channel(queued);
        let (back, empties) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("aqmlab-writer".into())
            .spawn(move || serve(sink, rx, back))
            .map_err(|e| StoreError(format!("cannot start the writer thread: {e}")))?;
        Ok(RunWriter {
            tx: Some(tx),
            empties,
            batch: Batch::default(),
            batch_len,
            thread: Some(thread),
            not_measured: Vec::new(),
        })
    }

    /// Declare the request columns `columns` not measured: `requests.parquet` holds nulls in
    /// them (every row) instead of the records' values, and lists them in its footer. Replaces
    /// an earlier declaration; must come before the first request record (else `finish`
    /// returns an error); a name that is not a requests column is an error naming it.
    pub fn declare_not_measured(&mut self, columns: &[&str]) -> Result<(), StoreError> {
        self.not_measured = check_not_measured::<RequestRecord>(columns)?;
        self.send_batch();
        self.send(Msg::NotMeasured(self.not_measured.clone()));
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

    /// Send `m`; if the thread has ended, drop it (`finish` reports why).
    fn send(&mut self, m: Msg) {
        if let Some(tx) = &self.tx {
            if tx.send(m).is_err() {
                self.tx = None;
            }
        }
    }

    fn send_batch(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let next = self.empties.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        self.send(Msg::Batch(full));
    }

    /// After adding to the batch: send it if full.
    fn added(&mut self) {
        if self.batch.len() >= self.batch_len {
            self.send_batch();
        }
    }

    /// Write the rest of the tables, close every file (renamed to its final name) and return
    /// the run summary, for forward bottleneck `fwd_link` and the run-wide `totals`.
    pub fn finish(mut self, fwd_link: &str, totals: &SummaryTotals) -> Result<Summary, StoreError> {
        self.send_batch();
        self.send(Msg::Finish(fwd_link.to_string(), *totals));
        self.tx = None;
        let thread = self.thread.take().expect("joined only here and in drop");
        match thread.join() {
            Ok(r) => r,
            Err(payload) => {
                let why = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".into());
                Err(StoreError(format!("the writer thread panicked: {why}")))
            }
        }
    }
}

/// The writer thread: take batches until `Finish` (the summary) or the first error; a run
/// dropped unfinished (an aborted run) ends it without finishing the files.
fn serve(mut sink: Sink, rx: Receiver<Msg>, back: Sender<Batch>) -> Result<Summary, StoreError> {
    loop {
        match rx.recv() {
            Ok(Msg::Batch(mut b)) => {
                sink.take(&mut b)?;
                let _ = back.send(b);
            }
            Ok(Msg::NotMeasured(cols)) => sink.set_not_measured(cols)?,
            Ok(Msg::Finish(fwd_link, totals)) => return sink.finish(&fwd_link, &totals),
            Err(_) => return Err(StoreError("the run was dropped unfinished".into())),
        }
    }
}

impl Drop for RunWriter {
    /// An unfinished run (an error or a panic in the engine): stop the thread and wait for
    /// it, so nothing writes into the directory afterwards.
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Observer for RunWriter {
    fn on_request(&mut self, r: RequestRecord) {
        if self.tx.is_some() {
            self.batch.requests.push(r);
            self.added();
        }
    }

    fn on_queue_row(&mut self, r: QueueRow) {
        if self.tx.is_some() {
            self.batch.queue.push(r);
            self.added();
        }
    }

    fn on_link_row(&mut self, r: LinkRow) {
        if self.tx.is_some() {
            self.batch.links.push(r);
            self.added();
        }
    }
}
