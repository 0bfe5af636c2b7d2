"""The `[tune]` table (aqmlab.tunespec): parsing, default search ranges from the core's
declarations, resolution of trials into scenarios, and rejection of bad tables as
`FILE: KEY: reason` before anything runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import aqmlab
from aqmlab.tunespec import SUMMARY_COLUMNS, TuneError, parse, sample_points, validate

ROOT = Path(__file__).resolve().parents[2]
QUICK = ROOT / "scenarios" / "quickstart_tune.toml"


def _base_text() -> str:
    """quickstart_tune.toml without its [tune] table."""
    text = QUICK.read_text(encoding="utf-8")
    return text[: text.index("[tune]")]


def _spec_file(tmp_path: Path, tune: str, name: str = "t.toml") -> Path:
    p = tmp_path / name
    p.write_text(_base_text() + tune, encoding="utf-8")
    return p


GOOD = """
[tune]
variant = "red"
objectives = ["min median_rt_ms"]
[tune.params]
"queue.min_th" = { int = [5, 60] }
"""


def test_the_shipped_quickstart_table_parses_and_uses_the_declared_ranges():
    spec = parse(str(QUICK))
    validate(spec)
    by = {p.path: p for p in spec.params}
    red = {p["key"]: p for p in aqmlab.params("red")}
    # "default" = the core's declared search range: max_p { float = [0.01, 1], log = true }.
    assert red["max_p"]["search"] == "{ float = [0.01, 1], log = true }"
    assert (by["queue.max_p"].kind, by["queue.max_p"].lo, by["queue.max_p"].hi, by["queue.max_p"].log) == (
        "float", 0.01, 1.0, True,
    )  # fmt: skip
    assert (by["queue.w_q"].lo, by["queue.w_q"].hi) == (0.0002, 0.02)
    assert (by["queue.min_th"].kind, by["queue.min_th"].lo, by["queue.min_th"].hi) == ("int", 5, 120)
    assert [o.label for o in spec.objectives] == ["max pct_le_1s"]
    assert [(c.column, c.op, c.bound) for c in spec.constraints] == [("utilization", ">=", 0.8)]
    assert spec.baselines == ["red", "droptail"] and spec.variant == "red"


def test_a_trial_resolves_into_the_variants_table_with_derived_values_and_common_seeds():
    spec = parse(str(QUICK))
    vals = spec.derived_values(
        {"queue.min_th": 20, "queue.max_p": 0.2, "queue.w_q": 0.001, "queue.limit": 300}
    )
    assert vals["queue.max_th"] == 60
    doc = spec.resolve(vals, seed=7)
    assert [v["name"] for v in doc["variant"]] == ["red"]
    q = doc["variant"][0]["queue"]
    assert (q["kind"], q["min_th"], q["max_th"], q["max_p"], q["limit"]) == ("red", 20, 60, 0.2, 300)
    assert q["w_q"] == 0.001 and doc["run"]["seed"] == 7
    assert doc["queue"] == {"kind": "droptail", "limit": 120}  # the base is left alone
    assert "tune" not in doc
    # Every trial gets the same seeds: run.seed, run.seed + 1, …
    assert spec.seeds(3) == [1, 2, 3]
    # The baseline is the variant as written.
    assert spec.baseline("droptail", 2)["variant"] == [
        {"name": "droptail", "queue": {"kind": "droptail", "limit": 120}}
    ]


def test_a_workload_key_of_a_variant_is_set_in_a_copy_of_the_base_workloads(tmp_path):
    f = _spec_file(tmp_path, GOOD + '"workload[0].rate" = { float = [100, 300] }\n')
    spec = parse(str(f))
    validate(spec)
    doc = spec.resolve({"queue.min_th": 10, "workload[0].rate": 150.0}, None)
    # the variant's workload list replaces the base's: it is the base's with the tuned rate
    assert doc["variant"][0]["workload"] == [{**doc["workload"][0], "rate": 150.0}]
    assert doc["workload"][0]["rate"] == 225.0 and doc["variant"][0]["queue"]["min_th"] == 10


def test_a_kind_choice_replaces_the_table_and_conditional_keys_follow_it(tmp_path):
    f = _spec_file(tmp_path, """
