"""The seed 001 study (aqmlab.studies.weigle2006): the PackMime RTT file against the model's
knots and the seed's statistics, row labels, every verdict on hand-made results (one case where
it must hold, one where it must fail), paper.csv, and the sweep files: they expand and validate,
their network is the preset's, their rates follow the calibration, and one point runs."""

from __future__ import annotations

import csv
import math
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmlab.studies import load
from aqmlab.studies import weigle2006 as w
from aqmlab.studies import weigle2006_rtt as rtt
from aqmlab.studies.compare import Outcome
from aqmlab.sweeps.run import expand, validate

ROOT = Path(__file__).resolve().parents[2]
SDIR = ROOT / "studies" / "weigle2006"
PRESET = ROOT / "scenarios" / "weigle2006" / "dumbbell.toml"
REF = ROOT / "docs" / "reference" / "packmime" / "long_rtt_invcdf.csv"
RTT_CSV = SDIR / "packmime_rtt_server.csv"
#: conn/s per unit of offered load, each direction (studies/weigle2006/README.md).
RATE_PER_LOAD = 135.0
H, F, N = Outcome.HOLDS, Outcome.FAILS, Outcome.NOISE


def _cdf() -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in csv.reader(RTT_CSV.open()) if r and not r[0].startswith("#")][1:]
    a = np.array([[float(v), float(c)] for v, c in rows])
    return a[:, 0], a[:, 1]


# --- the RTT file ---------------------------------------------------------------------------


def test_rtt_knots_by_hand():
    # long_rtt_invcdf.csv knots (MODEL.md §3.8): x = 0 → y = 0.79105, RTT = y³ = 0.49501 ms;
    # p = 0.5 → x = log10 2 = 0.30103, between knots (0.25, 3.71848) and (0.5, 4.46097):
    # y = 3.71848 + 0.05103/0.25·0.74249 = 3.87003, RTT = 57.96 ms (MODEL.md's median).
    knots = [(0.0, 0.79105), (0.25, 3.71848), (0.5, 4.46097), (0.75, 4.49838)]
    assert rtt.rtt_ms(knots, 3, 0.0) == pytest.approx(0.79105**3, rel=1e-12)
    assert rtt.rtt_ms(knots, 3, 0.5) == pytest.approx(57.96, abs=0.01)
    # Beyond the last knot the last segment continues: x = 1 → y = 4.49838 + 0.25/0.25·0.03741.
    assert rtt.interp(knots, 1.0) == pytest.approx(4.53579, abs=1e-9)


def test_rtt_file_is_regenerated_exactly_from_the_reference_table():
    pts = rtt.cdf_points(rtt.read_knots(REF), 3)
    v, c = _cdf()
    assert len(pts) == len(v)
    assert np.allclose([p[0] for p in pts], v, rtol=1e-8) and np.allclose([p[1] for p in pts], c, rtol=1e-8)


def test_rtt_file_matches_the_model_and_the_seed():
    v, c = _cdf()
    assert c[-1] == 1.0 and np.all(np.diff(c) >= 0) and np.all(np.diff(v) >= 0)
    med = np.interp(0.5, c, v) * 1000
    p90 = np.interp(0.9, c, v) * 1000
    # Mean of the piecewise-linear inverse CDF: sum of segment mid-values × probability.
    mean = float(np.sum((v[1:] + v[:-1]) / 2 * np.diff(c)) + v[0] * c[0]) * 1000
    # MODEL.md §3.8: median 57.96 ms, mean 80.97 ms, p90 114.05 ms (its own computation; the
    # file lumps the 1e-4 tail beyond 5.11 s into the last segment, hence 1 % on the mean).
    assert med == pytest.approx(57.96, abs=0.05)
    assert p90 == pytest.approx(114.05, abs=0.1)
    assert mean == pytest.approx(80.97, rel=0.01)
    # Seed 001 §5.1: median 54 ms, mean 74 ms, p90 117 ms; the table gives them within 10 %.
    for got, seed in ((med, 54), (mean, 74), (p90, 117)):
        assert abs(got - seed) <= 0.10 * seed


# --- rows and verdicts -----------------------------------------------------------------------


def test_row_labels():
    r = pd.Series({"var.load": 0.8500000001, "variant": "ARED-ECN-5ms", "tcp.variant": "sack"})
    assert w.queue_row(r) == "load=85,queue=ARED-ECN-5ms"
    assert w.sack_row(r) == "load=85,tcp=sack,queue=ARED-ECN-5ms"
    assert w.load_pct(pd.Series({"var.load": 1.05})) == 105


