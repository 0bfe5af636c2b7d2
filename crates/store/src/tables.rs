//! The Parquet layout of the three per-run tables (requests, queue, links) and how one row
//! group of each is written: column names and order are the fields of the row structs
//! (`metrics::records`), every integer column is INT64 (the u64/u32 fields; a value beyond
//! i64 is an error naming the column), flags BOOLEAN, `mean_qlen`/`var_qlen` DOUBLE, `kind` and
//! `link` UTF-8 strings, every column OPTIONAL (nullable, as pyarrow wrote them: read back,
//! the Arrow schema is the one `python/aqmlab/storage/tables.py` declares). An endless bulk flow's
//! response size (u64::MAX) is written as −1.
//!
//! Columns not measured (issue 12: the testbed cannot count fast retransmits, for one) are
//! written as nulls, definition level 0 in every row, instead of the rows' values: a reader
//! sees missing values, never a count of 0. Which ones is the writer's choice
//! ([`check_not_measured`]); with none, every value is written as before (same bytes).

use crate::column_chunks::GroupColumns;
use crate::error::StoreError;
use metrics::{LinkRow, QueueRow, RequestRecord};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use parquet::schema::parser::parse_message_type;

/// A row type that is written as one Parquet table.
pub trait TableRow: Sized {
    /// Table name (the file is `<TABLE>.parquet`).
    const TABLE: &'static str;
    /// The Parquet message type of the table.
    const SCHEMA: &'static str;
    /// Rows per row group (a multiple of `CHUNK_ROWS`).
    const GROUP_ROWS: usize;
    /// Rows encoded at once (a multiple of `table_file::WRITE_BATCH`): a chunk's rows are held
    /// until then, every column's page being filled from the group's first chunk to its last
    /// (with a compressor and a decompressor context each, ≈ 0.2 MiB).
    const CHUNK_ROWS: usize;
    /// Append `rows` to the columns `cols` of the row group being filled, in schema order;
    /// the columns named in `not_measured` (checked by [`check_not_measured`]) as nulls.
    fn write_chunk(
        rows: &[Self],
        not_measured: &[String],
        cols: &mut GroupColumns,
    ) -> Result<(), StoreError>;
}

/// The column names of table `R`'s schema, in order.
pub fn column_names<R: TableRow>() -> Result<Vec<String>, StoreError> {
    let schema = parse_message_type(R::SCHEMA)
        .map_err(|e| StoreError(format!("{}: bad schema: {e}", R::TABLE)))?;
    Ok(schema
        .get_fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect())
}

/// `names` as a list of table `R`'s columns to write as nulls: in schema order, each once.
/// A name that is not a column of the table is an error naming it and the table's columns.
pub fn check_not_measured<R: TableRow>(names: &[&str]) -> Result<Vec<String>, StoreError> {
    let cols = column_names::<R>()?;
    if let Some(bad) = names.iter().find(|n| !cols.iter().any(|c| c == *n)) {
        return Err(StoreError(format!(
            "{}.{bad}: cannot be declared not measured: not a column of the table (columns: {})",
            R::TABLE,
            cols.join(", ")
        )));
    }
    Ok(cols
        .into_iter()
        .filter(|c| names.contains(&c.as_str()))
        .collect())
}

/// Writes the next column of a chunk of rows: every value present (definition level 1), or,
/// for a column not measured, every value null (definition level 0, no values).
struct Group<'g> {
    cols: &'g mut GroupColumns,
    table: &'static str,
    defs: Vec<i16>,
    nulls: Vec<i16>,
    not_measured: &'g [String],
}

impl<'g> Group<'g> {
    fn new(
        cols: &'g mut GroupColumns,
        table: &'static str,
        n: usize,
        not_measured: &'g [String],
    ) -> Self {
        Group {
            cols,
            table,
            defs: vec![1; n],
            nulls: if not_measured.is_empty() {
                Vec::new()
            } else {
                vec![0; n]
            },
            not_measured,
        }
    }

    fn col<T: DataType>(&mut self, name: &str, values: &[T::T]) -> Result<(), StoreError> {
        let (values, defs) = if self.measured(name) {
            (values, &self.defs)
        } else {
            (&[][..], &self.nulls)
        };
        let err = |e: parquet::errors::ParquetError| {
            StoreError(format!(
                "{}.{name}: cannot write the column: {e}",
                self.table
            ))
        };
        self.cols.write::<T>(name, values, defs).map_err(err)
    }

    fn measured(&self, name: &str) -> bool {
        !self.not_measured.iter().any(|m| m == name)
    }

