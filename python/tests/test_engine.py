"""End-to-end tests through the Rust engine (marker `engine`): a tiny quickstart-like scenario
(10 Mbps dumbbell, 2 s warm-up + 20 s) run through aqmlab.run() and the `aqmlab` command.
These are not skipped: they fail until the engine runs, and must pass once it does."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import SUMMARY_FIELDS, write_tiny_scenario

import aqmlab
from aqmlab.reports.run_report import response_time_cdf
from aqmlab.storage.tables import TYPES

pytestmark = pytest.mark.engine

RUN_FILES = ["links.parquet", "queue.parquet", "requests.parquet", "run.json", "summary.json"]


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """Both variants of the tiny scenario, run once for the module and written to disk."""
    d = tmp_path_factory.mktemp("engine")
    scen = write_tiny_scenario(d)
    results = aqmlab.run(scen, out=d / "runs")
    return scen, d / "runs", results


def test_variants_in_file_order(tiny_runs):
    scen, out, results = tiny_runs
    assert list(results) == ["dt120", "dt30"]
    assert sorted(p.name for p in out.iterdir()) == ["dt120", "dt30"]
    assert sorted(p.name for p in (out / "dt120").iterdir()) == RUN_FILES


def test_summary_keys_in_struct_order_and_sane(tiny_runs):
    _, out, results = tiny_runs
    for name, r in results.items():
        assert list(r.summary) == SUMMARY_FIELDS
        assert (out / name / "summary.json").read_text() == r.summary_json + "\n"
        assert r.summary["measured_s"] == 20.0
        assert r.summary["responses_completed"] > 100
        assert 0 < r.summary["kb_per_s"] < 10e6 / 8 / 1000 * 1.001  # below capacity (1250 KB/s)
        assert r.warmup_ns == 2_000_000_000
        assert r.engine["end_ns"] == 22_000_000_000
        assert r.wall_s is not None and r.wall_s > 0


def test_dataframe_columns_and_dtypes(tiny_runs):
    _, _, results = tiny_runs
    r = results["dt120"]
    for table in ["requests", "queue", "links"]:
        df = getattr(r, table)
        assert list(df.columns) == list(TYPES[table]), table
        assert len(df) > 0, table
        for col, typ in TYPES[table].items():
            if str(typ) == "string":
                assert pd.api.types.is_string_dtype(df[col]), (table, col)
            else:
                assert str(df[col].dtype) == {"int64": "int64", "bool": "bool", "double": "float64"}[str(typ)]
    assert set(r.requests["kind"]) == {"http"}
    assert r.requests["id"].is_unique


def test_conservation(tiny_runs):
    _, _, results = tiny_runs
    for r in results.values():
        q = r.requests
        assert (q["end_ns"] >= q["start_ns"]).all()
        assert (q["end_ns"] <= r.engine["end_ns"]).all()
        e = r.engine
        assert e["packets_created"] == e["packets_delivered"] + e["packets_dropped"] + e["packets_in_flight"]


def test_cdf_agrees_with_summary(tiny_runs):
    _, _, results = tiny_runs
    for r in results.values():
        x, y = response_time_cdf(r.requests, r.warmup_ns)
        assert len(x) == r.summary["responses_completed"]
        median = x[math.ceil(0.5 * len(x)) - 1]  # nearest rank, as the summary
        assert median * 1000 == pytest.approx(r.summary["median_rt_ms_of_completed"], abs=1e-6)
        # over all started responses, the unfinished ones slowest
        started = r.summary["responses_started"]
        rank = math.ceil(0.9 * started)
        p90 = x[rank - 1] * 1000 if rank <= len(x) else math.inf
        assert p90 == pytest.approx(r.summary["p90_rt_ms"], abs=1e-6)
        assert np.all(np.diff(x) >= 0) and y[-1] == 1.0


def test_load_run_reads_back_what_run_returned(tiny_runs):
    _, out, results = tiny_runs
    for name, r in results.items():
        back = aqmlab.load_run(out / name)
        assert back.summary_json == r.summary_json
        assert back.engine == r.engine
        assert back.warmup_ns == r.warmup_ns
        for t in ["requests", "queue", "links"]:
            pd.testing.assert_frame_equal(getattr(back, t), getattr(r, t))


def test_same_seed_byte_identical_different_seed_differs(tiny_runs, tmp_path):
    scen, out, _ = tiny_runs
    aqmlab.run(scen, variant="dt120", out=tmp_path / "again")
    for f in RUN_FILES:
        assert (out / "dt120" / f).read_bytes() == (tmp_path / "again" / "dt120" / f).read_bytes(), f
    other = write_tiny_scenario(tmp_path, seed=2, name="seed2.toml")
    r2 = aqmlab.run(other, variant="dt120")["dt120"]
    assert r2.summary_json != (out / "dt120" / "summary.json").read_text().rstrip("\n")


def test_progress_callback_and_abort(tiny_scenario):
    seen = []
    aqmlab.run(tiny_scenario, variant="dt30", progress=lambda v, s, e: seen.append((v, s, e)))
    assert seen[0][0] == "dt30" and all(e == 22.0 for _, _, e in seen)
    assert [s for _, s, _ in seen] == sorted(s for _, s, _ in seen)
    assert seen[-1][1] == 22.0 and len(seen) >= 20

    class Stop(Exception):
        pass

    def stop(v, s, e):
        if s > 5:
            raise Stop("user stop")

    with pytest.raises(Stop, match="user stop"):
        aqmlab.run(tiny_scenario, variant="dt30", progress=stop)


def test_cli_run_then_report(tiny_scenario, tmp_path):
    out = tmp_path / "runs"
    cmd = [sys.executable, "-m", "aqmlab"]
    p = subprocess.run([*cmd, "run", str(tiny_scenario), "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "dt120" in p.stdout and "dt30" in p.stdout and "KB/s" in p.stdout
    # stderr is a pipe here: no progress bar, only the CLI's lines (a terminal gets the bar:
    # test_progress_bar.py)
    assert "sim s" not in p.stderr and "\r" not in p.stderr
    assert [ln.split(":")[0] for ln in p.stderr.splitlines()] == ["dt120", "dt30"]
    png = out / "report.png"
    p = subprocess.run([*cmd, "report", str(out), "--out", str(png)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert png.stat().st_size > 0
    rows = [r for r in p.stdout.splitlines()[2:] if not r.startswith(("!", "∞"))]
    assert [r.split()[0] for r in rows] == ["dt120", "dt30"]


def test_a_run_without_out_keeps_its_tables_in_memory(tiny_runs):
    scen, out, _ = tiny_runs
    r = aqmlab.run(scen, variant="dt30")["dt30"]
    assert set(r.files) == {"requests", "queue", "links"}
    assert all(isinstance(v, bytes) for v in r.files.values())  # the scratch directory is gone
    for t, data in r.files.items():  # the files `--out` writes
        assert data == (out / "dt30" / f"{t}.parquet").read_bytes(), t
    assert len(r.requests) >= r.summary["responses_started"] > 100
    assert list(r.requests["id"]) == list(range(len(r.requests)))  # id order, every id once


def test_the_engine_runs_without_the_gil(tmp_path):
    """While the engine runs, other Python threads go on: the core releases the GIL and takes
    it back only to check for Ctrl-C every 50 ms or to call a progress callable
    (crates/py/src/lib.rs `simulate`; `aqmlab run` imports meanwhile). A thread waking every
    millisecond wakes all through a run; with the GIL held it could not return from its
    sleep until the run was over (or a check every 50 ms: at most one wake per check)."""
    import threading
    import time

    scen = write_tiny_scenario(tmp_path)
    # 1,500 s: ≈ 0.5 s of engine time on the machines measured (300 s fell to 0.1 s when the
    # engine got faster, too short to tell).
    scen.write_text(scen.read_text().replace('duration = "20s"', 'duration = "1500s"'))
    wakes: list[float] = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            time.sleep(0.001)
            wakes.append(time.perf_counter())

    t = threading.Thread(target=tick)
    t.start()
    try:
        r = aqmlab.run(scen, variant="dt30")["dt30"]
        returned = time.perf_counter()
    finally:
        done.set()
        t.join()
    # The core's own wall time ends when it returns: its window is [returned - wall_s, returned].
    start = returned - r.wall_s
    during = [w for w in wakes if start <= w <= returned]
    assert r.wall_s > 0.1, r.wall_s  # long enough to tell
    checks = r.wall_s / 0.05
    assert len(during) > 3 * checks + 10, (len(during), r.wall_s)
