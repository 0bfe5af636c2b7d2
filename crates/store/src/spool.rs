//! Request records put back into id order with bounded memory. The engine hands records over
//! when their exchange ends, so ids arrive out of order (an endless bulk flow opened first
//! ends with the run); the requests table is in id order. Each record is stored at a fixed
//! place in a scratch file, slot `id` (`REC` bytes, the id itself implied by the slot), through
//! a window of `WINDOW` slots kept in memory: a record inside the window is copied there, one
//! beyond it writes the window out and moves it, one before it (a late record) is written in
//! place. The records come back in id order, skipping empty slots (an id never used): during
//! the run those of a prefix of ids known final (`take_prefix`, see `frontier.rs`), at the end
//! the rest (`drain`, which deletes the file). Memory: the window (`WINDOW × REC` ≈ 0.5 MiB)
//! and a read buffer, whatever the number of records; disk: `REC` bytes per record until
//! `drain` deletes the file.

use crate::error::StoreError;
use metrics::{RequestKind, RequestRecord};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes of one slot: 9 u64 fields, 14 u32 fields, one flag byte (0 = empty slot, else
/// 1 + kind index, + 4 if completed).
pub const REC: usize = 9 * 8 + 14 * 4 + 1;
/// Slots kept in memory.
pub const WINDOW: u64 = 4096;
/// Slots read from the file at once.
const READ_SLOTS: usize = 512;

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

    /// Store `r` in slot `r.id`.
    pub fn put(&mut self, r: &RequestRecord) -> Result<(), StoreError> {
        let mut slot = [0u8; REC];
        encode(r, &mut slot);
        if r.id < self.base {
            self.write_at(r.id, &slot)?;
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
        let e = io_err(&self.path);
        self.file
            .seek(SeekFrom::Start(slot * REC as u64))
            .map_err(&e)?;
        self.file.write_all(bytes).map_err(&e)
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
    fn two_records_with_one_id_are_an_error() {
        let mut s = RequestSpool::create(&path("dup")).unwrap();
        s.put(&rec(3)).unwrap();
        s.put(&rec(3)).unwrap();
        let e = s.drain(|_| Ok(())).unwrap_err();
        assert_eq!(e.0, "requests: 2 records but 1 distinct ids");
    }
}