def _results(rows: dict[str, dict], table: str) -> dict[str, pd.DataFrame]:
    df = pd.DataFrame([{"row": k, **v} for k, v in rows.items()])
    return {table: df}


def _cdfrow(p10, p25, p50, p75, p90, p95=None, **kw) -> dict:
    d = dict(p10_rt_ms=p10, p25_rt_ms=p25, median_rt_ms=p50, p75_rt_ms=p75, p90_rt_ms=p90,
             p95_rt_ms=p95 if p95 is not None else p90 * 1.5)  # fmt: skip
    d.update(kw)
    return d


def _o(check, res) -> Outcome:
    return check(res).outcome


def _two(dt: dict, ecn: dict, load: int = 80) -> dict[str, pd.DataFrame]:
    return _results({f"load={load},queue=DT-148q": dt, f"load={load},queue=ARED-ECN-5ms": ecn}, w.LOAD_TABLE)


def test_ecn5_beats_dt_at_80_holds_and_fails():
    dt = _cdfrow(100, 200, 300, 600, 1200, p95=1800)
    # Shorter to the median, longer but within 1.25 × at p90 (1400 ≤ 1500) and p95 (2000 ≤ 2250).
    assert _o(w.ecn5_beats_dt_at_80, _two(dt, _cdfrow(80, 150, 250, 550, 1400, p95=2000))) == H
    # p75 is at the crossing ("nearly 75 %"): slightly longer there still holds.
    assert _o(w.ecn5_beats_dt_at_80, _two(dt, _cdfrow(80, 150, 250, 650, 1400, p95=2000))) == H
    # Worse at the median: the CDFs cross below the 75th percentile → fails.
    c = w.ecn5_beats_dt_at_80(_two(dt, _cdfrow(80, 150, 350, 650, 1400, p95=2000)))
    assert c.outcome == F and "p50 ms: 350 < 300 ✗" in c.text
    # Far worse for the rest (ns-2.35's packet-mode pattern, p90 6.1 s vs 1.1 s): not "marginally".
    assert _o(w.ecn5_beats_dt_at_80, _two(dt, _cdfrow(80, 150, 250, 550, 6100, p95=8000))) == F
    # Shorter everywhere: no "worse for the rest" → fails.
    assert _o(w.ecn5_beats_dt_at_80, _two(dt, _cdfrow(80, 150, 250, 550, 1100, p95=1700))) == F


def test_tradeoff_at_105_needs_the_utilization_gap():
    rows = {"load=105,queue=DT-148q": _cdfrow(200, 400, 700, 1200, 2500, utilization=0.95),
            "load=105,queue=ARED-ECN-5ms": _cdfrow(100, 300, 800, 1400, 3000, utilization=0.92)}  # fmt: skip
    assert _o(w.tradeoff_at_105, _results(rows, w.LOAD_TABLE)) == H
    rows["load=105,queue=ARED-ECN-5ms"]["utilization"] = 0.94  # gap 0.01 < 0.02
    assert _o(w.tradeoff_at_105, _results(rows, w.LOAD_TABLE)) == F


def test_little_benefit_below_80_uses_the_loads_that_ran():
    rows = {}
    for ld in (50, 70):
        for q in ("DT-148q", "DT-111q", *w.AQMS):
            rows[f"load={ld},queue={q}"] = dict(pct_le_1s=90.0, utilization=0.5, drops_pct=1.0)
    rows["load=50,queue=ARED-ECN-5ms"]["pct_le_1s"] = 91.9  # +1.9 pp: still "little"
    rows["load=70,queue=ARED-5ms"]["drops_pct"] = 9.0  # 70 % is not "much below 80 %"
    c = w.little_benefit_below_80(_results(rows, w.LOAD_TABLE))
    assert c.outcome == H and c.text.startswith("50%") and "70%" not in c.text and "60%" not in c.text
    rows["load=50,queue=DT-111q"]["drops_pct"] = 3.2  # loss over 3 % → fails
    assert _o(w.little_benefit_below_80, _results(rows, w.LOAD_TABLE)) == F


