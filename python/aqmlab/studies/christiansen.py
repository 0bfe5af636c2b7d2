"""Seed 000 (Christiansen 2000, "Tuning RED for Web Traffic"), Appendix B and §6.1: tail-drop and
RED on the constrained laboratory network. Sweeps and paper.csv: studies/christiansen/ (README.md
there). Loads: users = round(3012 · load / 98), 3012 browsers being 98 % load: 9.8 Mbit/s of
reply-direction traffic on the unconstrained network (scenarios/christiansen2000/
lab_unconstrained.toml, 3.253 kbit/s per browser, linear in the browser count as the thesis's
own calibration, §3.5). Table ids are the thesis's; "B.14" is split by load, and B.16-B.18's
"uncongested" and B.12's "unconstrained" rows are not rerun (studies/christiansen/README.md).

Tables 6.2 and 6.3 are not run summaries: `run_metrics` adds per run, from its requests table
(requests started after the warm-up whose response completed), the retransmission classes of
Table 6.1 as shares of those requests, in % (`retx_classes`):
- a request has SYN retransmissions if `server_syn_retx` > 0, FIN retransmissions if
  `server_fin_retx` > 0, and data retransmissions if `server_data_retx` > `server_fin_retx`:
  the server end's counters only, as the thesis classed the retransmitted packets from server to
  client by their flags, a FIN-carrying data segment as a FIN retransmission (§6.1.2: FINs "are
  often piggy-bagged on the final data packet"). aqmlab's server sends its FIN on the last data
  segment, so each retransmission of that segment counts in both `server_fin_retx` and
  `server_data_retx`; data retransmissions without a FIN are their difference.
- `nr_pct`: none of the three; `s_pct`, `f_pct`, `d_pct`: exactly one kind (S+, F+, D+);
  `sfd_pct`: two or more kinds (SFD+); `retx_pct` = 100 − nr_pct.
- `connections_70min`: requests started after the warm-up, scaled to the thesis's 70 measured
  minutes (Table 6.3's "connections").

Verdicts (the thesis's conclusions, §5.2, §5.4, §6.1 and Appendix B) with their numeric rules:
- V1 "≤ 90 % load: RED ≈ tail-drop": at every load ≤ 90 % run in both B.4 and B.6, the best
  RED threshold setting and the best tail-drop qlen differ by ≤ 2 percentage points in the share
  of responses within 1 s, and their lowest medians by ≤ 10 % (thesis at 90 %: 93.6 vs 93.6 %,
  261 vs 260 ms).
- V2 "98-110 %: RED cannot do much better than the best tail-drop" (B.17, B.18): the best RED
  (best overall or best for the load) exceeds the best tail-drop (qlen 120 or 190) by ≤ 5
  points within 1 s at both loads (thesis: 81.7 vs 84.0 %, 44.7 vs 45.1 %).
- V3 "ALTQ's default RED is worse than tuned RED" (B.14, 98 %): the default's share within 1 s
  is ≥ 5 points below the best 98 % setting and its median ≥ 10 % above it (thesis: 62.7 vs
  81.7 %, 402 vs 326 ms).
- V4 "min_th = 5 is poor at 98 %" (B.6): (5, 15)'s share within 1 s is ≥ 10 points below the
  best other threshold pair (thesis: 51.5 vs 83.1 %).
- V5 "110 % is bad whatever the queue" (B.4, B.6): no tail-drop qlen and no RED threshold pair
  reaches 50 % of responses within 1 s at 110 % (thesis: at most 46.9 %).
- V6 "one threshold alone changes little" (§5.2, B.7, B.8): at 90 % load, in each series with one
  threshold fixed (B.7 min_th 5, B.7 min_th 60, B.8 max_th 150), the shares within 1 s differ by
  ≤ 5 points (thesis: 3.8, 1.9 and 3.7 points).
- V7 "max_p = 1/4 hurts at every load" (§5.2, B.9): at each load, the mean share within 1 s over
  the three w_q values is lower with max_p 1/4 than with 1/10 and with 1/20 (thesis: 89.9 vs
  91.6 and 91.4 % at 90 %, 71.0 vs 79.4 and 78.9 % at 98 %, 35.7 vs 39.2 and 43.7 % at 110 %).
- V8 "tuning for link utilisation costs response times at 98 %, not at 90 %" (§5.2, B.12): at
  98 % the highest-utilisation setting's share within 1 s is ≥ 5 points below best_98's
  (thesis: 70.0 vs 81.7 %); at 90 % the four settings' shares lie within 5 points (thesis:
  90.4-93.6 %).
- V9 "(5, 15) gives far more flows with retransmissions than (60, 180)" (§6.1.2, Table 6.2, 98 %
  load): the share of requests with a retransmission is ≥ 2 times (60, 180)'s (thesis: 43.9 vs
  12.9 %).
- V10 "data retransmissions dominate, SYN and FIN retransmissions matter" (§6.1.2, Table 6.2):
  in both experiments D+ exceeds S+, F+ and SFD+, and S+ and F+ are each ≥ 5 % of the requests
  with retransmissions (thesis: D+ 58 and 66 %, S+ 17 and 16 %, F+ 14 and 16 %).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from aqmlab.studies import Study, Table, Verdict
from aqmlab.tables import missing_columns

METRICS = (
    "kb_per_s", "drops_pct", "mean_qlen", "median_rt_ms", "pct_le_1s", "pct_1_2s", "pct_2_3s", "pct_gt_3s",
)  # fmt: skip
TD_LIMIT = "variant[taildrop].queue.limit"
RED_MIN = "variant[red].queue.min_th"
RED_MAX = "variant[red].queue.max_th"
RED_LIMIT = "variant[red].queue.limit"
RED_WQ = "variant[red].queue.w_q"
RED_MAXP = "variant[red].queue.max_p"
#: Table 6.2's classes (Table 6.1) and Table 6.3's columns.
RETX_METRICS = ("nr_pct", "s_pct", "f_pct", "d_pct", "sfd_pct", "retx_pct")
T63_METRICS = ("drops_pct", "unforced_pct", "forced_pct", "mean_qlen", "median_rt_ms", "connections_70min")
#: The thesis's measured period, s (§4.2: 90 min, the first 20 discarded).
THESIS_MEASURED_S = 70 * 60
#: B.7's series: min_th → its max_th values (qlen 480, max_p 1/10, w_q 1/512).
B7_PAIRS = {5: (45, 90, 120, 150, 180, 240), 60: (90, 120, 150, 180, 240)}
#: B.12's rows per load (Table B.11's settings; variant names of red_good.toml).
B12_ROWS = {
    90: ("best_90", "best_98", "highest_util", "lowest_drops"),
    98: ("best_90", "best_98", "highest_util", "lowest_drops"),
    110: ("best_90", "best_110"),
}


def _load(r: pd.Series) -> int:
    return int(r["var.load"])


def _b4(r: pd.Series) -> str | None:
    return f"load={_load(r)} qlen={int(r[TD_LIMIT])}" if _load(r) >= 80 else None


def _b5(r: pd.Series) -> str | None:
    return f"load={_load(r)} qlen={int(r[TD_LIMIT])}" if int(r[TD_LIMIT]) in (60, 120) else None


def _b6(r: pd.Series) -> str:
    return f"load={_load(r)} min_th={int(r[RED_MIN])} max_th={int(r[RED_MAX])}"


def _b10(r: pd.Series) -> str:
    return f"load={_load(r)} qlen={int(r[RED_LIMIT])}"


def _b7(r: pd.Series) -> str | None:
    lo, hi = int(r[RED_MIN]), int(r[RED_MAX])
    return _b6(r) if hi in B7_PAIRS.get(lo, ()) else None


def _b8(r: pd.Series) -> str | None:
    return _b6(r) if int(r[RED_MAX]) == 150 else None


def _b9(r: pd.Series) -> str:
    return f"load={_load(r)} w_q={r[RED_WQ]} max_p=1/{round(1 / float(r[RED_MAXP]))}"


def _b12(r: pd.Series) -> str | None:
    v = str(r["variant"])
    return f"load={_load(r)} {v}" if v in B12_ROWS.get(_load(r), ()) else None


def _variant(r: pd.Series) -> str:
    return str(r["variant"])


def retx_classes(requests: pd.DataFrame, warmup_ns: int) -> dict[str, float]:
    """Table 6.2's retransmission classes (module doc), % of the requests started at or after
    `warmup_ns` whose response completed; NaN without such requests or if a server counter was
    not measured (missing values: the testbed has no `server_fin_retx`)."""
    q = requests[(requests["start_ns"] >= warmup_ns) & requests["completed"].astype(bool)]
    if q.empty or missing_columns(q, ["server_syn_retx", "server_fin_retx", "server_data_retx"]):
        return {m: math.nan for m in RETX_METRICS}
    s = q["server_syn_retx"] > 0
    f = q["server_fin_retx"] > 0
    d = q["server_data_retx"] > q["server_fin_retx"]  # the FIN rides on data (module doc)
    kinds = s.astype(int) + f.astype(int) + d.astype(int)
    one = kinds == 1

    def pct(mask: pd.Series) -> float:
        return 100.0 * float(mask.mean())

    return {
        "nr_pct": pct(kinds == 0),
        "s_pct": pct(s & one),
        "f_pct": pct(f & one),
        "d_pct": pct(d & one),
        "sfd_pct": pct(kinds >= 2),
        "retx_pct": pct(kinds >= 1),
    }


def metrics_of_run(run) -> dict[str, float]:
    """Tables 6.2-6.3's non-summary columns of one run (an aqmlab RunResult or loaded run)."""
    out = retx_classes(run.requests, run.warmup_ns)
    started = int((run.requests["start_ns"] >= run.warmup_ns).sum())
    out["connections_70min"] = started * THESIS_MEASURED_S / float(run.summary["measured_s"])
    return out


