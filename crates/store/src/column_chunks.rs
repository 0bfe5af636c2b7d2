//! One row group's columns encoded into memory while the group fills: a column writer per
//! column, each writing its compressed pages to a buffer of its own, fed a chunk of rows at a
//! time; when the group is complete the encoded column chunks are copied into the file in
//! schema order (`SerializedRowGroupWriter::append_column`, which moves their offsets). So a
//! table's rows are encoded as they come (a group of requests spans most of a run) instead of
//! all at once when the group is full, and a group in memory is its compressed pages plus each
//! column's page being filled, not its rows.
//!
//! Same bytes as writing each column of the group whole (`next_column` and one `write_batch`
//! of all its values): a column writer splits its input into mini-batches of the writer's
//! `write_batch_size` values, counted from the start of each call, and decides where pages
//! end only between mini-batches; fed chunks whose sizes are multiples of that (but a
//! group's last), it sees the same mini-batches, so it ends the same pages with the same
//! bytes and statistics. `table_file.rs` keeps to that; `tests/run_writer.rs` and
//! `table_file.rs` check the bytes.

use bytes::Bytes;
use parquet::column::page::{CompressedPage, PageWriteSpec, PageWriter};
use parquet::column::writer::{
    get_column_writer, get_typed_column_writer_mut, ColumnCloseResult, ColumnWriter,
};
use parquet::data_type::DataType;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterPropertiesPtr;
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::SchemaDescriptor;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A byte buffer shared between a column's page writer and the group that reads it back.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Pages serialized (header and data) exactly as into a file, into memory.
struct MemPages {
    out: TrackedWrite<SharedBuf>,
}

impl PageWriter for MemPages {
    fn write_page(&mut self, page: CompressedPage) -> Result<PageWriteSpec> {
        SerializedPageWriter::new(&mut self.out).write_page(page)
    }

    fn close(&mut self) -> Result<()> {
        SerializedPageWriter::new(&mut self.out).close()
    }
}

/// One column of the group: its writer until closed, then what closing it gave.
enum Column {
    Open(Box<ColumnWriter<'static>>),
    Closed(Box<ColumnCloseResult>),
    /// Only while closing.
    Closing,
}

/// The columns of the row group being filled.
pub struct GroupColumns {
    cols: Vec<(Column, SharedBuf)>,
    /// The columns' names, in schema order.
    names: Vec<String>,
    /// The column the next `write` goes to.
    next: usize,
    /// The chunk being written is the group's last (`last_chunk`).
    last: bool,
}

impl GroupColumns {
    /// Empty columns of `schema`, written with `props`.
    pub fn new(schema: &SchemaDescriptor, props: &WriterPropertiesPtr) -> Self {
        let cols = schema
            .columns()
            .iter()
            .map(|descr| {
                let buf = SharedBuf::default();
                let pages = MemPages {
                    out: TrackedWrite::new(buf.clone()),
                };
                let w = get_column_writer(descr.clone(), props.clone(), Box::new(pages));
                (Column::Open(Box::new(w)), buf)
            })
            .collect();
        let names = schema
            .columns()
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        GroupColumns {
            cols,
            names,
            next: 0,
            last: false,
        }
    }

    /// The chunk being written is the group's last: each column is closed as soon as it is
    /// written (its last page compressed), so one compressor's tables at a time are live and
    /// reused by the next column, not one per column of the table at once.
    pub fn last_chunk(&mut self) {
        self.last = true;
    }

    /// Append `values` (with definition levels `defs`) to column `name`, the next one in
    /// schema order; after the last column the next chunk starts at the first.
    pub fn write<T: DataType>(&mut self, name: &str, values: &[T::T], defs: &[i16]) -> Result<()> {
        let (col, _) = self
            .cols
            .get_mut(self.next)
            .ok_or_else(|| ParquetError::General("more columns than the schema".into()))?;
        let at = &self.names[self.next];
        if at != name {
            return Err(ParquetError::General(format!(
                "written as {name} but the schema's column here is {at}"
            )));
        }
        let Column::Open(w) = col else {
            return Err(ParquetError::General(format!(
                "{name}: written after the last chunk"
            )));
        };
        get_typed_column_writer_mut::<T>(w.as_mut()).write_batch(values, Some(defs), None)?;
        if self.last {
            if let Column::Open(w) = std::mem::replace(col, Column::Closing) {
                *col = Column::Closed(Box::new(w.close()?));
            }
        }
        self.next = (self.next + 1) % self.cols.len();
        Ok(())
    }