def test_reno_equals_sack_identical_with_ecn_no_better_with_droptail():
    def res(queue, sack_median):
        return _results({f"load=80,tcp=reno,queue={queue}": dict(median_rt_ms=300.0, p75_rt_ms=600.0),
                         f"load=80,tcp=sack,queue={queue}": dict(median_rt_ms=sack_median, p75_rt_ms=610.0)},
                        w.SACK_TABLE)  # fmt: skip

    # ARED+ECN: "essentially identical": within 10 %.
    assert _o(w.reno_equals_sack, res("ARED-ECN-5ms", 329.0)) == H  # +9.7 %
    assert _o(w.reno_equals_sack, res("ARED-ECN-5ms", 331.0)) == F  # +10.3 %
    # Drop-tail: "SACK provides no better performance", Reno "somewhat superior": SACK ≥ 0.9 × Reno.
    assert _o(w.reno_equals_sack, res("DT-148q", 400.0)) == H  # Reno a third faster: allowed
    assert _o(w.reno_equals_sack, res("DT-148q", 270.0)) == H
    assert _o(w.reno_equals_sack, res("DT-148q", 269.0)) == F
    # The published p75 at 80 % with ARED-ECN-5ms: reno 2516 ± 2416 vs sack 2038 ms: within noise.
    noisy = _results(
        {
            "load=80,tcp=reno,queue=ARED-ECN-5ms": dict(
                median_rt_ms=270.0, p75_rt_ms=2516.0, p75_rt_ms_ci=2416.0, median_rt_ms_ci=5.0
            ),
            "load=80,tcp=sack,queue=ARED-ECN-5ms": dict(
                median_rt_ms=263.0, p75_rt_ms=2038.0, p75_rt_ms_ci=900.0, median_rt_ms_ci=5.0
            ),
        },
        w.SACK_TABLE,
    )
    assert _o(w.reno_equals_sack, noisy) == N


def _ecn_rows(gains: dict[tuple[int, str], float], medians: dict | None = None) -> dict[str, pd.DataFrame]:
    rows = {}
    for (ld, t), g in gains.items():
        m = (medians or {}).get((ld, t), (300.0, 290.0))
        rows[f"load={ld},queue=ARED-{t}"] = dict(pct_le_1s=80.0, median_rt_ms=m[0])
        rows[f"load={ld},queue=ARED-ECN-{t}"] = dict(pct_le_1s=80.0 + g, median_rt_ms=m[1])
    return _results(rows, w.LOAD_TABLE)


def test_ecn_gain_grows_and_ared_beats_red():
    gains = {(80, "5ms"): 1.0, (80, "60ms"): 0.5, (105, "5ms"): 5.0, (105, "60ms"): 2.0}
    c = w.ecn_gain_grows(_ecn_rows(gains))
    assert c.outcome == H and "5ms gain pp 105% vs 80%: 5.00 > 1.00" in c.text
    # At 80 % the 60 ms target gains more than 5 ms: "more significant gains when the target
    # delay is small" fails there.
    assert _o(w.ecn_gain_grows, _ecn_rows({**gains, (80, "60ms"): 1.5})) == F
    pct = (
        (80, "ARED-5ms", 85), (80, "RED-5-15", 84), (80, "ARED-60ms", 86), (80, "RED-30-90", 86),
        (90, "ARED-5ms", 80), (90, "RED-5-15", 77), (90, "ARED-60ms", 82), (90, "RED-30-90", 81),
    )  # fmt: skip
    red = {f"load={ld},queue={q}": dict(pct_le_1s=v) for ld, q, v in pct}
    assert _o(w.ared_beats_red, _results(red, w.RED_TABLE)) == H  # gains 1+0 < 3+1
    red["load=90,queue=RED-30-90"]["pct_le_1s"] = 82.5  # ARED-60ms worse at 90 %
    assert _o(w.ared_beats_red, _results(red, w.RED_TABLE)) == F


def test_ecn_beats_drops_holds_fails_and_noise():
    gains = {(80, "5ms"): 3.0, (80, "60ms"): 0.6, (105, "5ms"): 1.4, (105, "60ms"): 1.2}
    assert _o(w.ecn_beats_drops, _ecn_rows(gains)) == H
    # The published 105 % 60 ms medians: drops 6014, ECN 6253 ms → fails without intervals ...
    worse = _ecn_rows(gains, {(105, "60ms"): (6014.0, 6253.0)})
    assert _o(w.ecn_beats_drops, worse) == F
    # ... and is within noise with ± 400 and ± 300 ms.
    t = worse[w.LOAD_TABLE]
    t["median_rt_ms_ci"] = 1.0
    t.loc[t["row"] == "load=105,queue=ARED-60ms", "median_rt_ms_ci"] = 300.0
    t.loc[t["row"] == "load=105,queue=ARED-ECN-60ms", "median_rt_ms_ci"] = 400.0
    assert _o(w.ecn_beats_drops, worse) == N


