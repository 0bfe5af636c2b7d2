"""`aqmlab report` over runs it cannot show (issue 30, items 6 and 8): an interrupted run
(run.json `engine.interrupted`, as the testbed writes after Ctrl-C), a corrupt summary.json, a
missing or unreadable requests.parquet are each named with the reason and left out while the
other runs are reported (exit status 1); the PNG goes into the run directory, never the current
one; argument and path errors come before pandas and matplotlib are imported."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import synthetic_result

from aqmlab import cli, write_run
from aqmlab.reports.run_report import BadRun, open_runs

PY = Path(__file__).resolve().parents[1]


def _interrupted(d: Path) -> Path:
    """A testbed-like run stopped by Ctrl-C during the warm-up: normal files, run.json
    `engine.interrupted: true` (crates/testbed/src/run.rs `run_info`)."""
    r = synthetic_result("tb")
    return write_run(replace(r, engine={**r.engine, "kind": "testbed-linux", "interrupted": True}), d)


def _report(capsys, *args: str) -> tuple[int, str, str]:
    rc = cli.main(["report", *args])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _table_runs(out: str) -> list[str]:
    """The run names of the summary table's rows (after the header and the rule)."""
    lines = out.splitlines()
    return [ln.split()[0] for ln in lines[2:] if ln and not ln.startswith("note:")]


def test_an_interrupted_run_is_skipped_by_name_and_the_others_are_reported(tmp_path, capsys):
    write_run(synthetic_result("red"), tmp_path / "runs" / "red")
    _interrupted(tmp_path / "runs" / "tb.interrupted")
    rc, out, _ = _report(capsys, str(tmp_path / "runs"), "--out", str(tmp_path / "r.png"))
    assert rc == 1
    assert _table_runs(out) == ["red"]
    assert out.splitlines()[-1] == (
        f"note: skipped {tmp_path / 'runs' / 'tb.interrupted'}: interrupted (run.json "
        "engine.interrupted): holds only what was measured until the signal, not a complete run"
    )
    assert (tmp_path / "r.png").is_file()


def test_an_interrupted_run_under_the_normal_name_alone_is_refused(tmp_path, capsys):
    # Testbed runs written before they were kept as NAME.interrupted have the normal name.
    _interrupted(tmp_path / "tb")
    rc, out, err = _report(capsys, str(tmp_path / "tb"))
    assert rc == 2 and out == ""
    assert err == (
        f"aqmlab: error: report: no run to report; {tmp_path / 'tb'}: interrupted (run.json "
        "engine.interrupted): holds only what was measured until the signal, not a complete run\n"
    )
    assert not (tmp_path / "tb" / "report.png").exists()
    with pytest.raises(BadRun, match="interrupted"):
        open_runs([tmp_path / "tb"])


def test_a_corrupt_summary_and_a_missing_or_broken_requests_table_are_named_and_skipped(tmp_path, capsys):
    runs = tmp_path / "runs"
    for name in ("a_ok", "b_corrupt", "c_missing", "d_broken"):
        write_run(synthetic_result(name), runs / name)
    (runs / "b_corrupt" / "summary.json").write_text('{"kb_per_s": 12', encoding="utf-8")
    (runs / "c_missing" / "requests.parquet").unlink()
    (runs / "d_broken" / "requests.parquet").write_bytes(b"not parquet at all")
    rc, out, _ = _report(capsys, str(runs), "--out", str(tmp_path / "r.png"))
    assert rc == 1
    assert _table_runs(out) == ["a_ok"]
    notes = [ln for ln in out.splitlines() if ln.startswith("note: skipped")]
    assert notes[0] == (
        f"note: skipped {runs / 'b_corrupt' / 'summary.json'}: not valid JSON "
        "(Expecting ',' delimiter: line 1 column 16 (char 15))"
    )
    assert notes[1] == (
        f"note: skipped {runs / 'c_missing' / 'requests.parquet'}: missing (the run's requests "
        "table: the CDF is drawn from it)"
    )
    assert notes[2].startswith(f"note: skipped {runs / 'd_broken' / 'requests.parquet'}: cannot be read (")
    assert len(notes) == 3


