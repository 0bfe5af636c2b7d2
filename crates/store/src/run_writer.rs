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
/// Batches waiting for the writer thread at most (the engine waits beyond). Batches are
/// reused, so the most ever waiting stays allocated: 32 held ≈ 6 MiB more at the end of long
/// runs, whose row groups keep the thread busy for longer now and then.
const QUEUED: usize = 8;

/// Blocks of 128 KiB and more are mapped for themselves and unmapped when freed (glibc's
/// `M_MMAP_THRESHOLD`, for the whole process, set once). The default threshold rises to the
/// largest block freed, after which the writer thread's buffers (a requests group's 26
/// columns of compressed pages, and the pages being filled, each grown by doubling) come from
/// its arena and leave it fragmented, so the peak memory grows with the simulated time
/// (`bench/memory_flat.py`; figures in bench/HISTORY.md). The threshold matches the pages
/// (`table_file::PAGE_BYTES`). Elsewhere (not glibc) nothing is done.
fn large_blocks_mapped() {
    #[cfg(target_env = "gnu")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only changes the allocator's parameters; it is thread-safe.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        });
    }
}

/// What the engine's side sends the writer thread.
enum Msg {
    Batch(Batch),
    NotMeasured(Vec<String>),
    /// The last batch, the forward bottleneck's name and the run-wide totals (boxed: the
    /// largest message by far, sent once).
    Finish(Batch, String, Box<SummaryTotals>),
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
    /// A request record was handed over.
    any_request: bool,
    /// Link names sent to the thread, by index (`sink::Batch`).
    link_names: Vec<String>,
}