def test_dt_equals_ecn60_holds_and_fails():
    rows = {
        f"load={ld},queue={q}": dict(median_rt_ms=m, pct_le_1s=p)
        for ld, q, m, p in (
            (50, "DT-148q", 197.0, 96.0),
            (50, "ARED-ECN-60ms", 198.0, 96.2),
            (90, "DT-148q", 391.0, 67.5),
            (90, "ARED-ECN-60ms", 440.0, 65.0),
        )
    }
    assert _o(w.dt_equals_ecn60, _results(rows, w.LOAD_TABLE)) == H  # 440 ≤ 391 · 1.15 = 449.7
    rows["load=90,queue=ARED-ECN-60ms"].update(median_rt_ms=720.0, pct_le_1s=56.3)  # published 90 %
    assert _o(w.dt_equals_ecn60, _results(rows, w.LOAD_TABLE)) == F


def test_dt111_vs_dt148_holds_and_fails():
    def res(le111):
        return _results(
            {
                "load=80,queue=DT-111q": dict(pct_le_1s=le111, p75_rt_ms=546.0, p90_rt_ms=2249.0),
                "load=80,queue=DT-148q": dict(pct_le_1s=84.6, p75_rt_ms=511.0, p90_rt_ms=1569.0),
            },
            w.LOAD_TABLE,
        )

    assert _o(w.dt111_vs_dt148, res(83.0)) == H
    assert _o(w.dt111_vs_dt148, res(81.2)) == F  # the published 3.4 points


def _q5(p10: float, p75: float, p90: float) -> dict:
    return _cdfrow(p10, 2 * p10, 3 * p10, p75, p90)


def test_ared5_vs_ared60_crossover():
    rows = {}
    for ld in (80, 105):
        rows[f"load={ld},queue=ARED-5ms"] = _q5(50, 900, 3000)
        rows[f"load={ld},queue=ARED-60ms"] = _q5(80, 700, 2000)
        rows[f"load={ld},queue=DT-148q"] = _q5(90, 650, 1900)
    assert _o(w.ared5_vs_ared60, _results(rows, w.LOAD_TABLE)) == H
    rows["load=105,queue=ARED-5ms"] = _q5(50, 900, 1500)  # faster than ARED-60ms at p90 too
    assert _o(w.ared5_vs_ared60, _results(rows, w.LOAD_TABLE)) == F


def test_droptail_util_loss_and_ecn5_queue():
    rows = {}
    for ld, (u, d) in ((90, (0.932, 7.70)), (105, (0.992, 24.61))):
        rows[f"load={ld},queue=DT-148q"] = dict(utilization=u, drops_pct=d)
        for i, q in enumerate(w.AQMS):
            rows[f"load={ld},queue={q}"] = dict(utilization=u - 0.04 - 0.01 * i, drops_pct=d + 0.37 + i)
    assert _o(w.droptail_util_and_loss, _results(rows, w.LOAD_TABLE)) == H
    rows["load=105,queue=DT-148q"]["drops_pct"] = 25.0  # above ARED-5ms's 24.98
    assert _o(w.droptail_util_and_loss, _results(rows, w.LOAD_TABLE)) == F
    q = {
        f"load={ld},queue=ARED-ECN-{t}": dict(mean_qlen=ql, utilization=u)
        for ld, t, ql, u in (
            (80, "5ms", 13.6, 0.803),
            (80, "60ms", 56.9, 0.845),
            (105, "5ms", 19.5, 0.935),
            (105, "60ms", 97.8, 0.942),
        )
    }
    assert _o(w.ecn5_small_queue_low_util, _results(q, w.LOAD_TABLE)) == H
    q["load=105,queue=ARED-ECN-5ms"]["utilization"] = 0.942  # equal, not lower
    assert _o(w.ecn5_small_queue_low_util, _results(q, w.LOAD_TABLE)) == F


def test_missing_row_raises_naming_it():
    with pytest.raises(KeyError, match="no row 'load=80,queue=DT-148q'"):
        w.dt111_vs_dt148(_results({"load=80,queue=DT-111q": {"pct_le_1s": 80.0}}, w.LOAD_TABLE))


def test_every_verdict_decides_on_a_full_plausible_result_set():
    # A complete, internally consistent set: every check decides, with evidence (no KeyError).
    load_rows = {}
    for ld in (50, 60, 70, 80, 85, 90, 95, 100, 105):
        for q in ("DT-111q", "DT-148q", *w.AQMS):
            load_rows[f"load={ld},queue={q}"] = dict(
                _cdfrow(100, 200, 300, 600, 1200),
                utilization=0.5,
                drops_pct=1.0,
                mean_qlen=10.0,
                pct_le_1s=90.0,
            )
    red_rows = {f"load={ld},queue={q}": dict(pct_le_1s=90.0) for ld in (80, 90)
                for q in ("RED-5-15", "RED-30-90", "ARED-5ms", "ARED-60ms")}  # fmt: skip
    for r in load_rows.values():
        r["pct_flows_with_drops"] = 5.0
    sack_rows = {
        f"load={ld},tcp={t},queue={q}": _cdfrow(100, 200, 300, 600, 1200, large_median_rt_ms=2000.0)
        for ld in (50, 80, 105)
        for t in ("reno", "sack")
        for q in ("DT-148q", "ARED-ECN-5ms")
    }
    res = {
        **_results(load_rows, w.LOAD_TABLE),
        **_results(red_rows, w.RED_TABLE),
        **_results(sack_rows, w.SACK_TABLE),
    }
    for v in w.STUDY.verdicts:
        c = v.check(res)
        assert c.outcome in (H, F, N) and c.evidence


