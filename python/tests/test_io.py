"""Run directories without the engine: round trip, byte-identical files, atomic writes."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import synthetic_result

import aqmlab.storage.run_dir as aio
from aqmlab import load_run, write_run

FILES = ["links.parquet", "queue.parquet", "requests.parquet", "run.json", "summary.json"]


def test_round_trip(tmp_path):
    r = synthetic_result()
    d = write_run(r, tmp_path / "out" / "red")
    assert sorted(p.name for p in d.iterdir()) == FILES
    assert (d / "summary.json").read_text() == r.summary_json + "\n"
    back = load_run(d)
    assert back.name == "red"
    assert back.summary == r.summary
    assert back.summary_json == r.summary_json
    assert back.engine == r.engine
    assert back.warmup_ns == r.warmup_ns
    for t in ["requests", "queue", "links"]:
        pd.testing.assert_frame_equal(getattr(back, t), getattr(r, t))
    assert str(back.requests["start_ns"].dtype) == "int64"
    assert str(back.requests["completed"].dtype) == "bool"
    assert str(back.queue["mean_qlen"].dtype) == "float64"
    assert pd.api.types.is_string_dtype(back.requests["kind"])
    assert json.loads((d / "run.json").read_text())["name"] == "red"


def test_same_result_gives_byte_identical_files(tmp_path):
    a = write_run(synthetic_result(), tmp_path / "a")
    b = write_run(synthetic_result(), tmp_path / "b")
    c = write_run(load_run(a), tmp_path / "c")  # what is read back writes back identically
    for f in FILES:
        assert (a / f).read_bytes() == (b / f).read_bytes() == (c / f).read_bytes(), f


def test_warmup_recovered_from_measured_time_when_not_recorded(tmp_path):
    d = write_run(synthetic_result(), tmp_path / "r")
    info = json.loads((d / "run.json").read_text())
    del info["warmup_ns"]
    (d / "run.json").write_text(json.dumps(info))
    # end 3 s − measured 2 s
    assert load_run(d).warmup_ns == 1_000_000_000


def _fail_on_second_parquet(monkeypatch):
    real = aio.write_parquet
    calls = []

    def flaky(t, path):
        calls.append(path)
        if len(calls) == 2:
            real(t, path)  # leave a partial file behind in the scratch dir
            raise OSError(28, "No space left on device")
        real(t, path)

    monkeypatch.setattr(aio, "write_parquet", flaky)
    return calls


def test_failure_mid_write_leaves_nothing(tmp_path, monkeypatch):
    calls = _fail_on_second_parquet(monkeypatch)
    target = tmp_path / "out" / "red"
    with pytest.raises(OSError, match="No space"):
        write_run(synthetic_result(), target)
    assert len(calls) == 2 and calls[0].parent.name.startswith("red.tmp-")
    assert not target.exists()
    assert list((tmp_path / "out").iterdir()) == []  # no scratch dir left either
    assert not aio.is_run_dir(calls[0].parent)


def test_failure_mid_write_keeps_the_previous_complete_run(tmp_path, monkeypatch):
    target = tmp_path / "red"
    write_run(synthetic_result(kb_per_s=1.0), target)
    before = {f: (target / f).read_bytes() for f in FILES}
    _fail_on_second_parquet(monkeypatch)
    with pytest.raises(OSError):
        write_run(synthetic_result(kb_per_s=2.0), target)
    assert {f: (target / f).read_bytes() for f in FILES} == before
    assert [p.name for p in tmp_path.iterdir()] == ["red"]


def test_rewrite_replaces_a_complete_run(tmp_path):
    target = tmp_path / "red"
    write_run(synthetic_result(kb_per_s=1.0), target)
    write_run(synthetic_result(kb_per_s=2.0), target)
    assert load_run(target).summary["kb_per_s"] == 2.0
    assert [p.name for p in tmp_path.iterdir()] == ["red"]


def test_summary_is_written_last(tmp_path, monkeypatch):
    order = []
    real = aio._write_synced
    monkeypatch.setattr(aio, "_write_synced", lambda p, t: (order.append(p.name), real(p, t)))
    real_pq = aio.write_parquet
    monkeypatch.setattr(aio, "write_parquet", lambda t, p: (order.append(p.name), real_pq(t, p)))
    write_run(synthetic_result(), tmp_path / "r")
    assert order[-1] == "summary.json" and sorted(order) == FILES


def test_refuses_to_replace_something_that_is_not_a_run(tmp_path):
    target = tmp_path / "precious"
    target.mkdir()
    (target / "thesis.tex").write_text("x")
    with pytest.raises(FileExistsError, match="not a run directory"):
        write_run(synthetic_result(), target)
    assert (target / "thesis.tex").read_text() == "x"


def test_table_names_agree_with_the_declared_tables():
    from aqmlab.storage.tables import TABLES

    assert aio.TABLES == TABLES


def test_a_loaded_run_reads_its_tables_only_when_used(tmp_path):
    d = write_run(synthetic_result(), tmp_path / "r")
    back = load_run(d)
    assert back.given_frame("requests") is None and "_requests_read" not in vars(back)
    assert len(back.requests) == len(synthetic_result().requests)
    assert "_requests_read" in vars(back) and "_queue_read" not in vars(back)


def test_run_command_imports_no_dataframe_or_plotting_stack():
    import subprocess
    import sys

    code = (
        "import sys, aqmlab.cli, aqmlab.engine.api, aqmlab.storage.run_dir, aqmlab.engine.calibrate\n"
        "heavy = [m for m in ('pandas', 'pyarrow', 'numpy', 'scipy', 'matplotlib') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _record_disk_events(monkeypatch) -> list[tuple[str, str]]:
    """("fsync", path) and ("rename", destination) in the order they happen."""
    import os

    events: list[tuple[str, str]] = []
    real_fsync, real_rename = os.fsync, os.rename

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def rename(src, dst):
        events.append(("rename", str(dst)))
        real_rename(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", rename)
    return events


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("source", ["frames", "files"])
def test_every_file_then_the_rename_reach_the_disk(tmp_path, monkeypatch, replace, source):
    """A run directory under its final name survives a power cut whole: each of its files is
    flushed before the directory gets that name, and the parent directory (the rename) after.
    Tables given as DataFrames are encoded; tables read from files are copied."""
    result = (
        synthetic_result()
        if source == "frames"
        else load_run(write_run(synthetic_result(), tmp_path / "src"))
    )
    final = tmp_path / "out" / "red"
    if replace:
        write_run(synthetic_result(), final)
    events = _record_disk_events(monkeypatch)
    write_run(result, final)
    commit = events.index(("rename", str(final)))
    flushed = {os_path.rsplit("/", 1)[1] for kind, os_path in events[:commit] if kind == "fsync"}
    assert flushed == set(FILES)
    assert ("fsync", str(final.parent)) in events[commit + 1 :]
    # Data first, summary.json (what makes a directory a run) last.
    names = [p.rsplit("/", 1)[1] for kind, p in events[:commit] if kind == "fsync"]
    assert names[-1] == "summary.json"
