"""The run record: `RunResult`, what one variant of a scenario produced, and `parse_summary`,
its summary read from the JSON the Rust core writes. Its one home: `aqmlab.api` builds records
from the core and `aqmlab.io` writes and reads them, both importing from here (and neither
from the other's way back). pandas is imported only when a table is first read.

`RunResult` is a plain class with a dataclass's constructor, repr and equality, not a
`@dataclass`: the `dataclasses` module imports `inspect` (with `ast`, `dis`, `tokenize`),
≈ 10 ms of every `aqmlab run`'s start-up. `RunResult.replace` stands in for
`dataclasses.replace`. Validation: python/tests/test_record.py."""

from __future__ import annotations

import json
import math

# `typing.TYPE_CHECKING` without importing typing (≈ 3 ms of start-up); type checkers take
# this spelling as the same constant.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

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
            return self  # the descriptor itself, on the class
        frame = obj.__dict__.get(self.given)
        if frame is None:
            frame = obj.__dict__.get(self.cache)
        if frame is None and self.name in obj.files:
            from aqmlab.io import read_parquet_frame

            frame = read_parquet_frame(obj.files[self.name])
            obj.__dict__[self.cache] = frame
        return frame

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.given] = value

    def given_frame(self, obj):
        """The DataFrame given or assigned for this table (None: the table is in `files`)."""
        return obj.__dict__.get(self.given)


# The fields of a RunResult in constructor order; those left out of its repr and equality.
FIELDS = (
    "name", "summary", "requests", "queue", "links", "engine", "summary_json", "warmup_ns", "seed",
    "scenario", "wall_s", "files",
)  # fmt: skip
_NOT_IN_REPR = ("summary_json", "files")
_NOT_COMPARED = ("files",)
_TABLES = ("requests", "queue", "links")


class RunResult:
    """One run. `summary` is the run summary (seed 000's table columns, see README);
    `requests`/`queue`/`links` the per-run tables (pandas DataFrames, read from `files` when
    first used); `engine` the engine counters; `summary_json` the summary exactly as written to
    summary.json (without the final newline); `warmup_ns` the warm-up (records starting before
    it are not measured); `wall_s` the wall-clock time of the run (None for a run read from
    disk); `files` the Parquet file (path or bytes) of each table not given as a DataFrame.
    Equal when every field but `files` is equal (comparing tables given as DataFrames raises,
    as pandas does)."""

    requests: pd.DataFrame = _Table()
    queue: pd.DataFrame = _Table()
    links: pd.DataFrame = _Table()

    def __init__(
        self,
        name: str,
        summary: dict,
        requests: pd.DataFrame | None = None,
        queue: pd.DataFrame | None = None,
        links: pd.DataFrame | None = None,
        engine: dict | None = None,
        summary_json: str = "",
        warmup_ns: int = 0,
        seed: int | None = None,
        scenario: str | None = None,
        wall_s: float | None = None,
        files: dict[str, Path | bytes] | None = None,
    ):
        self.name = name
        self.summary = summary
        self.requests = requests
        self.queue = queue
        self.links = links
        self.engine = {} if engine is None else engine
        self.summary_json = summary_json
        self.warmup_ns = warmup_ns
        self.seed = seed
        self.scenario = scenario
        self.wall_s = wall_s
        self.files = {} if files is None else files

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in FIELDS if f not in _NOT_IN_REPR)
        return f"{type(self).__name__}({shown})"

    def _compared(self) -> tuple:
        return tuple(getattr(self, f) for f in FIELDS if f not in _NOT_COMPARED)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()

    __hash__ = None  # mutable, compared by value

    def replace(self, **changes) -> RunResult:
        """A new RunResult with the fields in `changes` replaced (as `dataclasses.replace`
        does for a dataclass); the others are shared, and a table not given as a DataFrame
        stays in `files`, unread. TypeError for a name that is not a field."""
        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise TypeError(f"RunResult has no field {', '.join(map(repr, unknown))}")
        kept = {f: self.given_frame(f) if f in _TABLES else getattr(self, f) for f in FIELDS}
        return RunResult(**{**kept, **changes})

    def given_frame(self, table: str):
        """The DataFrame given or assigned for `table`, or None if it is read from `files`
        (`aqmlab.io.write_run` copies those files instead of encoding them again)."""
        return type(self).__dict__[table].given_frame(self)


def _nan_for_null(summary: dict) -> dict:
    # serde_json writes non-finite floats (e.g. the median of no responses) as null.
    return {k: (math.nan if v is None else v) for k, v in summary.items()}


def parse_summary(text: str) -> dict:
    """The summary dict of a summary JSON text (the core's serialization; null → NaN)."""
    return _nan_for_null(json.loads(text))
