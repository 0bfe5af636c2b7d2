"""Compare two trees of run directories (e.g. the same scenarios run before and after a change):
for every run directory under BEFORE (a directory with summary.json), the one at the same
relative path under AFTER must have the same summary.json text, the same run.json apart from
the engine build, and the same Parquet tables: equal Arrow schemas (names, types, nullability),
equal rows in the same order, and equal DataFrames as `aqmlab.load_run` returns them.

    python bench/compare_runs.py BEFORE AFTER [--events-may-differ]

Prints one line per run and exits 1 if any differs. `--events-may-differ` accepts a different
engine event count in run.json (an engine change that schedules fewer events for the same
simulation, e.g. re-armed timers moved in place of stale ones), and prints both counts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from aqmlab import load_run

TABLES = ("requests", "queue", "links")


def _info(d: Path, drop_events: bool) -> dict:
    info = json.loads((d / "run.json").read_text())
    info.get("engine", {}).pop("build", None)
    if drop_events:
        info.get("engine", {}).pop("events", None)
    return info


def events(d: Path) -> int | None:
    """The engine's event count recorded in `d`/run.json."""
    return json.loads((d / "run.json").read_text()).get("engine", {}).get("events")


def compare(a: Path, b: Path, events_may_differ: bool = False) -> list[str]:
    """What differs between run directories `a` and `b` (empty: nothing)."""
    bad = []
    if (a / "summary.json").read_text() != (b / "summary.json").read_text():
        bad.append("summary.json")
    if _info(a, events_may_differ) != _info(b, events_may_differ):
        bad.append("run.json")
    for t in TABLES:
        ta, tb = pq.read_table(a / f"{t}.parquet"), pq.read_table(b / f"{t}.parquet")
        if ta.schema.remove_metadata() != tb.schema.remove_metadata():
            bad.append(f"{t}: schema {ta.schema} != {tb.schema}")
        elif not ta.equals(tb):
            bad.append(f"{t}: rows")
    ra, rb = load_run(a), load_run(b)
    for t in TABLES:
        try:
            pd.testing.assert_frame_equal(getattr(ra, t), getattr(rb, t))
        except AssertionError as e:
            bad.append(f"{t}: load_run frames: {str(e).splitlines()[0]}")
    return bad


def main(before: str, after: str, *flags: str) -> int:
    events_may_differ = "--events-may-differ" in flags
    runs = sorted(p.parent for p in Path(before).rglob("summary.json"))
    failed = 0
    for a in runs:
        rel = a.relative_to(before)
        b = Path(after) / rel
        if not (b / "summary.json").is_file():
            print(f"{rel}: missing in {after}")
            failed += 1
            continue
        bad = compare(a, b, events_may_differ)
        n = pq.ParquetFile(a / "requests.parquet").metadata.num_rows
        ev = f", events {events(a)} -> {events(b)}" if events_may_differ else ""
        verdict = "same" if not bad else "DIFFERS: " + "; ".join(bad)
        print(f"{rel}: {verdict} ({n} request rows{ev})")
        failed += bool(bad)
    print(f"{len(runs) - failed} of {len(runs)} runs the same")
    return 1 if failed or not runs else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
