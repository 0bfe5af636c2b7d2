"""A study's per-run metrics as `aqmlab tune` columns: `aqmlab tune FILE --metrics STUDY`.

Some studies measure what a run summary does not: seed 002's rows are the end-to-end forward
HTTP exchanges (`e2e_median_rt_ms`, `http_loss_pct`, …), while the summary covers every
workload at one link. Their tables compute these from each run's directory
(`aqmlab.studies.Table.run_metrics`). With `--metrics STUDY` a `[tune]` table's objectives may
name those columns: after each run the study's hooks read the run's directory and their columns
join its summary, so a trial is judged by the number the study's verdict rule reads.

Validation: python/tests/test_tune_metrics.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from aqmlab._core import SUMMARY_COLUMNS


def study_metrics(name: str) -> tuple[tuple[str, ...], Callable[[Path], dict]]:
    """(the extra columns, `of_run(run_dir) → {column: value}`) of study `name`: the metrics of
    its tables that have a `run_metrics` hook and are not summary columns. ValueError naming the
    studies that have such metrics when `name` is not one of them."""
    from aqmlab import studies

    def with_hooks(s) -> list:
        return [t for t in s.tables if t.run_metrics is not None]

    names = [n for n in studies.known() if with_hooks(studies.load(n))]
    if name not in names:
        raise ValueError(f"--metrics: no study {name!r} with per-run metrics (studies: {', '.join(names)})")
    tables = with_hooks(studies.load(name))
    hooks = list(dict.fromkeys(t.run_metrics for t in tables))
    cols = tuple(dict.fromkeys(m for t in tables for m in t.metrics if m not in SUMMARY_COLUMNS))

    def of_run(run_dir: Path) -> dict:
        # A hook reads SWEEP_DIR/runs/<run id>: the run as a one-row sweep of its own directory.
        sweep = pd.DataFrame([{"status": "ok", "run": run_dir.name}])
        out: dict = {}
        for hook in hooks:
            row = hook(sweep, run_dir.parent.parent).iloc[0]
            out.update({c: float(row[c]) for c in cols if c in row.index})
        return out

    return cols, of_run
