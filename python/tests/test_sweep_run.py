"""Running sweeps (aqmlab.sweeps.run): the results store, resume, failures, the CLI, and (engine
tests) the process pool and a two-worker Dask LocalCluster giving byte-identical runs."""

from __future__ import annotations

import tomllib
from dataclasses import replace

import pytest
from conftest import fake_core_run, synthetic_result

from aqmlab import SimError, _core, cli, load_sweep
from aqmlab.sweeps.run import run_sweep

SWEEP = """\
[run]
seed = 1
warmup = "1s"
duration = "4s"

[topology]
kind = "dumbbell"
clients = 4
servers = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[topology.delaybox]
rtt = { dist = "uniform", min = "0ms", max = "100ms" }

[queue]
kind = "droptail"
limit = 60

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 100.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }

[sweep]
replications = 2

[sweep.grid]
"queue.limit" = [10, 30, 60]
"""


# Every file of a sweep's run directory.
RUN_FILES = ["links.parquet", "queue.parquet", "requests.parquet", "run.json", "scenario.toml",
             "summary.json"]  # fmt: skip


class FakeCore:
    """Stands in for `_core.run_scenario_text` in this process (jobs=1): counts calls, returns a
    hand-made run whose kb_per_s is 1000 + queue limit + seed, fails for `fail_limit` and raises
    `interrupt_at_call` (KeyboardInterrupt) at that call number."""

    def __init__(self, fail_limit=None, interrupt_at_call=None):
        self.calls = []
        self.fail_limit = fail_limit
        self.interrupt_at_call = interrupt_at_call

    def __call__(self, text, label, base_dir, variant, dir, progress=None):
        doc = tomllib.loads(text)
        limit, seed = doc["queue"]["limit"], doc["run"]["seed"]
        self.calls.append((limit, seed))
        if self.interrupt_at_call == len(self.calls):
            raise KeyboardInterrupt
        if limit == self.fail_limit:
            raise SimError(f"queue.limit: fake failure for limit {limit}")
        r = synthetic_result(variant, kb_per_s=1000.0 + limit + seed)
        return fake_core_run(replace(r, seed=seed), dir)


@pytest.fixture
def sweep_file(tmp_path):
    p = tmp_path / "sw.toml"
    p.write_text(SWEEP)
    return p


def test_store_layout_and_table(tmp_path, sweep_file, monkeypatch):
    fake = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", fake)
    out = tmp_path / "out"
    t = run_sweep(sweep_file, out, jobs=1, progress=False)
    assert fake.calls == [(10, 1), (10, 2), (30, 1), (30, 2), (60, 1), (60, 2)]
    assert t["queue.limit"].tolist() == [10, 10, 30, 30, 60, 60]
    assert t["seed"].tolist() == [1, 2, 1, 2, 1, 2]
    assert t["replication"].tolist() == [0, 1, 0, 1, 0, 1]
    assert t["status"].tolist() == ["ok"] * 6
    assert t["kb_per_s"].tolist() == [1011.0, 1012.0, 1031.0, 1032.0, 1061.0, 1062.0]
    assert (t["variant"] == "sw").all()  # no [[variant]]: the file's stem
    # One directory per run id, holding the run and its resolved scenario.
    for rid, limit, seed in zip(t["run"], t["queue.limit"], t["seed"], strict=True):
        d = out / "runs" / rid
        assert (d / "summary.json").is_file() and (d / "requests.parquet").is_file()
        doc = tomllib.loads((d / "scenario.toml").read_text())
        assert (doc["queue"]["limit"], doc["run"]["seed"]) == (limit, seed) and "sweep" not in doc
    back = load_sweep(out)
    assert back.equals(t)
    assert back.attrs["sweep"]["axes"] == ["queue.limit"] and back.attrs["sweep"]["replications"] == 2


