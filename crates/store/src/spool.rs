//! Request records put back into id order with bounded memory. The engine hands records over
//! when their exchange ends, so ids arrive out of order (an endless bulk flow opened first
//! ends with the run); the requests table is in id order. Each record is stored at a fixed
//! place in a scratch file, slot `id` (`REC` bytes, the id itself implied by the slot), through
//! a window of `WINDOW` slots kept in memory: a record inside the window is copied there, one
//! beyond it writes the window out and moves it, one before it (a late record) waits in a
//! sorted buffer of at most `LATE_MAX` records. A prefix taken reads the late records it covers
//! from that buffer; a full buffer goes to the file in id order, slots close together in one
//! read-modify-write of the span between them. (Written one by one, the late records cost two
//! system calls each: 2,400 on the quickstart, 364,000 on `bench_1gbps`, where a connection
//! that lasts longer than the 0.18 s that 4,096 ids take at 22,500 connections/s is late.)
//! The records come back in id order, skipping empty slots (an id never used): during the run
//! those of a prefix of ids known final (`take_prefix`, see `frontier.rs`), at the end the rest
//! (`drain`, which deletes the file). Memory: the window (`WINDOW × REC` ≈ 0.5 MiB), the late
//! buffer (≤ `LATE_MAX` records, ≈ 0.6 MiB) and the read and span buffers, whatever the number
//! of records; disk: `REC` bytes per record until `drain` deletes the file.

