"""Reports over run directories: the response-time CDF (the studies' main figure) and the
summaries side by side in the format of seed 000's tables (Tables 4.2/4.4: KB/s, % drops,
% unforced, % forced, mean queue, median response time and the shares of responses in
[0,1], (1,2], (2,3], (3,∞) s), plus the 90th/99th percentiles.

Runs whose engine did not measure some request columns (the testbed: run.json
`engine.not_measured`) get a note under the table naming them, and the summary keys that are
their sums (`fin_retx`) are missing (NaN, shown "n/a"), never 0.

The CDF counts what the summary counts: completed HTTP responses whose first SYN was sent at or
after the warm-up (crates/metrics/src/summary.rs), response time = end_ns − start_ns.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.reports.summary_table import COLUMNS, fmt_value, summary_table  # noqa: F401 (re-exported)
from aqmlab.storage.dirs import find_run_dirs  # noqa: F401 (re-exported)
from aqmlab.storage.run_dir import (
    RUN_INFO,
    SUMMARY,
    not_measured_of,
    os_reason,
    parquet_name,
    read_table,
    warmup_ns_of,
)

CDF_COLUMNS = ["kind", "start_ns", "end_ns", "completed"]


def measured_responses(requests: pd.DataFrame, warmup_ns: int) -> pd.DataFrame:
    """The completed HTTP requests that started at or after `warmup_ns`: the responses the
    summary's response times, the CDF and the size bins count."""
    return requests[
        (requests["kind"] == "http")
        & requests["completed"].astype(bool)
        & (requests["start_ns"] >= warmup_ns)
    ]


