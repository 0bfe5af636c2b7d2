"""`aqmlab tune` (aqmlab.tuning.search): a synthetic objective with a known optimum is found, constraints
hold, the same seed gives the same trials, a study killed with SIGKILL resumes without
recomputing anything and ends as an uninterrupted one, and the report is written."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import aqmlab
from aqmlab.tuning.search import STUDY_DB, STUDY_NAME, TuneStoreError

ROOT = Path(__file__).resolve().parents[2]
QUICK = ROOT / "scenarios" / "quickstart_tune.toml"


def _base_text(warmup: str = "10s", duration: str = "150s") -> str:
    text = QUICK.read_text(encoding="utf-8")
    text = text[: text.index("[tune]")]
    return text.replace('warmup = "10s"', f'warmup = "{warmup}"').replace(
        'duration = "150s"', f'duration = "{duration}"'
    )


SYNTH = """
[tune]
variant = "red"
objectives = ["min median_rt_ms"]
trials = {trials}
replications = 2
final_replications = 4
finalists = 2
batch = 4
{extra}
[tune.params]
"var.x" = {{ float = [-10, 10] }}
"var.y" = {{ float = [-10, 10] }}
"""


def _synth_file(tmp_path: Path, trials: int, extra: str = "") -> Path:
    p = tmp_path / "synth.toml"
    p.write_text(_base_text() + SYNTH.format(trials=trials, extra=extra), encoding="utf-8")
    return p


def bowl(values: dict, seed: int) -> dict:
    """(x − 3)² + (y + 1)², plus a per-seed offset common to every trial (common random
    numbers); `utilization` = x so that a constraint can cut the bowl. The baseline (no
    values) is x = y = 0."""
    x, y = values.get("var.x", 0.0), values.get("var.y", 0.0)
    return {"median_rt_ms": (x - 3) ** 2 + (y + 1) ** 2 + 0.5 * seed, "utilization": x}


def _params(df: pd.DataFrame) -> list[tuple]:
    return list(zip(df["number"], df["var.x"], df["var.y"], strict=True))


def test_a_synthetic_optimum_is_found_and_values_are_means_over_replications(tmp_path):
    f = _synth_file(tmp_path, 60)
    df = aqmlab.tune(f, tmp_path / "out", evaluate=bowl, report=False)
    assert len(df) == 60 and (df["state"] == "COMPLETE").all()
    best = df.loc[df["median_rt_ms"].idxmin()]
    assert abs(best["var.x"] - 3) < 0.6 and abs(best["var.y"] + 1) < 0.6, best
    # A trial's value is the mean over its two replications (seeds 1 and 2: offsets 0.5 and 1.0).
    for _, r in df.head(5).iterrows():
        assert r["median_rt_ms"] == pytest.approx((r["var.x"] - 3) ** 2 + (r["var.y"] + 1) ** 2 + 0.75)
    # The final comparison: 2 finalists + the baseline, 4 common seeds each; the best beats the
    # baseline (x = y = 0: 10 + offset) significantly, paired by seed.
    final = df.attrs["final"]
    assert list(final.groupby("config", sort=False).size().items()) == [
        (f"trial {int(best['number'])}", 4), (final["config"].iloc[4], 4), ("baseline red", 4),
    ]  # fmt: skip
    vs_base = [c for c in df.attrs["comparisons"] if c["b"] == "baseline red"]
    assert len(vs_base) == 1 and vs_base[0]["significant"]
    assert vs_base[0]["diff"] == pytest.approx((best["var.x"] - 3) ** 2 + (best["var.y"] + 1) ** 2 - 10)


def test_constraints_keep_the_best_trial_feasible(tmp_path):
    f = _synth_file(tmp_path, 60, 'constraints = ["utilization <= 2"]')
    df = aqmlab.tune(f, tmp_path / "out", evaluate=bowl, report=False)
    assert (df["feasible"] == (df["var.x"] <= 2)).all()
    best = df[df["feasible"]].sort_values("median_rt_ms").iloc[0]
    # The constrained optimum is on the boundary x = 2, y = −1 (value 1 + the mean offset 0.75);
    # constrained TPE converges more slowly than the free search above (within 1.5 of it here,
    # where the unconstrained optimum x = 3 would give 0.75 and the middle of the box 10.75).
    assert 1.2 < best["var.x"] <= 2, best
    assert best["median_rt_ms"] - 1.75 < 1.5, best
    assert df.attrs["final"]["config"].iloc[0] == f"trial {int(best['number'])}"


def test_the_same_seed_gives_the_same_trials_and_another_seed_others(tmp_path):
    f = _synth_file(tmp_path, 14)
    a = aqmlab.tune(f, tmp_path / "a", evaluate=bowl, report=False)
    b = aqmlab.tune(f, tmp_path / "b", evaluate=bowl, report=False)
    c = aqmlab.tune(f, tmp_path / "c", evaluate=bowl, report=False, seed=2)
    assert _params(a) == _params(b)
    assert len(set(_params(a)) & set(_params(c))) == 0
    # Running again on a finished study adds nothing; asking for more continues it.
    again = aqmlab.tune(f, tmp_path / "a", evaluate=bowl, report=False)
    assert _params(again) == _params(a)
    more = aqmlab.tune(f, tmp_path / "a", evaluate=bowl, report=False, trials=18)
    assert _params(more)[:14] == _params(a) and len(more) == 18


def test_a_directory_of_another_study_is_refused(tmp_path):
    f = _synth_file(tmp_path, 4)
    aqmlab.tune(f, tmp_path / "out", evaluate=bowl, report=False)
    f.write_text(f.read_text().replace("[-10, 10]", "[-5, 5]"))
    with pytest.raises(TuneStoreError, match="holds a study of another"):
        aqmlab.tune(f, tmp_path / "out", evaluate=bowl, report=False)


def test_several_objectives_give_a_pareto_front(tmp_path):
    f = _synth_file(tmp_path, 24, "population = 8").with_name("synth.toml")
    f.write_text(f.read_text().replace('objectives = ["min median_rt_ms"]',
                                       'objectives = ["min median_rt_ms", "max utilization"]'))  # fmt: skip
    df = aqmlab.tune(f, tmp_path / "out", evaluate=bowl, report=True)
    import optuna

    study = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{tmp_path / 'out' / STUDY_DB}")
    front = {t.number for t in study.best_trials}
    done = df[df["state"] == "COMPLETE"]
    # No trial dominates a front trial.
    for n in front:
        a = done[done["number"] == n].iloc[0]
        dom = (done["median_rt_ms"] <= a["median_rt_ms"]) & (done["utilization"] >= a["utilization"])
        strict = (done["median_rt_ms"] < a["median_rt_ms"]) | (done["utilization"] > a["utilization"])
        assert not (dom & strict).any()
    md = (tmp_path / "out" / "report.md").read_text()
    assert "## Pareto front" in md
    # `aqmlab report DIR` draws it again from the stored study.
    (tmp_path / "out" / "report.md").unlink()
    from aqmlab.cli import main

    assert main(["report", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "report.md").read_text() == md


# ---------------------------------------------------------------------------------------------
# Real runs: resume after SIGKILL


TINY = """
[tune]
variant = "red"
baselines = ["red", "droptail"]
objectives = ["max pct_le_1s"]
constraints = ["utilization >= 0.5"]
trials = 12
replications = 2
final_replications = 3
finalists = 2
batch = 4
[tune.params]
"queue.min_th" = { int = [5, 60], log = true }
"queue.max_p" = "default"
[tune.derive]
"queue.max_th" = "3 * queue.min_th"
"""


def _tiny(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.toml"
    p.write_text(_base_text("1s", "4s") + TINY, encoding="utf-8")
    return p


def _finished(out: Path) -> dict[str, tuple[int, int]]:
    """Finished run directories: id → (inode, mtime_ns) of summary.json (not the scratch
    `<id>.tmp-PID` of a run being written when the driver was killed: the next driver removes
    it)."""
    got = {}
    for d in (out / "runs").iterdir() if (out / "runs").is_dir() else []:
        s = d / "summary.json"
        if re.fullmatch(r"[0-9a-f]{16}", d.name) and s.is_file():
            st = s.stat()
            got[d.name] = (st.st_ino, st.st_mtime_ns)
    return got


def _tune_cmd(f: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "aqmlab", "tune", str(f), "--out", str(out), "--quiet", "--jobs", "2"]


@pytest.mark.engine
def test_a_killed_study_resumes_without_recomputing_and_ends_as_an_uninterrupted_one(tmp_path):
    f = _tiny(tmp_path)
    out = tmp_path / "killed"
    p = subprocess.Popen(_tune_cmd(f, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while len(_finished(out)) < 9 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL, p.stderr.read().decode()
    before = _finished(out)
    import optuna

    study = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{out / STUDY_DB}")
    done_before = {t.number: (t.params, t.values) for t in study.trials if t.state.name == "COMPLETE"}
    assert len(done_before) < 12 and len(before) >= 9

    r = subprocess.run(_tune_cmd(f, out), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    study = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{out / STUDY_DB}")
    trials = study.trials
    assert [t.number for t in trials] == list(range(12))
    assert all(t.state.name == "COMPLETE" for t in trials)
    # No finished trial was recomputed, no finished run was rerun.
    for n, (params, values) in done_before.items():
        assert (trials[n].params, trials[n].values) == (params, values)
    after = _finished(out)
    assert {k: after[k] for k in before} == before
    # Every trial's runs are distinct directories, two per trial (common seeds 1, 2).
    ids = [t.user_attrs["runs"] for t in trials]
    assert all(len(x) == 2 for x in ids) and set(sum(ids, [])) <= set(after)

    # The interrupted study is the study an uninterrupted run makes.
    whole = tmp_path / "whole"
    r2 = subprocess.run(_tune_cmd(f, whole), capture_output=True, text=True, timeout=600)
    assert r2.returncode == 0, r2.stderr
    ref = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{whole / STUDY_DB}").trials
    assert [(t.params, t.values) for t in ref] == [(t.params, t.values) for t in trials]

    # The report: the final comparison of 2 finalists and 2 baselines, and its figures.
    md = (out / "report.md").read_text()
    assert "## Final comparison" in md and "## Optimisation history: pct_le_1s" in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| trial ") or ln.startswith("| baseline ")]
    assert sum(ln.startswith("| baseline red | 3 |") for ln in rows) == 1
    assert sum(ln.startswith("| baseline droptail | 3 |") for ln in rows) == 1
    assert (out / "report.html").read_text().count("data:image/png;base64,") >= 3
    df = aqmlab.load_tune(out)
    assert len(df) == 12 and math.isfinite(df["pct_le_1s"].max())
    assert df.loc[0, "queue.max_th"] == 3 * df.loc[0, "queue.min_th"]


def test_the_paired_comparison_by_hand():
    from aqmlab.tuning.search import compare

    final = pd.DataFrame(
        {"config": ["a"] * 3 + ["b"] * 3, "seed": [1, 2, 3] * 2, "x": [11.0, 12.0, 13.0, 10.0, 10.0, 10.0]}
    )
    c = compare(final, "a", "b", "x")
    # differences 1, 2, 3: mean 2, s = 1, t = 2 / (1 / √3) = 3.464 with 2 degrees of freedom
    assert c["diff"] == 2.0 and c["n"] == 3
    assert c["half"] == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert c["p"] == pytest.approx(0.074180, abs=1e-5)
    assert not c["significant"]  # the interval [−0.48, 4.48] holds 0
    final.loc[final["config"] == "b", "x"] = [10.0, 11.0, 12.0]  # the same difference on every seed
    c = compare(final, "a", "b", "x")
    assert (c["diff"], c["half"], c["p"], c["significant"]) == (1.0, 0.0, 0.0, True)


def test_the_report_lists_slice_and_contour_plots_of_the_top_parameters(tmp_path):
    from aqmlab.tuning.report import contour_pairs, numeric_column

    f = _synth_file(tmp_path, 16)
    out = tmp_path / "out"
    df = aqmlab.tune(f, out, evaluate=bowl, report=True)
    md = (out / "report.md").read_text()
    figs = dict(re.findall(r"^!\[(.+)\]\((report/fig\d+\.png)\)$", md, flags=re.M))
    assert "Slices: median_rt_ms" in figs and "Contours: median_rt_ms" in figs
    assert "## Contours: median_rt_ms" in md
    for png in figs.values():
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The html embeds every figure of the markdown.
    assert (out / "report.html").read_text().count("data:image/png;base64,") == len(figs)
    # The contours are drawn over the pair of numeric parameters; a choice is no axis.
    assert sorted(contour_pairs(df, ["var.x", "var.y"])[0]) == ["var.x", "var.y"]
    df["kind"] = ["red", "pie"] * (len(df) // 2)
    assert contour_pairs(df, ["kind", "var.x"]) == []
    # A searched duration (written in whole µs) is an axis in milliseconds.
    df["queue.target"] = [f"{1000 * (i + 1)}us" for i in range(len(df))]
    assert contour_pairs(df, ["queue.target", "kind", "var.x"]) == [("queue.target", "var.x")]
    assert numeric_column(pd.Series(["2500us", None])).tolist()[0] == 2.5


@pytest.mark.engine
def test_dask_gives_the_trials_of_the_local_pool(tmp_path):
    """`aqmlab tune --dask ADDR` on an in-process LocalCluster (one worker) makes the same
    trials, with the same objective values and run ids, as the local process pool."""
    from distributed import LocalCluster

    from aqmlab import cli

    f = tmp_path / "tiny.toml"
    f.write_text(_base_text("1s", "4s") + TINY.replace("trials = 12", "trials = 6"), encoding="utf-8")
    assert cli.main(["tune", str(f), "--out", str(tmp_path / "pool"), "--jobs", "1", "--quiet"]) == 0
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        assert cli.main(["tune", str(f), "--out", str(tmp_path / "dask"), "--dask", addr, "--quiet"]) == 0
        # The runs went through the cluster's scheduler (it lives in this process).
        assert cluster.scheduler.transition_counter > 0
    pool, dask = aqmlab.load_tune(tmp_path / "pool"), aqmlab.load_tune(tmp_path / "dask")
    assert len(pool) == 6 and (pool["state"] == "COMPLETE").all()
    cols = ["number", "queue.min_th", "queue.max_p", "queue.max_th", "pct_le_1s", "utilization", "runs"]
    pd.testing.assert_frame_equal(pool[cols], dask[cols])
    pd.testing.assert_frame_equal(pool.attrs["final"], dask.attrs["final"])
    for rid in pool["runs"].str.split(",").sum():
        a = (tmp_path / "pool" / "runs" / rid / "summary.json").read_bytes()
        assert a == (tmp_path / "dask" / "runs" / rid / "summary.json").read_bytes()


PAIRED = """
[tune]
paired = ["red", "droptail"]
objectives = ["min median_rt_ms"]
trials = 8
replications = 2
final_replications = 3
finalists = 2
batch = 4
[tune.params]
"var.x" = { float = [-4, 4] }
"""


def margin_pair(values: dict, seed: int) -> dict:
    """A (red): median x² + 10·seed; B (droptail): median 2x + 3·seed. So the per-seed margin
    A − B is x² − 2x + 7·seed; the pair as written (no x) is x = 0."""
    x = values.get("var.x", 0.0)
    if values["variant"] == "red":
        return {"median_rt_ms": x * x + 10 * seed, "pct_le_1s": 50.0}
    return {"median_rt_ms": 2 * x + 3 * seed, "pct_le_1s": 40.0 + x}


def test_a_paired_tune_optimises_the_per_seed_margin_of_two_variants(tmp_path):
    f = tmp_path / "paired.toml"
    f.write_text(_base_text() + PAIRED, encoding="utf-8")
    calls = []

    def fn(values: dict, seed: int) -> dict:
        calls.append((values["variant"], seed, values.get("var.x")))
        return margin_pair(values, seed)

    df = aqmlab.tune(f, tmp_path / "out", evaluate=fn)
    assert len(df) == 8 and (df["state"] == "COMPLETE").all()
    assert "tuned: the margin red − droptail" in (tmp_path / "out" / "report.md").read_text()
    # A trial's objective: the margin averaged over seeds 1 and 2, x² − 2x + 7 · 1.5.
    for _, r in df.iterrows():
        x = r["var.x"]
        assert r["median_rt_ms"] == pytest.approx(x * x - 2 * x + 10.5)
        # both variants ran with the trial's value and the same two seeds (the search's 32 calls)
        want = {(v, s) for v in ("red", "droptail") for s in (1, 2)}
        assert {(v, s) for v, s, cx in calls[:32] if cx == x} == want
    # The final rows are the per-seed margins: the pair as written (x = 0) gives 7·seed; the best
    # finalist x² − 2x + 7·seed, so best − baseline = x² − 2x on every seed (half width 0).
    final = df.attrs["final"]
    base = final[final["config"] == "baseline red − droptail"]
    assert list(base["seed"]) == [1, 2, 3] and list(base["median_rt_ms"]) == pytest.approx([7, 14, 21])
    assert list(base["pct_le_1s"]) == pytest.approx([10, 10, 10])  # 50 − 40
    best = df.loc[df["median_rt_ms"].idxmin()]
    xb = best["var.x"]
    rows = final[final["config"] == f"trial {int(best['number'])}"]
    assert list(rows["median_rt_ms"]) == pytest.approx([xb * xb - 2 * xb + 7 * s for s in (1, 2, 3)])
    assert list(rows["pct_le_1s"]) == pytest.approx([10 - xb] * 3)
    vs_base = next(c for c in df.attrs["comparisons"] if c["b"] == "baseline red − droptail")
    assert vs_base["diff"] == pytest.approx(xb * xb - 2 * xb)
    assert vs_base["half"] == pytest.approx(0, abs=1e-9)
