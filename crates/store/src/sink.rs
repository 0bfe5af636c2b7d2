//! What the writer thread does with a run's records (`run_writer.rs` hands them over in
//! batches): queue and link rows go straight to their Parquet files row group by row group;
//! request records go to the id-ordered scratch file (`spool.rs`), and come back out of it
//! into `requests.parquet` as soon as their ids are final (`frontier.rs`): during the run
//! those below the completed prefix of ids, at the end the rest;
//! the summary's counts are running totals (`metrics::tally`) and its response-time quantiles
//! exact order statistics of the response times spooled to a second scratch file
//! (`select.rs`). The rows, their order and the row groups are those of writing the whole
//! table at the end (one group every `GROUP_ROWS` rows in id order), so the bytes are too,
//! whenever the rows are encoded (`column_chunks.rs`).

use crate::error::StoreError;
use crate::frontier::Frontier;
use crate::select::ValueSpool;
use crate::spool::RequestSpool;
use crate::table_file::TableFile;
use metrics::{
    summary_ranks, LinkRow, QueueRow, QueueTally, RequestRecord, RequestTally, Summary,
    SummaryTotals,
};
use std::path::{Path, PathBuf};

/// Scratch file names inside the run directory (deleted by `finish`).
const REQUEST_SPOOL: &str = "requests.spool.part";
const RT_SPOOL: &str = "response_times.spool.part";

/// Records and rows handed to the writer thread at once, each table's in the order produced.
/// A row's link name crosses as an index into the names sent so far, its `link` left empty:
/// a string made by the engine's thread and freed by the writer's takes the engine
/// allocator's lock from the other core (glibc's arenas), hundreds of lock waits a run.
#[derive(Debug, Default)]
pub struct Batch {
    /// Request records, in the order the engine handed them over.
    pub requests: Vec<RequestRecord>,
    /// Queue-monitor rows, with their link's index.
    pub queue: Vec<(u32, QueueRow)>,
    /// Link-monitor rows, with their link's index.
    pub links: Vec<(u32, LinkRow)>,
    /// Link names first used in this batch, in index order after those of earlier batches.
    pub new_links: Vec<String>,
}

impl Batch {
    /// Records and rows held.
    pub fn len(&self) -> usize {
        self.requests.len() + self.queue.len() + self.links.len()
    }

    /// True if nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Tests only: what the thread calls with each request record it takes.
#[cfg(test)]
pub type TakeHook = Box<dyn FnMut(&RequestRecord) + Send>;

/// The writer thread's state: the run's open files and running totals.
pub struct Sink {
    dir: PathBuf,
    spool: RequestSpool,
    /// Ids whose record has arrived.
    ids: Frontier,
    /// `requests.parquet`, created when its first group is written.
    requests: Option<TableFile<RequestRecord>>,
    rts: ValueSpool,
    tally: RequestTally,
    /// Link names by index (`Batch`).
    link_names: Vec<String>,
    /// Per monitored link (a handful): the running queue totals.
    queue_tallies: Vec<(String, QueueTally)>,
    queue: TableFile<QueueRow>,
    links: TableFile<LinkRow>,
    warmup_ns: u64,
    /// Request columns written as nulls, in schema order.
    not_measured: Vec<String>,
    /// Tests only: called with each request record taken (to slow the thread or panic).
    #[cfg(test)]
    pub on_take: Option<TakeHook>,
}

impl Sink {
    /// Open the scratch files and the queue and link tables in the existing directory `dir`,
    /// for a run whose warm-up ends at `warmup_ns`.
    pub fn create(dir: &Path, warmup_ns: u64) -> Result<Self, StoreError> {
        Ok(Sink {
            dir: dir.to_path_buf(),
            spool: RequestSpool::create(&dir.join(REQUEST_SPOOL))?,
            ids: Frontier::new(),
            requests: None,
            rts: ValueSpool::create(&dir.join(RT_SPOOL))?,
            tally: RequestTally::new(warmup_ns),
            link_names: Vec::new(),
            queue_tallies: Vec::new(),
            queue: TableFile::create(dir)?,
            links: TableFile::create(dir)?,
            warmup_ns,
            not_measured: Vec::new(),
            #[cfg(test)]
            on_take: None,
        })
    }

    /// Write the request columns `columns` (checked, in schema order) as nulls; an error once
    /// a row group of the requests table is written.
    pub fn set_not_measured(&mut self, columns: Vec<String>) -> Result<(), StoreError> {
        if self.requests.is_some() {
            return Err(StoreError(
                "requests: columns declared not measured after rows were written".into(),
            ));
        }
        self.not_measured = columns;
        Ok(())
    }

    /// Take every record and row of `b` (leaving it empty), then write the request rows that
    /// became final.
    pub fn take(&mut self, b: &mut Batch) -> Result<(), StoreError> {
        self.accept(b)?;
        self.write_final_rows()
    }

