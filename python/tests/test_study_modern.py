"""The modern study (aqmlab.studies.modern, issue 33 item 4): row labels, every rule on
hand-made tables (a case that holds, one that fails, one within noise), the per-run columns
(pcap byte counts, Jain index, per-workload medians) by hand, and the sweep files: the grid they
expand to (run counts, the keys that vary), the preset's network and calibrated rates, ECN only
where the design puts it, and `--quick` a subset of the full runs."""

from __future__ import annotations

import json
import math
import struct
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmlab.studies import load
from aqmlab.studies import modern as m
from aqmlab.studies import modern_flows as mf
from aqmlab.studies.compare import Outcome
from aqmlab.studies.sweep_files import resolved_sweep_file
from aqmlab.sweeps.run import expand, validate

ROOT = Path(__file__).resolve().parents[2]
SDIR = ROOT / "studies" / "modern"
PRESET = ROOT / "scenarios" / "weigle2006" / "dumbbell.toml"
#: conn/s per unit of offered load, each direction (studies/weigle2006/README.md).
RATE_PER_LOAD = 135.0
H, F, N = Outcome.HOLDS, Outcome.FAILS, Outcome.NOISE


def _table(rows: dict[str, dict]) -> pd.DataFrame:
    return pd.DataFrame([{"row": k, **v} for k, v in rows.items()])


def _web(values: dict[tuple[str, str], dict], load: int = 90) -> dict[str, pd.DataFrame]:
    """A web table with one row per (queue, tcp)."""
    return {m.WEB: _table({f"load={load},queue={q},tcp={t}": v for (q, t), v in values.items()})}


# --- row labels --------------------------------------------------------------------------------


def test_row_labels():
    r = pd.Series({"var.load": 0.9000000001, "variant": "FQ-CoDel_cubic"})
    assert m.web_row(r) == "load=90,queue=FQ-CoDel,tcp=cubic"
    assert m.web_row(pd.Series({"var.load": 1.05, "variant": "DualPI2_prague-mix"})) == (
        "load=105,queue=DualPI2,tcp=prague-mix"
    )
    assert m.flow_row(pd.Series({"variant": "DT-1000q_bbr"})) == "queue=DT-1000q,tcp=bbr"
    assert m.flow_row(pd.Series({"variant": "DualPI2"})) == "queue=DualPI2,tcp=prague-vs-cubic"


# --- the rules on hand-made tables -------------------------------------------------------------


def _medians(dt: float, aqm: float, ci: float = math.nan, fq: float | None = None) -> dict:
    v = {(q, "cubic"): {"median_rt_ms": aqm, "median_rt_ms_ci": ci} for q in m.AQMS}
    v[("DT-148q", "cubic")] = {"median_rt_ms": dt, "median_rt_ms_ci": ci}
    if fq is not None:
        v[("FQ-CoDel", "cubic")]["median_rt_ms"] = fq
    return _web(v)


def test_aqms_cut_median_holds_fails_and_noise():
    # 0.8 × 400 = 320: every AQM at 300 holds; at 330 each fails (no interval: a point).
    assert m.aqms_cut_median(_medians(400, 300)).outcome == H
    c = m.aqms_cut_median(_medians(400, 330))
    assert c.outcome == F and "CoDel median ms vs 0.8 × DT-148q: 330 ≤ 320 ✗" in c.text
    # 300 ± 30 against 320 ± 24: 320 − 300 = 20 < √(30² + 24²) = 38.4 → within noise.
    assert m.aqms_cut_median(_medians(400, 300, ci=30)).outcome == N


def test_bbr_shorter_dt_queue_holds_fails_and_noise():
    def res(bbr, cubic, ci=math.nan):
        return _web({("DT-148q", "bbr"): {"mean_qlen": bbr, "mean_qlen_ci": ci},
                     ("DT-148q", "cubic"): {"mean_qlen": cubic, "mean_qlen_ci": ci}})  # fmt: skip

    assert m.bbr_shorter_dt_queue(res(40, 90)).outcome == H
    assert m.bbr_shorter_dt_queue(res(120, 90)).outcome == F
    assert m.bbr_shorter_dt_queue(res(80, 90, ci=10)).outcome == N  # 10 < √200 = 14.1