[tune]
variant = "red"
objectives = ["min median_rt_ms", "max utilization"]
[tune.params]
"queue.kind" = { choice = ["red", "pie", "codel"] }
"queue.min_th" = { int = [5, 60], when = { "queue.kind" = "red" } }
"queue.target" = { duration = ["2ms", "50ms"], log = true, when = { "queue.kind" = ["pie", "codel"] } }
"queue.mean_pktsize" = { search = "default", when = { "queue.kind" = "red" } }
[tune.derive]
"queue.max_th" = { expr = "3 * queue.min_th", when = { "queue.kind" = "red" } }
""")  # fmt: skip
    spec = parse(str(f))
    validate(spec)  # the core builds a sample trial of each kind
    assert len(sample_points(spec)) == 3
    pie = spec.resolve(spec.derived_values({"queue.kind": "pie", "queue.target": "5000us"}), None)
    assert pie["variant"][0]["queue"] == {"kind": "pie", "target": "5000us"}
    red = spec.resolve(spec.derived_values({"queue.kind": "red", "queue.min_th": 10}), None)
    q = red["variant"][0]["queue"]
    assert (q["min_th"], q["max_th"], q["w_q"], q["limit"]) == (10, 30, "1/512", 480)  # the variant's own
    ms = next(p for p in spec.params if p.path == "queue.target")
    assert ms.value(12.3456) == "12346us"  # durations searched in ms, written in whole µs
    size = next(p for p in spec.params if p.path == "queue.mean_pktsize")
    assert (size.kind, size.lo, size.hi, size.value(700)) == ("int", 150, 15000, "700B")


BAD = [
    # (the [tune] table, the key named, part of the reason)
    ('[tune]\nobjectives = ["min median_rt_ms"]\ntrails = 3\n[tune.params]\n"variant[red].queue.min_th" = '
     "{ int = [5, 60] }\n", "tune.trails", "unknown key"),
    (GOOD.replace("min_th", "min_thh"), 'tune.params."queue.min_thh"', "a red table has no 'min_thh'"),
    (GOOD.replace("[5, 60]", "[60, 5]"), 'tune.params."queue.min_th".int', "bad range"),
    (GOOD.replace("{ int = [5, 60] }", "{ float = [0, 0.5], log = true }"), 'tune.params."queue.min_th".log',
     "log scale needs a positive lower bound"),
    (GOOD.replace("[5, 60]", "[5, 60.5]"), 'tune.params."queue.min_th".int', "integers"),
    (GOOD.replace("{ int = [5, 60] }", "{ int = [5, 60], float = [1, 2] }"), 'tune.params."queue.min_th"',
     "exactly one of"),
    (GOOD.replace("min median_rt_ms", "min median_rt"), "tune.objectives",
     "'median_rt': not a summary column"),
    (GOOD.replace("min median_rt_ms", "best median_rt_ms"), "tune.objectives", 'want "min COLUMN"'),
    (GOOD.replace('objectives = ["min median_rt_ms"]',
                  'objectives = ["min median_rt_ms"]\nconstraints = ["utilization > 0.9"]'),
     "tune.constraints", 'want "COLUMN >= NUMBER"'),
    (GOOD.replace('objectives = ["min median_rt_ms"]',
                  'objectives = ["min median_rt_ms"]\nconstraints = ["utilisation >= 0.9"]'),
     "tune.constraints", "'utilisation': not a summary column"),
    (GOOD + '"run.duration" = "default"\n', 'tune.params."run.duration"', "no declared model"),
    (GOOD + '"queue.gentle" = "default"\n', 'tune.params."queue.gentle"', "red declares no search range"),
    (GOOD + '"queue.max_p" = { float = [0.01, 0.5], when = { "queue.kind" = "red" } }\n',
     'tune.params."queue.max_p".when', "not a choice parameter listed before"),
    (GOOD.replace('variant = "red"\n', ""), "tune.variant", "name the one to tune"),
    (GOOD + '[tune.derive]\n"queue.max_th" = "3 *"\n', 'tune.derive."queue.max_th"', "syntax error"),
    (GOOD + "[tune.derive]\n\"queue.max_th\" = \"3 * queue.nothing\"\n", 'tune.derive."queue.max_th"',
     "no key 'nothing'"),
    # the core's own check of a sample trial: max_th must exceed min_th
    (GOOD + '[tune.derive]\n"queue.max_th" = "queue.min_th"\n', "variant[red].queue.min_th",
     "must be less than max_th"),
    (GOOD.replace('"queue.min_th"', 'replications = 0\n[tune.params]\n"queue.min_th"', 1)
     .replace("[tune.params]\n", "", 1), "tune.replications", "integer >= 1"),
]  # fmt: skip


PAIRED = """
[tune]
paired = ["red", "droptail"]
objectives = ["min median_rt_ms"]
[tune.params]
"tcp.min_rto" = { duration = ["200ms", "1s"] }
"""

BAD += [
    (PAIRED.replace("[tune]\n", '[tune]\nvariant = "red"\n'), "tune.paired",
     "give either tune.variant or tune.paired"),
    (PAIRED.replace('objectives = ["min median_rt_ms"]',
                    'objectives = ["min median_rt_ms"]\nconstraints = ["utilization >= 0.8"]'),
     "tune.constraints", "not allowed with tune.paired"),
    (PAIRED.replace('"droptail"]', '"pie"]'), "tune.paired", 'no variant "pie" (variants: droptail, red)'),
    (PAIRED.replace('["red", "droptail"]', '["red"]'), "tune.paired", "give two distinct variant names"),
    (PAIRED.replace('["red", "droptail"]', '["red", "red"]'), "tune.paired",
     "give two distinct variant names"),
    (PAIRED.replace('["red", "droptail"]', '"red"'), "tune.paired", "give two distinct variant names"),
    (PAIRED.replace('["red", "droptail"]', '["red", "droptail", "red"]'), "tune.paired",
     "give two distinct variant names"),
    (PAIRED.replace("[tune]\n", '[tune]\nbaselines = ["red"]\n'), "tune.baselines",
     "not allowed with tune.paired"),
    # both variants set queue.limit in their own tables: a base value would reach neither
    (PAIRED + '"queue.limit" = { int = [50, 500] }\n', 'tune.params."queue.limit"',
     'variant "red" sets it in its own table'),
]  # fmt: skip


def test_a_paired_trial_writes_the_base_and_runs_each_variant_with_it(tmp_path):
    spec = parse(str(_spec_file(tmp_path, PAIRED)))
    validate(spec)
    assert spec.paired == ("red", "droptail") and spec.variant is None and spec.baselines == [None]
    for name in ("red", "droptail"):
        doc = spec.resolve({"tcp.min_rto": "250000us"}, seed=4, name=name)
        assert [v["name"] for v in doc["variant"]] == [name]
        assert doc["tcp"] == {"min_rto": "250000us"} and doc["run"]["seed"] == 4
    assert spec.resolve({"tcp.min_rto": "250000us"}, 4, "red")["variant"][0]["queue"]["min_th"] == 30


@pytest.mark.parametrize(("tune", "key", "reason"), BAD)
def test_invalid_tables_are_rejected_as_file_key_reason(tmp_path, tune, key, reason):
    f = _spec_file(tmp_path, tune)
    with pytest.raises(TuneError) as e:
        validate(parse(str(f)))
    assert str(e.value).startswith(f"{f}: {key}: "), str(e.value)
    assert reason in e.value.reason, str(e.value)


def test_the_command_rejects_a_bad_table_before_anything_runs(tmp_path):
    f = _spec_file(tmp_path, GOOD.replace("[5, 60]", "[60, 5]"))
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "aqmlab", "tune", str(f), "--out", str(out)], capture_output=True, text=True
    )
    assert p.returncode == 2
    assert p.stderr.strip() == (
        f'aqmlab: error: {f}: tune.params."queue.min_th".int: bad range: lo must be less than hi, got [60, 5]'
    )
    assert not out.exists()


def test_aqmlab_run_ignores_the_tune_table(tmp_path):
    text = QUICK.read_text(encoding="utf-8").replace('warmup = "10s"', 'warmup = "1s"')
    text = text.replace('duration = "150s"', 'duration = "3s"')
    f = tmp_path / "q.toml"
    f.write_text(text, encoding="utf-8")
    runs = aqmlab.run(f, variant="red")
    assert runs["red"].summary["measured_s"] == 3.0


@pytest.mark.engine
def test_summary_columns_are_those_of_a_run(tmp_path):
    text = QUICK.read_text(encoding="utf-8").replace('warmup = "10s"', 'warmup = "1s"')
    text = text.replace('duration = "150s"', 'duration = "2s"')
    f = tmp_path / "q.toml"
    f.write_text(text, encoding="utf-8")
    aqmlab.run(f, variant="droptail", out=tmp_path / "o")
    summary = json.loads((tmp_path / "o" / "droptail" / "summary.json").read_text())
    assert tuple(summary) == SUMMARY_COLUMNS