def test_resume_runs_only_the_unfinished_runs(tmp_path, sweep_file, monkeypatch):
    out = tmp_path / "out"
    first = FakeCore(interrupt_at_call=4)
    monkeypatch.setattr(_core, "run_scenario_text", first)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(sweep_file, out, jobs=1, progress=False)
    # Three runs finished before Ctrl-C; the table was still written, with three pending.
    assert load_sweep(out)["status"].tolist() == ["ok", "ok", "ok", "pending", "pending", "pending"]
    second = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", second)
    t = run_sweep(sweep_file, out, jobs=1, progress=False)
    assert second.calls == [(30, 2), (60, 1), (60, 2)]  # only the three not finished
    assert t["status"].tolist() == ["ok"] * 6
    third = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", third)
    run_sweep(sweep_file, out, jobs=1, progress=False)
    assert third.calls == []  # a finished sweep is never recomputed


def test_runs_of_another_engine_build_are_recomputed(tmp_path, sweep_file, monkeypatch, capsys):
    import json

    from aqmlab.engine.build import engine_build

    out = tmp_path / "out"
    monkeypatch.setattr(_core, "run_scenario_text", FakeCore())
    t = run_sweep(sweep_file, out, jobs=1, progress=False)
    build = engine_build()
    assert len(build) == 16 and int(build, 16) >= 0
    for rid in t["run"]:  # every run records the build that made it
        assert json.loads((out / "runs" / rid / "run.json").read_text())["engine"]["build"] == build
    # Two runs as an older engine left them: another build, and none recorded.
    for rid, old in zip(t["run"][:2], ["0123456789abcdef", None], strict=True):
        p = out / "runs" / rid / "run.json"
        info = json.loads(p.read_text())
        if old is None:
            del info["engine"]["build"]
        else:
            info["engine"]["build"] = old
        p.write_text(json.dumps(info))
    again = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", again)
    capsys.readouterr()
    t2 = run_sweep(sweep_file, out, jobs=1, progress=False)
    assert again.calls == [(10, 1), (10, 2)]  # only those two
    assert "2 finished run(s) were made by another engine build" in capsys.readouterr().err
    assert t2["status"].tolist() == ["ok"] * 6
    # Interrupted before it could recompute a stale run: that run is pending, not a result.
    p = out / "runs" / t["run"][5] / "run.json"
    info = json.loads(p.read_text())
    info["engine"]["build"] = "0123456789abcdef"
    p.write_text(json.dumps(info))
    monkeypatch.setattr(_core, "run_scenario_text", FakeCore(interrupt_at_call=1))
    with pytest.raises(KeyboardInterrupt):
        run_sweep(sweep_file, out, jobs=1, progress=False)
    assert load_sweep(out)["status"].tolist() == ["ok"] * 5 + ["pending"]