def test_bbr_loss_under_aqm_holds_fails_and_noise():
    def res(bbr, cubic, ci=math.nan):
        v = {}
        for q in ("CoDel", "PIE"):
            v[(q, "bbr")] = {"drops_pct": bbr, "drops_pct_ci": ci}
            v[(q, "cubic")] = {"drops_pct": cubic, "drops_pct_ci": ci}
        return _web(v)

    assert m.bbr_loss_under_aqm(res(5.0, 2.0)).outcome == H  # 5 ≥ 2 × 2
    c = m.bbr_loss_under_aqm(res(3.0, 2.0))
    assert c.outcome == F and "PIE drops %: BBR vs 2 × CUBIC: 3.00 ≥ 4.00 ✗" in c.text
    # 4.2 ± 0.5 vs 2 × (2 ± 0.5) = 4 ± 1: 0.2 < √(0.25 + 1) = 1.12 → within noise.
    assert m.bbr_loss_under_aqm(res(4.2, 2.0, ci=0.5)).outcome == N


def test_fq_codel_best_median_holds_fails_and_noise():
    # Everyone else at 300; FQ-CoDel at 250 holds, at 310 fails, at 305 ± 10 is within noise.
    assert m.fq_codel_best_median(_medians(400, 300, fq=250)).outcome == H
    assert m.fq_codel_best_median(_medians(400, 300, fq=310)).outcome == F
    assert m.fq_codel_best_median(_medians(400, 300, ci=10, fq=305)).outcome == N


def test_aqm_keeps_utilization_holds_fails_and_noise():
    def res(aqm, dt=0.90, ci=math.nan):
        v = {(q, "cubic"): {"utilization": aqm, "utilization_ci": ci} for q in ("PIE", "CoDel")}
        v[("DT-148q", "cubic")] = {"utilization": dt, "utilization_ci": ci}
        return _web(v)

    assert m.aqm_keeps_utilization(res(0.885)).outcome == H  # ≥ 0.90 − 0.02 = 0.88
    assert m.aqm_keeps_utilization(res(0.85)).outcome == F
    assert m.aqm_keeps_utilization(res(0.875, ci=0.01)).outcome == N  # 0.005 < 0.0141


def _mix(l4s: float, classic: float, all_cubic: float, ci: float = math.nan) -> dict[str, pd.DataFrame]:
    res = _web({("DualPI2", "cubic"): {"median_rt_ms": all_cubic, "median_rt_ms_ci": ci}})
    res[m.PRAGUE] = _table({"load=90,queue=DualPI2,tcp=prague-mix": {
        "l4s_median_rt_ms": l4s, "l4s_median_rt_ms_ci": ci,
        "classic_median_rt_ms": classic, "classic_median_rt_ms_ci": ci}})  # fmt: skip
    return res


def test_l4s_half_faster_holds_fails_and_noise():
    assert m.l4s_half_faster(_mix(200, 300, 300)).outcome == H
    assert m.l4s_half_faster(_mix(320, 300, 300)).outcome == F
    assert m.l4s_half_faster(_mix(305, 300, 300, ci=20)).outcome == N


def test_classic_unharmed_holds_fails_and_noise():
    # 1.1 × 300 = 330.
    assert m.classic_unharmed(_mix(200, 320, 300)).outcome == H
    assert m.classic_unharmed(_mix(200, 360, 300)).outcome == F
    # 335 ± 20 vs 330 ± 22: 5 < 29.7 → within noise.
    assert m.classic_unharmed(_mix(200, 335, 300, ci=20)).outcome == N


