"""Killed drivers (issue 15): the workers of an `aqmlab sweep` killed with SIGKILL die with it
instead of finishing their simulations, and the scratch entries a killed writer leaves
(`NAME.tmp-PID`, `NAME.old-PID`) are cleaned up at the next start when PID no longer runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from test_sweep_run import SWEEP, FakeCore

from aqmlab import _core, load_sweep
from aqmlab.storage.run_dir import remove_stale_scratch
from aqmlab.sweeps.run import expand, prepare_out, run_sweep

# Four runs of two endless bulk flows for 5.5 simulated hours: about 15 s of CPU each, so
# workers that outlive their driver are still computing seconds after it is killed.
LONG_SWEEP = """\
[run]
seed = 1
warmup = "0s"
duration = "20000s"

[topology]
kind = "dumbbell"
clients = 2
servers = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "droptail"
limit = 60

[[workload]]
kind = "bulk"
flows = [{ start = "0s", client = 0, server = 0 }, { start = "0s", client = 1, server = 1 }]

[sweep.grid]
"queue.limit" = [20, 40, 60, 80]
"""


def dead_pid() -> int:
    """The pid of a process that has exited."""
    p = subprocess.Popen(["true"])
    p.wait()
    assert not psutil.pid_exists(p.pid)
    return p.pid


@pytest.mark.engine
def test_sigkill_of_sweep_leaves_no_live_worker(tmp_path):
    scen = tmp_path / "long.toml"
    scen.write_text(LONG_SWEEP)
    driver = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "sweep", str(scen), "--out", str(tmp_path / "out"), "--jobs", "2",
         "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    workers: list[psutil.Process] = []
    try:
        # Wait until both workers are simulating (they have used CPU time).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            kids = psutil.Process(driver.pid).children(recursive=True)
            busy = [k for k in kids if k.cpu_times().user > 0.5]
            if len(busy) >= 2:
                workers = kids
                break
            assert driver.poll() is None, driver.stderr.read().decode()
            time.sleep(0.2)
        assert len(workers) >= 2, "the sweep's workers never started"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=10)
        gone, alive = psutil.wait_procs(workers, timeout=5)
        assert alive == [], f"workers still alive 5 s after SIGKILL of the driver: {alive}"
        # The workers were writing their run directories under scratch names (ID.tmp-PID):
        # nothing looks finished, and the next sweep's start removes them.
        runs = tmp_path / "out" / "runs"
        left = sorted(p.name for p in runs.iterdir())
        assert len(left) == 2 and all(".tmp-" in n for n in left), left
        prepare_out(tmp_path / "out")
        assert list(runs.iterdir()) == []
    finally:
        if driver.poll() is None:
            driver.kill()
        for w in workers:  # whatever happened, leave no simulation running
            if w.is_running():
                w.kill()
        driver.wait()
        driver.stderr.close()


def test_stale_scratch_of_a_dead_writer_is_removed_at_the_next_sweep(tmp_path, monkeypatch):
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(SWEEP)
    ids = [r.id for r in expand(sweep_file).runs]
    out = tmp_path / "out"
    runs = out / "runs"
    runs.mkdir(parents=True)
    dead, live = dead_pid(), os.getppid()
    half = runs / f"{ids[0]}.tmp-{dead}"  # a run directory killed mid-write
    half.mkdir()
    (half / "requests.parquet").write_bytes(b"partial")
    busy = runs / f"{ids[1]}.tmp-{live}"  # a writer still at work (a live pid): kept
    busy.mkdir()
    (out / f"sweep.parquet.tmp-{dead}").write_bytes(b"partial")
    (runs / ids[0]).mkdir()
    (runs / ids[0] / f"scenario.toml.tmp-{dead}").write_text("partial")
    fake = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", fake)
    run_sweep(sweep_file, out, jobs=1, progress=False)
    assert not half.exists() and not (out / f"sweep.parquet.tmp-{dead}").exists()
    assert not (runs / ids[0] / f"scenario.toml.tmp-{dead}").exists()
    assert busy.is_dir()
    assert load_sweep(out)["status"].tolist() == ["ok"] * 6 and len(fake.calls) == 6


def test_old_copy_of_a_run_killed_between_renames_is_restored(tmp_path):
    from conftest import synthetic_result

    from aqmlab.storage.run_dir import is_run_dir, write_run

    dead = dead_pid()
    write_run(synthetic_result(), tmp_path / f"red.old-{dead}")  # the only complete copy
    (tmp_path / f"red.tmp-{dead}").mkdir()
    write_run(synthetic_result(), tmp_path / f"dt.old-{dead}")  # dt itself exists: a leftover
    write_run(synthetic_result(), tmp_path / "dt")
    handled = remove_stale_scratch(tmp_path)
    assert sorted(p.name for p in handled) == sorted([f"red.old-{dead}", f"red.tmp-{dead}", f"dt.old-{dead}"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dt", "red"]
    assert is_run_dir(tmp_path / "red") and is_run_dir(tmp_path / "dt")


def test_worker_initializer_exits_when_the_driver_is_already_gone(tmp_path):
    # A worker whose driver died before it was set up must not start computing.
    code = f"from aqmlab.sweeps.workers import worker_init; worker_init({dead_pid()}); print('alive')"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       cwd=Path(__file__).parent)  # fmt: skip
    assert p.returncode == 1 and "alive" not in p.stdout


WATCHDOG_DRIVER = """
import os, sys, time
from aqmlab.sweeps import workers
workers._set_pdeathsig = lambda: False  # as where prctl is missing: the watchdog must do it
ex = workers.pool(1)
print(ex.submit(os.getpid).result(), flush=True)
time.sleep(120)
"""


def test_idle_worker_without_prctl_exits_through_the_watchdog(tmp_path):
    driver = subprocess.Popen([sys.executable, "-c", WATCHDOG_DRIVER], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).parent)  # fmt: skip
    worker = None
    try:
        worker = psutil.Process(int(driver.stdout.readline()))
        assert worker.ppid() == driver.pid
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=10)
        gone, alive = psutil.wait_procs([worker], timeout=5)
        assert alive == [], "an idle worker outlived its killed driver by 5 s"
    finally:
        if driver.poll() is None:
            driver.kill()
        if worker is not None and worker.is_running():
            worker.kill()
        driver.wait()
        driver.stdout.close()
