"""`aqmlab tune-study tuning --quick` (aqmlab.tuning.study), end to end: every family is tuned on
the shortened search runs, its best is the tuner's, the bests and baselines are re-run at the
final run length with common seeds, and the published numbers are the means, 95 % Student-t
intervals and paired differences of those replications (recomputed here by hand)."""

from __future__ import annotations

import json
import math
import tomllib

import pandas as pd
import pytest
from scipy import stats as st

from aqmlab import cli
from aqmlab.tuning.study import SEED000, SEED001, StudyError, cells, scenario_doc


def _half(values) -> float:
    """95 % Student-t half width, by hand."""
    v = pd.Series(values, dtype=float)
    return float(st.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v)))


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("tuning") / "out"
    assert cli.main(["tune-study", "tuning", "--quick", "--out", str(out)]) == 0
    return out


@pytest.mark.engine
def test_every_family_is_tuned_and_its_best_is_the_tuners(quick):
    rec = json.loads((quick / "study.json").read_text())
    want = {("seed000_98", "RED (tuned)"): 4, ("seed000_98", "drop-tail (tuned)"): 3}
    want.update({("seed001_80", f"{k} (tuned)"): 3 for k in ("ARED", "PI", "CoDel", "PIE", "drop-tail")})
    assert {(t["cell"], t["family"]): t["trials"] for t in rec["tunes"]} == want
    for t in rec["tunes"]:
        d = quick / t["dir"]
        trials = pd.read_parquet(d / "trials.parquet")
        assert (trials["state"] == "COMPLETE").sum() == t["trials"]
        info = json.loads((d / "tune.json").read_text())
        tf = pd.read_parquet(d / "final.parquet")
        means = tf.groupby("config")["pct_le_1s"].mean()
        if t["best_feasible"]:
            # The best is the finalist with the highest mean over the tune's final seeds.
            assert t["best"] == info["finalists"][0]
            assert means[t["best"]] == max(means[f] for f in info["finalists"])
        row = trials[trials["number"] == int(t["best"].split()[-1])].iloc[0]
        for k, v in t["values"].items():
            assert row[k] == pytest.approx(v)
        # Search runs are the shortened ones: 2 min (seed 000) or 90 s (seed 001) measured.
        rid = row["runs"].split(",")[0]
        summ = json.loads((d / "runs" / rid / "summary.json").read_text())
        assert summ["measured_s"] == pytest.approx(120.0 if t["cell"].startswith("seed000") else 90.0)


@pytest.mark.engine
def test_the_final_comparison_reruns_the_bests_with_common_seeds_at_the_final_length(quick):
    rec = json.loads((quick / "study.json").read_text())
    for cell, configs, measured in [
        ("seed000_98", ["RED (tuned)", "drop-tail (tuned)", "thesis"], 180.0),
        (
            "seed001_80",
            ["ARED (tuned)", "PI (tuned)", "CoDel (tuned)", "PIE (tuned)", "drop-tail (tuned)", "DT-148q"],
            120.0,
        ),
    ]:
        f = pd.read_parquet(quick / "final" / cell / "final.parquet")
        assert list(dict.fromkeys(f["config"])) == configs
        assert all(sorted(g["seed"]) == [1, 2] for _, g in f.groupby("config"))
        assert f["error"].isna().all() and f["pct_le_1s"].notna().all()
        assert (f["measured_s"] == measured).all()
        # A tuned configuration's final runs carry its tuned values.
        t = next(t for t in rec["tunes"] if t["cell"] == cell)
        run = f[f["config"] == t["family"]].iloc[0]["run"]
        doc = tomllib.loads((quick / "final" / cell / "runs" / run / "scenario.toml").read_text())
        (v,) = doc["variant"]
        for k, val in t["values"].items():
            if k.startswith("queue."):
                got = v["queue"][k.removeprefix("queue.")]
                assert got == (pytest.approx(val) if isinstance(val, float) else val), k


