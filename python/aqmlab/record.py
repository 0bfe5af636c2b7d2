"""The run record: `RunResult`, what one variant of a scenario produced, and `parse_summary`,
its summary read from the JSON the Rust core writes. Its one home: `aqmlab.api` builds records
from the core and `aqmlab.io` writes and reads them, both importing from here (and neither
from the other's way back)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import pandas as pd


@dataclass
class RunResult:
    """One run. `summary` is the run summary (seed 000's table columns, see README);
    `requests`/`queue`/`links` the per-run tables; `engine` the engine counters;
    `summary_json` the summary exactly as written to summary.json (without the final newline);
    `warmup_ns` the warm-up (records starting before it are not measured); `wall_s` the
    wall-clock time of the run (None for a run read from disk)."""

    name: str
    summary: dict
    requests: pd.DataFrame
    queue: pd.DataFrame
    links: pd.DataFrame
    engine: dict
    summary_json: str = field(repr=False)
    warmup_ns: int = 0
    seed: int | None = None
    scenario: str | None = None
    wall_s: float | None = None


def _nan_for_null(summary: dict) -> dict:
    # serde_json writes non-finite floats (e.g. the median of no responses) as null.
    return {k: (math.nan if v is None else v) for k, v in summary.items()}


def parse_summary(text: str) -> dict:
    """The summary dict of a summary JSON text (the core's serialization; null → NaN)."""
    return _nan_for_null(json.loads(text))