impl RunWriter {
    /// Start writing into the existing directory `dir` for a run whose warm-up ends at
    /// `warmup_ns`.
    pub fn create(dir: &Path, warmup_ns: u64) -> Result<Self, StoreError> {
        large_blocks_mapped();
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
            any_request: false,
            link_names: Vec::new(),
        })
    }

    /// Declare the request columns `columns` not measured: `requests.parquet` holds nulls in
    /// them (every row) instead of the records' values, and lists them in its footer. Replaces
    /// an earlier declaration; after the first request record, or with a name that is not a
    /// requests column (named in the message), it is an error and changes nothing.
    pub fn declare_not_measured(&mut self, columns: &[&str]) -> Result<(), StoreError> {
        if self.any_request {
            return Err(StoreError(
                "requests: columns declared not measured after the first record".into(),
            ));
        }
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

    /// The index of `link` (dropped here, on the engine's thread), named to the thread in
    /// the batch if new.
    fn link_index(&mut self, link: String) -> u32 {
        match self.link_names.iter().position(|l| *l == link) {
            Some(i) => i as u32,
            None => {
                self.batch.new_links.push(link.clone());
                self.link_names.push(link);
                (self.link_names.len() - 1) as u32
            }
        }
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
        let last = std::mem::take(&mut self.batch);
        self.send(Msg::Finish(last, fwd_link.to_string(), Box::new(*totals)));
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
            Ok(Msg::Finish(mut last, fwd_link, totals)) => {
                return sink.finish(&mut last, &fwd_link, &totals)
            }
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
        self.any_request = true;
        if self.tx.is_some() {
            self.batch.requests.push(r);
            self.added();
        }
    }

    fn on_queue_row(&mut self, mut r: QueueRow) {
        if self.tx.is_some() {
            let i = self.link_index(std::mem::take(&mut r.link));
            self.batch.queue.push((i, r));
            self.added();
        }
    }

    fn on_link_row(&mut self, mut r: LinkRow) {
        if self.tx.is_some() {
            let i = self.link_index(std::mem::take(&mut r.link));
            self.batch.links.push((i, r));
            self.added();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::TableRow;
    use metrics::RequestKind;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    fn rec(id: u64) -> RequestRecord {
        RequestRecord {
            id,
            conn_id: id,
            workload: (id % 3) as u32,
            kind: RequestKind::Http,
            page: id / 4,
            client: (id % 7) as u32,
            server: (id % 11) as u32,
            start_ns: id * 1_000_000,
            end_ns: id * 1_000_000 + 1 + (id * 7919) % 3_000_000_000,
            request_bytes: 300,
            response_bytes: 1000 + (id * 104_729) % 2_000_000,
            base_rtt_ns: 20_000_000 + id % 150_000_000,
            completed: !id.is_multiple_of(17),
            data_retx: (id % 5) as u32,
            ..Default::default()
        }
    }

    /// Ids `0..n` in an order an engine could hand them over: runs of 500 reversed, every
    /// 13th id ~3000 ids late.
    fn arrivals(n: u64) -> Vec<u64> {
        let mut order: Vec<u64> = (0..n).filter(|i| !i.is_multiple_of(13)).collect();
        for c in order.chunks_mut(500) {
            c.reverse();
        }
        let mut late: Vec<u64> = (0..n).filter(|i| i.is_multiple_of(13)).collect();
        let mut out = Vec::new();
        for id in order {
            out.push(id);
            while !late.is_empty() && late[0] + 3000 < id {
                out.push(late.remove(0));
            }
        }
        out.extend(late);
        out
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("aqmlab-rw-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn totals() -> SummaryTotals {
        SummaryTotals {
            measured_ns: 1_000_000_000,
            bottleneck_bps: 10_000_000,
            ..Default::default()
        }
    }

    /// Write `ids`' records (with a queue and a link row every 100 records) through a writer
    /// thread fed batches of `batch`, `queued` waiting at most, its sink given `hook`.
    fn write(
        d: &Path,
        ids: &[u64],
        batch: usize,
        queued: usize,
        hook: Option<crate::sink::TakeHook>,
    ) -> Result<Summary, StoreError> {
        let mut sink = Sink::create(d, 0).unwrap();
        sink.on_take = hook;
        let mut w = RunWriter::with_batches(sink, batch, queued).unwrap();
        for (k, &id) in ids.iter().enumerate() {
            w.on_request(rec(id));
            if k % 100 == 0 {
                let t_ns = k as u64 * 1000;
                w.on_queue_row(QueueRow {
                    link: "bottleneck_fwd".into(),
                    t_ns,
                    forwarded: k as u64,
                    early_drops: 0,
                    forced_drops: k as u64 / 50,
                    overflow_drops: 0,
                    dequeue_drops: 0,
                    marks: 0,
                    min_qlen: 0,
                    max_qlen: (k % 120) as u32,
                    mean_qlen: k as f64 / 7.0,
                    var_qlen: 1.5,
                });
                w.on_link_row(LinkRow {
                    link: "bottleneck_fwd".into(),
                    t_ns,
                    bytes: k as u64 * 3,
                    packets: k as u64,
                });
            }
        }
        w.finish("bottleneck_fwd", &totals())
    }

    fn files(d: &Path) -> Vec<Vec<u8>> {
        ["requests", "queue", "links"]
            .iter()
            .map(|t| std::fs::read(d.join(format!("{t}.parquet"))).unwrap())
            .collect()
    }

    #[test]
    fn same_bytes_and_summary_whatever_the_batching_and_the_threads_timing() {
        // Two whole row groups of requests and part of a third, so groups are written while
        // records still arrive.
        let n = 2 * RequestRecord::GROUP_ROWS as u64 + 5000;
        let ids = arrivals(n);
        let last = *ids.last().unwrap();
        let a = dir("det-a");
        let sa = write(&a, &ids, BATCH, QUEUED, None).unwrap();
        // One record a batch, one batch waiting, a thread that now and then stalls: and,
        // when it takes the last record, two row groups are already in the file.
        let b = dir("det-b");
        let part = b.join("requests.parquet.part");
        let size_at_last = Arc::new(AtomicU64::new(0));
        let seen = size_at_last.clone();
        let hook = move |r: &RequestRecord| {
            if r.id.is_multiple_of(20_011) {
                std::thread::sleep(Duration::from_millis(3));
            }
            if r.id == last {
                let len = std::fs::metadata(&part).map_or(0, |m| m.len());
                seen.store(len, Ordering::SeqCst);
            }
        };
        let sb = write(&b, &ids, 1, 1, Some(Box::new(hook))).unwrap();
        let c = dir("det-c");
        let sc = write(&c, &ids, 37, 3, None).unwrap();
        let json = |s: &Summary| serde_json::to_string(s).unwrap();
        assert_eq!(json(&sa), json(&sb));
        assert_eq!(json(&sa), json(&sc));
        assert!(files(&a) == files(&b), "bytes differ (batch 1)");
        assert!(files(&a) == files(&c), "bytes differ (batch 37)");
        let group_bytes = files(&a)[0].len() as u64 / 3;
        assert!(
            size_at_last.load(Ordering::SeqCst) > group_bytes,
            "two row groups written during the run: {} bytes",
            size_at_last.load(Ordering::SeqCst)
        );
        assert_eq!(sa.responses_started, n);
        for d in [a, b, c] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn an_error_in_the_writer_thread_is_returned_by_finish_and_the_run_goes_on() {
        let d = dir("error");
        let ids: Vec<u64> = (0..20_000).collect();
        let sink = Sink::create(&d, 0).unwrap();
        let mut w = RunWriter::with_batches(sink, 1, 1).unwrap();
        for &id in &ids {
            let mut r = rec(id);
            if id == 1500 {
                r.request_bytes = 1 << 63;
            }
            w.on_request(r);
        }
        assert!(
            w.tx.is_none(),
            "the thread ended at the error, the engine goes on"
        );
        let e = w.finish("bottleneck_fwd", &totals()).unwrap_err();
        assert!(
            e.0.starts_with("requests.request_bytes: the value 9223372036854775808 does not fit"),
            "{e}"
        );
        assert!(!d.join("requests.parquet").exists());
        std::fs::remove_dir_all(d).unwrap();
    }

    /// The finish's two threads (`sink.rs`): a table that cannot take its final name fails
    /// the finish with its path, whichever thread wrote it, and the other thread's tables are
    /// still complete; when both fail, the queue and link tables' error is the one returned.
    #[test]
    fn an_error_on_either_thread_of_the_finish_names_its_file() {
        let ids: Vec<u64> = (0..3000).collect();
        for (name, blocked, complete) in [
            ("requests", &["requests"][..], &["queue", "links"][..]),
            ("queue", &["queue"][..], &["requests"][..]),
            ("both", &["requests", "links"][..], &["queue"][..]),
        ] {
            let d = dir(&format!("finish-{name}"));
            // A directory under the final name: the rename onto it fails.
            for t in blocked {
                std::fs::create_dir_all(d.join(format!("{t}.parquet/x"))).unwrap();
            }
            let e = write(&d, &ids, BATCH, QUEUED, None).unwrap_err();
            let first = if blocked.len() == 2 {
                "links"
            } else {
                blocked[0]
            };
            assert!(
                e.0.starts_with(&d.join(format!("{first}.parquet")).display().to_string()),
                "{name}: {e}"
            );
            for t in complete {
                assert!(d.join(format!("{t}.parquet")).is_file(), "{name}: {t}");
            }
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn a_panic_in_the_writer_thread_is_an_error_of_finish_not_a_hang() {
        let d = dir("panic");
        let ids: Vec<u64> = (0..10_000).collect();
        let hook = |r: &RequestRecord| {
            if r.id == 3000 {
                panic!("injected at id 3000");
            }
        };
        let e = write(&d, &ids, 1, 1, Some(Box::new(hook))).unwrap_err();
        assert_eq!(e.0, "the writer thread panicked: injected at id 3000");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_run_dropped_unfinished_stops_the_thread_and_finishes_no_file() {
        let d = dir("dropped");
        let sink = Sink::create(&d, 0).unwrap();
        let mut w = RunWriter::with_batches(sink, 10, 2).unwrap();
        for id in 0..5000 {
            w.on_request(rec(id));
        }
        drop(w); // joins the thread
        for t in ["requests", "queue", "links"] {
            assert!(!d.join(format!("{t}.parquet")).exists(), "{t}");
        }
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn columns_are_declared_not_measured_before_the_first_record_only() {
        let d = dir("declare");
        let mut w = RunWriter::create(&d, 0).unwrap();
        w.declare_not_measured(&["fast_retx"]).unwrap();
        assert_eq!(w.not_measured(), ["fast_retx"]);
        w.on_request(rec(0));
        let e = w.declare_not_measured(&["timeouts"]).unwrap_err();
        assert_eq!(
            e.0,
            "requests: columns declared not measured after the first record"
        );
        assert_eq!(w.summary_keys_not_measured(), Vec::<&str>::new());
        w.finish("bottleneck_fwd", &totals()).unwrap();
        std::fs::remove_dir_all(d).unwrap();
    }
}
