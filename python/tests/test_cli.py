"""The `aqmlab` command's help and error paths (no engine needed)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from aqmlab import cli


def aqmlab(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_help_lists_commands():
    p = aqmlab("--help")
    assert p.returncode == 0
    # Every subcommand, in the declared order, each with its one-line help.
    listed = [m.group(1) for m in re.finditer(r"^    (\S+)", p.stdout, re.M) if m.group(1) in cli._COMMANDS]
    assert listed == list(cli._COMMANDS)
    for name, text in cli._HEAVY_HELP.items():
        assert " ".join(text.split()[:4]) in " ".join(p.stdout.split()), name


def test_top_level_help_imports_neither_pandas_nor_scipy():
    # `aqmlab --help` used to build every subcommand's parser and so import pandas and scipy
    # (2.7 s); a heavy subcommand's own help still works and still loads its module.
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['aqmlab', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('aqmlab', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('LOADED', 'pandas' in sys.modules, 'scipy' in sys.modules)\n"
    )
    top = subprocess.run([sys.executable, "-c", probe, "--help"], capture_output=True, text=True, timeout=120)
    assert top.stdout.splitlines()[-1] == "LOADED False False"
    sub = subprocess.run(
        [sys.executable, "-c", probe, "reproduce", "--help"], capture_output=True, text=True, timeout=120
    )
    assert "STUDY" in sub.stdout
    assert sub.stdout.splitlines()[-1] == "LOADED True True"


def test_missing_scenario_file_is_one_line_exit_2_and_no_output_dir(tmp_path):
    out = tmp_path / "runs"
    p = aqmlab("run", str(tmp_path / "nope.toml"), "--out", str(out))
    assert p.returncode == 2
    assert p.stderr.splitlines() == [
        f"aqmlab: error: {tmp_path / 'nope.toml'}: (file): cannot read the file: "
        "No such file or directory (os error 2)"
    ]
    assert "Traceback" not in p.stderr
    assert not out.exists()


def test_bad_scenario_key_names_file_key_reason(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[run]\nseed = 1\nwarmup = "5 parsecs"\nduration = "10s"\n')
    out = tmp_path / "runs"
    p = aqmlab("run", str(bad), "--out", str(out))
    assert p.returncode == 2
    lines = p.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"aqmlab: error: {bad}: ")
    assert not out.exists()


def test_unknown_variant_in_process(tmp_path, capsys, tiny_scenario):
    out = tmp_path / "runs"
    assert cli.main(["run", str(tiny_scenario), "--out", str(out), "--variant", "nope"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f'aqmlab: error: {tiny_scenario}: variant: no variant named "nope" (the file has: dt120, dt30)\n'
    )
    assert not out.exists()


def test_report_of_missing_dir(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "none"), "--out", str(tmp_path / "r.png")]) == 2
    assert capsys.readouterr().err == f"aqmlab: error: {tmp_path / 'none'}: no such directory\n"
    assert not (tmp_path / "r.png").exists()


def test_usage_error_exits_2():
    with pytest.raises(SystemExit) as e:
        cli.main(["run"])
    assert e.value.code == 2


def _fake_core(monkeypatch, fail_variant=None, exc=None) -> list:
    """Replace the engine entry point (`aqmlab run` runs the text it read once) with one that
    writes hand-made tables into the run's directory and returns their summary (and reports
    progress to a callable), or raises `exc` in `fail_variant` after some progress. Returns the
    list of (variant, progress argument) of the calls."""
    from pathlib import Path

    from conftest import synthetic_result

    from aqmlab import _core
    from aqmlab.storage.run_dir import write_parquet
    from aqmlab.storage.tables import frame_to_arrow

    calls = []

    def run_scenario_text(text, label, base_dir, variant, dir, progress=None):
        if variant not in _core.scenario_text_variants(text, label, base_dir):
            raise AssertionError(variant)
        calls.append((variant, progress))
        for s in range(0, 23, 2):
            if callable(progress):
                progress(float(s), 22.0)
            if variant == fail_variant and s == 10:
                raise exc
        r = synthetic_result(variant, kb_per_s=100.0 + len(variant))
        for t in ("requests", "queue", "links"):
            write_parquet(frame_to_arrow(t, getattr(r, t)), Path(dir) / f"{t}.parquet")
        return {
            "name": variant,
            "seed": 1,
            "warmup_ns": r.warmup_ns,
            "summary_json": r.summary_json,
            "engine": r.engine,
            "wall_s": 0.25,
        }

    monkeypatch.setattr(_core, "run_scenario_text", run_scenario_text)
    return calls


def test_run_command_writes_every_variant_and_prints_the_table(tmp_path, capsys, monkeypatch, tiny_scenario):
    calls = _fake_core(monkeypatch)
    out = tmp_path / "runs"
    assert cli.main(["run", str(tiny_scenario), "--out", str(out)]) == 0
    cap = capsys.readouterr()
    rows = cap.out.splitlines()
    assert rows[0].split()[:2] == ["run", "KB/s"]
    assert [r.split()[:2] for r in rows[2:]] == [["dt120", "105"], ["dt30", "104"]]
    # The core is asked for its own progress bar (drawn on a terminal: test_progress_bar.py).
    assert calls == [("dt120", True), ("dt30", True)]
    assert sorted(p.name for p in out.iterdir()) == ["dt120", "dt30"]
    assert (out / "dt30" / "summary.json").is_file()


def test_run_command_one_variant(tmp_path, capsys, monkeypatch, tiny_scenario):
    calls = _fake_core(monkeypatch)
    out = tmp_path / "runs"
    assert cli.main(["run", str(tiny_scenario), "--out", str(out), "--variant", "dt30", "--quiet"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["dt30"]
    assert calls == [("dt30", None)]  # --quiet: no bar asked for


def test_sim_error_is_one_line_and_leaves_no_output_dir(tmp_path, capsys, monkeypatch, tiny_scenario):
    from aqmlab import SimError

    _fake_core(monkeypatch, "dt120", SimError("topology.delaybox.matrix: must be 10 rows"))
    out = tmp_path / "runs"
    assert cli.main(["run", str(tiny_scenario), "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == "aqmlab: error: topology.delaybox.matrix: must be 10 rows\n"
    assert not out.exists()


def test_interrupt_keeps_finished_variants_only(tmp_path, capsys, monkeypatch, tiny_scenario):
    _fake_core(monkeypatch, "dt30", KeyboardInterrupt())
    out = tmp_path / "runs"
    assert cli.main(["run", str(tiny_scenario), "--out", str(out), "--quiet"]) == 130
    assert capsys.readouterr().err == "aqmlab: interrupted\n"
    assert sorted(p.name for p in out.iterdir()) == ["dt120"]  # complete; nothing of dt30


def test_checked_runs_once_after_the_checks_and_before_the_engine(tmp_path, monkeypatch, tiny_scenario):
    """`api.run(checked=…)`: called once, when the scenario and output directory have passed
    their checks and before the first variant's engine starts (`aqmlab run` starts its imports
    there), and not at all when a check fails."""
    from aqmlab import _core
    from aqmlab.engine.api import run
    from aqmlab.storage.run_dir import OutDirError

    _fake_core(monkeypatch)
    events = []
    core = _core.run_scenario_text

    def engine(*a, **k):
        events.append("engine")
        return core(*a, **k)

    monkeypatch.setattr(_core, "run_scenario_text", engine)
    run(tiny_scenario, out=tmp_path / "runs", checked=lambda: events.append("checked"))
    assert events == ["checked", "engine", "engine"]  # two variants
    events.clear()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(OutDirError):
        run(tiny_scenario, out=blocker / "runs", checked=lambda: events.append("checked"))
    assert events == []


def test_api_still_gives_run_result_without_importing_it_at_start():
    """`aqmlab.engine.api` no longer imports aqmlab.storage.record when it is imported (start-up time), yet
    `from aqmlab.engine.api import RunResult` still gives the record's class."""
    code = (
        "import sys, aqmlab.engine.api as a; first = 'aqmlab.storage.record' in sys.modules; "
        "from aqmlab.engine.api import RunResult, parse_summary; from aqmlab.storage import record; "
        "print(first, RunResult is record.RunResult, parse_summary is record.parse_summary)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"]
