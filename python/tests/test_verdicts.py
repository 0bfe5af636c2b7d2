"""The verdict table (aqmlab.studies.verdicts): the paper's numbers as a results dict, the `cause` column
derived from the aqmlab / ns-2.35 / paper columns or from a study's documented causes, and the
cells of the ns-2.35 and paper columns."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.studies import Reading, Study, Verdict, load
from aqmlab.studies.compare import Outcome, get, lt
from aqmlab.studies.paper_tables import read_paper
from aqmlab.studies.verdicts import (
    HEADER,
    NEAREST_MARK,
    NS2_FAILS,
    NS2_FAILS_NEAREST,
    OPEN,
    PAPER_FAILS,
    WITHIN_NOISE,
    VerdictResult,
    cause,
    evaluate,
    paper_results,
    verdict_table,
)

ROOT = Path(__file__).resolve().parents[2]
H, F, N, X = Outcome.HOLDS, Outcome.FAILS, Outcome.NOISE, Outcome.NOT_EVALUATED


def _r(o: Outcome) -> VerdictResult:
    return VerdictResult("v", "a claim", o, "ev")


def test_cause_is_derived_in_order():
    assert cause(_r(H), _r(F), _r(F), "doc") == ""  # holds: no cause
    assert cause(_r(X), None, _r(F), "doc") == ""  # not evaluated: the evidence gives the reason
    assert cause(_r(F), _r(F), _r(F), "doc") == NS2_FAILS
    assert cause(_r(N), _r(F), _r(H), None) == NS2_FAILS
    assert cause(_r(F), _r(H), _r(F), "doc") == PAPER_FAILS
    assert cause(_r(F), None, _r(F), None) == PAPER_FAILS
    assert cause(_r(N), _r(H), _r(H), "doc") == WITHIN_NOISE
    assert cause(_r(F), _r(N), _r(X), "tested: X (run Y)") == "tested: X (run Y)"
    assert cause(_r(F), None, _r(H), None) == OPEN


def test_ns2_at_its_nearest_setting_is_said_so():
    near = VerdictResult("v", "a claim", F, f"{NEAREST_MARK} (why): ev")
    assert cause(_r(F), near, _r(H), None) == NS2_FAILS_NEAREST
    assert cause(_r(N), near, _r(F), None) == NS2_FAILS_NEAREST
    study = load("weigle2006")
    n = len(study.verdicts)
    row = verdict_table(study, [_r(F)] * n, [_r(X)] * n, [near] * n)[0]
    assert row.cells()[2] == "fails (nearest)" and row.cause == NS2_FAILS_NEAREST
    row = verdict_table(study, [_r(F)] * n, [_r(X)] * n, [_r(F)] * n)[0]
    assert row.cells()[2] == "fails" and row.cause == NS2_FAILS


def test_paper_results_pivot_one_row_per_paper_row():
    res = paper_results(read_paper(ROOT / "studies" / "pisa" / "paper.csv"))
    t = res["5.7"]
    assert list(t["row"]) == ["PI", "PISA", "PIMC"]
    assert t.loc[t["row"] == "PIMC", "responses_completed"].item() == 27597
    assert "responses_completed_ci" not in t.columns and "n" not in t.columns
    assert not get(res, "5.7", "PISA", "responses_completed").has_interval


def _objects(pi, pisa, pimc, ci):
    return pd.DataFrame({"row": ["PI", "PISA", "PIMC"], "responses_completed": [pi, pisa, pimc],
                         "responses_completed_ci": [ci] * 3, "n": [3] * 3})  # fmt: skip


def test_pisa_table_with_an_ns2_column():
    st = load("pisa")
    paper = paper_results(read_paper(ROOT / "studies" / "pisa" / "paper.csv"))
    # aqmlab: the published 5.7 row, PISA 24449 ± 280 vs PIMC 24615 ± 284: within noise.
    ours = {**paper, "5.7": _objects(22448.0, 24449.0, 24615.0, 250.0)}
    ours["5.7"].loc[1, "responses_completed_ci"], ours["5.7"].loc[2, "responses_completed_ci"] = 280.0, 284.0
    # ns-2.35 has PI and drop-tail only: PISA and PIMC rows are absent.
    ns2 = {"5.4": _objects(27409.0, 0.0, 0.0, 100.0).iloc[:1]}
    rows = {r.id: r for r in verdict_table(st, evaluate(st, ours), evaluate(st, paper), evaluate(st, ns2))}
    r = rows["pisa-beats-pimc"]
    assert (r.aqmlab.outcome, r.paper.outcome) == (N, F)
    # The paper's own Table 5.7 fails the rule; that is named before the noise.
    assert r.cause == PAPER_FAILS
    cells = dict(zip(HEADER, r.cells(), strict=True))
    assert cells["claim"].endswith("[pisa-beats-pimc]") and cells["aqmlab"] == "within noise"
    assert cells["paper"] == "fails" and cells["ns-2.35"] == "not evaluated"
    assert "24449 ± 280 ≥ 24615 ± 284 (within noise)" in cells["evidence"]
    assert r.notes()[0].startswith("quote: §6.1, p. 47:")
    assert any(n.startswith("ns-2.35 (not evaluated): KeyError") and "'PISA'" in n for n in r.notes())
    # Without an ns-2.35 results dict the column says so.
    alone = verdict_table(st, evaluate(st, ours), evaluate(st, paper))
    assert {dict(zip(HEADER, v.cells(), strict=True))["ns-2.35"] for v in alone} == {"not run"}


def test_weigle2006_has_no_paper_numbers_and_documented_causes():
    st = load("weigle2006")
    empty = paper_results(read_paper(ROOT / "studies" / "weigle2006" / "paper.csv"))
    assert empty == {}
    paper = evaluate(st, empty)
    assert {v.outcome for v in paper} == {X}
    row = verdict_table(st, [VerdictResult(v.id, v.claim, F, "e") for v in st.verdicts], paper)
    by = {r.id: r for r in row}
    assert dict(zip(HEADER, by["w06-ecn-beats-drops"].cells(), strict=True))["paper"] == "no numbers"
    assert by["w06-ecn-beats-drops"].cause.startswith("ns-2.35 fails it too at its nearest setting")
    # fails only in the byte-mode reading, whose setup difference the cause names
    assert by["w06-ared5-flows-drops"].cause.startswith("a setup difference that was tested: byte mode")
    assert by["w06-sack-helps-large"].cause == OPEN  # nothing documented as stated
    # ... but the model-load reading, where it fails, documents its setup difference, and only there
    ml = {r.id: r for r in verdict_table(st, [VerdictResult(v.id, v.claim, F, "e") for v in st.verdicts],
                                         paper, reading=st.reading("model-load"))}  # fmt: skip
    assert ml["w06-sack-helps-large"].cause.startswith("a setup difference that was tested: the load")
    assert ml["w06-ecn-beats-drops"].cause == by["w06-ecn-beats-drops"].cause  # the study's, kept


def test_every_study_has_41_quoted_verdicts_with_stable_ids():
    studies = [load(n) for n in ("christiansen", "weigle2006", "weigle-multi", "pisa")]
    ids = [v.id for s in studies for v in s.verdicts]
    assert len(ids) == 41 == len(set(ids))
    for s in studies:
        for v in s.verdicts:
            assert "§" in v.quote or "Abstract" in v.quote or "Table" in v.quote, v.id
            assert '"' in v.quote, v.id  # the paper's own words, quoted


def test_study_rejects_bad_verdict_definitions():
    v = Verdict("a", "claim", '§1: "x"', lambda r: lt(get(r, "T", "a", "x"), 1.0))
    with pytest.raises(ValueError, match="verdict ids not unique: a"):
        Study("s", "p", (), verdicts=(v, v))
    with pytest.raises(ValueError, match="needs an id and a quote"):
        Study("s", "p", (), verdicts=(Verdict("b", "claim", " ", v.check),))
    with pytest.raises(ValueError, match="causes: unknown verdict ids: zz"):
        Study("s", "p", (), verdicts=(v,), causes={"zz": "open: x"})
    with pytest.raises(ValueError, match="reading r: causes: unknown verdict ids: zz"):
        Study("s", "p", (), verdicts=(v,), readings=(Reading("r", "about", causes={"zz": "open: x"}),))


def test_the_four_searched_verdicts_show_their_sensitivity_result_as_the_cause():
    # issue 34 item 6: each open verdict of seeds 000 and 002 now names its sensitivity search
    # (a tune file under studies/NAME/sensitivity/) in the cause a failing result shows.
    for name, ids in (("christiansen", ("c00-altq-default-worse", "c00-util-tuning")),
                      ("weigle-multi", ("wm-pi-rem-minimal-loss", "wm-dt-rem-beats-rem-dt"))):  # fmt: skip
        st = load(name)
        paper = [VerdictResult(v.id, v.claim, H, "e") for v in st.verdicts]
        ours = [VerdictResult(v.id, v.claim, F, "e") for v in st.verdicts]
        rows = {r.id: r for r in verdict_table(st, ours, paper)}
        for i in ids:
            assert rows[i].cause == st.causes[i] and rows[i].cause.startswith("sensitivity: ")
            tune_file = rows[i].cause.split("studies/", 1)[1].split(")", 1)[0].split(";", 1)[0]
            assert (ROOT / "studies" / tune_file).is_file(), tune_file


def _study_dir(tmp_path, monkeypatch, verdicts: str, causes: str = "reading,verdict,cause\n") -> None:
    import aqmlab.studies as studies

    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "verdicts.csv").write_text(verdicts, encoding="utf-8")
    (tmp_path / "s" / "causes.csv").write_text(causes, encoding="utf-8")
    monkeypatch.setattr(studies, "STUDIES_DIR", tmp_path)


def test_read_verdicts_pairs_each_row_with_its_check(tmp_path, monkeypatch):
    from aqmlab.studies import read_causes, read_verdicts

    _study_dir(
        tmp_path, monkeypatch,
        'id,claim,quote\nb,"B, second","§2: ""x"""\na,A first,§1: "y"\n',
        'reading,verdict,cause\n,a,open: tried x\nr1,b,tested: y\n,b,"open: z, w"\n',
    )  # fmt: skip

    def check_a(res):
        return "A"

    def check_b(res):
        return "B"

    vs = read_verdicts("s", {"a": check_a, "b": check_b})
    # the file's order, its texts unquoted, each id's own check
    assert [(v.id, v.claim, v.quote, v.check) for v in vs] == [
        ("b", "B, second", '§2: "x"', check_b),
        ("a", "A first", '§1: "y"', check_a),
    ]
    assert read_causes("s") == {"a": "open: tried x", "b": "open: z, w"}
    assert read_causes("s", "r1") == {"b": "tested: y"}


