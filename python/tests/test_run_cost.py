"""The cost model counts what costs (issue 30, item 3): monitor samples, the set-up of large
topologies, and sweep and tune sizes. Beyond the limits a run, sweep or tune is refused before
anything runs, with its estimate and the limit (`FILE: KEY: reason`); between a minute and the
limit it is announced. Expected figures are computed by hand in the comments from the engine's
per-item costs (crates/experiment/src/budget.rs: 10 events per connection, one per monitor sample or
interval, 8e6 events/s, 90 s for the 44,002² routes of 44,002 nodes)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_sweep_run import SWEEP, FakeCore

from aqmlab import _core, cli
from aqmlab.sweeps.run import run_sweep

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = (ROOT / "scenarios" / "quickstart.toml").read_text()
ERR = "aqmlab: error: "


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERR), err
    assert "Traceback" not in err
    return lines[0][len(ERR) :]


def no_engine(monkeypatch) -> list:
    """Record any engine start instead of running it (a refusal must come first)."""
    started = []

    def engine(text, label, base_dir, variant, dir, progress=None):
        started.append(variant)
        raise KeyboardInterrupt  # stop at once: the announcement, if any, is already out

    monkeypatch.setattr(_core, "run_scenario_text", engine)
    monkeypatch.setattr(_core, "run_variant", engine)
    return started


def quickstart_with(tmp_path: Path, monitor: str = "", **topology) -> Path:
    text = QUICKSTART
    for k, v in topology.items():
        text = text.replace(f"{k} = 20\n", f"{k} = {v}\n")
    p = tmp_path / "q.toml"
    p.write_text(text + monitor)
    return p


def test_a_queue_sample_every_nanosecond_is_refused_before_anything_runs(tmp_path, capsys, monkeypatch):
    started = no_engine(monkeypatch)
    scen = quickstart_with(tmp_path, '\n[monitor]\nqueue_sample = "1ns"\n')
    out = tmp_path / "out"
    t0 = time.monotonic()
    assert cli.main(["run", str(scen), "--out", str(out)]) == 2
    assert time.monotonic() - t0 < 10
    # 660 s / 1 ns = 6.6e11 samples; with 225 × 660 × 10 = 1.49e6 connection events and the
    # other monitor events the whole run is 6.6e11 too (< 1 % more); 6.6e11 / 8e6 = 82,500 s.
    assert one_error(capsys) == (
        f"{scen}: monitor.queue_sample: too large a run: a queue sample every 1ns for 660 s "
        "(warmup + duration) is 6.6e11 samples, at least 6.6e11 events, about 23 h at 8e6 "
        "events/s; aqmlab refuses runs above 1e11 events (3.5 h)"
    )
    assert started == [] and not out.exists()


def test_a_run_over_a_minute_is_announced_before_it_starts(tmp_path, capsys, monkeypatch):
    started = no_engine(monkeypatch)
    # Every 1 µs: 6.6e8 samples + 1,485,000 + 6,600 + 660 = 6.615e8 events, 82.7 s: announced.
    scen = quickstart_with(tmp_path, '\n[monitor]\nqueue_sample = "1us"\n')
    assert cli.main(["run", str(scen), "--out", str(tmp_path / "out"), "--quiet"]) == 130
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"aqmlab: run: {scen}: droptail: estimated at least 1.4 min; Ctrl-C stops it"
    assert err[1] == f"aqmlab: run: {scen}: red: estimated at least 1.4 min; Ctrl-C stops it"
    assert started == ["droptail"]  # announced before the first run started
    # The quickstart as shipped (0.21 s estimated) gets no line.
    capsys.readouterr()
    plain = tmp_path / "plain.toml"
    plain.write_text(QUICKSTART)
    assert cli.main(["run", str(plain), "--out", str(tmp_path / "out2"), "--quiet"]) == 130
    assert capsys.readouterr().err == "aqmlab: interrupted\n"


def test_the_set_up_of_a_large_topology_is_announced(tmp_path, capsys, monkeypatch):
    no_engine(monkeypatch)
    # 40,000 + 4,000 + 2 routers = 44,002 nodes: 90 s of routes (+ 0.21 s of events) = 1.5 min.
    scen = quickstart_with(tmp_path, clients=40000, servers=4000)
    assert cli.main(["run", str(scen), "--out", str(tmp_path / "out"), "--variant", "red"]) == 130
    assert capsys.readouterr().err.splitlines()[0] == (
        f"aqmlab: run: {scen}: red: estimated at least 1.5 min, 1.5 min of it setting up 44002 "
        "nodes; Ctrl-C stops it"
    )
    (est,) = [e for e in _core.scenario_text_estimates(scen.read_text(), "q", ".") if e["name"] == "red"]
    assert est["nodes"] == 44002
    assert est["setup_s"] == pytest.approx(90.0, rel=1e-12)


def sweep_with(tmp_path: Path, replications: str = "2", grid: str = '"queue.limit" = [10, 30, 60]') -> Path:
    text = SWEEP.replace("replications = 2", f"replications = {replications}")
    text = text.replace('"queue.limit" = [10, 30, 60]', grid)
    p = tmp_path / "sw.toml"
    p.write_text(text)
    return p


# The base of SWEEP: 1 + 4 = 5 s; 100 conn/s × 5 s × 10 = 5,000 events; 5 s / 3 ms = 1,666.7
# samples, 50 queue and 5 link intervals: 6,721.7 events a run.
PER_RUN = 5000 + 5 / 0.003 + 50 + 5


def test_a_sweep_of_1e8_replications_is_refused_before_it_is_expanded(tmp_path, capsys, monkeypatch):
    started = no_engine(monkeypatch)
    scen = sweep_with(tmp_path, replications="100_000_000")
    out = tmp_path / "out"
    t0 = time.monotonic()
    assert cli.main(["sweep", str(scen), "--out", str(out), "--jobs", "1"]) == 2
    assert time.monotonic() - t0 < 10  # expanding 3e8 runs would take days
    # 3 × 1e8 = 3e8 runs × 6,721.7 = 2.02e12 events, / 8e6 = 252,063 s = 2.9 days.
    assert 3e8 * PER_RUN == pytest.approx(2.0165e12)
    assert one_error(capsys) == (
        f"{scen}: sweep.replications: too large a sweep: 3 grid points × 100000000 replications "
        "× 1 variant = 3e8 runs, at least 2.02e12 events, about 2.9 days on one core; aqmlab "
        "refuses a sweep of more than 100000 runs or 1e13 events"
    )
    assert started == [] and not out.exists()


def test_a_1000_by_1000_grid_is_refused_before_it_is_expanded(tmp_path, capsys, monkeypatch):
    started = no_engine(monkeypatch)
    limits = ", ".join(str(10 + i) for i in range(1000))
    rates = ", ".join(f"{50.0 + i / 10}" for i in range(1000))
    scen = sweep_with(tmp_path, "1", f'"queue.limit" = [{limits}]\n"workload[0].rate" = [{rates}]')
    out = tmp_path / "out"
    t0 = time.monotonic()
    assert cli.main(["sweep", str(scen), "--out", str(out)]) == 2
    assert time.monotonic() - t0 < 10
    # 1e6 runs × 6,721.7 events (the base scenario's rate) = 6.72e9 events, 840 s = 14 min.
    assert one_error(capsys) == (
        f"{scen}: sweep.grid: too large a sweep: 1000 × 1000 grid points × 1 replication × 1 "
        "variant = 1e6 runs, at least 6.72e9 events, about 14 min on one core; aqmlab refuses a "
        "sweep of more than 100000 runs or 1e13 events"
    )
    assert started == [] and not out.exists()


def test_a_sweep_estimated_over_a_minute_is_announced(tmp_path, capsys, monkeypatch):
    fake = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", fake)
    scen = sweep_with(tmp_path)
    scen.write_text(scen.read_text() + '\n[monitor]\nqueue_sample = "100ns"\n')
    run_sweep(scen, tmp_path / "out", jobs=1, progress=False)
    # 6 runs × (5,000 + 5 s / 100 ns = 5e7 samples + 55) = 3.0003e8 events, 37.5 s: no line.
    assert capsys.readouterr().err == ""
    scen.write_text(scen.read_text().replace('"100ns"', '"10ns"'))
    run_sweep(scen, tmp_path / "out2", jobs=1, progress=False)
    # 6 × (5e8 + 5,055) = 3.00003e9 events, 375 s = 6.3 min.
    assert capsys.readouterr().err == (
        f"{scen}: sweep: 6 runs, at least 3e9 events, about 6.3 min on one core\n"
    )
    # Resumed with every run done: nothing left to announce.
    run_sweep(scen, tmp_path / "out2", jobs=1, progress=False)
    assert capsys.readouterr().err == ""


def test_a_tune_of_too_many_trials_is_refused(tmp_path, capsys, monkeypatch):
    started = no_engine(monkeypatch)
    text = (ROOT / "scenarios" / "quickstart_tune.toml").read_text()
    text = text.replace("trials = 40", "trials = 1000000")
    scen = tmp_path / "t.toml"
    scen.write_text(text)
    out = tmp_path / "out"
    assert cli.main(["tune", str(scen), "--out", str(out)]) == 2
    # 1e6 trials × 2 + (3 finalists + 2 baselines) × 6 = 2,000,030 runs of 10 + 150 s, each
    # 225 × 160 × 10 = 360,000 + 160 s / 3 ms = 53,333 + 1,600 + 160 = 415,093 events:
    # 8.30e11 events, 103,770 s = 1.2 days.
    assert one_error(capsys) == (
        f"{scen}: tune.trials: too large a tune: 1000000 trials × 2 replications + (3 finalists + "
        "2 baselines) × 6 final replications = 2e6 runs, at least 8.3e11 events, about 1.2 days "
        "on one core; aqmlab refuses a tune of more than 100000 runs or 1e13 events"
    )
    assert started == [] and not out.exists()


def test_a_tune_estimated_over_a_minute_is_announced(tmp_path):
    from aqmlab.tuning.search import check_size, parse

    def line(trials: int) -> str | None:
        return check_size(parse(str(ROOT / "scenarios" / "quickstart_tune.toml"), {"trials": trials}))

    # Each run 415,093 events (as above). 40 trials × 2 + (3 + 2) × 6 = 110 runs: 4.57e7 events,
    # 5.7 s: no line. 600 trials: 1230 runs, 5.106e8 events, 63.8 s (+ 0.1 s set-up) = 1.1 min.
    assert line(40) is None
    assert line(600) == "tune: 1230 runs, at least 5.11e8 events, about 1.1 min on one core"
