//! One Parquet table being written: rows are encoded into the row group being filled
//! (`column_chunks.rs`) a chunk of `TableRow::CHUNK_ROWS` at a time as they come, and the group
//! is written every `TableRow::GROUP_ROWS` rows, into `<TABLE>.parquet.part`, which `finish`
//! closes and renames to `<TABLE>.parquet` (a file under its final name is always complete).
//! Memory: a chunk of rows, and the group's compressed pages and pages being filled. Compression zstd
//! level 3 and min/max statistics per column chunk, without a page index (as the pyarrow writer
//! used before). Dictionary encoding only for the string columns `kind` and `link` (a handful
//! of values): the numeric columns (ids, times, sizes) are nearly all distinct, and a dictionary
//! there hashed every value before falling back to plain pages, which was half of the time
//! spent writing the quickstart's requests table and made the file 1.5× larger; the metadata of every row group (≈ 19 KB for the requests table) is held until
//! the file closes, to be written as its footer. No timestamp or path is written, so the same
//! rows give the same bytes. Columns declared not measured ([`TableFile::create_not_measured`])
//! are written as nulls and listed in the footer's key-value metadata under
//! [`NOT_MEASURED_KEY`] (a JSON list of names); a file without them has no such entry.

use crate::column_chunks::GroupColumns;
use crate::error::StoreError;
use crate::tables::{check_not_measured, TableRow};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The footer key-value metadata entry listing the columns not measured (JSON list).
pub const NOT_MEASURED_KEY: &str = "aqmlab.not_measured";

/// The column writers' `write_batch_size` (parquet's default): every `TableRow::CHUNK_ROWS` is
/// a multiple of it, so the pages and bytes are those of encoding each group whole
/// (`column_chunks.rs`).
pub const WRITE_BATCH: usize = 1024;

/// A table file being written.
pub struct TableFile<R: TableRow> {
    part: PathBuf,
    path: PathBuf,
    writer: SerializedFileWriter<BufWriter<File>>,
    /// Rows not yet encoded (fewer than `R::CHUNK_ROWS`).
    rows: Vec<R>,
    /// The row group being filled, and its rows encoded so far.
    group: Option<GroupColumns>,
    group_rows: usize,
    not_measured: Vec<String>,
}

impl<R: TableRow> TableFile<R> {
    /// Start `<dir>/<TABLE>.parquet` (written as `.part` until `finish`).
    pub fn create(dir: &Path) -> Result<Self, StoreError> {
        Self::create_not_measured(dir, &[])
    }

    /// As [`TableFile::create`], with the columns `not_measured` written as nulls in every row
    /// and listed in the footer ([`NOT_MEASURED_KEY`]); a name that is not a column of the
    /// table is an error.
    pub fn create_not_measured(dir: &Path, not_measured: &[&str]) -> Result<Self, StoreError> {
        let not_measured = check_not_measured::<R>(not_measured)?;
        let path = dir.join(format!("{}.parquet", R::TABLE));
        let part = dir.join(format!("{}.parquet.part", R::TABLE));
        let schema = parse_message_type(R::SCHEMA)
            .map_err(|e| StoreError(format!("{}: bad schema: {e}", R::TABLE)))?;
        let props = properties(&not_measured)?;
        let file = File::create(&part).map_err(|e| StoreError::at(&part, e))?;
        let writer =
            SerializedFileWriter::new(BufWriter::new(file), Arc::new(schema), Arc::new(props))
                .map_err(|e| StoreError::at(&part, e))?;
        Ok(TableFile {
            part,
            path,
            writer,
            rows: Vec::with_capacity(R::CHUNK_ROWS),
            group: None,
            group_rows: 0,
            not_measured,
        })
    }

    /// Append one row (written with the next full row group).
    pub fn push(&mut self, row: R) -> Result<(), StoreError> {
        self.rows.push(row);
        if self.rows.len() == R::CHUNK_ROWS {
            self.encode(false)?;
        }
        Ok(())
    }

