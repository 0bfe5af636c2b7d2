"""aqmlab.studies.sensitivity: a setting re-run through a study's own sweep files and verdict rule."""

from __future__ import annotations

import json

import pytest

from aqmlab.studies.compare import Outcome
from aqmlab.studies.sensitivity import _present, check_setting, parse_value


def test_set_values_are_json_or_text():
    assert parse_value("2") == 2 and parse_value("false") is False and parse_value("0.5") == 0.5
    assert parse_value("[90, 98]") == [90, 98]
    assert parse_value('"round(3100 * var.load / 98)"') == "round(3100 * var.load / 98)"
    assert parse_value("200ms") == "200ms"


def test_a_key_with_a_question_mark_is_set_only_where_the_file_has_it():
    doc = {"workload": [{"rate": 50.0}, {"rate": 50.0}]}
    got = _present(doc, {"workload[1].rate?": 48.0, "workload[6].rate?": 48.0, "tcp.min_rto": "1s"})
    assert got == {"workload[1].rate": 48.0, "tcp.min_rto": "1s"}


def test_unknown_verdicts_and_tables_are_named(tmp_path):
    with pytest.raises(ValueError, match="christiansen: no verdict 'nope'"):
        check_setting("christiansen", "nope", ["B.4"], {}, tmp_path)
    with pytest.raises(ValueError, match="christiansen: no table 'B.99'"):
        check_setting("christiansen", "c00-altq-default-worse", ["B.99"], {}, tmp_path)


@pytest.mark.engine
def test_the_setting_reaches_the_runs_and_the_rule_reads_their_summaries(tmp_path):
    over = {"run.warmup": "5s", "run.duration": "10s", "workload[0].users": 300, "sweep.replications": 2,
            "tcp.delayed_ack": "200ms"}  # fmt: skip
    check, results = check_setting(
        "christiansen", "c00-altq-default-worse", ["B.14 (98 %)"], over, tmp_path,
        variants=["altq_default", "best_98"],
    )  # fmt: skip
    assert check.outcome in (Outcome.HOLDS, Outcome.FAILS, Outcome.NOISE)
    runs = sorted((tmp_path / "sweeps" / "red_bad_98" / "runs").iterdir())
    assert len(runs) == 4  # 2 variants × 2 seeds, the other three variants left out
    scen = (tmp_path / "scenarios" / "red_bad_98.toml").read_text()
    assert 'delayed_ack = "200ms"' in scen and "users = 300" in scen
    res = results["B.14 (98 %)"].set_index("row")
    for row, name in (("load=98 altq_default", "altq_default"), ("load=98 best_98", "best_98")):
        vals = []
        for d in runs:
            if json.loads((d / "run.json").read_text())["name"] == name:
                vals.append(json.loads((d / "summary.json").read_text())["pct_le_1s"])
        assert len(vals) == 2 and res.loc[row, "pct_le_1s"] == pytest.approx(sum(vals) / 2)
        assert f"{res.loc[row, 'pct_le_1s']:.3g}"[:3] in check.evidence