def test_a_study_given_its_checks_reads_verdicts_and_causes_from_its_folder(tmp_path, monkeypatch):
    from aqmlab.studies import Reading, Study

    _study_dir(
        tmp_path, monkeypatch,
        "id,claim,quote\nb,B,q2\na,A,q1\n",
        "reading,verdict,cause\n,a,open: tried x\nr1,b,tested: y\n",
    )  # fmt: skip
    st = Study(
        "s", "p", (), checks={"a": len, "b": abs}, readings=(Reading("r1", "about"), Reading("r2", "x"))
    )
    # verdicts.csv's order, each id's check; the study's causes (empty reading) and each reading's
    assert [(v.id, v.quote, v.check) for v in st.verdicts] == [("b", "q2", abs), ("a", "q1", len)]
    assert st.causes == {"a": "open: tried x"}
    assert [r.causes for r in st.readings] == [{"b": "tested: y"}, {}]
    assert st.reading("r1").causes == {"b": "tested: y"}


def test_read_verdicts_refuses_a_row_without_check_and_a_check_without_row(tmp_path, monkeypatch):
    from aqmlab.studies import read_verdicts

    _study_dir(tmp_path, monkeypatch, "id,claim,quote\na,A,q\nb,B,q\n")
    path = tmp_path / "s" / "verdicts.csv"
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: b: no check$"):
        read_verdicts("s", {"a": len})
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: c: no row$"):
        read_verdicts("s", {"a": len, "b": len, "c": len})
    path.write_text("id,text,quote\na,A,q\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: header: expected id,claim,quote$"):
        read_verdicts("s", {"a": len})


def test_study_verdict_texts_come_from_the_study_folder():
    from aqmlab.studies import read_causes

    st = load("weigle2006")
    assert [v.id for v in st.verdicts][:2] == ["w06-reno-sack-same", "w06-ecn-beats-drops"]
    assert st.verdicts[1].quote.startswith('§6.3: "Up to 90% load, ARED + ECN-5 ms delivers superior')
    assert st.verdicts[1].check.__name__ == "ecn_beats_drops"
    tail = "p75 22.5 s against 6.7 s (docs/reproductions/weigle2006/ns2-nearest/report.md)"
    assert st.causes["w06-tradeoff-105"].endswith(tail)
    assert set(read_causes("weigle2006", "model-load")) == {"w06-ecn5-small-queue", "w06-sack-helps-large"}