    /// An INT64 column from unsigned values; one beyond i64 is an error naming it.
    fn int(&mut self, name: &str, values: impl Iterator<Item = u64>) -> Result<(), StoreError> {
        if !self.measured(name) {
            return self.col::<Int64Type>(name, &[]);
        }
        let v = values
            .map(|x| i64::try_from(x).map_err(|_| misfit(self.table, name, x)))
            .collect::<Result<Vec<i64>, _>>()?;
        self.col::<Int64Type>(name, &v)
    }

    fn text<'s>(
        &mut self,
        name: &str,
        values: impl Iterator<Item = &'s str>,
    ) -> Result<(), StoreError> {
        // Few distinct strings (kinds, link names): each is allocated once and shared.
        let mut seen: Vec<(&str, ByteArray)> = Vec::new();
        let v: Vec<ByteArray> = values
            .map(|t| match seen.iter().find(|(s, _)| *s == t) {
                Some((_, b)) => b.clone(),
                None => {
                    let b = ByteArray::from(t);
                    seen.push((t, b.clone()));
                    b
                }
            })
            .collect();
        self.col::<ByteArrayType>(name, &v)
    }
}

/// The error for a value that does not fit a signed 64-bit column (as `aqmlab.storage.tables` words
/// it).
fn misfit(table: &str, name: &str, x: u64) -> StoreError {
    StoreError(format!(
        "{table}.{name}: the value {x} does not fit a signed 64-bit column (at most {}); a \
         sampled size or time was beyond any meaningful range, check the scenario's distributions",
        i64::MAX
    ))
}

impl TableRow for RequestRecord {
    const TABLE: &'static str = "requests";
    // Large groups keep the footer metadata held until the file closes (≈ 19 KB per group,
    // 0.15 B per request) small; a group in memory is its compressed pages and one page being
    // filled per column (at most `table_file::PAGE_BYTES` each), whatever its rows.
    const GROUP_ROWS: usize = 1 << 17;
    // Encoded as the rows come: a group spans most of a run and is ≈ 23 MiB of records.
    const CHUNK_ROWS: usize = 1024;
    const SCHEMA: &'static str = "message schema {
        OPTIONAL INT64 id; OPTIONAL INT64 conn_id; OPTIONAL INT64 exchange;
        OPTIONAL INT64 workload; OPTIONAL BYTE_ARRAY kind (STRING); OPTIONAL INT64 page;
        OPTIONAL INT64 client; OPTIONAL INT64 server; OPTIONAL INT64 start_ns;
        OPTIONAL INT64 end_ns; OPTIONAL INT64 request_bytes; OPTIONAL INT64 response_bytes;
        OPTIONAL INT64 server_delay_ns; OPTIONAL INT64 base_rtt_ns; OPTIONAL BOOLEAN completed;
        OPTIONAL INT64 syn_retx; OPTIONAL INT64 fin_retx; OPTIONAL INT64 data_retx;
        OPTIONAL INT64 timeouts; OPTIONAL INT64 fast_retx; OPTIONAL INT64 ecn_reductions;
        OPTIONAL INT64 loss_events; OPTIONAL INT64 loss_cwnd_bytes;
        OPTIONAL INT64 server_syn_retx; OPTIONAL INT64 server_fin_retx;
        OPTIONAL INT64 server_data_retx;
    }";

    fn write_chunk(
        rs: &[Self],
        not_measured: &[String],
        cols: &mut GroupColumns,
    ) -> Result<(), StoreError> {
        let mut g = Group::new(cols, Self::TABLE, rs.len(), not_measured);
        g.int("id", rs.iter().map(|r| r.id))?;
        g.int("conn_id", rs.iter().map(|r| r.conn_id))?;
        g.int("exchange", rs.iter().map(|r| r.exchange as u64))?;
        g.int("workload", rs.iter().map(|r| r.workload as u64))?;
        g.text("kind", rs.iter().map(|r| r.kind.as_str()))?;
        g.int("page", rs.iter().map(|r| r.page))?;
        g.int("client", rs.iter().map(|r| r.client as u64))?;
        g.int("server", rs.iter().map(|r| r.server as u64))?;
        g.int("start_ns", rs.iter().map(|r| r.start_ns))?;
        g.int("end_ns", rs.iter().map(|r| r.end_ns))?;
        g.int("request_bytes", rs.iter().map(|r| r.request_bytes))?;
        let resp = rs
            .iter()
            .map(|r| match r.response_bytes {
                u64::MAX => Ok(-1),
                b => i64::try_from(b).map_err(|_| misfit(Self::TABLE, "response_bytes", b)),
            })
            .collect::<Result<Vec<i64>, _>>()?;
        g.col::<Int64Type>("response_bytes", &resp)?;
        g.int("server_delay_ns", rs.iter().map(|r| r.server_delay_ns))?;
        g.int("base_rtt_ns", rs.iter().map(|r| r.base_rtt_ns))?;
        let done: Vec<bool> = rs.iter().map(|r| r.completed).collect();
        g.col::<BoolType>("completed", &done)?;
        g.int("syn_retx", rs.iter().map(|r| r.syn_retx as u64))?;
        g.int("fin_retx", rs.iter().map(|r| r.fin_retx as u64))?;
        g.int("data_retx", rs.iter().map(|r| r.data_retx as u64))?;
        g.int("timeouts", rs.iter().map(|r| r.timeouts as u64))?;
        g.int("fast_retx", rs.iter().map(|r| r.fast_retx as u64))?;
        g.int("ecn_reductions", rs.iter().map(|r| r.ecn_reductions as u64))?;
        g.int("loss_events", rs.iter().map(|r| r.loss_events as u64))?;
        g.int("loss_cwnd_bytes", rs.iter().map(|r| r.loss_cwnd_bytes))?;
        g.int(
            "server_syn_retx",
            rs.iter().map(|r| r.server_syn_retx as u64),
        )?;
        g.int(
            "server_fin_retx",
            rs.iter().map(|r| r.server_fin_retx as u64),
        )?;
        g.int(
            "server_data_retx",
            rs.iter().map(|r| r.server_data_retx as u64),
        )
    }
}