def run_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """The sweep table with `metrics_of_run`'s columns added, computed from each ok run's
    directory (`sweep_dir/runs/<run id>`); other runs get NaN."""
    from aqmlab.io import load_run

    df = sweep.copy()
    rows = [
        metrics_of_run(load_run(Path(sweep_dir) / "runs" / r["run"])) if r["status"] == "ok" else {}
        for _, r in df.iterrows()
    ]
    extra = pd.DataFrame(rows, index=df.index)
    for c in extra.columns:
        df[c] = pd.to_numeric(extra[c])
    return df


def _b14(load: int):
    return lambda r: f"load={load} {r['variant']}"


def _vs(load: int):
    return lambda r: str(r["variant"]) if _load(r) == load else None


def _rows(res: pd.DataFrame, prefix: str) -> pd.DataFrame:
    return res[res["row"].str.startswith(prefix)]


def _get(results: dict[str, pd.DataFrame], table: str, row: str, metric: str) -> float:
    t = results[table]
    v = t[t["row"] == row][metric]
    if v.empty:
        raise KeyError(f"Table {table}: no row {row!r}")
    return float(v.iloc[0])


def _loads(res: pd.DataFrame) -> set[int]:
    return {int(r.split()[0].removeprefix("load=")) for r in res["row"]}


