//! Exact order statistics of many u64 values with bounded memory: the values (response times,
//! ns) are appended to a scratch file as they come, and `select` finds the values of given
//! ranks (0-based, in ascending order) by radix selection: one pass per 16-bit digit from the
//! highest digit any value uses, each pass counting, for every wanted rank, the values that
//! share the digits found so far, in 65,536 bins (ranks that share them share the bins). The
//! result is exactly the value a full sort would put at that rank. Memory: at most one bin
//! array per wanted rank (0.5 MiB each) and a read buffer; time: at most four reads of the
//! file.

use crate::error::StoreError;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const DIGIT: u32 = 16;
const BINS: usize = 1 << DIGIT;

/// Values appended to a scratch file, for exact rank selection.
pub struct ValueSpool {
    path: PathBuf,
    out: BufWriter<File>,
    n: u64,
    max: u64,
}

impl ValueSpool {
    /// A new, empty scratch file at `path` (replaced if it exists).
    pub fn create(path: &Path) -> Result<Self, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| StoreError::at(path, e))?;
        Ok(ValueSpool {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 16, file),
            n: 0,
            max: 0,
        })
    }

    /// Values appended so far.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True if no value was appended.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Append `v`.
    pub fn push(&mut self, v: u64) -> Result<(), StoreError> {
        self.n += 1;
        self.max = self.max.max(v);
        self.out
            .write_all(&v.to_le_bytes())
            .map_err(|e| StoreError::at(&self.path, e))
    }

    /// The values at 0-based ranks `ranks` (each < `len()`) of the values in ascending order,
    /// then delete the scratch file.
    pub fn select(self, ranks: &[u64]) -> Result<Vec<u64>, StoreError> {
        let path = self.path.clone();
        let e = |err: std::io::Error| StoreError::at(&path, err);
        assert!(ranks.iter().all(|&r| r < self.n), "rank beyond the values");
        let mut file = self.out.into_inner().map_err(|err| e(err.into_error()))?;
        // Digits above the largest value's are zero for every value: start below them.
        let bits = 64 - self.max.leading_zeros();
        let passes = bits.div_ceil(DIGIT).max(1);
        let mut prefix = vec![0u64; ranks.len()];
        let mut rest = ranks.to_vec();
        // Ranks whose digits found so far are the same share one bin array (all of them in
        // the first pass): a value is counted once, in the group of the prefix it has, if any.
        let mut groups: Vec<u64> = Vec::with_capacity(ranks.len());
        let mut bins: Vec<u64> = Vec::new();
        let mut buf = vec![0u8; 8 << 13];
        for pass in (0..passes).rev() {
            let shift = pass * DIGIT;
            groups.clear();
            groups.extend_from_slice(&prefix);
            groups.sort_unstable();
            groups.dedup();
            bins.clear();
            bins.resize(groups.len() * BINS, 0);
            file.seek(SeekFrom::Start(0)).map_err(e)?;
            let mut left = self.n as usize * 8;
            while left > 0 {
                let chunk = &mut buf[..left.min(8 << 13)];
                file.read_exact(chunk).map_err(e)?;
                left -= chunk.len();
                for b in chunk.chunks_exact(8) {
                    let v = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                    let high = v.checked_shr(shift + DIGIT).unwrap_or(0);
                    if let Some(g) = groups.iter().position(|&p| p == high) {
                        bins[g * BINS + ((v >> shift) as usize & (BINS - 1))] += 1;
                    }
                }
            }
            for i in 0..ranks.len() {
                let g = groups
                    .binary_search(&prefix[i])
                    .expect("a group per prefix");
                let counts = &bins[g * BINS..(g + 1) * BINS];
                let mut below = 0u64;
                let d = counts
                    .iter()
                    .position(|&c| {
                        below += c;
                        below > rest[i]
                    })
                    .expect("the rank lies within the counted values");
                rest[i] -= below - counts[d];
                prefix[i] = (prefix[i] << DIGIT) | d as u64;
            }
        }
        drop(file);
        std::fs::remove_file(&path).map_err(e)?;
        Ok(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spool(values: &[u64], name: &str) -> ValueSpool {
        let dir = std::env::temp_dir().join(format!("aqmlab-select-{}-{name}", std::process::id()));
        let mut s = ValueSpool::create(&dir).unwrap();
        values.iter().for_each(|&v| s.push(v).unwrap());
        s
    }

    #[test]
    fn select_agrees_with_sorting_across_digit_boundaries() {
        // Values sharing high digits, values differing only in the lowest digit, duplicates,
        // zero, u64::MAX, and values straddling 2^16, 2^32 and 2^48.
        let mut v: Vec<u64> = vec![
            0,
            0,
            1,
            u64::MAX,
            65_535,
            65_536,
            65_537,
            1 << 32,
            (1 << 32) - 1,
        ];
        v.extend([
            (1 << 48) + 5,
            (1 << 48) - 5,
            42,
            42,
            42,
            7 << 40,
            (7 << 40) + 1,
        ]);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x >> (x % 50)); // many magnitudes
        }
        let mut sorted = v.clone();
        sorted.sort_unstable();
        let ranks: Vec<u64> = (0..v.len() as u64)
            .step_by(97)
            .chain([v.len() as u64 - 1])
            .collect();
        let got = spool(&v, "mixed").select(&ranks).unwrap();
        let want: Vec<u64> = ranks.iter().map(|&r| sorted[r as usize]).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn select_small_values_one_pass_and_deletes_the_file() {
        let s = spool(&[5, 3, 9, 3], "small");
        let path = s.path.clone();
        assert_eq!(s.select(&[0, 1, 2, 3]).unwrap(), vec![3, 3, 5, 9]);
        assert!(!path.exists());
        let z = spool(&[0, 0], "zeros");
        assert_eq!(z.select(&[1]).unwrap(), vec![0]);
    }

    /// Ranks in any order and repeated, whose values share every digit but the last, or the
    /// highest only: they share bins in some passes and not in others.
    #[test]
    fn select_ranks_in_any_order_sharing_digits() {
        let base = 3u64 << 40;
        let v = [base + 7, base + 1, base + (5 << 16), base, 9, base + 1];
        // Sorted: 9, base, base + 1, base + 1, base + 7, base + (5 << 16).
        let got = spool(&v, "shared").select(&[4, 0, 4, 2, 5, 1, 3]).unwrap();
        assert_eq!(
            got,
            vec![
                base + 7,
                9,
                base + 7,
                base + 1,
                base + (5 << 16),
                base,
                base + 1
            ]
        );
    }
}