use crate::error::StoreError;
use metrics::{RequestKind, RequestRecord};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes of one slot: 9 u64 fields, 14 u32 fields, one flag byte (0 = empty slot, else
/// 1 + kind index, + 4 if completed).
pub const REC: usize = 9 * 8 + 14 * 4 + 1;
/// Slots kept in memory.
pub const WINDOW: u64 = 4096;
/// Slots read from the file at once.
const READ_SLOTS: usize = 512;
/// Late records (below the window) held in memory before they are written to the file.
pub const LATE_MAX: usize = 4096;
/// Late records at most this many slots apart go to the file in one read-modify-write of the
/// span between them, a span of at most `SPAN_SLOTS` slots.
const SPAN_GAP: u64 = 64;
const SPAN_SLOTS: u64 = 4096;

/// The scratch file of request records by id.
pub struct RequestSpool {
    path: PathBuf,
    file: File,
    /// Slots `base .. base + WINDOW`.
    window: Vec<u8>,
    base: u64,
    /// One past the largest id stored (slots to read back).
    slots: u64,
    /// Records stored.
    stored: u64,
    /// Slots below this one were handed back (`take_prefix`).
    taken: u64,
    /// Records handed back.
    handed: u64,
    /// The read buffer (`READ_SLOTS` slots).
    buf: Vec<u8>,
    /// Late records not yet in the file, by id (all below `base`).
    late: BTreeMap<u64, [u8; REC]>,
    /// Writes to the file so far (system calls).
    file_writes: u64,
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> StoreError + '_ {
    move |e| StoreError::at(path, e)
}

impl RequestSpool {
    /// A new, empty scratch file at `path` (replaced if it exists).
    pub fn create(path: &Path) -> Result<Self, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(RequestSpool {
            path: path.to_path_buf(),
            file,
            window: vec![0; WINDOW as usize * REC],
            base: 0,
            slots: 0,
            stored: 0,
            taken: 0,
            handed: 0,
            buf: vec![0; READ_SLOTS * REC],
            late: BTreeMap::new(),
            file_writes: 0,
        })
    }

    /// Records stored so far.
    pub fn stored(&self) -> u64 {
        self.stored
    }

    /// Slots below this one were handed back by `take_prefix`.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Writes to the scratch file so far (each one system call).
    pub fn file_writes(&self) -> u64 {
        self.file_writes
    }

    /// Store `r` in slot `r.id`.
    pub fn put(&mut self, r: &RequestRecord) -> Result<(), StoreError> {
        let mut slot = [0u8; REC];
        encode(r, &mut slot);
        if r.id < self.base {
            self.late.insert(r.id, slot);
            if self.late.len() >= LATE_MAX {
                self.flush_late()?;
            }
        } else {
            if r.id >= self.base + WINDOW {
                self.flush_window()?;
                self.base = r.id - r.id % WINDOW;
            }
            let at = (r.id - self.base) as usize * REC;
            self.window[at..at + REC].copy_from_slice(&slot);
        }
        self.slots = self.slots.max(r.id + 1);
        self.stored += 1;
        Ok(())
    }

    fn write_at(&mut self, slot: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.file_writes += 1;
        self.file
            .write_all_at(bytes, slot * REC as u64)
            .map_err(io_err(&self.path))
    }

    /// Write the late records to the file, in id order: each run of records at most
    /// `SPAN_GAP` slots apart (and within `SPAN_SLOTS`) by reading the span they cover,
    /// filling their slots and writing it back; a lone record by itself.
    fn flush_late(&mut self) -> Result<(), StoreError> {
        let late = std::mem::take(&mut self.late);
        let mut span: Vec<(u64, [u8; REC])> = Vec::new();
        let mut bytes = Vec::new();
        let mut it = late.into_iter().peekable();
        while let Some(first) = it.next() {
            span.clear();
            span.push(first);
            while let Some(&(id, _)) = it.peek() {
                let last = span[span.len() - 1].0;
                if id - last > SPAN_GAP || id - span[0].0 >= SPAN_SLOTS {
                    break;
                }
                span.push(it.next().expect("peeked"));
            }
            let lo = span[0].0;
            if span.len() == 1 {
                self.write_at(lo, &span[0].1)?;
                continue;
            }
            let n = (span[span.len() - 1].0 - lo + 1) as usize;
            bytes.resize(n * REC, 0);
            read_at(&self.file, &mut bytes, lo * REC as u64).map_err(io_err(&self.path))?;
            for (id, slot) in &span {
                let at = (id - lo) as usize * REC;
                bytes[at..at + REC].copy_from_slice(slot);
            }
            let b = std::mem::take(&mut bytes);
            let r = self.write_at(lo, &b);
            bytes = b;
            r?;
        }
        Ok(())
    }

    /// Write the window's used slots out and empty it.
    fn flush_window(&mut self) -> Result<(), StoreError> {
        let used = self.slots.saturating_sub(self.base).min(WINDOW) as usize;
        if used > 0 {
            let bytes = std::mem::take(&mut self.window);
            let r = self.write_at(self.base, &bytes[..used * REC]);
            self.window = bytes;
            r?;
        }
        self.window.fill(0);
        Ok(())
    }

    /// Hand the records of slots `taken() .. to` to `each` in id order, and no more later: the
    /// caller knows no record below `to` can still arrive. An error of `each` stops the
    /// reading and is returned.
    pub fn take_prefix(
        &mut self,
        to: u64,
        mut each: impl FnMut(RequestRecord) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.read(to.min(self.slots), &mut each)
    }

    /// Slots `taken .. to` (`to` ≤ `slots`, so ≤ `base + WINDOW`): those below the window from
    /// the file, the others from the window.
    fn read(
        &mut self,
        to: u64,
        each: &mut impl FnMut(RequestRecord) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let from = self.taken;
        let in_file = to.min(self.base);
        let mut id = from;
        while id < in_file {
            let n = (in_file - id).min(READ_SLOTS as u64) as usize;
            let bytes = &mut self.buf[..n * REC];
            read_at(&self.file, bytes, id * REC as u64).map_err(io_err(&self.path))?;
            // Late records still in memory take their slots.
            for (&l, slot) in self.late.range(id..id + n as u64) {
                let at = (l - id) as usize * REC;
                bytes[at..at + REC].copy_from_slice(slot);
            }
            for slot in bytes.chunks_exact(REC) {
                if let Some(r) = decode(id, slot.try_into().expect("REC bytes")) {
                    self.handed += 1;
                    each(r)?;
                }
                id += 1;
            }
        }
        for id in from.max(self.base)..to {
            let at = (id - self.base) as usize * REC;
            let slot = self.window[at..at + REC].try_into().expect("REC bytes");
            if let Some(r) = decode(id, slot) {
                self.handed += 1;
                each(r)?;
            }
        }
        // Late records are all below `base`, so those below `to` were handed out above.
        self.late = self.late.split_off(&to);
        self.taken = self.taken.max(to);
        Ok(())
    }

    /// Hand every stored record not yet handed back to `each` in id order, then delete the
    /// scratch file. An error of `each` stops the reading and is returned.
    pub fn drain(
        mut self,
        mut each: impl FnMut(RequestRecord) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.read(self.slots, &mut each)?;
        std::fs::remove_file(&self.path).map_err(io_err(&self.path))?;
        if self.handed != self.stored {
            // Two records with one id would share a slot: the engine never does this.
            return Err(StoreError(format!(
                "requests: {} records but {} distinct ids",
                self.stored, self.handed
            )));
        }
        Ok(())
    }
}

