"""Output-directory mistakes and misread inputs (issue 15): every command says `DIR: reason` in
one line with exit status 2 (no `[Errno N]`, no traceback) before anything runs, for an --out that
is a file, lies under a file or is on a read-only file system; `aqmlab report` on a scenario
file says so; `aqmlab reproduce --help` lists the studies."""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_sweep_run import SWEEP, FakeCore

from aqmlab import _core, cli
from aqmlab.storage.run_dir import check_out_dir
from aqmlab.studies import known
from aqmlab.sweeps.run import run_sweep

ERR = "aqmlab: error: "


def one_error(capsys) -> str:
    """The single stderr line of a failed command, without the `aqmlab: error: ` prefix."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERR), err
    assert "Errno" not in err and "Traceback" not in err
    return lines[0][len(ERR) :]


@pytest.fixture
def afile(tmp_path) -> Path:
    p = tmp_path / "afile"
    p.write_text("not a directory\n")
    return p


@pytest.fixture
def sweep_file(tmp_path) -> Path:
    p = tmp_path / "sw.toml"
    p.write_text(SWEEP)
    return p


def no_engine(monkeypatch):
    """Any simulation started fails the test: the checks must come first."""

    def boom(*a, **k):
        raise AssertionError("a simulation ran before the output directory was checked")

    for name in ("run_variant", "run_scenario_text"):
        monkeypatch.setattr(_core, name, boom)


def test_out_onto_an_existing_file(tmp_path, afile, tiny_scenario, sweep_file, capsys, monkeypatch):
    no_engine(monkeypatch)
    cases = [
        ["run", str(tiny_scenario), "--out", str(afile)],
        ["sweep", str(sweep_file), "--out", str(afile)],
        ["reproduce", "pisa", "--quick", "--out", str(afile)],
    ]
    for argv in cases:
        assert cli.main(argv) == 2, argv
        assert one_error(capsys) == f"{afile}: exists and is not a directory", argv
    assert afile.read_text() == "not a directory\n"  # untouched


def test_out_under_a_file(tmp_path, afile, tiny_scenario, sweep_file, capsys, monkeypatch):
    no_engine(monkeypatch)
    sub = afile / "sub"
    for cmd, src in (("run", tiny_scenario), ("sweep", sweep_file)):
        argv = [cmd, str(src), "--out", str(sub)]
        assert cli.main(argv) == 2, argv
        assert one_error(capsys) == f"{sub}: cannot create the directory: {afile} is a file, not a directory"
    # calibrate's output directory is its cache.
    assert cli.main(["calibrate", str(tiny_scenario), "--cache", str(afile), "--points", "10,20"]) == 2
    assert one_error(capsys) == (
        f"{afile / 'calibration'}: cannot create the directory: {afile} is a file, not a directory "
        "(the calibration cache: --cache DIR or $AQMLAB_CACHE)"
    )


def test_run_refuses_a_variant_dir_that_is_not_a_run_first(tmp_path, tiny_scenario, capsys, monkeypatch):
    no_engine(monkeypatch)
    out = tmp_path / "out"
    (out / "dt30").mkdir(parents=True)
    (out / "dt30" / "notes.txt").write_text("mine")
    assert cli.main(["run", str(tiny_scenario), "--out", str(out)]) == 2
    assert one_error(capsys) == f"{out / 'dt30'}: exists and is not a run directory; not replacing it"
    assert (out / "dt30" / "notes.txt").read_text() == "mine"


def test_report_png_problems(tmp_path, afile, capsys):
    from conftest import synthetic_result

    from aqmlab.storage.run_dir import write_run

    write_run(synthetic_result("red"), tmp_path / "runs" / "red")
    assert cli.main(["report", str(tmp_path / "runs"), "--out", str(afile / "r.png")]) == 2
    assert one_error(capsys) == f"{afile}: exists and is not a directory"
    assert cli.main(["report", str(tmp_path / "runs"), "--out", str(tmp_path)]) == 2
    assert one_error(capsys) == f"{tmp_path}: is a directory; --out names the PNG file to write"


def test_report_of_a_scenario_file_says_so(tmp_path, tiny_scenario, sweep_file, capsys):
    assert cli.main(["report", str(tiny_scenario)]) == 2
    assert one_error(capsys) == (
        f"{tiny_scenario}: is a scenario file, not a run directory; run it first "
        f"(aqmlab run {tiny_scenario} --out DIR), then report DIR"
    )
    assert cli.main(["report", str(sweep_file)]) == 2
    assert f"(aqmlab sweep {sweep_file} --out DIR)" in one_error(capsys)
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    assert cli.main(["report", str(other)]) == 2
    assert one_error(capsys) == f"{other}: is a file, not a run directory"


def test_report_of_a_sweep_among_other_dirs_says_report_it_alone(tmp_path, sweep_file, capsys, monkeypatch):
    from conftest import synthetic_result

    from aqmlab.storage.run_dir import write_run

    monkeypatch.setattr(_core, "run_scenario_text", FakeCore())
    run_sweep(sweep_file, tmp_path / "sw", jobs=1, progress=False)
    write_run(synthetic_result("red"), tmp_path / "red")
    assert cli.main(["report", str(tmp_path / "red"), str(tmp_path / "sw")]) == 2
    sw = tmp_path / "sw"
    assert one_error(capsys) == f"{sw}: is a sweep directory; report it alone (aqmlab report {sw})"


def test_an_os_error_during_the_work_is_path_and_reason(tmp_path, tiny_scenario, capsys, monkeypatch):
    # What the checks cannot foresee (a disk that fills up while writing) still reads PATH: reason.
    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out" / "dt120.tmp-1"))

    monkeypatch.setattr(cli, "cmd_run", full)
    assert cli.main(["run", str(tiny_scenario), "--out", str(tmp_path / "out")]) == 2
    assert one_error(capsys) == f"{tmp_path / 'out' / 'dt120.tmp-1'}: no space left on device"


def test_check_out_dir_creates_nothing(tmp_path):
    target = tmp_path / "a" / "b"
    assert check_out_dir(target) == target
    assert list(tmp_path.iterdir()) == []  # no directory, no probe file left


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    p = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return p.returncode == 0


needs_unshare = pytest.mark.skipif(not _unshare_works(), reason="needs `unshare -m` (mount namespaces)")


def read_only(d: Path, *argv: str) -> subprocess.CompletedProcess:
    """Run `aqmlab ARGV` in a private mount namespace where `d` is bind-mounted read-only (the
    rest of the system is unaffected)."""
    cmd = " ".join(f"'{a}'" for a in [sys.executable, "-m", "aqmlab", *argv])
    script = f"mount --bind '{d}' '{d}' && mount -o remount,bind,ro '{d}' && exec {cmd}"
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)


@needs_unshare
def test_read_only_file_system(tmp_path, tiny_scenario, sweep_file, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    # A sweep directory to report on, written before the file system turns read-only.
    monkeypatch.setattr(_core, "run_scenario_text", FakeCore())
    one = ro / "sw" / "runs" / run_sweep(sweep_file, ro / "sw", jobs=1, progress=False)["run"][0]
    cases = {
        ("run", str(tiny_scenario), "--out", str(ro / "x")): f"{ro / 'x'}: cannot create the directory: "
        f"read-only file system (in {ro})",
        ("sweep", str(sweep_file), "--out", str(ro / "sw")): f"{ro / 'sw'}: cannot write in the directory: "
        "read-only file system",
        ("report", str(ro / "sw")): f"{ro / 'sw'}: cannot write in the directory: read-only file system",
        # A run directory's report.png: where else it may go.
        ("report", str(one)): f"{one}: cannot write in the directory: read-only file system; name the PNG "
        "elsewhere with --out",
        ("reproduce", "pisa", "--quick", "--out", str(ro)): f"{ro}: cannot write in the directory: "
        "read-only file system",
        ("calibrate", str(tiny_scenario), "--cache", str(ro), "--points", "10,20"): f"{ro / 'calibration'}: "
        f"cannot create the directory: read-only file system (in {ro}) (the calibration cache: --cache DIR "
        "or $AQMLAB_CACHE)",
    }  # fmt: skip
    for argv, msg in cases.items():
        p = read_only(ro, *argv)
        assert p.returncode == 2, (argv, p.stderr)
        assert p.stderr.splitlines() == [ERR + msg], argv
        assert p.stdout == ""
    assert not (ro / "x").exists() and not (ro / "sw" / "report.html").exists()


def test_reproduce_help_lists_the_studies():
    argv = [sys.executable, "-m", "aqmlab", "reproduce", "--help"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0
    names = known()
    assert {"christiansen", "weigle2006", "weigle-multi", "pisa"} <= set(names)
    assert "weigle2006_rtt" not in names  # a helper module, not a study
    text = " ".join(p.stdout.split())  # argparse wraps lines
    assert f"Studies: {', '.join(names)}." in text


def test_unknown_study_lists_the_known_ones(capsys):
    for name in ("no-such-study", "weigle2006_rtt"):
        assert cli.main(["reproduce", name]) == 2
        assert one_error(capsys) == f"unknown study {name!r} (known: {', '.join(known())})"