# --- study definition, paper.csv, sweep files -------------------------------------------------


def test_study_loads_and_paper_csv_has_the_header():
    st = load("weigle2006")
    assert st is w.STUDY and len(st.tables) == 3 and len(st.verdicts) == len(w.CHECKS)
    with open(SDIR / "paper.csv", newline="") as f:
        assert next(csv.reader(f)) == ["table", "row", "metric", "value"]
    for t in st.tables:
        assert (SDIR / t.scenario).is_file()


def _base(doc: dict) -> dict:
    """A scenario document without what differs between the preset and the sweep copies."""
    d = {k: v for k, v in doc.items() if k not in ("sweep", "calibration")}
    d["topology"] = dict(d["topology"], delaybox=None)
    d["workload"] = [{k: v for k, v in wl.items() if k != "rate"} for wl in d["workload"]]
    return d


@pytest.mark.parametrize("name", ["load.toml", "red_vs_ared.toml", "reno_sack.toml"])
def test_sweep_file_is_the_preset_network_with_calibrated_rates(name):
    path = SDIR / name
    doc = tomllib.loads(path.read_text())
    assert _base(doc) == _base(tomllib.loads(PRESET.read_text()))
    sw = expand(path)
    validate(sw)
    for r in sw.runs:
        load_ = r.values["var.load"]
        for wl in r.doc["workload"]:
            assert wl["rate"] == pytest.approx(RATE_PER_LOAD * load_, rel=1e-12)
    assert min(r.values["var.load"] for r in sw.runs) >= 0.5
    assert max(r.values["var.load"] for r in sw.runs) <= 1.05


def test_equal_rate_calibration_file_is_the_preset_at_100_mbps():
    path = SDIR / "calibration_equal_rates.toml"
    doc = tomllib.loads(path.read_text())
    preset = tomllib.loads(PRESET.read_text())
    assert doc["topology"]["bottleneck_rate"] == "100Mbps"
    doc["topology"]["bottleneck_rate"] = preset["topology"]["bottleneck_rate"]
    doc["run"] = preset["run"]
    assert _base(doc) == {k: v for k, v in _base(preset).items() if k != "variant"}
    sw = expand(path)
    validate(sw)
    for r in sw.runs:
        assert [wl["rate"] for wl in r.doc["workload"]] == [r.values["var.x"]] * 2


def test_origin_slope_by_hand():
    # Σxy / Σx² = (1·2 + 2·4.2 + 3·5.7) / (1 + 4 + 9) = 27.5 / 14.
    assert w.origin_slope([1, 2, 3], [2, 4.2, 5.7]) == pytest.approx(27.5 / 14, rel=1e-12)


def test_sweep_run_counts():
    n = {name: len(expand(SDIR / name).runs) for name in ("load.toml", "red_vs_ared.toml", "reno_sack.toml")}
    # 9 loads × 6 queues × 3 reps; 2 loads × 4 queues × 3; 2 TCPs × 3 loads × 2 queues × 3.
    assert n == {"load.toml": 162, "red_vs_ared.toml": 24, "reno_sack.toml": 36}