def v1_low_load_same(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V1 (module doc)."""
    td, red = results["B.4"], results["B.6"]
    loads = sorted(x for x in _loads(td) & _loads(red) if x <= 90)
    if not loads:
        raise KeyError("no load <= 90 % in both B.4 and B.6")
    ok, ev = True, []
    for load in loads:
        t, r = _rows(td, f"load={load} "), _rows(red, f"load={load} ")
        d1 = r["pct_le_1s"].max() - t["pct_le_1s"].max()
        dm = r["median_rt_ms"].min() / t["median_rt_ms"].min() - 1
        ok &= abs(d1) <= 2 and abs(dm) <= 0.10
        ev.append(
            f"{load} %: ≤1 s RED {r['pct_le_1s'].max():.1f} vs TD {t['pct_le_1s'].max():.1f} %, "
            f"median RED {r['median_rt_ms'].min():.0f} vs TD {t['median_rt_ms'].min():.0f} ms"
        )
    return ok, "; ".join(ev) + " (rule: |Δ≤1 s| ≤ 2 points and |Δmedian| ≤ 10 %)"


def v2_high_load_red_no_better(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V2 (module doc)."""
    ok, ev = True, []
    for t, load in (("B.17", 98), ("B.18", 110)):
        red = max(_get(results, t, v, "pct_le_1s") for v in ("red_overall", "red_best"))
        td = max(_get(results, t, v, "pct_le_1s") for v in ("td_120", "td_190"))
        ok &= red - td <= 5
        ev.append(f"{load} %: ≤1 s best RED {red:.1f} vs best TD {td:.1f} %")
    return ok, "; ".join(ev) + " (rule: best RED − best TD ≤ 5 points)"


def v3_default_worse(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V3 (module doc)."""
    d1 = _get(results, "B.14 (98 %)", "load=98 altq_default", "pct_le_1s")
    b1 = _get(results, "B.14 (98 %)", "load=98 best_98", "pct_le_1s")
    dm = _get(results, "B.14 (98 %)", "load=98 altq_default", "median_rt_ms")
    bm = _get(results, "B.14 (98 %)", "load=98 best_98", "median_rt_ms")
    ok = d1 <= b1 - 5 and dm >= 1.10 * bm
    return ok, (
        f"98 %: ≤1 s default {d1:.1f} vs best {b1:.1f} %, median {dm:.0f} vs {bm:.0f} ms "
        "(rule: ≥ 5 points fewer and median ≥ 10 % higher)"
    )


def v4_min_th_5_poor(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V4 (module doc)."""
    r = _rows(results["B.6"], "load=98 ")
    small = _get(results, "B.6", "load=98 min_th=5 max_th=15", "pct_le_1s")
    others = r[r["row"] != "load=98 min_th=5 max_th=15"]["pct_le_1s"]
    if others.empty:
        raise KeyError("Table B.6: no other threshold pair at 98 %")
    return small <= others.max() - 10, (
        f"98 %: ≤1 s (5, 15) {small:.1f} vs best other {others.max():.1f} % (rule: ≥ 10 points below)"
    )


def v5_overload_bad(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V5 (module doc)."""
    t, r = _rows(results["B.4"], "load=110 "), _rows(results["B.6"], "load=110 ")
    if t.empty or r.empty:
        raise KeyError("no 110 % rows in B.4 and B.6")
    best = max(t["pct_le_1s"].max(), r["pct_le_1s"].max())
    return best < 50, f"110 %: best ≤1 s share {best:.1f} % over all qlens and thresholds (rule: < 50 %)"


def _series_spread(res: pd.DataFrame, rows: list[str]) -> tuple[float, int]:
    t = res[res["row"].isin(rows)]["pct_le_1s"]
    if t.empty:
        raise KeyError(f"none of the rows {rows[0]!r}…")
    return float(t.max() - t.min()), len(t)


def v6_one_threshold_marginal(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V6 (module doc)."""
    series = [
        ("B.7", f"min_th={lo}", [f"load=90 min_th={lo} max_th={hi}" for hi in his])
        for lo, his in B7_PAIRS.items()
    ]
    series.append(("B.8", "max_th=150", [f"load=90 min_th={lo} max_th=150" for lo in (5, 30, 60, 90, 120)]))
    ok, ev = True, []
    for table, name, rows in series:
        spread, n = _series_spread(results[table], rows)
        ok &= spread <= 5
        ev.append(f"{table} {name}: {spread:.1f} points over {n} rows")
    return ok, "90 %, spread of ≤1 s shares: " + "; ".join(ev) + " (rule: ≤ 5 points each)"


def v7_high_max_p_hurts(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V7 (module doc)."""
    res = results["B.9"]
    loads = sorted(_loads(res))
    if not loads:
        raise KeyError("Table B.9: no rows")
    ok, ev = True, []
    for load in loads:
        mean = {}
        for p in (4, 10, 20):
            t = res[res["row"].str.startswith(f"load={load} ") & res["row"].str.endswith(f" max_p=1/{p}")]
            if t.empty:
                raise KeyError(f"Table B.9: no max_p 1/{p} rows at {load} %")
            mean[p] = float(t["pct_le_1s"].mean())
        ok &= mean[4] < mean[10] and mean[4] < mean[20]
        ev.append(f"{load} %: {mean[4]:.1f} vs {mean[10]:.1f} and {mean[20]:.1f}")
    rule = " (rule: 1/4 lowest at every load)"
    return ok, "mean ≤1 s share with max_p 1/4 vs 1/10 and 1/20: " + "; ".join(ev) + rule


def v8_util_tuning(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V8 (module doc)."""
    util = _get(results, "B.12", "load=98 highest_util", "pct_le_1s")
    best = _get(results, "B.12", "load=98 best_98", "pct_le_1s")
    at90 = [_get(results, "B.12", f"load=90 {v}", "pct_le_1s") for v in B12_ROWS[90]]
    spread = max(at90) - min(at90)
    ok = util <= best - 5 and spread <= 5
    return ok, (
        f"98 %: ≤1 s highest_util {util:.1f} vs best_98 {best:.1f} %; 90 %: the four settings "
        f"{min(at90):.1f}-{max(at90):.1f} % (rule: ≥ 5 points below at 98 %, within 5 points at 90 %)"
    )


def v9_small_thresholds_retransmit(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V9 (module doc)."""
    small = _get(results, "6.2", "red_5_15", "retx_pct")
    large = _get(results, "6.2", "red_60_180", "retx_pct")
    return small >= 2 * large, (
        f"requests with a retransmission: (5, 15) {small:.1f} vs (60, 180) {large:.1f} % (rule: ≥ 2 times)"
    )


def v10_data_retx_dominate(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    """V10 (module doc)."""
    ok, ev = True, []
    for row in ("red_5_15", "red_60_180"):
        c = {m: _get(results, "6.2", row, m) for m in ("s_pct", "f_pct", "d_pct", "sfd_pct", "retx_pct")}
        retx = c["retx_pct"]
        share = {m: (100 * c[m] / retx if retx > 0 else math.nan) for m in ("s_pct", "f_pct", "d_pct")}
        ok &= c["d_pct"] > max(c["s_pct"], c["f_pct"], c["sfd_pct"])
        ok &= share["s_pct"] >= 5 and share["f_pct"] >= 5
        ev.append(
            f"{row}: S+ {c['s_pct']:.1f}, F+ {c['f_pct']:.1f}, D+ {c['d_pct']:.1f}, "
            f"SFD+ {c['sfd_pct']:.1f} % (S+ {share['s_pct']:.0f}, F+ {share['f_pct']:.0f} % "
            "of retransmitting requests)"
        )
    return ok, "; ".join(ev) + " (rule: D+ largest, S+ and F+ each ≥ 5 % of retransmitting requests)"


STUDY = Study(
    name="christiansen",
    paper="M. Christiansen, Tuning Red for Web Traffic, M.Sc. thesis, University of North Carolina "
    "at Chapel Hill, 2000 (seed 000), Appendix B and §6.1",
    tables=(
        Table("B.4", "tail-drop: qlen at 80-110 % load", "taildrop_qlen.toml", METRICS, _b4),
        Table("B.5", "tail-drop: load at qlen 60 and 120", "taildrop_qlen.toml", METRICS, _b5),
        Table(
            "B.6", "RED: (min_th, 3 min_th) at 50-110 % load, qlen 480", "red_thresholds.toml", METRICS, _b6
        ),
        Table("B.7", "RED: max_th at min_th 5 and 60, 90-110 % load", "red_min_max.toml", METRICS, _b7),
        Table("B.8", "RED: min_th at max_th 150, 90-110 % load", "red_min_max.toml", METRICS, _b8),
        Table("B.9", "RED (30, 90): w_q × max_p, 90-110 % load", "red_wq_maxp.toml", METRICS, _b9),
        Table("B.10", "RED (30, 90): reduced queue sizes", "red_qlen.toml", METRICS, _b10),
        Table("B.12", "the 'good' RED settings of Table B.11", "red_good.toml", METRICS, _b12),
        Table("B.14 (90 %)", "'bad' RED settings at 90 %", "red_bad_90.toml", METRICS, _b14(90)),
        Table("B.14 (98 %)", "'bad' RED settings at 98 %", "red_bad_98.toml", METRICS, _b14(98)),
        Table("B.16", "RED vs tail-drop at 90 %", "red_vs_taildrop.toml", METRICS, _vs(90)),
        Table("B.17", "RED vs tail-drop at 98 %", "red_vs_taildrop.toml", METRICS, _vs(98)),
        Table("B.18", "RED vs tail-drop at 110 %", "red_vs_taildrop.toml", METRICS, _vs(110)),
        Table(
            "6.2",
            "retransmission classes, RED (5, 15) vs (60, 180) at 98 %",
            "red_retx.toml",
            RETX_METRICS,
            _variant,
            run_metrics=run_metrics,
        ),
        Table("6.3", "the same two experiments' summaries", "red_retx.toml", T63_METRICS, _variant),
    ),
    verdicts=(
        Verdict(
            "At ≤ 90 % load RED and tail-drop give about the same response times (B.4, B.6)", v1_low_load_same
        ),
        Verdict(
            "At 98-110 % load RED cannot do much better than the best tail-drop (B.17, B.18)",
            v2_high_load_red_no_better,
        ),
        Verdict("ALTQ's default RED parameters are worse than tuned ones at 98 % (B.14)", v3_default_worse),
        Verdict("min_th = 5 (Floyd's guideline) gives poor response times at 98 % (B.6)", v4_min_th_5_poor),
        Verdict("At 110 % load response times are bad whatever the queue (B.4, B.6)", v5_overload_bad),
        Verdict(
            "Varying min_th or max_th alone changes response times only marginally at 90 % (B.7, B.8)",
            v6_one_threshold_marginal,
        ),
        Verdict("max_p = 1/4 lowers response-time performance at every load (B.9)", v7_high_max_p_hurts),
        Verdict(
            "Tuning RED for link utilisation costs response times at 98 %, not at 90 % (B.12)", v8_util_tuning
        ),
        Verdict(
            "RED (5, 15) gives far more requests with retransmissions than (60, 180) at 98 % (Table 6.2)",
            v9_small_thresholds_retransmit,
        ),
        Verdict(
            "Data retransmissions dominate; SYN and FIN retransmissions play a significant role (Table 6.2)",
            v10_data_retx_dominate,
        ),
    ),
    quick_overrides={
        "run.warmup": "20min",  # the thesis's warm-up: the browsers' start-up burst lasts minutes
        "run.duration": "5min",
        "sweep.replications": 1,
        "sweep.grid.var.load": [90, 98, 110],
    },
)