def response_time_cdf(requests: pd.DataFrame, warmup_ns: int) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF of response times: x = sorted response times (s) of the completed HTTP
    requests that started at or after `warmup_ns`, y[i] = (i + 1) / n. Empty arrays if none."""
    r = measured_responses(requests, warmup_ns)
    rt_ns = r["end_ns"].to_numpy(dtype=np.int64) - r["start_ns"].to_numpy(dtype=np.int64)
    x = np.sort(rt_ns).astype(np.float64) / 1e9
    n = len(x)
    y = np.arange(1, n + 1, dtype=np.float64) / n if n else np.zeros(0)
    return x, y


@dataclass
class RunDir:
    """A run directory to report: its label, path, summary, warm-up and the request columns
    its engine did not measure."""

    label: str
    path: Path
    summary: dict
    warmup_ns: int
    not_measured: list[str] = field(default_factory=list)


class BadRun(ValueError):
    """A run directory `aqmlab report` cannot show; the message is `PATH: reason`."""


def was_interrupted(info: dict) -> bool:
    """run.json says the run stopped before its end (the testbed's Ctrl-C or SIGTERM:
    `engine.interrupted`): its files hold what was measured until then, not a complete run."""
    engine = info.get("engine")
    return isinstance(engine, dict) and engine.get("interrupted") is True


def _json_file(path: Path, parse):
    """`parse` of the text of `path`, any failure a BadRun `PATH: reason`."""
    try:
        doc = parse(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise BadRun(f"{path}: {os_reason(e)}") from None
    except UnicodeDecodeError:
        raise BadRun(f"{path}: not UTF-8 text") from None
    except ValueError as e:
        raise BadRun(f"{path}: not valid JSON ({e})") from None
    if not isinstance(doc, dict):
        raise BadRun(f"{path}: not a JSON object")
    return doc


def open_run(p: Path) -> RunDir:
    """The run directory `p`, labelled by its run name; BadRun `PATH: reason` for one that
    cannot be reported: summary.json or run.json unreadable, an interrupted run (run.json
    `engine.interrupted`), requests.parquet missing."""
    import json

    from aqmlab.storage.record import parse_summary

    summary = _json_file(p / SUMMARY, parse_summary)
    info = _json_file(p / RUN_INFO, json.loads) if (p / RUN_INFO).exists() else {}
    if was_interrupted(info):
        raise BadRun(
            f"{p}: interrupted (run.json engine.interrupted): holds only what was measured until "
            "the signal, not a complete run"
        )
    requests = p / parquet_name("requests")
    if not requests.is_file():
        raise BadRun(f"{requests}: missing (the run's requests table: the CDF is drawn from it)")
    try:
        missing = not_measured_of(info)
        warmup_ns = warmup_ns_of(info, summary)
    except ValueError as e:
        raise BadRun(f"{p}: {e}") from None
    except KeyError as e:
        raise BadRun(f"{p / SUMMARY}: no {e} (and run.json has no warmup_ns)") from None
    # A sum of a column not measured is missing, whatever the file says (older testbed runs
    # wrote 0).
    summary.update({k: math.nan for k in missing if k in summary})
    return RunDir(str(info.get("name", p.name)), p, summary, warmup_ns, missing)


def open_runs(dirs: Sequence[str | os.PathLike], skipped: list[str] | None = None) -> list[RunDir]:
    """The runs under `dirs`, labelled by run name (by parent/name where names repeat). A run
    that cannot be reported (`open_run`) raises BadRun, or with a list `skipped` is left out
    and its `PATH: reason` appended there."""
    runs = []
    for p in find_run_dirs(dirs):
        try:
            runs.append(open_run(p))
        except BadRun as e:
            if skipped is None:
                raise
            skipped.append(str(e))
    names = [r.label for r in runs]
    for r in runs:
        if names.count(r.label) > 1:
            r.label = f"{r.path.parent.name}/{r.label}"
    labels = [r.label for r in runs]
    for r in runs:
        if labels.count(r.label) > 1:
            r.label = str(r.path)
    return runs


def not_measured_notes(runs: Sequence[RunDir]) -> list[str]:
    """One line per run with request columns its engine did not measure: which ones (missing in
    requests.parquet, not 0) and which summary keys are therefore n/a."""
    out = []
    for r in runs:
        if not r.not_measured:
            continue
        line = f"{r.label}: not measured (missing, not 0): {', '.join(r.not_measured)}"
        keys = [k for k in r.not_measured if k in r.summary]
        if keys:
            line += f"; summary {', '.join(keys)}: n/a"
        out.append(line)
    return out


def run_cdf(run: RunDir) -> tuple[np.ndarray, np.ndarray]:
    """The response-time CDF of `run`; BadRun `PATH: reason` when its requests table cannot be
    read (not Parquet, a column missing)."""
    path = run.path / parquet_name("requests")
    try:
        requests = read_table(run.path, "requests", CDF_COLUMNS)
    except OSError as e:
        raise BadRun(f"{path}: {os_reason(e)}") from None
    except (ValueError, KeyError) as e:  # pyarrow's ArrowInvalid is a ValueError
        why = (str(e).splitlines() or [type(e).__name__])[0]
        raise BadRun(f"{path}: cannot be read ({why})") from None
    return response_time_cdf(requests, run.warmup_ns)


def _thin(x: np.ndarray, y: np.ndarray, max_points: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_points` points of a CDF (the last one kept): y error ≤ 1/max_points."""
    if len(x) <= max_points:
        return x, y
    idx = np.unique(np.linspace(0, len(x) - 1, max_points).astype(np.int64))
    return x[idx], y[idx]


def plot_cdfs(
    curves: Sequence[tuple[str, np.ndarray, np.ndarray]], out: str | os.PathLike, xmax: float = 2.0
) -> Path:
    """One PNG with one CDF line per (label, x, y); x from 0 to `xmax` seconds, y from 0 to 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for label, x, y in curves:
        x, y = _thin(x, y)
        ax.plot(np.concatenate([[0.0], x]), np.concatenate([[0.0], y]), drawstyle="steps-post", label=label)
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1)
    ax.set_xlabel("response time (s)")
    ax.set_ylabel("cumulative fraction of responses")
    ax.set_title("Response-time CDF (completed HTTP responses after the warm-up)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    out = Path(out)
    if out.parent != Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out