def test_report_of_a_run_dir_writes_its_png_there_and_nothing_in_the_cwd(tmp_path, capsys, monkeypatch):
    run = write_run(synthetic_result("red"), tmp_path / "runs" / "red")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    rc, _, err = _report(capsys, str(run))
    assert rc == 0
    assert list(cwd.iterdir()) == []
    assert (run / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert err == f"CDF: {run / 'report.png'}\n"


def test_report_of_several_dirs_writes_into_the_directory_they_share(tmp_path, capsys, monkeypatch):
    write_run(synthetic_result("red"), tmp_path / "s" / "red")
    write_run(synthetic_result("droptail"), tmp_path / "s" / "droptail")
    monkeypatch.chdir(tmp_path)
    assert _report(capsys, "s/red", "s/droptail")[0] == 0
    assert (tmp_path / "s" / "report.png").is_file()
    # Sharing only the current directory: the PNG must be named, nothing is written.
    write_run(synthetic_result("pie"), tmp_path / "pie")
    before = sorted(os.listdir(tmp_path))
    rc, _, err = _report(capsys, "s/red", "pie")
    assert rc == 2
    assert err == (
        "aqmlab: error: report: the DIRs share no directory but the current one: name the PNG (--out)\n"
    )
    assert sorted(os.listdir(tmp_path)) == before


HEAVY = ("pandas", "numpy", "matplotlib", "pyarrow", "scipy")


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["nosuchdir"],
        ["--xmax", "0", "x"],
        ["SCENARIO"],
        ["a", "b", "--out", "/nonexistent/x.png"],
    ],
)
def test_report_argument_and_path_errors_come_before_heavy_imports(tmp_path, args):
    scen = tmp_path / "s.toml"
    scen.write_text('[run]\nduration = "1s"\n', encoding="utf-8")
    args = [str(scen) if a == "SCENARIO" else a for a in args]
    code = (
        "import sys\nfrom aqmlab import cli\n"
        "try:\n    rc = cli.main(['report', *sys.argv[1:]])\nexcept SystemExit as e:\n    rc = e.code\n"
        f"print(rc, [m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PY)}
    p = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60
    )
    assert p.stdout == "2 []\n", p.stderr
    assert p.stderr.startswith("usage:" if args == ["--bogus"] else "aqmlab: error: "), p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2  # usage + error, or the one error line


def test_a_sweep_report_names_and_skips_its_unreadable_runs(tmp_path, monkeypatch, capsys):
    from test_sweep_run import SWEEP, FakeCore

    from aqmlab import _core
    from aqmlab.sweeps.run import run_sweep

    monkeypatch.setattr(_core, "run_scenario_text", FakeCore())
    f = tmp_path / "sw.toml"
    f.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / "out"
    t = run_sweep(f, out, jobs=1, progress=False)
    bad_summary, no_requests = (out / "runs" / t["run"][0], out / "runs" / t["run"][3])
    (bad_summary / "summary.json").write_text("{", encoding="utf-8")
    (no_requests / "requests.parquet").unlink()
    capsys.readouterr()
    rc, _, err = _report(capsys, str(out))
    assert rc == 0
    assert err.splitlines() == [
        f"note: skipped {bad_summary / 'summary.json'}: not valid JSON "
        "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        f"note: skipped {no_requests / 'requests.parquet'}: missing (the run's requests table: the CDF "
        "is drawn from it)",
    ]
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"| {t['run'][0]} | sw | unreadable | {bad_summary / 'summary.json'}: not valid JSON" in md
    assert f"| {t['run'][3]} | sw | unreadable | {no_requests / 'requests.parquet'}: missing" in md
    # Limits 10 and 30 keep one replication each, 60 both.
    rows = re.findall(r"^\| queue\.limit=(\d+) \| (\d) \|", md, flags=re.M)
    assert rows == [("10", "1"), ("30", "1"), ("60", "2")]


def _as_from_a_shell() -> None:
    # A child inherits an ignored or blocked SIGINT from the test process (the full suite left
    # one so: the run then never saw Ctrl-C); a user's shell starts `aqmlab` with the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.engine
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_simulator_run_never_takes_the_run_name(tmp_path, sig):
    """`aqmlab run` stopped by Ctrl-C (cleans up) or SIGTERM (cannot: the scratch name stays,
    removed by the next start): no `OUT/<variant>` appears and `aqmlab report` finds no run."""
    root = Path(__file__).resolve().parents[2]
    text = (root / "scenarios" / "quickstart.toml").read_text(encoding="utf-8")
    long = text.replace('duration = "10min"', 'duration = "100000s"')
    assert long != text
    scen = tmp_path / "long.toml"
    scen.write_text(long, encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(PY)}
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "run", str(scen), "--out", str(out), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=_as_from_a_shell,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.is_dir() and any(out.iterdir())):
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(sig)
    p.communicate(timeout=60)
    assert p.returncode == (130 if sig == signal.SIGINT else -signal.SIGTERM)
    if sig == signal.SIGINT:  # the run's directory and the parents it created are removed
        assert not out.exists()
        why = "no such directory"
    else:
        assert sorted(x.name for x in out.iterdir()) == [f"droptail.tmp-{p.pid}"]
        why = "not a run directory and contains none (no summary.json)"
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "report", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stderr == f"aqmlab: error: {out}: {why}\n"
