"""Seed 000 (Christiansen 2000, "Tuning RED for Web Traffic"), Appendix B: tail-drop and RED on
the constrained laboratory network. Sweeps and paper.csv: studies/christiansen/ (README.md
there). Loads: users = round(2960 · load / 98), 2960 browsers being 98 % load in aqmlab's
calibration of scenarios/christiansen2000/lab_constrained.toml (linear in the browser count, as
the thesis's own calibration, §3.5).

Verdicts (the thesis's conclusions, §5.4 and Appendix B) with their numeric rules:
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
"""

from __future__ import annotations

import pandas as pd

from aqmlab.studies import Study, Table, Verdict

METRICS = (
    "kb_per_s", "drops_pct", "mean_qlen", "median_rt_ms", "pct_le_1s", "pct_1_2s", "pct_2_3s", "pct_gt_3s",
)  # fmt: skip
TD_LIMIT = "variant[taildrop].queue.limit"
RED_MIN = "variant[red].queue.min_th"
RED_MAX = "variant[red].queue.max_th"
RED_LIMIT = "variant[red].queue.limit"


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


STUDY = Study(
    name="christiansen",
    paper="M. Christiansen, Tuning Red for Web Traffic, M.Sc. thesis, University of North Carolina "
    "at Chapel Hill, 2000 (seed 000), Appendix B",
    tables=(
        Table("B.4", "tail-drop: qlen at 80-110 % load", "taildrop_qlen.toml", METRICS, _b4),
        Table("B.5", "tail-drop: load at qlen 60 and 120", "taildrop_qlen.toml", METRICS, _b5),
        Table(
            "B.6", "RED: (min_th, 3 min_th) at 50-110 % load, qlen 480", "red_thresholds.toml", METRICS, _b6
        ),
        Table("B.10", "RED (30, 90): reduced queue sizes", "red_qlen.toml", METRICS, _b10),
        Table("B.14 (90 %)", "'bad' RED settings at 90 %", "red_bad_90.toml", METRICS, _b14(90)),
        Table("B.14 (98 %)", "'bad' RED settings at 98 %", "red_bad_98.toml", METRICS, _b14(98)),
        Table("B.16", "RED vs tail-drop at 90 %", "red_vs_taildrop.toml", METRICS, _vs(90)),
        Table("B.17", "RED vs tail-drop at 98 %", "red_vs_taildrop.toml", METRICS, _vs(98)),
        Table("B.18", "RED vs tail-drop at 110 %", "red_vs_taildrop.toml", METRICS, _vs(110)),
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
    ),
    quick_overrides={
        "run.warmup": "20min",  # the thesis's warm-up: the browsers' start-up burst lasts minutes
        "run.duration": "5min",
        "sweep.replications": 1,
        "sweep.grid.var.load": [90, 98, 110],
    },
)
