"""The seed-003 study definition (aqmlab.studies.pisa): transcription of the thesis's tables,
row labels, the verdict rules on hand-made results, and the sweep files."""

from pathlib import Path

import pandas as pd
import pytest

from aqmlab.studies import load
from aqmlab.sweepspec import expand, validate

ROOT = Path(__file__).resolve().parents[2]
STUDY_DIR = ROOT / "studies" / "pisa"


@pytest.fixture(scope="module")
def study():
    return load("pisa")


@pytest.fixture(scope="module")
def paper():
    return pd.read_csv(STUDY_DIR / "paper.csv", dtype={"table": str})


def test_paper_csv_spot_values_and_shape(paper):
    # 2 + 4×8 (5.2) + 3×3 (5.3) + 3×2 ×3 (5.4/5.7/5.9) ... counted by table below.
    counts = paper.groupby("table").size().to_dict()
    assert counts == {"5.1": 6, "5.2": 32, "5.3": 9, "5.4": 6, "5.6": 32, "5.7": 6, "5.8": 24, "5.9": 6}
    v = paper.set_index(["table", "row", "metric"])["value"]
    assert v[("5.4", "PISA", "responses_completed")] == 34574
    assert v[("5.2", "Drop Tail", "ftp_cwnd")] == 193.15
    assert v[("5.8", "PIMC", "mean_qlen")] == 104.03
    assert v[("5.6", "PI", "drops_per_s")] == 43.820
    assert v[("5.1", "Drop tail", "drops_per_s")] == 0.014


def test_paper_totals_are_consistent(paper):
    # Transcription check against the thesis's own arithmetic: FTP + HTTP drops = all drops
    # (to the table's 3 decimals), and "Improvement" = objects / PI's objects − 1 (to the
    # rounding the thesis prints: 34574 / 28313 = 1.2211 → 22 %; 27580 / 20777 = 1.3274 → 32.7 %).
    v = paper.set_index(["table", "row", "metric"])["value"]
    for t in ("5.1", "5.2", "5.6", "5.8"):
        for row in paper[paper.table == t].row.unique():
            total = v[(t, row, "ftp_drops_per_s")] + v[(t, row, "http_drops_per_s")]
            assert total == pytest.approx(v[(t, row, "drops_per_s")], abs=0.0015), (t, row)
    for t in ("5.4", "5.7", "5.9"):
        pi = v[(t, "PI", "responses_completed")]
        for row in ("PISA", "PIMC"):
            gain = 100 * (v[(t, row, "responses_completed")] / pi - 1)
            assert gain == pytest.approx(v[(t, row, "improvement_pct")], abs=0.51), (t, row)


def test_every_table_has_paper_rows_and_a_sweep_file(study, paper):
    for t in study.tables:
        assert (STUDY_DIR / t.scenario).is_file(), t.scenario
        assert (paper.table == t.id).any(), t.id
        for m in t.metrics:
            # every compared metric is a summary column (drops_per_s is derived in the verdicts)
            assert m in {"drops", "measured_s", "mean_qlen", "utilization", "responses_completed"}


def test_row_labels(study):
    by_id = {t.id: t for t in study.tables}
    row = lambda v: pd.Series({"variant": v, "replication": 0})  # noqa: E731
    assert by_id["5.2"].row_label(row("droptail")) == "Drop Tail"
    assert by_id["5.1"].row_label(row("droptail")) == "Drop tail"
    assert by_id["5.1"].row_label(row("pisa")) is None
    assert by_id["5.4"].row_label(row("pisa")) == "PISA"
    assert by_id["5.4"].row_label(row("droptail")) is None
    # every label a table produces exists in paper.csv for that table
    paper = pd.read_csv(STUDY_DIR / "paper.csv", dtype={"table": str})
    for t in study.tables:
        for v in ("pi", "pisa", "pimc", "droptail"):
            lab = t.row_label(row(v))
            if lab is not None and t.scenario != "bw5.toml":
                assert ((paper.table == t.id) & (paper.row == lab)).any(), (t.id, lab)


def _objects(pi, pisa, pimc):
    return pd.DataFrame(
        {
            "row": ["PI", "PISA", "PIMC"],
            "responses_completed": [pi, pisa, pimc],
            "responses_completed_ci": [10.0] * 3,
        }
    )


def _verdict(study, words):
    (v,) = [v for v in study.verdicts if words in v.claim]
    return v


def test_objects_gain_rule_by_hand(study):
    v = _verdict(study, "PISA delivers ≥ 20 %")
    ok, ev = v.check({"5.4": _objects(1000, 1220, 1180)})
    assert ok and "+22.0 %" in ev
    ok, _ = v.check({"5.4": _objects(1000, 1199, 1180)})  # 19.9 % < 20 %
    assert not ok
    pimc = _verdict(study, "PIMC delivers ≥ 15 %")
    assert pimc.check({"5.4": _objects(1000, 1220, 1151)})[0]
    assert not pimc.check({"5.4": _objects(1000, 1220, 1149)})[0]


def test_pisa_vs_pimc_needs_all_three_tables(study):
    v = _verdict(study, "at least as well as PIMC")
    good = {t: _objects(1000, 1300, 1200) for t in ("5.4", "5.7", "5.9")}
    assert v.check(good)[0]
    bad = dict(good, **{"5.7": _objects(1000, 1300, 1301)})
    assert not v.check(bad)[0]


def _drops(rows):
    return pd.DataFrame(
        {
            "row": [r[0] for r in rows],
            "drops": [r[1] for r in rows],
            "measured_s": [500.0] * len(rows),
            "mean_qlen": [r[2] for r in rows],
        }
    )


def test_drop_and_queue_rules_by_hand(study):
    t52 = _drops(
        [("PI", 2218.0, 197.0), ("PISA", 1863.0, 162.0), ("PIMC", 1311.0, 195.0), ("Drop Tail", 7.0, 505.0)]
    )
    t51 = _drops([("PI", 2218.0, 197.0), ("Drop tail", 7.0, 505.0)])
    res = {"5.1": t51, "5.2": t52}
    # the thesis's own numbers (drops/s × 500 s) satisfy every rule
    assert _verdict(study, "lowest average queue").check(res)[0]
    ok, ev = _verdict(study, "drop fewer packets").check(res)
    assert ok and "PI 4.436" in ev  # 2218 / 500
    assert _verdict(study, "Drop-tail").check(res)[0]
    # 0.1 drops/s (50 in 500 s) is the limit of "almost nothing"
    t51b = _drops([("PI", 2218.0, 197.0), ("Drop tail", 50.0, 505.0)])
    assert not _verdict(study, "Drop-tail").check({"5.1": t51b, "5.2": t52})[0]
    t52b = t52.copy()
    t52b.loc[t52b.row == "PISA", "mean_qlen"] = 195.5
    assert not _verdict(study, "lowest average queue").check({"5.2": t52b})[0]


@pytest.mark.parametrize(("name", "variants"), [("standard.toml", 4), ("ftp50.toml", 4), ("bw5.toml", 3)])
def test_sweep_files_expand_and_validate(name, variants):
    sweep = expand(STUDY_DIR / name)
    validate(sweep)  # every resolved scenario passes the core's checks
    assert len(sweep.runs) == 5 * variants
    assert len({r.id for r in sweep.runs}) == 5 * variants