@pytest.mark.engine
def test_published_means_intervals_and_paired_differences_are_those_of_the_replications(quick):
    final = pd.concat(pd.read_parquet(p) for p in sorted((quick / "final").glob("*/final.parquet")))
    res = pd.read_csv(quick / "results.csv")
    assert len(res) == 9 and (res["n"] == 2).all()
    for _, r in res.iterrows():
        g = final[(final["cell"] == r["cell"]) & (final["config"] == r["config"])]
        for c in ("pct_le_1s", "median_rt_ms", "utilization"):
            assert r[c] == pytest.approx(g[c].mean(), rel=1e-5)
            assert r[f"{c}_ci"] == pytest.approx(_half(g[c]), rel=1e-5, abs=1e-9)
    comp = pd.read_csv(quick / "comparisons.csv")
    assert len(comp) == 2 * (3 + 9)
    for _, c in comp.iterrows():
        f = final[final["cell"] == c["cell"]]
        a = f[f["config"] == c["a"]].set_index("seed")[c["column"]]
        b = f[f["config"] == c["b"]].set_index("seed")[c["column"]]
        d = (a - b).dropna()
        assert c["n"] == 2
        assert c["diff"] == pytest.approx(d.mean(), rel=1e-5, abs=1e-9)
        assert c["half"] == pytest.approx(_half(d), rel=1e-5, abs=1e-9)
        assert bool(c["significant"]) == (abs(d.mean()) > _half(d))
    md = (quick / "report.md").read_text()
    assert "(quick mode)" in md
    assert sum(ln.startswith("| RED (tuned) | min_th ") for ln in md.splitlines()) == 1
    assert (quick / "figures" / "seed000_98_cdf.png").is_file()


def test_the_study_scenarios_set_load_length_and_constraint():
    red, dt = SEED000.families
    doc = scenario_doc(SEED000, red, 110, quick=False)
    assert doc["workload"][0]["users"] == round(3012 * 110 / 98)
    assert [v["name"] for v in doc["variant"]] == ["red", "thesis"]
    assert doc["variant"][1]["queue"]["min_th"] == 30 and doc["variant"][1]["queue"]["w_q"] == "1/256"
    assert doc["run"] == {"seed": 1, "warmup": "20min", "duration": "5min"}
    assert doc["tune"]["constraints"] == ["utilization >= 0.95"]
    final = scenario_doc(SEED000, dt, 90, quick=False, final=True)
    assert final["run"]["duration"] == "70min" and final["tune"]["constraints"] == ["utilization >= 0.855"]
    ared = scenario_doc(SEED001, SEED001.families[0], 80, quick=False)
    assert [w["rate"] for w in ared["workload"]] == [108.0, 108.0]
    # a cell's variants join a family only as the baselines it names: DT-148q is dumbbell.toml's
    assert [v["name"] for v in ared["variant"]] == ["ared", "DT-148q"]
    assert ared["variant"][1]["queue"] == {"kind": "droptail", "limit": 148, "ns2_off_by_one": True}
    assert [v["name"] for v in final["variant"]] == ["droptail", "td_120"]  # no `thesis` here
    severe = scenario_doc(SEED001, SEED001.families[1], 105, quick=True)
    assert [w["rate"] for w in severe["workload"]] == [141.75, 141.75]  # 135.0 conn/s per unit of load
    assert severe["tune"]["constraints"] == ["utilization >= 0.95"] and severe["tune"]["trials"] == 3
    assert ared["topology"]["delaybox"]["rtt"]["file"].startswith("/")  # runs from OUT/scenarios/
    assert "stop_after_responses" not in ared["run"]
    full = scenario_doc(SEED001, SEED001.families[0], 80, quick=False, final=True)
    assert full["run"]["stop_after_responses"] == 250000
    assert [c.name for c in cells("tuning", quick=False)] == [
        "seed000_90",
        "seed000_98",
        "seed000_110",
        "seed001_80",
        "seed001_105",
    ]
    with pytest.raises(StudyError, match="unknown tuning study 'nope'"):
        cells("nope", quick=False)


def test_a_bad_study_file_is_reported_as_file_key_reason_before_anything_runs(tmp_path, monkeypatch):
    import shutil

    from aqmlab.tuning import study as tunestudy

    studies = tmp_path / "studies"
    shutil.copytree(tunestudy.STUDIES / "tuning", studies / "tuning")
    (tmp_path / "scenarios").symlink_to(tunestudy.REPO_ROOT / "scenarios")  # the cells' `extends`
    monkeypatch.setattr(tunestudy, "STUDIES", studies)
    red = studies / "tuning" / "seed000_red.toml"
    red.write_text(red.read_text().replace("int = [3, 150]", "int = [150, 3]"))
    out = tmp_path / "out"
    with pytest.raises(
        StudyError, match=r"seed000_red\.toml .*tune\.params\.\"queue\.min_th\".*lo must be less"
    ):
        tunestudy.write_scenarios(cells("tuning", quick=True), out, quick=True)
    assert not (out / "tunes").exists()
    red.write_text("[run]\nseed = 2\n" + red.read_text())
    with pytest.raises(StudyError, match=r"seed000_red\.toml: run: only \[\[variant\]\] and \[tune\]"):
        tunestudy.write_scenarios(cells("tuning", quick=True), out, quick=True)
    (studies / "tuning" / "seed000_98.toml").unlink()
    with pytest.raises(StudyError, match=r"seed000_98\.toml: \(file\): cannot read the file"):
        tunestudy.write_scenarios(cells("tuning", quick=True), out, quick=True)