@pytest.mark.engine
def test_one_point_runs_for_20_seconds(tmp_path):
    from aqmlab.sweeps.run import run_sweep

    doc = tomllib.loads((SDIR / "reno_sack.toml").read_text())
    doc["run"].update(warmup="5s", duration="20s")
    doc["sweep"].update(replications=1, variants=["ARED-ECN-5ms"])
    doc["sweep"]["grid"] = {"tcp.variant": ["sack"], "var.load": [0.8]}
    from aqmlab.engine.document import dumps_toml

    f = SDIR / f".test-{tmp_path.name}.toml"  # beside the RTT file it names
    f.write_text(dumps_toml(doc))
    try:
        table = run_sweep(f, tmp_path / "out", jobs=1, progress=False)
    finally:
        f.unlink()
    assert list(table["status"]) == ["ok"]
    row = table.iloc[0]
    # 2 × 114.3 conn/s for 20 s: ≈ 4600 responses start (PackMime's inter-arrival mean is
    # exactly 1/rate; its LRD driver makes 20 s counts vary by far more than Poisson's ±1.5 %).
    assert 0.6 * 4572 <= row["responses_started"] <= 1.4 * 4572
    # At 80 % offered load on 10 Mbps the forward link carries between 4 and 10 Mbit/s.
    assert 0.4 <= row["utilization"] <= 1.0
    assert not math.isnan(row["median_rt_ms"])
    # The per-run columns agree with the summary's counters: each connection with a drop has at
    # least one retransmission (HTTP/1.0: one connection per measured response). Fig. 18's
    # responses must start ≥ 20 s before the end, i.e. in [5 s, 5 s] here: none qualifies.
    row = w.run_metrics(table, tmp_path / "out").iloc[0]
    retx = row["syn_retx"] + row["fin_retx"] + row["data_retx"]
    assert (row["pct_flows_with_drops"] > 0) == (retx > 0)
    assert row["pct_flows_with_drops"] <= 100 * retx / row["responses_started"] + 1e-9
    assert row["large_n"] == 0 and math.isnan(row["large_median_rt_ms"])


# --- per-run columns: % of flows with drops (Fig. 6), responses > 50 KB (Fig. 18) -------------


def _requests(rows: list[dict]) -> pd.DataFrame:
    """A request table with the columns the metrics read; unspecified counters are 0."""
    base = dict(kind="http", conn_id=0, start_ns=10**9, end_ns=2 * 10**9, completed=True, response_bytes=1000,
                syn_retx=0, fin_retx=0, data_retx=0)  # fmt: skip
    return pd.DataFrame([{**base, **r} for r in rows])


def test_pct_flows_with_drops_counts_connections_by_hand():
    req = _requests(
        [
            {"conn_id": 1, "data_retx": 2},
            {"conn_id": 2, "syn_retx": 1},
            {"conn_id": 3},  # a persistent connection: two exchanges, one connection
            {"conn_id": 3},
            {"conn_id": 4},
            {"conn_id": 5, "fin_retx": 1, "start_ns": 0},  # before the warm-up (1 s)
            {"conn_id": 6, "kind": "bulk", "data_retx": 9},  # not HTTP
        ]
    )
    # 2 of the 4 measured connections (1, 2 | 3, 4) retransmitted; by rows it would be 2 of 5.
    assert w.pct_flows_with_drops(req, 10**9) == pytest.approx(50.0)
    assert math.isnan(w.pct_flows_with_drops(req, 10**12))


def test_censored_quantile_by_hand():
    fin = np.array([300.0, 100.0, 200.0])
    # n = 4 with one unfinished: median rank ⌈0.5·4⌉ = 2 → 200; p90 rank ⌈3.6⌉ = 4 → unfinished
    assert w.censored_quantile(fin, 1, 0.5) == 200.0
    assert w.censored_quantile(fin, 1, 0.9) == math.inf
    assert w.censored_quantile(fin, 0, 0.9) == 300.0  # rank ⌈2.7⌉ = 3
    assert math.isnan(w.censored_quantile(np.array([]), 0, 0.5))