def _lanes(mean: float, p99: float, ci: float = math.nan) -> dict[str, pd.DataFrame]:
    return {m.PRAGUE: _table({"load=90,queue=DualPI2,tcp=prague-mix": {
        "l_sojourn_mean_ms": mean, "l_sojourn_mean_ms_ci": ci,
        "l_sojourn_p99_ms": p99, "l_sojourn_p99_ms_ci": ci}})}  # fmt: skip


def test_dualpi2_l_sub_ms_holds_fails_and_noise():
    # Both the mean and the p99 against the 1 ms line.
    assert m.dualpi2_l_sub_ms(_lanes(0.4, 0.95)).outcome == H
    assert m.dualpi2_l_sub_ms(_lanes(0.4, 1.6)).outcome == F  # the tail alone fails it
    assert m.dualpi2_l_sub_ms(_lanes(1.2, 0.9)).outcome == F  # (a p99 below the mean: hand-made)
    assert m.dualpi2_l_sub_ms(_lanes(0.4, 1.1, ci=0.2)).outcome == N  # 1.1 ± 0.2 straddles 1
    assert m.LANE_COLUMNS[:2] == ("l_sojourn_mean_ms", "l_sojourn_p99_ms")
    assert set(m.LANE_COLUMNS) <= set(next(t for t in m.STUDY.tables if t.id == m.PRAGUE).metrics)


def _flows(table: str, rows: dict[str, dict]) -> dict[str, pd.DataFrame]:
    return {table: _table(rows)}


def test_coexist_balanced_holds_fails_and_noise():
    def res(j, ci=math.nan):
        return _flows(m.COEXIST, {"queue=DualPI2,tcp=prague-vs-cubic": {"jain": j, "jain_ci": ci}})

    rule = m.coexist_balanced("DualPI2")
    assert rule(res(0.95)).outcome == H
    assert rule(res(0.80)).outcome == F
    assert rule(res(0.88, ci=0.05)).outcome == N


def test_rtt_rules_hold_fail_and_noise():
    def res(bbr0, bbr1, jc, jb, ci=math.nan):
        return _flows(m.RTT, {
            "queue=DT-1000q,tcp=bbr": {"flow0_mbps": bbr0, "flow0_mbps_ci": ci, "flow1_mbps": bbr1,
                                       "flow1_mbps_ci": ci, "jain": jb, "jain_ci": ci},
            "queue=DT-1000q,tcp=cubic": {"jain": jc, "jain_ci": ci},
            "queue=FQ-CoDel,tcp=cubic": {"jain": jc, "jain_ci": ci},
            "queue=FQ-CoDel,tcp=bbr": {"jain": jb, "jain_ci": ci},
        })  # fmt: skip

    assert m.bbr_long_rtt_wins(res(10, 38, 0.9, 0.7)).outcome == H
    assert m.bbr_long_rtt_wins(res(38, 10, 0.9, 0.7)).outcome == F
    assert m.bbr_long_rtt_wins(res(24, 25, 0.9, 0.7, ci=2)).outcome == N
    assert m.cubic_fairer_than_bbr(res(10, 38, 0.9, 0.7)).outcome == H
    assert m.cubic_fairer_than_bbr(res(10, 38, 0.7, 0.9)).outcome == F
    assert m.cubic_fairer_than_bbr(res(10, 38, 0.8, 0.79, ci=0.05)).outcome == N
    assert m.fq_codel_rtt_fair(res(10, 38, 0.99, 0.95)).outcome == H
    c = m.fq_codel_rtt_fair(res(10, 38, 0.99, 0.7))
    assert c.outcome == F and "FQ-CoDel Jain index, bbr: 0.7 ≥ 0.9 ✗" in c.text
    assert m.fq_codel_rtt_fair(res(10, 38, 0.99, 0.89, ci=0.05)).outcome == N


