"""A study table's results beside the paper's: per paper row the mean and 95 % interval over
replications (with per-seed values for pairing), paper.csv read and joined (aqmlab.studies.reproduce,
steps 2-3).

Validation: python/tests/test_reproduce.py.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd

from aqmlab.reports.stats import summary_ci
from aqmlab.reports.summary_table import steady_cell
from aqmlab.studies import Table
from aqmlab.studies.compare import SAMPLES
from aqmlab.studies.sweep_files import ReproduceError

PAPER_CSV = "paper.csv"
PAPER_COLUMNS = ("table", "row", "metric", "value")


#: Columns every table of a report shows beside the paper's metrics (docs/summary.md): the share
#: of responses completed and whether the row's runs reached a steady state.
RUN_HEALTH = ("pct_completed",)


def table_results(sweep: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Per paper row of `table`: `row`, `n` (replications), per metric of the table, of
    RUN_HEALTH and of `table.run_checks` (these two where `sweep` has them) the mean (`m`) and
    the 95 % CI half width (`m_ci`) over the ok runs of `sweep`
    that `row_label` maps to it, and `steady` ("yes", "no (k/n)" or "-")."""
    ok = sweep[sweep["status"] == "ok"].copy()
    extra = [m for m in (*RUN_HEALTH, *table.run_checks) if m not in table.metrics and m in sweep.columns]
    metrics = [*table.metrics, *extra]
    cols = ["row", "n", *[c for m in metrics for c in (m, f"{m}_ci")], "steady"]
    if ok.empty:
        return pd.DataFrame(columns=cols)
    ok["row"] = [table.row_label(r) for _, r in ok.iterrows()]
    ok = ok[ok["row"].notna()]
    if ok.empty:
        return pd.DataFrame(columns=cols)
    missing = [m for m in table.metrics if m not in ok.columns]
    if missing:
        raise ReproduceError(f"table {table.id}: metrics: not summary columns: {', '.join(missing)}")
    out = summary_ci(ok, ["row"], metrics)
    flags = ok["steady_state"] if "steady_state" in ok.columns else pd.Series(None, index=ok.index)
    out["steady"] = [steady_cell(flags[ok["row"] == r]) for r in out["row"]]
    if "seed" not in ok.columns:
        return out[cols]
    # Per-seed values, so a verdict can pair two rows' runs by seed (aqmlab.studies.compare).
    for m in table.metrics:
        out[f"{m}{SAMPLES}"] = [by_seed(ok[ok["row"] == r], m) for r in out["row"]]
    return out[[*cols, *(f"{m}{SAMPLES}" for m in table.metrics)]]


def by_seed(runs: pd.DataFrame, metric: str) -> tuple[tuple[int, float], ...] | None:
    """(seed, value) of `metric` for each run of `runs`, sorted by seed; None if two runs share a
    seed (a row that pools several settings cannot be paired)."""
    pairs = sorted((int(s), float(v)) for s, v in zip(runs["seed"], runs[metric], strict=True))
    seeds = [s for s, _ in pairs]
    return tuple(pairs) if len(set(seeds)) == len(seeds) else None


def read_paper(path: Path) -> pd.DataFrame:
    """paper.csv as a DataFrame (table, row, metric, value: float). Raises ReproduceError naming
    the file, line and reason for a bad header or a value that is not a number."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or tuple(c.strip() for c in rows[0]) != PAPER_COLUMNS:
        raise ReproduceError(f"{path}: line 1: header must be {','.join(PAPER_COLUMNS)}")
    out = []
    for i, r in enumerate(rows[1:], start=2):
        if not r or all(not c.strip() for c in r):
            continue
        if len(r) != 4:
            raise ReproduceError(f"{path}: line {i}: want 4 fields, got {len(r)}")
        try:
            v = float(r[3])
        except ValueError:
            raise ReproduceError(f"{path}: line {i}: value: not a number: {r[3]!r}") from None
        out.append((r[0].strip(), r[1].strip(), r[2].strip(), v))
    return pd.DataFrame(out, columns=list(PAPER_COLUMNS))


def join_paper(paper: pd.DataFrame, table: Table, results: pd.DataFrame) -> list[dict]:
    """One dict per row (paper's rows in the paper's order, then rows aqmlab has and the paper
    has not): `row`, `n`, and per metric `paper`, `mean`, `ci`, `diff` (mean − paper; NaN where
    either is missing)."""
    p = paper[paper["table"] == table.id]
    order = list(dict.fromkeys(p["row"]))
    res = {r["row"]: r for _, r in results.iterrows()}
    order += [r for r in res if r not in order]
    out = []
    for row in order:
        d: dict = {"row": row, "n": int(res[row]["n"]) if row in res else 0, "metrics": {}}
        d["steady"] = str(res[row]["steady"]) if row in res and "steady" in res[row] else "-"
        for m in RUN_HEALTH:
            if row in res and m in res[row] and m not in table.metrics:
                d[m] = (float(res[row][m]), float(res[row][f"{m}_ci"]))
        for m in table.metrics:
            pv = p[(p["row"] == row) & (p["metric"] == m)]["value"]
            pval = float(pv.iloc[0]) if len(pv) else math.nan
            mean = float(res[row][m]) if row in res else math.nan
            ci = float(res[row][f"{m}_ci"]) if row in res else math.nan
            d["metrics"][m] = {"paper": pval, "mean": mean, "ci": ci, "diff": mean - pval}
        out.append(d)
    return out