def test_a_failing_run_is_recorded_and_the_others_run(tmp_path, sweep_file, monkeypatch, capsys):
    fake = FakeCore(fail_limit=30)
    monkeypatch.setattr(_core, "run_scenario_text", fake)
    out = tmp_path / "out"
    assert cli.main(["sweep", str(sweep_file), "--out", str(out), "--jobs", "1", "--quiet"]) == 1
    assert capsys.readouterr().out.startswith(f"{out}: 6 runs: 4 ok (0 reused), 2 failed, 0 pending")
    assert len(fake.calls) == 6
    t = load_sweep(out)
    assert t["status"].tolist() == ["ok", "ok", "failed", "failed", "ok", "ok"]
    assert t["error"][2] == "SimError: queue.limit: fake failure for limit 30"
    assert t["kb_per_s"].isna().tolist() == [False, False, True, True, False, False]
    err = (out / "runs" / t["run"][2] / "error.txt").read_text()
    assert err.startswith("SimError: queue.limit: fake failure for limit 30")
    # The next invocation tries the failed runs again (and only them).
    again = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", again)
    assert cli.main(["sweep", str(sweep_file), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    assert again.calls == [(30, 1), (30, 2)]
    assert load_sweep(out)["status"].tolist() == ["ok"] * 6


def test_bad_sweep_stops_before_anything_runs(tmp_path, monkeypatch, capsys):
    fake = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", fake)
    p = tmp_path / "bad.toml"
    p.write_text(SWEEP.replace('"queue.limit" = [10, 30, 60]', '"queue.limit" = [10, 0]'))
    out = tmp_path / "out"
    assert cli.main(["sweep", str(p), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"aqmlab: error: {p}: queue.limit: ") and "sweep point: queue.limit = 0" in err
    assert fake.calls == [] and not out.exists()


@pytest.mark.engine
def test_process_pool_and_dask_give_byte_identical_runs(tmp_path, sweep_file):
    from distributed import LocalCluster

    pool = run_sweep(sweep_file, tmp_path / "pool", jobs=2, progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        dask = run_sweep(sweep_file, tmp_path / "dask", dask=cluster.scheduler_address, progress=False)
    assert pool["status"].tolist() == ["ok"] * 6 and dask["run"].tolist() == pool["run"].tolist()
    for rid in pool["run"]:
        assert sorted(p.name for p in (tmp_path / "dask" / "runs" / rid).iterdir()) == RUN_FILES
        for f in RUN_FILES:
            a = (tmp_path / "pool" / "runs" / rid / f).read_bytes()
            assert a == (tmp_path / "dask" / "runs" / rid / f).read_bytes(), (rid, f)
    # Behaviour: the two seeds are different runs; a 10-packet buffer drops more than 60.
    assert pool["responses_started"][0] != pool["responses_started"][1]
    by_limit = pool.groupby("queue.limit")["drops_pct"].mean()
    assert by_limit[10] > by_limit[60]


@pytest.mark.engine
def test_a_sweep_run_directory_is_the_one_aqmlab_run_writes(tmp_path, sweep_file):
    """A sweep point goes through the same streaming writer as `aqmlab run`: running the
    point's resolved scenario.toml gives the same files, byte for byte, except run.json's
    `name` (the sweep names the variant after its file, sw; the rerun after scenario.toml) and
    `scenario` (the file each was given)."""
    import json

    import pyarrow.parquet as pq

    import aqmlab

    t = run_sweep(sweep_file, tmp_path / "out", jobs=1, progress=False)
    for i in (0, 3):  # two points: other limit, other seed
        d = tmp_path / "out" / "runs" / t["run"][i]
        (r,) = aqmlab.run(d / "scenario.toml", out=tmp_path / f"rerun{i}").values()
        e = tmp_path / f"rerun{i}" / r.name
        assert sorted(p.name for p in d.iterdir()) == RUN_FILES
        assert sorted(p.name for p in e.iterdir()) == [f for f in RUN_FILES if f != "scenario.toml"]
        assert (d / "summary.json").read_bytes() == (e / "summary.json").read_bytes()
        for table in ["requests", "queue", "links"]:
            a, b = d / f"{table}.parquet", e / f"{table}.parquet"
            assert a.read_bytes() == b.read_bytes(), table
            rows = pq.read_table(a)
            assert rows.equals(pq.read_table(b)) and rows.num_rows > 0, table
        ours, theirs = json.loads((d / "run.json").read_text()), json.loads((e / "run.json").read_text())
        assert (ours.pop("name"), ours.pop("scenario")) == ("sw", str(sweep_file))
        assert (theirs.pop("name"), theirs.pop("scenario")) == ("scenario", str(d / "scenario.toml"))
        assert ours == theirs  # seed, warm-up, engine counters and build
        # The sweep table's row is that summary.
        assert t["responses_started"][i] == json.loads((e / "summary.json").read_text())["responses_started"]


@pytest.mark.engine
def test_a_sweep_worker_imports_no_dataframe_stack(tmp_path, sweep_file):
    """What a worker does for one run (import aqmlab.sweeps.run, execute_run into its run
    directory) loads neither pandas nor pyarrow nor numpy: a run needs only the core."""
    import subprocess
    import sys

    from aqmlab.sweeps.run import expand, validate

    sweep = expand(sweep_file)
    validate(sweep)  # names each run's variant (here the file's stem)
    run = sweep.runs[0]
    (tmp_path / "text.toml").write_text(run.text)
    dest = tmp_path / "runs" / run.id
    code = (
        "import sys, aqmlab.sweeps.run as s\n"
        "text = open(sys.argv[1]).read()\n"
        "status, r = s.execute_run(text, sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])\n"
        "assert status == 'ok', r\n"
        "print(','.join(m for m in ('pandas', 'pyarrow', 'numpy') if m in sys.modules))"
    )
    argv = [str(tmp_path / "text.toml"), sweep.scenario, sweep.base_dir, run.name, str(dest)]
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
    assert sorted(p.name for p in dest.iterdir()) == [f for f in RUN_FILES if f != "scenario.toml"]
