"""What a sweep prints (issue 30, item 8): no progress frames (`\\r`) on a pipe or a log file,
a failed run (a full disk) printed as it fails and not only in sweep.parquet, and a resumed
sweep counting the runs it reused."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_sweep_run import SWEEP, FakeCore

from aqmlab import _core, cli
from aqmlab.sweeps.run import run_sweep

ROOT = Path(__file__).resolve().parents[2]


class _Tty(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _sweep_file(tmp_path: Path) -> Path:
    p = tmp_path / "sw.toml"
    p.write_text(SWEEP, encoding="utf-8")
    return p


def test_no_progress_frames_off_a_terminal_and_a_bar_on_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_core, "run_scenario_text", FakeCore())
    monkeypatch.setenv("TERM", "xterm")
    f = _sweep_file(tmp_path)
    assert cli.main(["sweep", str(f), "--out", str(tmp_path / "a"), "--jobs", "1"]) == 0
    cap = capsys.readouterr()
    assert "\r" not in cap.out and "\r" not in cap.err
    assert cap.err == ""
    # The same sweep on a terminal draws its bar (so the check above can fail).
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert cli.main(["sweep", str(f), "--out", str(tmp_path / "b"), "--jobs", "1"]) == 0
    assert "\r" in tty.getvalue() and "6/6" in tty.getvalue()
    # TERM=dumb: a terminal that cannot redraw a line gets none either.
    monkeypatch.setenv("TERM", "dumb")
    tty.truncate(0)
    tty.seek(0)
    assert cli.main(["sweep", str(f), "--out", str(tmp_path / "c"), "--jobs", "1"]) == 0
    assert tty.getvalue() == ""


def test_a_failed_run_is_printed_as_it_fails(tmp_path, monkeypatch, capsys):
    fake = FakeCore()
    real_call = fake.__call__

    def disk_full(text, label, base_dir, variant, dir, progress=None):
        if "limit = 30" in text:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.path.join(dir, "requests.parquet"))
        return real_call(text, label, base_dir, variant, dir, progress)

    monkeypatch.setattr(_core, "run_scenario_text", disk_full)
    seen: list[tuple[str, str]] = []

    def on_run(run, status):  # what stderr holds once each run is stored
        seen.append((status, capsys.readouterr().err))

    t = run_sweep(_sweep_file(tmp_path), tmp_path / "out", jobs=1, progress=False, on_run=on_run)
    assert [s for s, _ in seen] == ["ok", "ok", "failed", "failed", "ok", "ok"]
    rids = t["run"].tolist()
    for i, (status, err) in enumerate(seen):
        if status == "ok":
            assert err == ""
        else:
            assert err.startswith(
                f"sweep: run {rids[i]} failed: OSError: [Errno 28] No space left on device: "
            )
            assert err.count("\n") == 1


def test_a_resumed_sweep_counts_the_runs_it_reused(tmp_path, monkeypatch, capsys):
    f = _sweep_file(tmp_path)
    out = tmp_path / "out"
    monkeypatch.setattr(_core, "run_scenario_text", FakeCore(interrupt_at_call=5))
    assert cli.main(["sweep", str(f), "--out", str(out), "--jobs", "1", "--quiet"]) == 130
    capsys.readouterr()
    again = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", again)
    assert cli.main(["sweep", str(f), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    assert len(again.calls) == 2
    assert capsys.readouterr().out.startswith(f"{out}: 6 runs: 6 ok (4 reused), 0 failed, 0 pending")
    assert cli.main(["sweep", str(f), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 6 runs: 6 ok (6 reused), 0 failed, 0 pending")


@pytest.mark.engine
def test_aqmlab_sweep_into_a_pipe_writes_no_carriage_return(tmp_path):
    f = _sweep_file(tmp_path)
    env = {**os.environ, "TERM": "xterm", "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.run(
        [sys.executable, "-m", "aqmlab", "sweep", str(f), "--out", str(tmp_path / "o"), "--jobs", "1"],
        capture_output=True, env=env, timeout=600,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert b"\r" not in p.stdout and b"\r" not in p.stderr
    assert p.stdout.startswith(f"{tmp_path / 'o'}: 6 runs: 6 ok (0 reused)".encode())