impl TableRow for QueueRow {
    const TABLE: &'static str = "queue";
    // Written as the run goes: 10 rows per simulated second per monitored link; a group (≈ 0.8
    // MiB of rows) encoded whole, one column at a time.
    const GROUP_ROWS: usize = 1 << 13;
    const CHUNK_ROWS: usize = 1 << 13;
    const SCHEMA: &'static str = "message schema {
        OPTIONAL BYTE_ARRAY link (STRING); OPTIONAL INT64 t_ns; OPTIONAL INT64 forwarded;
        OPTIONAL INT64 early_drops; OPTIONAL INT64 forced_drops; OPTIONAL INT64 overflow_drops;
        OPTIONAL INT64 dequeue_drops; OPTIONAL INT64 marks; OPTIONAL INT64 min_qlen; OPTIONAL INT64 max_qlen;
        OPTIONAL DOUBLE mean_qlen; OPTIONAL DOUBLE var_qlen;
    }";

    fn write_chunk(
        rs: &[Self],
        not_measured: &[String],
        cols: &mut GroupColumns,
    ) -> Result<(), StoreError> {
        let mut g = Group::new(cols, Self::TABLE, rs.len(), not_measured);
        g.text("link", rs.iter().map(|r| r.link.as_str()))?;
        g.int("t_ns", rs.iter().map(|r| r.t_ns))?;
        g.int("forwarded", rs.iter().map(|r| r.forwarded))?;
        g.int("early_drops", rs.iter().map(|r| r.early_drops))?;
        g.int("forced_drops", rs.iter().map(|r| r.forced_drops))?;
        g.int("overflow_drops", rs.iter().map(|r| r.overflow_drops))?;
        g.int("dequeue_drops", rs.iter().map(|r| r.dequeue_drops))?;
        g.int("marks", rs.iter().map(|r| r.marks))?;
        g.int("min_qlen", rs.iter().map(|r| r.min_qlen as u64))?;
        g.int("max_qlen", rs.iter().map(|r| r.max_qlen as u64))?;
        let mean: Vec<f64> = rs.iter().map(|r| r.mean_qlen).collect();
        g.col::<DoubleType>("mean_qlen", &mean)?;
        let var: Vec<f64> = rs.iter().map(|r| r.var_qlen).collect();
        g.col::<DoubleType>("var_qlen", &var)
    }
}

impl TableRow for LinkRow {
    const TABLE: &'static str = "links";
    const GROUP_ROWS: usize = 1 << 13;
    const CHUNK_ROWS: usize = 1 << 13;
    const SCHEMA: &'static str = "message schema {
        OPTIONAL BYTE_ARRAY link (STRING); OPTIONAL INT64 t_ns; OPTIONAL INT64 bytes;
        OPTIONAL INT64 packets;
    }";

    fn write_chunk(
        rs: &[Self],
        not_measured: &[String],
        cols: &mut GroupColumns,
    ) -> Result<(), StoreError> {
        let mut g = Group::new(cols, Self::TABLE, rs.len(), not_measured);
        g.text("link", rs.iter().map(|r| r.link.as_str()))?;
        g.int("t_ns", rs.iter().map(|r| r.t_ns))?;
        g.int("bytes", rs.iter().map(|r| r.bytes))?;
        g.int("packets", rs.iter().map(|r| r.packets))
    }
}