def test_paired_by_seed_decides_where_independent_intervals_cannot():
    # DT 400 ± 124 and CoDel 300 ± 124 over seeds 1-3 that move together: the paired difference
    # 0.8·DT − CoDel = (20, 20, 20) holds, which the quadrature interval could not show.
    def row(vals):
        s = tuple(zip((1, 2, 3), vals, strict=True))
        a = np.array(vals)
        return {"median_rt_ms": a.mean(), "median_rt_ms_ci": 124.0, "median_rt_ms_by_seed": s}

    res = _web({(q, "cubic"): row([250.0, 300.0, 350.0]) for q in m.AQMS}
               | {("DT-148q", "cubic"): row([337.5, 400.0, 462.5])})  # fmt: skip
    c = m.aqms_cut_median(res)
    assert c.outcome == H and "paired over 3 seeds" in c.text


def test_missing_row_is_not_evaluated_by_name():
    with pytest.raises(KeyError, match="no row 'load=90,queue=DT-148q,tcp=cubic'"):
        m.aqms_cut_median(_web({("CoDel", "cubic"): {"median_rt_ms": 1.0}}))


# --- per-run columns ---------------------------------------------------------------------------


def _pcap(path: Path, records: list[tuple[int, int]], order: str = "<", ns: bool = True) -> None:
    """A pcap of `records` (time ns, orig_len), each carrying 20 bytes of header."""
    magic = 0xA1B23C4D if ns else 0xA1B2C3D4
    out = struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, 101)
    for t, orig in records:
        frac = t % 10**9 if ns else (t % 10**9) // 1000
        out += struct.pack(order + "IIII", t // 10**9, frac, 20, orig) + bytes(20)
    path.write_bytes(out)


def test_wire_bytes_counts_the_window_by_hand(tmp_path):
    recs = [(500_000_000, 100), (1_000_000_000, 200), (1_999_999_000, 300), (2_000_000_000, 400)]
    for order in "<>":
        for ns in (True, False):
            p = tmp_path / f"a{order == '<'}{ns}.pcap"
            _pcap(p, recs, order, ns)
            # [1 s, 2 s): the records at 1.0 s and 1.999999 s.
            assert mf.wire_bytes(p, 10**9, 2 * 10**9) == 500
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(b"\x00" * 24)
    with pytest.raises(mf.PcapError, match="bad.pcap: not a pcap file"):
        mf.wire_bytes(bad, 0, 1)
    cut = tmp_path / "cut.pcap"
    _pcap(cut, recs)
    cut.write_bytes(cut.read_bytes()[:-5])
    with pytest.raises(mf.PcapError, match="truncated record at the end"):
        mf.wire_bytes(cut, 0, 1)


def test_jain_by_hand():
    assert mf.jain([5.0, 5.0]) == 1.0
    assert mf.jain([1.0, 0.0]) == 0.5
    assert mf.jain([3.0, 1.0]) == pytest.approx(16 / 20)  # (3+1)² / (2·(9+1))
    assert math.isnan(mf.jain([0.0, 0.0]))


def test_flow_columns_by_hand(tmp_path):
    # Window 2 s .. 4 s (warm-up 2 s, end 4 s): flow 0 sends 3 × 1,000,000 B in it, flow 1
    # 1 × 1,000,000 B (and one before the warm-up): 12 and 4 Mbit/s, ratio 3, Jain 0.8.
    run = {"warmup_ns": 2 * 10**9, "engine": {"end_ns": 4 * 10**9}}
    (tmp_path / "run.json").write_text(json.dumps(run))
    _pcap(tmp_path / "server0_up.pcap", [(2 * 10**9, 10**6), (3 * 10**9, 10**6), (3_900_000_000, 10**6)])
    _pcap(tmp_path / "server1_up.pcap", [(10**9, 10**6), (2_500_000_000, 10**6)])
    c = mf.flow_columns(tmp_path)
    assert c["flow0_mbps"] == pytest.approx(12.0) and c["flow1_mbps"] == pytest.approx(4.0)
    assert c["ratio"] == pytest.approx(3.0) and c["jain"] == pytest.approx(0.8)


def test_workload_median_by_hand():
    # Workloads 2, 3 (Prague): three measured responses of 100, 300 ms and one unfinished →
    # rank ⌈0.5·3⌉ = 2 → 300 ms. One before the warm-up and one of workload 0 are left out.
    req = pd.DataFrame({
        "kind": ["http"] * 5 + ["bulk"],
        "workload": [2, 3, 2, 2, 0, 3],
        "start_ns": [10**9, 2 * 10**9, 3 * 10**9, 0, 10**9, 10**9],
        "end_ns": [10**9 + 100_000_000, 2 * 10**9 + 300_000_000, 0, 5, 10**9 + 1, 0],
        "completed": [True, True, False, True, True, False],
    })  # fmt: skip
    assert m.workload_median_ms(req, 10**9, m.L4S_WORKLOADS) == pytest.approx(300.0)
    # Unfinished ones counted slower: 2 of 3 unfinished → the median falls on one → +inf.
    req.loc[1, "completed"] = False
    assert m.workload_median_ms(req, 10**9, m.L4S_WORKLOADS) == math.inf


# --- the study and its sweep files -------------------------------------------------------------


def test_study_loads_with_its_tables_and_an_empty_paper_csv():
    st = load("modern")
    assert st is m.STUDY and [t.id for t in st.tables] == ["web", "prague-mix", "coexist", "rtt"]
    assert (SDIR / "paper.csv").read_text().strip() == "table,row,metric,value"
    for v in st.verdicts:
        assert v.quote.count('"') >= 2  # each statement quotes its source sentence


def test_sweep_grids_count_and_vary_the_intended_keys():
    sw = {n: expand(SDIR / f"{n}.toml") for n in ("web", "web_prague", "coexist", "rtt_fairness")}
    for s in sw.values():
        validate(s)
    # 4 loads × 6 queues × 2 senders × 3 seeds; 4 loads × 2 queues × 3; 2 queues × 3; 10 × 3.
    assert {n: len(s.runs) for n, s in sw.items()} == {
        "web": 144, "web_prague": 24, "coexist": 6, "rtt_fairness": 30}  # fmt: skip
    assert sw["web"].axes == ["var.load", "workload[0].rate", "workload[1].rate"]
    assert sw["web_prague"].axes == ["var.load", *(f"workload[{i}].rate" for i in range(4))]
    assert sw["coexist"].axes == [] and sw["rtt_fairness"].axes == []
    names = {r.name for r in sw["web"].runs}
    assert names == {f"{q}_{t}" for q in m.QUEUES for t in ("cubic", "bbr")}
    assert {r.seed for r in sw["web"].runs} == {1, 2, 3}
    assert sorted({r.values["var.load"] for r in sw["web"].runs}) == [0.5, 0.8, 0.9, 1.05]
    for r in sw["web"].runs:
        assert [wl["rate"] for wl in r.doc["workload"]] == pytest.approx(
            [RATE_PER_LOAD * r.values["var.load"]] * 2
        )
    for r in sw["web_prague"].runs:
        wls = r.doc["workload"]
        assert [wl["rate"] for wl in wls] == pytest.approx([RATE_PER_LOAD / 2 * r.values["var.load"]] * 4)
        assert [wl.get("tcp", {}).get("variant") for wl in wls] == [None, None, "prague", "prague"]
        assert [wl.get("direction", "forward") for wl in wls] == ["forward", "reverse"] * 2


def test_web_network_is_the_preset_and_ecn_only_where_designed():
    preset = tomllib.loads(PRESET.read_text())
    for name in ("web.toml", "web_prague.toml"):
        doc = tomllib.loads((SDIR / name).read_text())
        assert doc["topology"] | {"delaybox": None} == preset["topology"] | {"delaybox": None}
        assert Path(doc["topology"]["delaybox"]["rtt"]["file"]).name == "packmime_rtt_server.csv"
        assert (SDIR / doc["topology"]["delaybox"]["rtt"]["file"]).resolve() == (
            ROOT / "studies" / "weigle2006" / "packmime_rtt_server.csv"
        ).resolve()
        assert doc["tcp"] == {"profile": "linux", "variant": "cubic_sack"}  # Linux: ECN not requested
    for r in expand(SDIR / "web.toml").runs:
        assert "ecn" not in r.doc["tcp"]
        q = r.doc["queue"]
        # FQ-CoDel marks (Linux's default); no other queue is given ECN.
        assert q.get("ecn", False) == (q["kind"] == "fq_codel")


def test_quick_is_a_subset_of_the_full_runs(tmp_path):
    st = m.STUDY
    for t in st.tables:
        full = expand(SDIR / t.scenario)
        quick = expand(resolved_sweep_file(SDIR / t.scenario, st.quick_overrides, tmp_path))
        ids = {r.id for r in quick.runs}
        assert ids < {r.id for r in full.runs}
        assert {r.seed for r in quick.runs} == {1}
        if "var.load" in full.axes:
            assert sorted({r.values["var.load"] for r in quick.runs}) == [0.5, 0.9]


# --- CoDel's standing queue (studies/modern/README.md) -----------------------------------------


def test_codel_interval_check_reruns_the_studys_90_percent_cubic_points():
    # Its DT-148q and CoDel runs are web.toml's own (same resolved scenario, same run id); the
    # third variant differs only in CoDel's interval.
    check = expand(SDIR / "codel_interval.toml")
    validate(check)
    web = {(r.name, r.seed): r for r in expand(SDIR / "web.toml").runs if r.values["var.load"] == 0.9}
    assert len(check.runs) == 9 and {r.seed for r in check.runs} == {1, 2, 3}
    for r in check.runs:
        if r.name == "CoDel-i20_cubic":
            twin = web[("CoDel_cubic", r.seed)].doc
            assert twin["variant"] == [{"name": "CoDel_cubic", "queue": {"kind": "codel"}}]
            assert r.doc["variant"] == [{"name": r.name, "queue": {"kind": "codel", "interval": "20ms"}}]
            assert {**r.doc, "variant": None} == {**twin, "variant": None}
        else:
            assert r.id == web[(r.name, r.seed)].id


def test_bbr_trace_reruns_the_studys_seed_1_points_and_adds_a_deep_buffer():
    # DT-148q, PIE and CoDel at 90 %, seed 1: web.toml's own runs (same id); DT-1000q differs from
    # the DT-148q run only in the buffer.
    check = expand(SDIR / "bbr_trace.toml")
    validate(check)
    web = {(r.name, r.seed): r for r in expand(SDIR / "web.toml").runs if r.values["var.load"] == 0.9}
    assert len(check.runs) == 8 and {r.seed for r in check.runs} == {1}
    for r in check.runs:
        if r.name.startswith("DT-1000q"):
            twin = web[(r.name.replace("DT-1000q", "DT-148q"), 1)].doc
            assert r.doc["variant"][0]["queue"] == {"kind": "droptail", "limit": 1000}
            assert {**r.doc, "variant": None} == {**twin, "variant": None}
        else:
            assert r.id == web[(r.name, 1)].id


def test_dualpi2_100mbps_is_the_prague_mix_point_with_rates_times_ten():
    check = expand(SDIR / "dualpi2_100mbps.toml")
    validate(check)
    twin = next(
        r.doc for r in expand(SDIR / "web_prague.toml").runs
        if r.name == "DualPI2_prague-mix" and r.seed == 1 and r.values["var.load"] == 0.9
    )  # fmt: skip
    (run,) = check.runs
    doc = run.doc
    assert (doc["topology"]["bottleneck_rate"], doc["topology"]["access_rate"]) == ("100Mbps", "200Mbps")
    assert [w["rate"] for w in doc["workload"]] == pytest.approx([10 * w["rate"] for w in twin["workload"]])

    def rates_out(d: dict) -> dict:
        topo = {**d["topology"], "bottleneck_rate": None, "access_rate": None}
        return {**d, "topology": topo, "workload": [{**w, "rate": None} for w in d["workload"]]}

    assert rates_out(doc) == rates_out(twin)


def test_dualpi2_prague_iw2_is_the_prague_mix_point_with_prague_iw_2():
    check = expand(SDIR / "dualpi2_prague_iw2.toml")
    validate(check)
    twin = next(
        r.doc for r in expand(SDIR / "web_prague.toml").runs
        if r.name == "DualPI2_prague-mix" and r.seed == 1 and r.values["var.load"] == 0.9
    )  # fmt: skip
    (run,) = check.runs
    doc = run.doc
    assert [w.get("tcp") for w in doc["workload"]] == [None, None] + [
        {"variant": "prague", "initial_window": 2}
    ] * 2
    assert [{**w, "tcp": None} for w in doc["workload"]] == [{**w, "tcp": None} for w in twin["workload"]]
    assert {**doc, "workload": None, "variant": None} == {**twin, "workload": None, "variant": None}


def test_pie_drops_are_the_median_statements_documented_cause():
    # PIE at 440 ms against DT-148q's 0.8 × 400 = 320 ms line: the statement fails outright, so the
    # cause column falls through ns-2.35 (not run), the paper (no numbers) and noise to the
    # documented cause; within noise it says so instead.
    from aqmlab.studies.verdicts import WITHIN_NOISE, evaluate, verdict_table

    st = load("modern")
    failing = _medians(400, 300)
    failing[m.WEB].loc[failing[m.WEB]["row"] == "load=90,queue=PIE,tcp=cubic", "median_rt_ms"] = 440.0
    no_paper = evaluate(st, {})
    rows = {r.id: r for r in verdict_table(st, evaluate(st, failing), no_paper)}
    assert rows["mod-aqms-cut-median"].aqmlab.outcome == F
    assert rows["mod-aqms-cut-median"].cause == st.causes["mod-aqms-cut-median"]
    assert st.causes["mod-aqms-cut-median"].startswith("PIE and DualPI2's classic queue, not CoDel")
    noisy = {r.id: r for r in verdict_table(st, evaluate(st, _medians(400, 300, ci=30)), no_paper)}
    assert noisy["mod-aqms-cut-median"].cause == WITHIN_NOISE


def test_bbr_and_l_queue_causes_reach_their_failing_verdicts():
    # Every documented cause names a statement of the study, and a failing one shows it: BBR's
    # DT-148q queue 120 against CUBIC's 97, PIE's loss 25 against 2 × 16 %, the L p99 at 15 ms.
    from aqmlab.studies.verdicts import evaluate, verdict_table

    st = load("modern")
    assert set(st.causes) <= {v.id for v in st.verdicts}
    res = _web({
        ("DT-148q", "bbr"): {"mean_qlen": 120.0}, ("DT-148q", "cubic"): {"mean_qlen": 97.0},
        ("CoDel", "bbr"): {"drops_pct": 13.1}, ("CoDel", "cubic"): {"drops_pct": 3.9},
        ("PIE", "bbr"): {"drops_pct": 25.0}, ("PIE", "cubic"): {"drops_pct": 16.0}})  # fmt: skip
    res.update(_lanes(2.5, 15.0))
    rows = {r.id: r for r in verdict_table(st, evaluate(st, res), evaluate(st, {}))}
    for vid in ("mod-bbr-short-dt-queue", "mod-bbr-loss-under-aqm", "mod-dualpi2-l-p99"):
        assert rows[vid].aqmlab.outcome == F, vid
        assert rows[vid].cause == st.causes[vid]
