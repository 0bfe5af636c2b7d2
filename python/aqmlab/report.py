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

from aqmlab.io import is_run_dir, not_measured_of, read_info, read_summary, read_table, warmup_ns_of
from aqmlab.summary_table import COLUMNS, fmt_value, summary_table  # noqa: F401 (re-exported)

CDF_COLUMNS = ["kind", "start_ns", "end_ns", "completed"]


def response_time_cdf(requests: pd.DataFrame, warmup_ns: int) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF of response times: x = sorted response times (s) of the completed HTTP
    requests that started at or after `warmup_ns`, y[i] = (i + 1) / n. Empty arrays if none."""
    m = (
        (requests["kind"] == "http")
        & requests["completed"].astype(bool)
        & (requests["start_ns"] >= warmup_ns)
    )
    rt_ns = requests["end_ns"][m].to_numpy(dtype=np.int64) - requests["start_ns"][m].to_numpy(dtype=np.int64)
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


def _not_a_dir(d: Path) -> str:
    """Why the file `d` is not what `aqmlab report` reads, and what to do instead."""
    try:
        import tomllib

        doc = tomllib.loads(d.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        doc = None
    if isinstance(doc, dict) and ("run" in doc or "sweep" in doc or "variant" in doc):
        cmd = "aqmlab sweep" if "sweep" in doc else "aqmlab run"
        return (
            f"{d}: is a scenario file, not a run directory; run it first "
            f"({cmd} {d} --out DIR), then report DIR"
        )
    if d.suffix == ".parquet" or d.name == "summary.json":
        return f"{d}: is a file of a run; give its directory ({d.parent})"
    return f"{d}: is a file, not a run directory"


def find_run_dirs(dirs: Sequence[str | os.PathLike]) -> list[Path]:
    """Each DIR is a run directory (has summary.json) or a parent of run directories (its
    complete run subdirectories, sorted by name). Raises FileNotFoundError naming the DIR and
    what it is instead (missing, a scenario file, a sweep directory among others, empty)."""
    from aqmlab.sweep import is_sweep_dir

    found: list[Path] = []
    for d in map(Path, dirs):
        if is_run_dir(d):
            found.append(d)
            continue
        if d.is_file():
            raise FileNotFoundError(_not_a_dir(d))
        if not d.is_dir():
            raise FileNotFoundError(f"{d}: no such directory")
        children = sorted(c for c in d.iterdir() if is_run_dir(c))
        if not children:
            if is_sweep_dir(d):
                raise FileNotFoundError(f"{d}: is a sweep directory; report it alone (aqmlab report {d})")
            raise FileNotFoundError(f"{d}: not a run directory and contains none (no summary.json)")
        found.extend(children)
    return found


def open_runs(dirs: Sequence[str | os.PathLike]) -> list[RunDir]:
    """The runs under `dirs`, labelled by run name (by parent/name where names repeat)."""
    paths = find_run_dirs(dirs)
    runs = []
    for p in paths:
        summary = read_summary(p)
        info = read_info(p)
        missing = not_measured_of(info)
        # A sum of a column not measured is missing, whatever the file says (older testbed runs
        # wrote 0).
        summary.update({k: math.nan for k in missing if k in summary})
        runs.append(RunDir(str(info.get("name", p.name)), p, summary, warmup_ns_of(info, summary), missing))
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
    return response_time_cdf(read_table(run.path, "requests", CDF_COLUMNS), run.warmup_ns)


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
