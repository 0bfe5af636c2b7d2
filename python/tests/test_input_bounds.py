"""Scenario input read once, with a bound, by the core (issue 30, item 4): `aqmlab run /dev/zero`
is one error line (it was a MemoryError traceback from reading it whole in Python), a file over
64 MiB is refused, and a scenario piped through `-` or `/dev/stdin` gives the same summaries as
the file (it was `run: missing required table`: the file was read twice)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from conftest import write_tiny_scenario

from aqmlab import _core

ERR = "aqmlab: error: "


def aqmlab(*args: str, stdin=subprocess.DEVNULL, input: bytes | None = None, cwd=None):
    """`aqmlab ARGS` in a child process (so standard input is its own)."""
    kw = {"input": input} if input is not None else {"stdin": stdin}
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args], capture_output=True, cwd=cwd, timeout=120, **kw
    )


def test_dev_zero_is_one_line_and_fails_fast(tmp_path):
    started = time.monotonic()
    p = aqmlab("run", "/dev/zero", "--out", str(tmp_path / "out"))
    took = time.monotonic() - started
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert err.splitlines() == [
        f"{ERR}/dev/zero: (file): cannot read the file: larger than 64 MiB, the limit for a "
        "scenario or data file"
    ]
    assert "Traceback" not in err and "MemoryError" not in err
    assert not (tmp_path / "out").exists()
    assert took < 30  # reads 64 MiB + 1 byte, not forever


def test_a_file_one_byte_over_the_limit_is_refused_and_one_at_it_is_read(tmp_path):
    limit = 64 * 1024 * 1024
    at = tmp_path / "at.toml"
    at.write_bytes(b"#" * limit)
    text, base = _core.read_scenario(str(at))
    assert len(text) == limit and base == str(tmp_path)
    over = tmp_path / "over.toml"
    over.write_bytes(b"#" * (limit + 1))
    with pytest.raises(_core.ScenarioError) as e:
        _core.read_scenario(str(over))
    assert e.value.key == "(file)"
    assert e.value.reason == "cannot read the file: larger than 64 MiB, the limit for a scenario or data file"
    at.unlink()
    over.unlink()


def test_not_utf8_is_one_line(tmp_path):
    p = tmp_path / "latin1.toml"
    p.write_bytes(b"# caf\xe9\n[run]\n")
    r = aqmlab("run", str(p), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert r.stderr.decode().splitlines() == [
        f"{ERR}{p}: (file): cannot read the file: not UTF-8 text (byte 5 is not part of a UTF-8 character)"
    ]


@pytest.mark.engine
def test_standard_input_gives_the_summaries_of_the_file(tmp_path):
    scen = write_tiny_scenario(tmp_path)
    text = scen.read_bytes()
    runs = {}
    runs["file"] = aqmlab("run", str(scen), "--out", str(tmp_path / "file"), "--quiet")
    with open(scen, "rb") as f:  # `-`: the file as standard input
        runs["dash"] = aqmlab("run", "-", "--out", str(tmp_path / "dash"), "--quiet", stdin=f)
    # /dev/stdin on a pipe (it was read twice: the second read saw nothing).
    runs["pipe"] = aqmlab("run", "/dev/stdin", "--out", str(tmp_path / "pipe"), "--quiet", input=text)
    for name, r in runs.items():
        assert r.returncode == 0, (name, r.stderr.decode())
    tables = {name: r.stdout.decode() for name, r in runs.items()}
    assert tables["dash"] == tables["file"] and tables["pipe"] == tables["file"]
    for variant in ("dt120", "dt30"):
        want = (tmp_path / "file" / variant / "summary.json").read_bytes()
        assert (tmp_path / "dash" / variant / "summary.json").read_bytes() == want
        assert (tmp_path / "pipe" / variant / "summary.json").read_bytes() == want
    assert b'"responses_completed": 0' not in want  # a real run, not an empty one


def test_standard_input_without_variants_is_named_stdin_and_resolves_data_in_the_cwd(tmp_path):
    # A scenario without [[variant]] from standard input runs as "stdin"; its relative data
    # files are looked up in the current directory (here: missing, named in the error).
    plain = write_tiny_scenario(tmp_path).read_text().split("[[variant]]")[0]
    assert _core.scenario_text_variants(plain, "-", ".") == ["stdin"]
    body = plain.replace(
        'rtt = { dist = "uniform", min = "0ms", max = "150ms" }',
        'rtt = { dist = "empirical", file = "rtt.csv" }',
    )
    assert body != plain
    work = tmp_path / "work"
    work.mkdir()
    r = aqmlab("run", "-", "--out", str(tmp_path / "o"), input=body.encode(), cwd=work)
    assert r.returncode == 2
    assert r.stderr.decode().splitlines() == [
        f"{ERR}-: topology.delaybox.rtt.file: cannot read empirical CDF file ./rtt.csv: "
        "No such file or directory (os error 2)"
    ]


def test_python_only_keys_from_standard_input_run_like_a_file(tmp_path):
    # [calibration] and [sweep] hold no run: the base scenario runs, from standard input too.
    f = write_tiny_scenario(tmp_path)
    text = f.read_text() + "\n[calibration]\npoints = [10, 20]\n"
    r = aqmlab("run", "-", "--out", str(tmp_path / "o"), "--quiet", input=text.encode())
    assert r.returncode == 0, r.stderr.decode()
    plain = aqmlab("run", str(f), "--out", str(tmp_path / "p"), "--quiet")
    assert plain.returncode == 0
    runs = sorted(p.name for p in (tmp_path / "p").iterdir() if (p / "summary.json").is_file())
    assert runs and runs == sorted(p.name for p in (tmp_path / "o").iterdir() if p.is_dir())
    for name in runs:  # the same experiment: the same bytes
        a, b = (tmp_path / d / name / "summary.json" for d in ("o", "p"))
        assert a.read_bytes() == b.read_bytes()


def test_a_sweep_reads_its_file_through_the_bound(tmp_path):
    from aqmlab.sweeps.run import SweepError, expand

    with pytest.raises(SweepError) as e:
        expand("/dev/zero")
    assert str(e.value) == (
        "/dev/zero: (file): cannot read the file: larger than 64 MiB, the limit for a scenario or data file"
    )


def test_calibrate_reads_through_the_bound_too(tmp_path):
    r = aqmlab("calibrate", "/dev/zero", "--cache", str(tmp_path / "cache"))
    assert r.returncode == 2
    assert r.stderr.decode().splitlines() == [
        f"{ERR}/dev/zero: (file): cannot read the file: larger than 64 MiB, the limit for a "
        "scenario or data file"
    ]
