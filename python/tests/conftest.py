"""Shared helpers: a hand-made RunResult (no engine needed) and tiny scenario files for the
engine tests (marked `engine`)."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from aqmlab._core import SUMMARY_COLUMNS
from aqmlab.storage.record import RunResult
from aqmlab.storage.tables import TYPES

# The metrics::Summary fields in struct order (crates/metrics/src/summary.rs; checked against a
# run's summary.json by python/tests/test_tune_spec.py).
SUMMARY_FIELDS = list(SUMMARY_COLUMNS)


def synthetic_summary(**over) -> dict:
    s = {k: 0 for k in SUMMARY_FIELDS}
    s.update(
        measured_s=2.0, kb_per_s=1142.0, utilization=0.9136, drops_pct=11.2, unforced_pct=43.4,
        forced_pct=56.6, mean_qlen=12.2, median_rt_ms=402.0, pct_le_1s=62.7, pct_1_2s=12.8,
        pct_2_3s=9.56, pct_gt_3s=14.9, p90_rt_ms=3512.0, p99_rt_ms=12000.0, steady_state=True,
        pct_completed=100.0,
    )  # fmt: skip
    s.update(over)
    return s


def summary_json(summary: dict) -> str:
    # Same shape as serde_json::to_string_pretty (2-space indent, null for NaN).
    nulled = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in summary.items()}
    return json.dumps(nulled, indent=2)


def synthetic_requests() -> pd.DataFrame:
    """Warm-up 1 s. Response times of the measured completed HTTP requests: 0.5, 1.0, 1.0, 2.0 s;
    plus one before the warm-up, one incomplete and one bulk transfer (all three excluded)."""
    s = 1_000_000_000
    rows = [
        # kind, start_ns, end_ns, completed
        ("http", s // 2, s // 2 + s // 10, True),  # starts before the warm-up
        ("http", s, s + s // 2, True),  # 0.5 s
        ("http", s + 1, 2 * s + 1, True),  # 1.0 s
        ("http", 2 * s, 3 * s, True),  # 1.0 s
        ("http", 2 * s, 4 * s, True),  # 2.0 s
        ("http", 2 * s, 5 * s, False),  # incomplete
        ("bulk", s, 2 * s, True),  # not HTTP
    ]
    n = len(rows)
    cols = {c: [0] * n for c in TYPES["requests"]}
    cols["id"] = list(range(n))
    cols["kind"] = [r[0] for r in rows]
    cols["start_ns"] = [r[1] for r in rows]
    cols["end_ns"] = [r[2] for r in rows]
    cols["completed"] = [r[3] for r in rows]
    cols["response_bytes"] = [1000 * (i + 1) for i in range(n)]
    from aqmlab.storage.tables import arrow_to_frame, columns_to_arrow

    return arrow_to_frame(columns_to_arrow("requests", cols))


def synthetic_result(name: str = "red", **summary_over) -> RunResult:
    from aqmlab.storage.tables import arrow_to_frame, columns_to_arrow

    summary = synthetic_summary(**summary_over)
    queue = {
        "link": ["bottleneck_fwd", "bottleneck_fwd"],
        "t_ns": [100_000_000, 200_000_000],
        "forwarded": [80, 81],
        "early_drops": [1, 0],
        "forced_drops": [0, 2],
        "overflow_drops": [0, 0],
        "dequeue_drops": [0, 0],
        "marks": [0, 0],
        "min_qlen": [3, 4],
        "max_qlen": [20, 25],
        "mean_qlen": [10.5, 12.25],
        "var_qlen": [4.0, 6.5],
    }
    links = {"link": ["bottleneck_fwd"], "t_ns": [1_000_000_000], "bytes": [1_142_000], "packets": [800]}
    return RunResult(
        name=name,
        summary=summary,
        requests=synthetic_requests(),
        queue=arrow_to_frame(columns_to_arrow("queue", queue)),
        links=arrow_to_frame(columns_to_arrow("links", links)),
        engine={"events": 12345, "end_ns": 3_000_000_000},
        summary_json=summary_json(summary),
        warmup_ns=1_000_000_000,
        seed=1,
        scenario="synthetic.toml",
        wall_s=0.5,
    )


def fake_core_run(r: RunResult, dir: str) -> dict:
    """What the core's `run_variant` / `run_scenario_text` do, for the hand-made run `r`: its
    tables written into the directory `dir` (with pyarrow, not the core's writer) and the
    core's dict returned (for fakes standing in for the engine)."""
    from aqmlab.storage.run_dir import _write_tables

    _write_tables(r, Path(dir))
    return {
        "name": r.name,
        "seed": r.seed,
        "warmup_ns": r.warmup_ns,
        "summary_json": r.summary_json,
        "engine": r.engine,
        "wall_s": 0.01,
    }


TINY_SCENARIO = """\
# Tiny quickstart-like scenario for the engine tests: 10 Mbps dumbbell, HTTP/1.0 at ~45 % load,
# 2 s warm-up + 20 s measured.
[run]
seed = {seed}
warmup = "2s"
duration = "20s"

[topology]
kind = "dumbbell"
clients = 10
servers = 10
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[topology.delaybox]
rtt = {{ dist = "uniform", min = "0ms", max = "150ms" }}

[queue]
kind = "droptail"
limit = 120

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 120.0
request_size = {{ dist = "constant", value = "300B" }}
response_size = {{ dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }}

[[variant]]
name = "dt120"
queue = {{ kind = "droptail", limit = 120 }}

[[variant]]
name = "dt30"
queue = {{ kind = "droptail", limit = 30 }}
"""


def write_tiny_scenario(dir: Path, seed: int = 1, name: str = "tiny.toml") -> Path:
    p = dir / name
    p.write_text(textwrap.dedent(TINY_SCENARIO).format(seed=seed))
    return p


@pytest.fixture
def tiny_scenario(tmp_path: Path) -> Path:
    return write_tiny_scenario(tmp_path)


def write_requests_run(d, requests, summary: dict, warmup_ns: int = 0) -> None:
    """Write a run directory at `d` holding `requests` (missing request columns 0), `summary`
    and `warmup_ns`, the rest from `synthetic_result` (for studies' run_metrics tests)."""
    from dataclasses import replace

    from aqmlab.storage.run_dir import write_run
    from aqmlab.storage.tables import TYPES

    req = requests.copy()
    for c in TYPES["requests"]:
        if c not in req.columns:
            req[c] = 0
    res = replace(synthetic_result(), requests=req[list(TYPES["requests"])], summary=summary,
                  summary_json=summary_json(summary), warmup_ns=warmup_ns)  # fmt: skip
    write_run(res, d)


def _needs_ns2():
    """Marker for tests that run ns-2.35 (`ns`, Debian package ns2): skipped where it is not
    installed, except in CI (`CI` set), where test.sh installs it, so its absence is a failure."""
    import os
    import shutil

    if shutil.which("ns") is not None:
        return lambda test: test  # nothing to add (an empty usefixtures() only warns)
    if os.environ.get("CI"):
        return pytest.mark.usefixtures("_ns2_missing_in_ci")
    return pytest.mark.skip(reason="ns-2 (`ns`, Debian package ns2) is not installed")


@pytest.fixture
def _ns2_missing_in_ci():
    pytest.fail("CI is set but ns-2 (`ns`) is not installed: test.sh should have installed it")


#: `@needs_ns2` on a test that runs ns-2.35 (see `_needs_ns2`).
needs_ns2 = _needs_ns2()