    /// Encode the rows held into the group, and write the group if full; `end`: no row
    /// follows (the file ends).
    fn encode(&mut self, end: bool) -> Result<(), StoreError> {
        const {
            assert!(R::CHUNK_ROWS.is_multiple_of(WRITE_BATCH));
            assert!(R::GROUP_ROWS.is_multiple_of(R::CHUNK_ROWS));
        };
        if !self.rows.is_empty() {
            let w = &self.writer;
            let cols = self
                .group
                .get_or_insert_with(|| GroupColumns::new(w.schema_descr(), w.properties()));
            if end || self.group_rows + self.rows.len() == R::GROUP_ROWS {
                cols.last_chunk();
            }
            R::write_chunk(&self.rows, &self.not_measured, cols)?;
            self.group_rows += self.rows.len();
            self.rows.clear();
        }
        if self.group_rows == R::GROUP_ROWS {
            self.write_group()?;
        }
        Ok(())
    }

    /// Write the group being filled (if any) to the file.
    fn write_group(&mut self) -> Result<(), StoreError> {
        if let Some(cols) = self.group.take() {
            cols.append_to(&mut self.writer)
                .map_err(|e| StoreError::at(&self.part, e))?;
            release_freed_memory();
        }
        self.group_rows = 0;
        Ok(())
    }

    /// Write the last rows, close the file, flush it to the disk and give it its final name;
    /// returns that path. The flush (≈ 2.4 ms for 3 MB here) comes first so that a file under
    /// its final name survives a power cut whole, not as the empty or cut-off file the page
    /// cache might have left.
    pub fn finish(mut self) -> Result<PathBuf, StoreError> {
        self.encode(true)?;
        self.write_group()?;
        let part = self.part.clone();
        self.writer.finish().map_err(|e| StoreError::at(&part, e))?;
        self.writer
            .inner()
            .get_ref()
            .sync_all()
            .map_err(|e| StoreError::at(&part, e))?;
        std::fs::rename(&self.part, &self.path).map_err(|e| StoreError::at(&self.path, e))?;
        Ok(self.path)
    }
}