def test_large_response_times_by_hand():
    s = 10**9
    req = _requests(
        [
            {"response_bytes": 50_000, "start_ns": 10 * s, "end_ns": 11 * s},  # not > 50 KB
            {"response_bytes": 50_001, "start_ns": 10 * s, "end_ns": 11 * s},  # 1000 ms
            {"response_bytes": 80_000, "start_ns": 20 * s, "end_ns": 23 * s},  # 3000 ms
            {"response_bytes": 10**6, "start_ns": 30 * s, "completed": False},  # unfinished
            {"response_bytes": 10**6, "start_ns": 85 * s, "completed": False},  # < 20 s before end
            {"response_bytes": 10**6, "start_ns": 0, "end_ns": s // 2},  # before the warm-up
        ]
    )
    m = w.large_response_times(req, warmup_ns=s, end_ns=100 * s)
    # 3 responses: ranks ⌈1.5⌉ = 2 → 3000 ms, ⌈2.7⌉ = 3 → the unfinished one
    assert m == {"large_n": 3.0, "large_median_rt_ms": 3000.0, "large_p90_rt_ms": math.inf}


def _write_run(d: Path, requests: pd.DataFrame, summary: dict, warmup_ns: int = 0) -> None:
    from conftest import write_requests_run

    write_requests_run(d, requests, summary, warmup_ns)


def test_run_metrics_takes_the_end_of_run_from_warmup_and_measured_time(tmp_path):
    s = 10**9
    req = _requests(
        [
            {"conn_id": 1, "response_bytes": 60_000, "start_ns": 20 * s, "end_ns": 22 * s, "data_retx": 1},
            {"conn_id": 2, "response_bytes": 60_000, "start_ns": 71 * s, "end_ns": 72 * s},
        ]
    )
    # warm-up 10 s + 80 s measured: the run ends at 90 s, so the response started at 71 s is
    # left out (< 20 s before the end), the one at 20 s kept; both count for Fig. 6.
    _write_run(tmp_path / "runs" / "a", req, {"measured_s": 80.0}, warmup_ns=10 * s)
    sweep = pd.DataFrame({"run": ["a", "b"], "status": ["ok", "failed"]})
    df = w.run_metrics(sweep, tmp_path)
    assert df.loc[0, "large_n"] == 1 and df.loc[0, "large_median_rt_ms"] == 2000.0
    assert df.loc[0, "pct_flows_with_drops"] == pytest.approx(50.0)
    assert math.isnan(df.loc[1, "large_n"])
    assert w.run_metrics(df, tmp_path / "nowhere") is df


def test_sec54_long_response_by_hand():
    # §5.4: "at least one 10 MB response has started a transfer before 1000 s after the warm-up"
    s, warm = 10**9, 120 * 10**9
    end = warm + 1800 * s

    def has(size: int, start_s: float, end_ns: int = end) -> bool:
        req = _requests([{"response_bytes": 1000}, {"response_bytes": size, "start_ns": int(start_s * s)}])
        return w.has_long_response(req, warm, end_ns)

    assert has(10_000_000, 120 + 999.9)  # 10 MB = 10⁷ B, started before warm-up + 1000 s
    assert has(10_000_000, 50.0)  # started during the warm-up: still before the deadline
    assert not has(9_999_999, 500.0)  # one byte short
    assert not has(10_000_000, 120 + 1000.0)  # at the deadline: not before it
    assert not has(10_000_000, 120 + 700.0, end_ns=warm + 600 * s)  # quick mode: the run ends first
    bulk = _requests([{"kind": "bulk", "response_bytes": 10**8, "start_ns": warm}])
    assert not w.has_long_response(bulk, warm, end)  # only HTTP responses count


def test_sec54_flags_or_rejects_runs(tmp_path):
    s = 10**9
    big = _requests([{"conn_id": 1, "response_bytes": 12_000_000, "start_ns": 20 * s, "end_ns": 40 * s}])
    small = _requests([{"conn_id": 1, "response_bytes": 5_000, "start_ns": 20 * s, "end_ns": 21 * s}])
    _write_run(tmp_path / "runs" / "a", big, {"measured_s": 80.0}, warmup_ns=10 * s)
    _write_run(tmp_path / "runs" / "b", small, {"measured_s": 80.0}, warmup_ns=10 * s)
    sweep = pd.DataFrame({"run": ["a", "b", "c"], "status": ["ok", "ok", "failed"]})
    flag = w.run_metrics(sweep, tmp_path, sec54="flag")
    assert list(flag["sec54_long_response"].fillna(-1)) == [1.0, 0.0, -1.0]
    assert list(flag["status"]) == ["ok", "ok", "failed"]
    rej = w.run_metrics(flag, tmp_path / "nowhere", sec54="reject")  # columns present: no run read
    assert list(rej["status"]) == ["ok", w.REJECTED, "failed"]
    assert list(flag["status"]) == ["ok", "ok", "failed"]  # the input is not modified
    with pytest.raises(ValueError, match="sec54: 'drop': expected one of flag, reject"):
        w.run_metrics(sweep, tmp_path, sec54="drop")
    # the default is SEC54 ("flag"), and every table shows the column where results have it
    assert w.SEC54 == "flag"
    for t in w.STUDY.tables:
        assert t.run_checks == ("sec54_long_response",) and t.run_metrics is w.run_metrics
    from aqmlab.studies.paper_tables import table_results

    load = next(t for t in w.STUDY.tables if t.id == w.LOAD_TABLE)
    cols = {"status": ["ok", "ok"], "var.load": [0.8, 0.8], "variant": ["DT-148q"] * 2}
    rows = pd.DataFrame(cols | {m: [1.0, 3.0] for m in load.metrics} | {"sec54_long_response": [1.0, 0.0]})
    assert table_results(rows, load)["sec54_long_response"].tolist() == [0.5]
    # ns-2.35's results have no such column: the table still forms, without it
    assert "sec54_long_response" not in table_results(rows.drop(columns="sec54_long_response"), load)


def test_model_load_reading_is_the_model_calibration():
    from aqmlab.studies import packmime_load as pl

    # The reading's rate per unit of load is the fixed point of the seed's rule on the model's
    # expected wire bytes (10 Mbit/s, MSS 1420 B, CONTROL_PACKETS measured per connection).
    x = pl.rate_per_unit_load(10e6, 1420.0, w.CONTROL_PACKETS)
    assert w.MODEL_RATE_PER_LOAD == pytest.approx(x, abs=0.05)
    rd = w.STUDY.reading("model-load")
    assert rd.overrides == {
        f"sweep.derive.workload[{i}].rate": f"{w.MODEL_RATE_PER_LOAD} * var.load" for i in (0, 1)
    }
    assert not rd.queue_options
    # the sweep files' own rule, which the reading replaces
    for name in ("load.toml", "red_vs_ared.toml", "reno_sack.toml"):
        doc = tomllib.loads((SDIR / name).read_text())
        assert doc["sweep"]["derive"]["workload[0].rate"] == "135.0 * var.load"


def test_ared5_many_flows_with_drops_holds_and_fails():
    rows = {
        f"load={ld},queue={q}": {"pct_flows_with_drops": v}
        for ld in (80, 105)
        for q, v in (("ARED-5ms", 12.0), ("DT-148q", 4.0), ("ARED-60ms", 6.0))
    }
    c = w.ared5_many_flows_with_drops(_results(rows, w.LOAD_TABLE))
    assert c.outcome == H and "80% ARED-5ms vs DT-148q: 12.0 > 4.00" in c.text
    rows["load=105,queue=ARED-60ms"]["pct_flows_with_drops"] = 12.5
    assert _o(w.ared5_many_flows_with_drops, _results(rows, w.LOAD_TABLE)) == F


def _large(dt_reno, dt_sack, ecn_reno, ecn_sack) -> dict[str, pd.DataFrame]:
    vals = {("reno", "DT-148q"): dt_reno, ("sack", "DT-148q"): dt_sack,
            ("reno", "ARED-ECN-5ms"): ecn_reno, ("sack", "ARED-ECN-5ms"): ecn_sack}  # fmt: skip
    rows = {f"load=80,tcp={t},queue={q}": {"large_median_rt_ms": v} for (t, q), v in vals.items()}
    return _results(rows, w.SACK_TABLE)


def test_sack_helps_large_boundaries():
    # DT: SACK 10 % faster holds, 9 % fails; ARED-ECN: SACK no slower than Reno ("a bit" better)
    assert _o(w.sack_helps_large, _large(2000.0, 1800.0, 8000.0, 8000.0)) == H
    assert _o(w.sack_helps_large, _large(2000.0, 1820.0, 8000.0, 8000.0)) == F
    assert _o(w.sack_helps_large, _large(2000.0, 1500.0, 8000.0, 8160.0)) == F  # SACK 2 % slower
    # both DT medians unfinished (+inf): no evidence of an improvement
    assert _o(w.sack_helps_large, _large(math.inf, math.inf, 8000.0, 8000.0)) == F
    c = w.sack_helps_large(_large(2000.0, 1500.0, 8000.0, 7000.0))
    assert c.outcome == H and "DT-148q median ms SACK vs 0.9 × Reno: 1500 ≤ 1800" in c.text


def test_ecn5_poor_for_large_holds_and_fails():
    assert _o(w.ecn5_poor_for_large, _large(2000.0, 1800.0, 3000.0, 2700.0)) == H  # 1.5 × each
    assert _o(w.ecn5_poor_for_large, _large(2000.0, 1800.0, 3000.0, 2690.0)) == F  # SACK 1.49 ×
    assert _o(w.ecn5_poor_for_large, _large(2000.0, 1800.0, math.inf, math.inf)) == H
    assert _o(w.ecn5_poor_for_large, _large(math.inf, 1800.0, math.inf, 2700.0)) == F


def test_new_columns_are_on_their_tables():
    by_id = {t.id: t for t in w.STUDY.tables}
    assert "pct_flows_with_drops" in by_id[w.LOAD_TABLE].metrics
    assert {"large_n", "large_median_rt_ms", "large_p90_rt_ms"} <= set(by_id[w.SACK_TABLE].metrics)
    for tid in (w.LOAD_TABLE, w.SACK_TABLE):
        assert by_id[tid].run_metrics is w.run_metrics
    # the Fig. 18 rows exist in the Reno/SACK sweep: 80 % load, both TCPs, both queues
    sw = expand(SDIR / "reno_sack.toml")
    got = {(r.values["tcp.variant"], r.name) for r in sw.runs if r.values["var.load"] == 0.8}
    assert got == {(t, q) for t in ("reno", "sack") for q in ("DT-148q", "ARED-ECN-5ms")}
