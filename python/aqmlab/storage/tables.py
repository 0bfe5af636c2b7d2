"""The three per-run tables (requests, queue, links) as Arrow tables and pandas DataFrames.

Columns are the fields of the Rust row structs (crates/metrics/src/records.rs) in field order,
as the core's writer (crates/store) puts them in the Parquet files; `columns_to_arrow` builds a
table from plain columns (hand-made runs). Types: every integer column is int64 (the Rust fields are
u64/u32; int64 keeps `end_ns - start_ns` and time differences signed and exact), flags are bool,
`mean_qlen`/`var_qlen` float64, `kind`/`link` strings. A column the Rust side adds later and that
is not declared here is kept with the type Arrow infers. A value that does not fit its column (an
integer beyond int64, e.g. a u64 the engine saturated) raises ValueError naming table, column
and value, never an OverflowError traceback.

Missing values: a request column the engine could not measure (the testbed's `fin_retx`,
`fast_retx`, `ecn_reductions`, `loss_events`, `loss_cwnd_bytes`, `server_fin_retx`; listed in
run.json `engine.not_measured` and in the Parquet footer under `NOT_MEASURED_KEY`) holds nulls,
read into pandas as NaN (the column is float64), never as 0. pandas' sums skip NaN, so a sum of
such a column would read 0: code that sums or counts them checks `missing_columns` first and
gives NaN (not measured) instead.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

_I = pa.int64()

#: The Parquet footer key-value entry (a JSON list) naming the columns written as nulls because
#: the engine did not measure them (crates/store/src/table_file.rs).
NOT_MEASURED_KEY = "aqmlab.not_measured"

TYPES: dict[str, dict[str, pa.DataType]] = {
    "requests": {
        "id": _I,
        "conn_id": _I,
        "exchange": _I,
        "workload": _I,
        "kind": pa.string(),
        "page": _I,
        "client": _I,
        "server": _I,
        "start_ns": _I,
        "end_ns": _I,
        "request_bytes": _I,
        "response_bytes": _I,
        "server_delay_ns": _I,
        "base_rtt_ns": _I,
        "completed": pa.bool_(),
        "syn_retx": _I,
        "fin_retx": _I,
        "data_retx": _I,
        "timeouts": _I,
        "fast_retx": _I,
        "ecn_reductions": _I,
        "loss_events": _I,
        "loss_cwnd_bytes": _I,
        "server_syn_retx": _I,
        "server_fin_retx": _I,
        "server_data_retx": _I,
    },
    "queue": {
        "link": pa.string(),
        "t_ns": _I,
        "forwarded": _I,
        "early_drops": _I,
        "forced_drops": _I,
        "overflow_drops": _I,
        "dequeue_drops": _I,
        "marks": _I,
        "min_qlen": _I,
        "max_qlen": _I,
        "mean_qlen": pa.float64(),
        "var_qlen": pa.float64(),
    },
    "links": {
        "link": pa.string(),
        "t_ns": _I,
        "bytes": _I,
        "packets": _I,
    },
}

TABLES = tuple(TYPES)


def columns_to_arrow(table: str, columns: dict[str, list]) -> pa.Table:
    """Arrow table from a column dict (column name → list), with the declared types."""
    declared = TYPES[table]
    names = list(columns) if columns else list(declared)
    arrays = []
    for name in names:
        values = columns.get(name, [])
        try:
            arrays.append(pa.array(values, type=declared.get(name)))
        except (OverflowError, pa.ArrowInvalid) as e:
            raise ValueError(_misfit(table, name, values, declared.get(name), e)) from None
    return pa.Table.from_arrays(arrays, names=names)


def _misfit(table: str, name: str, values: list, typ: pa.DataType | None, e: Exception) -> str:
    """One line: which column, which value, why (for `columns_to_arrow`)."""
    big = [v for v in values if isinstance(v, int) and not -(2**63) <= v < 2**63]
    if big:
        return (
            f"{table}.{name}: the value {big[0]} does not fit a signed 64-bit column (at most "
            f"{2**63 - 1}); a sampled size or time was beyond any meaningful range, check the "
            "scenario's distributions"
        )
    return f"{table}.{name}: cannot store the values as {typ}: {e}"


def frame_to_arrow(table: str, df: pd.DataFrame) -> pa.Table:
    """Arrow table from a DataFrame of table `table`, with the declared types and no pandas
    metadata (so the Parquet bytes depend on the data only)."""
    declared = TYPES[table]
    fields = []
    for name in df.columns:
        typ = declared.get(name)
        if typ is None:
            typ = pa.array(df[name]).type
        fields.append(pa.field(name, typ))
    t = pa.Table.from_pandas(df, schema=pa.schema(fields), preserve_index=False)
    return t.replace_schema_metadata(None)


def arrow_to_frame(t: pa.Table) -> pd.DataFrame:
    """The DataFrame of an Arrow table: an integer column with nulls (a column not measured)
    becomes float64 with NaN for them, never 0."""
    return t.to_pandas()


def read_parquet_frame(src: Path | bytes) -> pd.DataFrame:
    """A table's DataFrame from its Parquet file (a path) or the file's bytes."""
    import pyarrow.parquet as pq

    return arrow_to_frame(pq.read_table(pa.BufferReader(src) if isinstance(src, bytes) else src))


def missing_columns(df: pd.DataFrame, columns) -> list[str]:
    """Those of `columns` (in their order) that hold a missing value in `df` (a column the
    engine did not measure): a count or sum over them would silently treat missing as 0."""
    return [c for c in columns if c in df.columns and bool(df[c].isna().any())]