    /// Close every column and write them as the next row group of `file`.
    pub fn append_to<W: Write + Send>(self, file: &mut SerializedFileWriter<W>) -> Result<()> {
        let mut rg = file.next_row_group()?;
        for (col, buf) in self.cols {
            let close = match col {
                Column::Open(w) => w.close()?,
                Column::Closed(c) => *c,
                Column::Closing => {
                    return Err(ParquetError::General("a column failed to close".into()))
                }
            };
            let bytes = std::mem::take(&mut *buf.0.lock().expect("not poisoned"));
            rg.append_column(&Bytes::from(bytes), close)?;
        }
        rg.close()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::data_type::Int64Type;
    use parquet::file::properties::{EnabledStatistics, WriterProperties};
    use parquet::schema::parser::parse_message_type;

    const GROUP: usize = 8192;

    fn parts() -> (Arc<parquet::schema::types::Type>, WriterPropertiesPtr) {
        let schema = parse_message_type("message m { OPTIONAL INT64 v; OPTIONAL INT64 w; }");
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_offset_index_disabled(true)
            .set_write_batch_size(1024)
            .set_dictionary_enabled(false)
            // Pages of 4 KiB: a dozen pages a column chunk, so where pages end matters.
            .set_data_page_size_limit(4096)
            .build();
        (Arc::new(schema.unwrap()), Arc::new(props))
    }

    fn values() -> (Vec<i64>, Vec<i64>) {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let v: Vec<i64> = (0..2 * GROUP + 300)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 40) as i64
            })
            .collect();
        let w = v
            .iter()
            .enumerate()
            .map(|(i, a)| a / 3 + i as i64)
            .collect();
        (v, w)
    }

    /// Each group's columns written whole, straight into the file.
    fn whole() -> Vec<u8> {
        let (schema, props) = parts();
        let (v, w) = values();
        let mut f = SerializedFileWriter::new(Vec::new(), schema, props).unwrap();
        for (gv, gw) in v.chunks(GROUP).zip(w.chunks(GROUP)) {
            let defs = vec![1i16; gv.len()];
            let mut rg = f.next_row_group().unwrap();
            for col in [gv, gw] {
                let mut c = rg.next_column().unwrap().unwrap();
                c.typed::<Int64Type>()
                    .write_batch(col, Some(&defs), None)
                    .unwrap();
                c.close().unwrap();
            }
            rg.close().unwrap();
        }
        f.into_inner().unwrap()
    }

    /// Each group encoded into memory `chunk` rows at a time, then spliced in; with
    /// `close_early`, each column closed as soon as its last chunk is written.
    fn chunked(chunk: usize, close_early: bool) -> Vec<u8> {
        let (schema, props) = parts();
        let (v, w) = values();
        let mut f = SerializedFileWriter::new(Vec::new(), schema, props).unwrap();
        for (gv, gw) in v.chunks(GROUP).zip(w.chunks(GROUP)) {
            let mut cols = GroupColumns::new(f.schema_descr(), f.properties());
            let n = gv.len().div_ceil(chunk);
            for (k, (cv, cw)) in gv.chunks(chunk).zip(gw.chunks(chunk)).enumerate() {
                if close_early && k + 1 == n {
                    cols.last_chunk();
                }
                let defs = vec![1i16; cv.len()];
                cols.write::<Int64Type>("v", cv, &defs).unwrap();
                cols.write::<Int64Type>("w", cw, &defs).unwrap();
            }
            cols.append_to(&mut f).unwrap();
        }
        f.into_inner().unwrap()
    }

    #[test]
    fn chunks_of_the_write_batch_size_give_the_bytes_of_whole_columns() {
        let want = whole();
        assert!(chunked(1024, false) == want, "chunks of 1024 rows");
        assert!(
            chunked(1024, true) == want,
            "chunks of 1024 rows, closed early"
        );
        assert!(chunked(4096, true) == want, "chunks of 4096 rows");
        // Why the chunks must be multiples of it: other sizes end pages elsewhere.
        assert!(
            chunked(1000, false) != want,
            "chunks of 1000 rows give other pages"
        );
    }

    #[test]
    fn a_column_written_out_of_schema_order_is_an_error_naming_both() {
        let (schema, props) = parts();
        let f = SerializedFileWriter::new(Vec::new(), schema, props).unwrap();
        let mut cols = GroupColumns::new(f.schema_descr(), f.properties());
        let e = cols.write::<Int64Type>("w", &[1], &[1]).unwrap_err();
        assert!(
            e.to_string()
                .contains("written as w but the schema's column here is v"),
            "{e}"
        );
        // After the last chunk a column takes no more rows.
        cols.last_chunk();
        cols.write::<Int64Type>("v", &[1], &[1]).unwrap();
        cols.write::<Int64Type>("w", &[1], &[1]).unwrap();
        let e = cols.write::<Int64Type>("v", &[2], &[1]).unwrap_err();
        assert!(
            e.to_string().contains("v: written after the last chunk"),
            "{e}"
        );
    }
}
