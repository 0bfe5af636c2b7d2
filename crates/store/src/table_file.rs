//! One Parquet table being written: rows are buffered and written as a row group every
//! [`GROUP_ROWS`] rows, into `<TABLE>.parquet.part`, which `finish` closes and renames to
//! `<TABLE>.parquet` (a file under its final name is always complete). Compression zstd
//! level 3 (as the pyarrow writer used before); no timestamp or path is written, so the same
//! rows give the same bytes.

use crate::error::StoreError;
use crate::tables::TableRow;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows per row group (memory held per table while writing: this many rows).
pub const GROUP_ROWS: usize = 1 << 15;

/// A table file being written.
pub struct TableFile<R: TableRow> {
    part: PathBuf,
    path: PathBuf,
    writer: SerializedFileWriter<BufWriter<File>>,
    rows: Vec<R>,
}

impl<R: TableRow> TableFile<R> {
    /// Start `<dir>/<TABLE>.parquet` (written as `.part` until `finish`).
    pub fn create(dir: &Path) -> Result<Self, StoreError> {
        let path = dir.join(format!("{}.parquet", R::TABLE));
        let part = dir.join(format!("{}.parquet.part", R::TABLE));
        let schema = parse_message_type(R::SCHEMA)
            .map_err(|e| StoreError(format!("{}: bad schema: {e}", R::TABLE)))?;
        let zstd = ZstdLevel::try_new(3).map_err(|e| StoreError(e.to_string()))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(zstd))
            .build();
        let file = File::create(&part).map_err(|e| StoreError::at(&part, e))?;
        let writer =
            SerializedFileWriter::new(BufWriter::new(file), Arc::new(schema), Arc::new(props))
                .map_err(|e| StoreError::at(&part, e))?;
        Ok(TableFile {
            part,
            path,
            writer,
            rows: Vec::with_capacity(GROUP_ROWS),
        })
    }

    /// Append one row (written with the next full row group).
    pub fn push(&mut self, row: R) -> Result<(), StoreError> {
        self.rows.push(row);
        if self.rows.len() >= GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let mut rg = self
            .writer
            .next_row_group()
            .map_err(|e| StoreError::at(&self.part, e))?;
        R::write_group(&self.rows, &mut rg)?;
        rg.close().map_err(|e| StoreError::at(&self.part, e))?;
        self.rows.clear();
        Ok(())
    }

    /// Write the last rows, close the file and give it its final name; returns that path.
    pub fn finish(mut self) -> Result<PathBuf, StoreError> {
        self.flush()?;
        let part = self.part.clone();
        self.writer
            .close()
            .map_err(|e| StoreError::at(&part, e))?;
        std::fs::rename(&self.part, &self.path).map_err(|e| StoreError::at(&self.path, e))?;
        Ok(self.path)
    }
}
