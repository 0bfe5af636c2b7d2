"""`aqmlab.record.RunResult`: a plain class with a dataclass's constructor, repr and equality
(`dataclasses` is not imported on the run path), and `replace`."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from conftest import synthetic_result

from aqmlab import load_run, write_run
from aqmlab.record import FIELDS, RunResult


def test_constructor_defaults_and_field_order():
    r = RunResult("red", {"kb_per_s": 1.0})
    assert (r.name, r.summary, r.engine, r.summary_json, r.warmup_ns) == ("red", {"kb_per_s": 1.0}, {}, "", 0)
    assert (r.seed, r.scenario, r.wall_s, r.files) == (None, None, None, {})
    assert (r.requests, r.queue, r.links) == (None, None, None)
    assert RunResult("a", {}).engine is not RunResult("b", {}).engine  # no shared default
    args = ["n", {}, None, None, None, {"events": 1}, "{}", 5, 7, "s.toml", 0.5, {}]
    r = RunResult(*args)
    assert [getattr(r, f) for f in FIELDS] == args


def test_repr_leaves_out_the_json_and_the_files():
    r = RunResult("red", {"x": 1}, summary_json="SECRET-JSON", files={"pcap": b"BYTES"}, seed=3)
    text = repr(r)
    assert text.startswith("RunResult(name='red', summary={'x': 1}, requests=None,")
    assert "seed=3" in text and "SECRET-JSON" not in text and "BYTES" not in text


def test_equality_ignores_files_only():
    a = RunResult("red", {"x": 1}, files={"pcap": b"a"})
    assert a == RunResult("red", {"x": 1}, files={"pcap": b"b"})
    assert a != RunResult("red", {"x": 2})
    assert a != RunResult("red", {"x": 1}, seed=1)
    assert a.__eq__("red") is NotImplemented
    with pytest.raises(TypeError):
        hash(a)


def test_replace_changes_the_named_fields_and_keeps_tables_unread(tmp_path):
    d = write_run(synthetic_result(), tmp_path / "r")
    run = load_run(d)
    again = run.replace(seed=99, summary={"kb_per_s": 5.0})
    assert (again.seed, again.summary, again.name) == (99, {"kb_per_s": 5.0}, run.name)
    assert run.seed == synthetic_result().seed  # the original is unchanged
    assert again.given_frame("requests") is None and "_requests_read" not in vars(again)
    assert again.files == run.files
    pd.testing.assert_frame_equal(again.queue, synthetic_result().queue)
    given = synthetic_result().requests.head(2)
    assert len(run.replace(requests=given).requests) == 2
    with pytest.raises(TypeError, match="no field 'sed'"):
        run.replace(sed=1)


def test_importing_the_record_loads_neither_dataclasses_nor_typing():
    code = (
        "import sys, aqmlab.record\n"
        "print(*[m for m in ('dataclasses', 'inspect', 'typing', 'pandas') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