    /// Take every record and row of `b` (leaving it empty): request records into the spool and
    /// the tallies, queue and link rows into their tables.
    fn accept(&mut self, b: &mut Batch) -> Result<(), StoreError> {
        for r in b.requests.drain(..) {
            #[cfg(test)]
            if let Some(f) = &mut self.on_take {
                f(&r);
            }
            self.spool.put(&r)?;
            self.ids.mark(r.id);
            if let Some(t) = self.tally.add(&r) {
                self.rts.push(t)?;
            }
        }
        self.link_names.append(&mut b.new_links);
        for (i, mut r) in b.queue.drain(..) {
            r.link = self.link_name(i)?;
            match self.queue_tallies.iter_mut().find(|(l, _)| *l == r.link) {
                Some((_, t)) => t.add(&r),
                None => {
                    let mut t = QueueTally::new(self.warmup_ns);
                    t.add(&r);
                    self.queue_tallies.push((r.link.clone(), t));
                }
            }
            self.queue.push(r)?;
        }
        for (i, mut r) in b.links.drain(..) {
            r.link = self.link_name(i)?;
            self.links.push(r)?;
        }
        Ok(())
    }

    fn link_name(&self, i: u32) -> Result<String, StoreError> {
        self.link_names
            .get(i as usize)
            .cloned()
            .ok_or_else(|| StoreError(format!("link index {i} never named")))
    }

    /// Write the request rows below the completed prefix of ids, in id order.
    fn write_final_rows(&mut self) -> Result<(), StoreError> {
        let to = self.ids.prefix();
        if to > self.spool.taken() {
            let table = requests_table(&mut self.requests, &self.dir, &self.not_measured)?;
            self.spool.take_prefix(to, |r| table.push(r))?;
        }
        Ok(())
    }

    /// Take the last batch `last`, write the rest of the requests table, close every file
    /// (renamed to its final name) and return the run summary, for forward bottleneck
    /// `fwd_link` and the run-wide `totals`. The requests table's last rows and group are
    /// written on this thread while a second one closes the queue and link tables and selects
    /// the response-time quantiles: the run is over, so the engine's core is free, and the four
    /// are independent (a shorter tail after the engine; bench/HISTORY.md). The
    /// last batch's request records are written with the rest, on this thread, not before the
    /// second starts: the connections the run's end closes complete the prefix of ids, which
    /// puts thousands of spooled records into that batch (quickstart: 13 ms of writing).
    /// An error of either thread is returned, the queue and link tables' first.
    pub fn finish(
        mut self,
        last: &mut Batch,
        fwd_link: &str,
        totals: &SummaryTotals,
    ) -> Result<Summary, StoreError> {
        self.accept(last)?;
        requests_table(&mut self.requests, &self.dir, &self.not_measured)?;
        let mut requests = self.requests.take().expect("just created");
        let ranks = summary_ranks(self.tally.started, self.tally.completed);
        let wanted = ranks.clone();
        let (queue, links, rts, spool) = (self.queue, self.links, self.rts, self.spool);
        let (others, own) = std::thread::scope(|scope| {
            let others = std::thread::Builder::new()
                .name("aqmlab-writer-2".into())
                .spawn_scoped(scope, move || -> Result<Vec<u64>, StoreError> {
                    queue.finish()?;
                    links.finish()?;
                    rts.select(&ranks)
                });
            let own = spool
                .drain(|r| requests.push(r))
                .and_then(|()| requests.finish());
            let others = match others {
                Ok(handle) => handle.join().unwrap_or_else(|_| {
                    Err(StoreError("the second writer thread panicked".into()))
                }),
                Err(e) => Err(StoreError(format!(
                    "cannot start a second writer thread: {e}"
                ))),
            };
            (others, own)
        });
        let values = others?;
        own?;
        let rt_at = |rank: u64| {
            let i = wanted.binary_search(&rank).expect("one of summary_ranks");
            values[i]
        };
        let queue = self
            .queue_tallies
            .iter()
            .find(|(l, _)| l == fwd_link)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| QueueTally::new(self.warmup_ns));
        Ok(Summary::assemble(&self.tally, &queue, &rt_at, totals))
    }
}

/// The requests table in `t`, created (in `dir`, columns `not_measured` as nulls) if not yet.
fn requests_table<'t>(
    t: &'t mut Option<TableFile<RequestRecord>>,
    dir: &Path,
    not_measured: &[String],
) -> Result<&'t mut TableFile<RequestRecord>, StoreError> {
    if t.is_none() {
        let cols: Vec<&str> = not_measured.iter().map(String::as_str).collect();
        *t = Some(TableFile::create_not_measured(dir, &cols)?);
    }
    Ok(t.as_mut().expect("just created"))
}