/// Return the memory freed with a row group's buffers to the system (glibc's `malloc_trim`;
/// elsewhere nothing is done): what the writer thread's arena keeps free between groups
/// otherwise adds to the process's peak as a long run goes on (`run_writer.rs`).
fn release_freed_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only returns free memory to the system; it may be called at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Largest data page before compression, bytes (parquet's default is 1 MiB): a column's page
/// is compressed when full, and what is not yet compressed when the run ends is compressed
/// after the engine has stopped, with nothing left to overlap it. At 1 MiB that was up to
/// 26 MiB of the requests table's last group (quickstart: 3.6 MB, 13 ms of the tail), and a
/// page being filled per column was held whole (26 MiB at most); at 128 KiB (16,384 values of
/// 8 bytes) it is at most 3.3 MiB either way, and the quickstart's files are 0.1 % larger.
pub const PAGE_BYTES: usize = 128 * 1024;

/// The writer properties of every table, with the footer entry listing `not_measured`.
fn properties(not_measured: &[String]) -> Result<WriterProperties, StoreError> {
    let zstd = ZstdLevel::try_new(3).map_err(|e| StoreError(e.to_string()))?;
    Ok(WriterProperties::builder()
        .set_compression(Compression::ZSTD(zstd))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true)
        .set_write_batch_size(WRITE_BATCH)
        .set_data_page_size_limit(PAGE_BYTES)
        .set_dictionary_enabled(false)
        .set_column_dictionary_enabled("kind".into(), true)
        .set_column_dictionary_enabled("link".into(), true)
        .set_key_value_metadata((!not_measured.is_empty()).then(|| {
            let names: Vec<String> = not_measured.iter().map(|c| format!("\"{c}\"")).collect();
            vec![KeyValue::new(
                NOT_MEASURED_KEY.to_string(),
                format!("[{}]", names.join(", ")),
            )]
        }))
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;
    use metrics::LinkRow;
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    fn link_row(i: u64) -> LinkRow {
        let link = if i.is_multiple_of(3) {
            "a"
        } else {
            "bottleneck_fwd"
        };
        LinkRow {
            link: link.into(),
            t_ns: i,
            bytes: i * 7 + (i * 7919) % 1000,
            packets: i % 11,
        }
    }

    #[test]
    fn a_table_file_gives_the_bytes_of_each_group_s_columns_written_whole_in_place() {
        let dir = std::env::temp_dir().join(format!("aqmlab-chunks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rows: Vec<LinkRow> = (0..2 * LinkRow::GROUP_ROWS as u64 + 777)
            .map(link_row)
            .collect();
        let mut f = TableFile::<LinkRow>::create(&dir).unwrap();
        for r in &rows {
            f.push(r.clone()).unwrap();
        }
        let chunked = std::fs::read(f.finish().unwrap()).unwrap();
        // The reference: each group's columns written whole, straight into the file.
        let schema = Arc::new(parse_message_type(LinkRow::SCHEMA).unwrap());
        let props = Arc::new(properties(&[]).unwrap());
        let mut w = SerializedFileWriter::new(Vec::new(), schema, props).unwrap();
        for g in rows.chunks(LinkRow::GROUP_ROWS) {
            let defs = vec![1i16; g.len()];
            let mut rg = w.next_row_group().unwrap();
            let links: Vec<ByteArray> =
                g.iter().map(|r| ByteArray::from(r.link.as_str())).collect();
            let mut c = rg.next_column().unwrap().unwrap();
            c.typed::<ByteArrayType>()
                .write_batch(&links, Some(&defs), None)
                .unwrap();
            c.close().unwrap();
            for col in [
                g.iter().map(|r| r.t_ns as i64).collect::<Vec<i64>>(),
                g.iter().map(|r| r.bytes as i64).collect(),
                g.iter().map(|r| r.packets as i64).collect(),
            ] {
                let mut c = rg.next_column().unwrap().unwrap();
                c.typed::<Int64Type>()
                    .write_batch(&col, Some(&defs), None)
                    .unwrap();
                c.close().unwrap();
            }
            rg.close().unwrap();
        }
        let whole = w.into_inner().unwrap();
        assert_eq!(chunked.len(), whole.len());
        assert!(chunked == whole, "the bytes differ");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_across_several_row_groups_read_back_in_order() {
        let dir = std::env::temp_dir().join(format!("aqmlab-tablefile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 2 * LinkRow::GROUP_ROWS + 5;
        let mut f = TableFile::<LinkRow>::create(&dir).unwrap();
        for i in 0..n as u64 {
            let link = if i.is_multiple_of(3) {
                "a"
            } else {
                "bottleneck_fwd"
            };
            f.push(LinkRow {
                link: link.into(),
                t_ns: i,
                bytes: i * 7,
                packets: i % 11,
            })
            .unwrap();
        }
        let path = f.finish().unwrap();
        assert!(!dir.join("links.parquet.part").exists());
        let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(r.metadata().num_row_groups(), 3);
        // The string column is dictionary-encoded, the numeric ones are not.
        for rg in r.metadata().row_groups() {
            let dict: Vec<bool> = rg
                .columns()
                .iter()
                .map(|c| c.dictionary_page_offset().is_some())
                .collect();
            assert_eq!(dict, [true, false, false, false]);
        }
        let mut i = 0u64;
        for row in r.get_row_iter(None).unwrap() {
            let row = row.unwrap();
            let cols: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
            let link = if i.is_multiple_of(3) {
                "a"
            } else {
                "bottleneck_fwd"
            };
            assert_eq!(cols[0], &Field::Str(link.into()));
            assert_eq!(
                cols[1..],
                [
                    &Field::Long(i as i64),
                    &Field::Long(i as i64 * 7),
                    &Field::Long((i % 11) as i64)
                ]
            );
            i += 1;
        }
        assert_eq!(i, n as u64);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