/// Fill `buf` from `file` at `offset`; bytes beyond the end of the file (slots never written)
/// read as zeros (empty slots).
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => {
                buf[done..].fill(0);
                return Ok(());
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn encode(r: &RequestRecord, out: &mut [u8; REC]) {
    let u64s = [
        r.conn_id,
        r.page,
        r.start_ns,
        r.end_ns,
        r.request_bytes,
        r.response_bytes,
        r.server_delay_ns,
        r.base_rtt_ns,
        r.loss_cwnd_bytes,
    ];
    let u32s = [
        r.exchange,
        r.workload,
        r.client,
        r.server,
        r.syn_retx,
        r.fin_retx,
        r.data_retx,
        r.timeouts,
        r.fast_retx,
        r.ecn_reductions,
        r.loss_events,
        r.server_syn_retx,
        r.server_fin_retx,
        r.server_data_retx,
    ];
    let mut at = 0;
    for v in u64s {
        out[at..at + 8].copy_from_slice(&v.to_le_bytes());
        at += 8;
    }
    for v in u32s {
        out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        at += 4;
    }
    let kind = match r.kind {
        RequestKind::Http => 0,
        RequestKind::Bulk => 1,
    };
    out[at] = 1 + kind + 4 * r.completed as u8;
}

fn decode(id: u64, b: &[u8; REC]) -> Option<RequestRecord> {
    let flag = b[REC - 1];
    if flag == 0 {
        return None;
    }
    let w = |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let h = |i: usize| {
        let at = 72 + 4 * i;
        u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
    };
    Some(RequestRecord {
        id,
        conn_id: w(0),
        exchange: h(0),
        workload: h(1),
        kind: if (flag - 1) & 3 == 0 {
            RequestKind::Http
        } else {
            RequestKind::Bulk
        },
        page: w(1),
        client: h(2),
        server: h(3),
        start_ns: w(2),
        end_ns: w(3),
        request_bytes: w(4),
        response_bytes: w(5),
        server_delay_ns: w(6),
        base_rtt_ns: w(7),
        completed: flag & 4 != 0,
        syn_retx: h(4),
        fin_retx: h(5),
        data_retx: h(6),
        timeouts: h(7),
        fast_retx: h(8),
        ecn_reductions: h(9),
        loss_events: h(10),
        loss_cwnd_bytes: w(8),
        server_syn_retx: h(11),
        server_fin_retx: h(12),
        server_data_retx: h(13),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: u64) -> RequestRecord {
        RequestRecord {
            id,
            conn_id: id / 2,
            exchange: (id % 2) as u32,
            workload: 1,
            kind: if id.is_multiple_of(5) {
                RequestKind::Bulk
            } else {
                RequestKind::Http
            },
            page: id << 32 | 3,
            client: 4,
            server: 5,
            start_ns: id * 1000,
            end_ns: id * 1000 + 77,
            request_bytes: 300,
            response_bytes: if id == 7 { u64::MAX } else { id * 13 },
            server_delay_ns: 9,
            base_rtt_ns: 10,
            completed: !id.is_multiple_of(3),
            syn_retx: 1,
            fin_retx: 2,
            data_retx: 3,
            timeouts: 4,
            fast_retx: 5,
            ecn_reductions: 6,
            loss_events: 7,
            loss_cwnd_bytes: u64::MAX - id,
            server_syn_retx: 8,
            server_fin_retx: 9,
            server_data_retx: u32::MAX,
        }
    }

    fn path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("aqmlab-spool-{}-{name}", std::process::id()))
    }

    #[test]
    fn records_come_back_in_id_order_whatever_the_order_they_arrive() {
        // 5 windows of ids, 12_345 never used; id 0 arrives last (an endless flow), every
        // 10th id one window late, the rest in a scrambled order within runs of 100.
        let n = 5 * WINDOW + 17;
        let mut order: Vec<u64> = (1..n)
            .filter(|&i| i != 12_345 && !i.is_multiple_of(10))
            .collect();
        for chunk in order.chunks_mut(100) {
            chunk.reverse();
        }
        let mut late: Vec<u64> = (1..n).filter(|i| i.is_multiple_of(10)).collect();
        let mut arrivals = Vec::new();
        for (k, id) in order.iter().enumerate() {
            arrivals.push(*id);
            if k.is_multiple_of(9) && !late.is_empty() && late[0] + WINDOW < *id {
                arrivals.push(late.remove(0));
            }
        }
        arrivals.extend(late);
        arrivals.push(0);
        let mut s = RequestSpool::create(&path("order")).unwrap();
        for &id in &arrivals {
            s.put(&rec(id)).unwrap();
        }
        assert_eq!(s.stored(), n - 1);
        let mut got = Vec::new();
        s.drain(|r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        let want: Vec<RequestRecord> = (0..n).filter(|&i| i != 12_345).map(rec).collect();
        assert!(got == want, "records differ from id order");
        assert!(!path("order").exists());
    }

    #[test]
    fn prefixes_taken_during_the_run_and_the_drain_give_every_record_once_in_id_order() {
        // Ids arrive in scrambled runs of 300 with every 7th one late by ~1.5 windows; the
        // prefix is taken whenever it grows (from the file, the window, or both), and once
        // beyond the records stored.
        let n = 4 * WINDOW + 33;
        let mut arrivals: Vec<u64> = (0..n).filter(|i| !i.is_multiple_of(7)).collect();
        for chunk in arrivals.chunks_mut(300) {
            chunk.reverse();
        }
        let mut late: Vec<u64> = (0..n).filter(|i| i.is_multiple_of(7)).collect();
        let mut order = Vec::new();
        for id in arrivals {
            order.push(id);
            while !late.is_empty() && late[0] + 6000 < id {
                order.push(late.remove(0));
            }
        }
        order.extend(late);
        let mut s = RequestSpool::create(&path("prefix")).unwrap();
        let mut seen = vec![false; n as usize];
        let mut prefix = 0u64;
        let mut got = Vec::new();
        let mut takes = 0;
        for (k, &id) in order.iter().enumerate() {
            s.put(&rec(id)).unwrap();
            seen[id as usize] = true;
            while prefix < n && seen[prefix as usize] {
                prefix += 1;
            }
            if k % 500 == 0 && prefix > s.taken() {
                s.take_prefix(prefix, |r| {
                    got.push(r);
                    Ok(())
                })
                .unwrap();
                assert_eq!(s.taken(), prefix);
                takes += 1;
            }
        }
        assert!(
            takes > 5 && got.len() > WINDOW as usize,
            "prefixes were taken"
        );
        s.take_prefix(n + 100, |r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        s.drain(|r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        let want: Vec<RequestRecord> = (0..n).map(rec).collect();
        assert!(got == want, "records differ from id order");
    }

    #[test]
    fn late_records_are_written_by_spans_or_taken_from_memory() {
        // Two windows in order, then the first window's ids all late (dense): one full late
        // buffer, written as one span instead of 4,096 slot writes.
        let mut s = RequestSpool::create(&path("late")).unwrap();
        for id in WINDOW..3 * WINDOW {
            s.put(&rec(id)).unwrap();
        }
        let before = s.file_writes();
        assert_eq!(before, 1, "the first window went out when the second began");
        for id in (0..WINDOW).rev() {
            s.put(&rec(id)).unwrap();
        }
        assert_eq!(LATE_MAX as u64, WINDOW);
        assert_eq!(
            s.file_writes() - before,
            1,
            "one span for 4,096 late records"
        );
        // Late records taken as a prefix before the buffer fills never reach the file.
        for id in 3 * WINDOW..4 * WINDOW + 10 {
            s.put(&rec(id)).unwrap();
        }
        let mut got = Vec::new();
        s.take_prefix(WINDOW, |r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        let w = s.file_writes();
        s.put(&rec(4 * WINDOW + 20)).unwrap(); // ids 4 W + 10 .. + 20 missing: empty slots
        for id in 4 * WINDOW + 10..4 * WINDOW + 20 {
            s.put(&rec(id)).unwrap();
        }
        s.take_prefix(4 * WINDOW + 30, |r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(s.file_writes(), w, "late records handed out from memory");
        s.drain(|r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        let want: Vec<RequestRecord> = (0..4 * WINDOW + 21).map(rec).collect();
        assert!(got == want, "records differ from id order");
        // A lone late record far from the others is written by itself, the others by spans.
        let mut s = RequestSpool::create(&path("late2")).unwrap();
        for id in 2 * WINDOW..3 * WINDOW {
            s.put(&rec(id)).unwrap();
        }
        let w = s.file_writes();
        let mut ids: Vec<u64> = (0..LATE_MAX as u64 - 1)
            .map(|i| i / 2 * 3 + i % 2)
            .collect();
        ids.push(2 * WINDOW - 1);
        for &id in &ids {
            s.put(&rec(id)).unwrap();
        }
        // Ids 0 .. 6,141 in runs of two with one-slot gaps: two spans (4,096 slots each at
        // most), and the lone one (8,191).
        assert_eq!(s.file_writes() - w, 3);
        let mut got = Vec::new();
        s.drain(|r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        ids.extend(2 * WINDOW..3 * WINDOW);
        ids.sort();
        assert!(got == ids.iter().map(|&i| rec(i)).collect::<Vec<_>>());
    }

    #[test]
    fn two_records_with_one_id_are_an_error() {
        let mut s = RequestSpool::create(&path("dup")).unwrap();
        s.put(&rec(3)).unwrap();
        s.put(&rec(3)).unwrap();
        let e = s.drain(|_| Ok(())).unwrap_err();
        assert_eq!(e.0, "requests: 2 records but 1 distinct ids");
    }
}
