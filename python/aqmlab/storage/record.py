"""The run record: `RunResult`, what one variant of a scenario produced, and `parse_summary`,
its summary read from the JSON the Rust core writes. Its one home: `aqmlab.engine.api` builds records
from the core and `aqmlab.storage.run_dir` writes and reads them, both importing from here; a table is read
with `aqmlab.storage.tables` (and pandas imported) only when it is first used."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

# typing.TYPE_CHECKING without importing typing (≈ 2.6 ms of `aqmlab run`'s start-up);
# type checkers take a module's own TYPE_CHECKING = False as theirs.
TYPE_CHECKING = False

if TYPE_CHECKING:
    import pandas as pd


class _Table:
    """A table of a RunResult (`requests`, `queue`, `links`): a DataFrame given to the
    constructor, or read from `RunResult.files[name]` (a Parquet file's path or bytes) at the
    first access, so a run that only needs its summary never loads pandas or its rows."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name
        self.given = f"_{name}_given"  # a DataFrame given or assigned (written as such)
        self.cache = f"_{name}_read"  # the DataFrame read from `files`

    def __get__(self, obj, objtype=None):
        if obj is None:
            return None  # the dataclass default: not given, read from `files`
        frame = obj.__dict__.get(self.given)
        if frame is None:
            frame = obj.__dict__.get(self.cache)
        if frame is None and self.name in obj.files:
            from aqmlab.storage.tables import read_parquet_frame  # pandas: only when a table is read

            frame = read_parquet_frame(obj.files[self.name])
            obj.__dict__[self.cache] = frame
        return frame

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.given] = value

    def given_frame(self, obj):
        """The DataFrame given or assigned for this table (None: the table is in `files`)."""
        return obj.__dict__.get(self.given)


@dataclass
class RunResult:
    """One run. `summary` is the run summary (seed 000's table columns, see docs/commands.md);
    `requests`/`queue`/`links` the per-run tables (pandas DataFrames, read from `files` when
    first used); `engine` the engine counters; `summary_json` the summary exactly as written to
    summary.json (without the final newline); `warmup_ns` the warm-up (records starting before
    it are not measured); `wall_s` the wall-clock time of the run (None for a run read from
    disk); `files` the Parquet file (path or bytes) of each table not given as a DataFrame."""

    name: str
    summary: dict
    requests: pd.DataFrame = _Table()
    queue: pd.DataFrame = _Table()
    links: pd.DataFrame = _Table()
    engine: dict = field(default_factory=dict)
    summary_json: str = field(default="", repr=False)
    warmup_ns: int = 0
    seed: int | None = None
    scenario: str | None = None
    wall_s: float | None = None
    files: dict[str, Path | bytes] = field(default_factory=dict, repr=False, compare=False)

    def given_frame(self, table: str):
        """The DataFrame given or assigned for `table`, or None if it is read from `files`
        (`aqmlab.storage.run_dir.write_run` copies those files instead of encoding them again)."""
        return type(self).__dict__[table].given_frame(self)


#: The response-time quantiles over all measured responses: null in summary.json is +inf there
#: when responses started (the rank falls on an unfinished one), NaN without responses.
ALL_RESPONSE_QUANTILES = (
    "median_rt_ms", "p10_rt_ms", "p25_rt_ms", "p75_rt_ms", "p90_rt_ms", "p95_rt_ms", "p99_rt_ms",
)  # fmt: skip


def _decode_nulls(summary: dict) -> dict:
    # serde_json writes non-finite floats as null: +inf for a quantile that falls on an
    # unfinished response, NaN otherwise (e.g. the median of no responses); `steady_state`
    # stays None when the window was too short to judge.
    started = summary.get("responses_started") or 0
    out = {}
    for k, v in summary.items():
        if v is None and k != "steady_state":
            v = math.inf if (k in ALL_RESPONSE_QUANTILES and started > 0) else math.nan
        out[k] = v
    return out


def parse_summary(text: str) -> dict:
    """The summary dict of a summary JSON text (the core's serialization; null → +inf for an
    all-response quantile of a run with responses, None for `steady_state`, NaN otherwise)."""
    return _decode_nulls(json.loads(text))
