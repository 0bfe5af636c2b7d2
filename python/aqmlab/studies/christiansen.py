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

Verdicts (the thesis's conclusions, §5.2, §5.4, §6.1 and Appendix B; each Verdict quotes its
sentence). Every comparison is on 95 % intervals (aqmlab.studies.compare: holds, fails or within
noise); "X ≤ Y − 5" means the interval of X lies below that of Y − 5. Rule changes and why:
studies/christiansen/README.md, "Verdict rules".
- V1 "≤ 90 %: best-tuned RED ≈ tail-drop with 1-2 × BDP": at every load ≤ 90 % run in both B.4
  and B.6, the RED threshold pair with the highest share within 1 s and tail-drop qlen 120 (1.25
  × BDP, §5.2.2) differ by ≤ 5 points in that share, and the RED pair's median lies within
  ± 10 % of tail-drop's (thesis at 90 %: 93.6 vs 93.6 %, 328 vs 302 ms).
- V2 "above 90 %: tuned RED at most somewhat better than tail-drop" (B.17, B.18): the best RED
  (best overall or best for the load) exceeds the best tail-drop (qlen 120 or 190) by ≤ 5
  points within 1 s at both loads (thesis: 81.7 vs 84.0 %, 44.7 vs 45.1 %).
- V3 "ALTQ's default RED is worse than tuned RED" (B.14, 98 %): the default's share within 1 s
  is ≥ 5 points below the best 98 % setting and its median ≥ 10 % above it (thesis: 62.7 vs
  81.7 %, 402 vs 326 ms).
- V4 "min_th = 5 is poor at 90 and 98 %" (B.6, Figure 5.7): at both loads (5, 15)'s share within
  1 s is below every other pair's, at 98 % by ≥ 10 points below the best (thesis: 83.5 vs
  88.0-93.6 %; 51.5 vs 83.1 %).
- V5 "110 % is quite bad, and RED's thresholds do not improve on tail-drop" (B.4, B.6): the best
  share within 1 s at 110 % over all qlens and threshold pairs is ≥ 20 points below the best at
  98 % (thesis: 46.9 vs 83.1 %; the thesis calls settings 10-30 points below the best at 98 %
  "bad", Table B.14), and the best RED pair exceeds the best tail-drop qlen by ≤ 5 points
  (V2's "second-order" bar; thesis: 39.4 vs 46.9 %).
- V6 "one threshold alone changes little" (§5.2, B.7, B.8): at 90 % load, in each series with one
  threshold fixed (B.7 min_th 5, B.7 min_th 60, B.8 max_th 150), the shares within 1 s spread
  over ≤ 5 points (thesis: 3.8, 1.9 and 3.7 points).
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

import pandas as pd

from aqmlab.storage.tables import missing_columns
from aqmlab.studies import Study, Table, loaded_run_columns
from aqmlab.studies.compare import (
    Check,
    Est,
    all_of,
    best,
    ge,
    get,
    gt,
    le,
    lowest,
    lt,
    mean_of,
    rows,
    within,
)

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


#: The sweep table with `metrics_of_run`'s columns of each ok run added (NaN for the others).
run_metrics = loaded_run_columns(metrics_of_run)


def _b14(load: int):
    return lambda r: f"load={load} {r['variant']}"


def _vs(load: int):
    return lambda r: str(r["variant"]) if _load(r) == load else None


def _loads(results: dict[str, pd.DataFrame], table: str) -> set[int]:
    return {int(r.split()[0].removeprefix("load=")) for r in rows(results, table)}


def _all(results: dict[str, pd.DataFrame], table: str, prefix: str, metric: str) -> dict[str, Est]:
    """Every row of `table` starting with `prefix` → its `metric` (KeyError if none)."""
    out = {r: get(results, table, r, metric) for r in rows(results, table, prefix)}
    if not out:
        raise KeyError(f"Table {table}: no rows {prefix!r}…")
    return out


def _best_row(vals: dict[str, Est]) -> str:
    return max(vals, key=lambda r: vals[r].mean)


#: Tail-drop "configured with 1-2 times the bandwidth-delay product" (§5.4): qlen 120 is 1.25 ×
#: (§5.2.2, "Limiting the queue size"); B.4's other qlens (15-60, 240) lie outside.
TD_BDP_QLEN = 120


def v1_low_load_same(results: dict[str, pd.DataFrame]) -> Check:
    """V1 (module doc)."""
    loads = sorted(x for x in _loads(results, "B.4") & _loads(results, "B.6") if x <= 90)
    if not loads:
        raise KeyError("no load <= 90 % in both B.4 and B.6")
    parts = []
    for load in loads:
        red = _all(results, "B.6", f"load={load} ", "pct_le_1s")
        r = _best_row(red)
        td = f"load={load} qlen={TD_BDP_QLEN}"
        t1, r1 = get(results, "B.4", td, "pct_le_1s"), red[r]
        tm, rm = get(results, "B.4", td, "median_rt_ms"), get(results, "B.6", r, "median_rt_ms")
        name = r.split(" ", 1)[1]
        parts += [
            within(r1, t1, 5.0, f"{load} %: ≤1 s % best RED ({name}) vs TD qlen {TD_BDP_QLEN}"),
            le(rm, 1.1 * tm, "median ms vs 1.1 × TD's"),
            ge(rm, 0.9 * tm, "vs 0.9 × TD's"),
        ]
    return all_of(parts)


def v2_high_load_red_no_better(results: dict[str, pd.DataFrame]) -> Check:
    """V2 (module doc)."""
    parts = []
    for t, load in (("B.17", 98), ("B.18", 110)):
        red = best(get(results, t, v, "pct_le_1s") for v in ("red_overall", "red_best"))
        td = best(get(results, t, v, "pct_le_1s") for v in ("td_120", "td_190"))
        parts.append(le(red - td, 5.0, f"{load} %: ≤1 s best RED − best TD (points)"))
    return all_of(parts)


def v3_default_worse(results: dict[str, pd.DataFrame]) -> Check:
    """V3 (module doc)."""
    t = "B.14 (98 %)"
    d1, b1 = (
        get(results, t, "load=98 altq_default", "pct_le_1s"),
        get(results, t, "load=98 best_98", "pct_le_1s"),
    )
    dm, bm = (get(results, t, f"load=98 {v}", "median_rt_ms") for v in ("altq_default", "best_98"))
    return all_of(
        [
            le(d1, b1 - 5, "98 %: ≤1 s % default vs best − 5"),
            ge(dm, 1.10 * bm, "median ms default vs 1.1 × best"),
        ]
    )


def v4_min_th_5_poor(results: dict[str, pd.DataFrame]) -> Check:
    """V4 (module doc)."""
    parts = []
    for load in (90, 98):
        small_row = f"load={load} min_th=5 max_th=15"
        small = get(results, "B.6", small_row, "pct_le_1s")
        others = {
            r: v for r, v in _all(results, "B.6", f"load={load} ", "pct_le_1s").items() if r != small_row
        }
        if not others:
            raise KeyError(f"Table B.6: no other threshold pair at {load} %")
        parts += [
            lt(small, v, f"{load} %: ≤1 s % (5, 15) vs {r.split(' ', 1)[1]}") for r, v in others.items()
        ]
        if load == 98:
            parts.append(le(small, best(others.values()) - 10, "98 %: (5, 15) vs best other − 10"))
    return all_of(parts)


#: V5's "quite bad": the best share within 1 s at 110 % at least this many points below the best
#: at 98 % (module doc).
V5_DROP_POINTS = 20.0


def v5_overload_bad(results: dict[str, pd.DataFrame]) -> Check:
    """V5 (module doc)."""
    at = {
        ld: {
            **_all(results, "B.4", f"load={ld} ", "pct_le_1s"),
            **_all(results, "B.6", f"load={ld} ", "pct_le_1s"),
        }
        for ld in (98, 110)
    }
    td = best(_all(results, "B.4", "load=110 ", "pct_le_1s").values())
    red = best(_all(results, "B.6", "load=110 ", "pct_le_1s").values())
    return all_of(
        [
            le(
                best(at[110].values()),
                best(at[98].values()) - V5_DROP_POINTS,
                "≤1 s % best at 110 % vs best at 98 % − 20",
            ),
            le(red - td, 5.0, "110 %: ≤1 s best RED pair − best TD qlen (points)"),
        ]
    )


def v6_one_threshold_marginal(results: dict[str, pd.DataFrame]) -> Check:
    """V6 (module doc)."""
    series = [
        ("B.7", f"min_th={lo}", [f"load=90 min_th={lo} max_th={hi}" for hi in his])
        for lo, his in B7_PAIRS.items()
    ]
    series.append(("B.8", "max_th=150", [f"load=90 min_th={lo} max_th=150" for lo in (5, 30, 60, 90, 120)]))
    parts = []
    for table, name, want in series:
        have = set(rows(results, table))
        vals = [get(results, table, r, "pct_le_1s") for r in want if r in have]
        if not vals:
            raise KeyError(f"Table {table}: none of the rows {want[0]!r}…")
        parts.append(
            le(best(vals) - lowest(vals), 5.0, f"{table} {name}: spread over {len(vals)} rows (points)")
        )
    return all_of(parts, prefix="90 %, ≤1 s share: ")


def v7_high_max_p_hurts(results: dict[str, pd.DataFrame]) -> Check:
    """V7 (module doc)."""
    loads = sorted(_loads(results, "B.9"))
    if not loads:
        raise KeyError("Table B.9: no rows")
    parts = []
    for load in loads:
        mean = {}
        for p in (4, 10, 20):
            rs = [r for r in rows(results, "B.9", f"load={load} ") if r.endswith(f" max_p=1/{p}")]
            if not rs:
                raise KeyError(f"Table B.9: no max_p 1/{p} rows at {load} %")
            mean[p] = mean_of([get(results, "B.9", r, "pct_le_1s") for r in rs])
        parts += [lt(mean[4], mean[p], f"{load} %: mean ≤1 s % max_p 1/4 vs 1/{p}") for p in (10, 20)]
    return all_of(parts)


def v8_util_tuning(results: dict[str, pd.DataFrame]) -> Check:
    """V8 (module doc)."""
    util = get(results, "B.12", "load=98 highest_util", "pct_le_1s")
    best98 = get(results, "B.12", "load=98 best_98", "pct_le_1s")
    at90 = [get(results, "B.12", f"load=90 {v}", "pct_le_1s") for v in B12_ROWS[90]]
    return all_of(
        [
            le(util, best98 - 5, "98 %: ≤1 s % highest_util vs best_98 − 5"),
            le(best(at90) - lowest(at90), 5.0, "90 %: spread of the four settings (points)"),
        ]
    )


def v9_small_thresholds_retransmit(results: dict[str, pd.DataFrame]) -> Check:
    """V9 (module doc)."""
    small = get(results, "6.2", "red_5_15", "retx_pct")
    large = get(results, "6.2", "red_60_180", "retx_pct")
    return ge(small, 2 * large, "requests with a retransmission %: (5, 15) vs 2 × (60, 180)")


def v10_data_retx_dominate(results: dict[str, pd.DataFrame]) -> Check:
    """V10 (module doc)."""
    parts = []
    for row in ("red_5_15", "red_60_180"):
        c = {m: get(results, "6.2", row, m) for m in ("s_pct", "f_pct", "d_pct", "sfd_pct", "retx_pct")}
        parts += [
            gt(c["d_pct"], c[m], f"{row}: D+ vs {m[:-4].upper()}+ %") for m in ("s_pct", "f_pct", "sfd_pct")
        ]
        # S+ and F+ each ≥ 5 % of the retransmitting requests: x ≥ 0.05 · retx.
        parts += [
            ge(c[m], 0.05 * c["retx_pct"], f"{row}: {m[:-4].upper()}+ vs 5 % of retransmitting")
            for m in ("s_pct", "f_pct")
        ]
    return all_of(parts)


#: The rule that checks each of the paper's conclusions (studies/christiansen/verdicts.csv), by id.
CHECKS = {
    "c00-low-load-same": v1_low_load_same,
    "c00-high-load-red-no-better": v2_high_load_red_no_better,
    "c00-altq-default-worse": v3_default_worse,
    "c00-min-th-5-poor": v4_min_th_5_poor,
    "c00-110-bad": v5_overload_bad,
    "c00-one-threshold": v6_one_threshold_marginal,
    "c00-max-p-quarter": v7_high_max_p_hurts,
    "c00-util-tuning": v8_util_tuning,
    "c00-small-th-retx": v9_small_thresholds_retransmit,
    "c00-data-retx": v10_data_retx_dominate,
}


STUDY = Study(
    name="christiansen",
    paper="M. Christiansen, Tuning Red for Web Traffic, M.Sc. thesis, University of North Carolina "
    "at Chapel Hill, 2000 (seed 000), Appendix B and §6.1",
    ns2_refused="the thesis measured a FreeBSD laboratory network with ALTQ's RED, not an ns-2 model; "
    "its many client and server hosts have no counterpart in the ns-2 grid's dumbbell (seed001.tcl)",
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
    checks=CHECKS,  # verdicts and causes: studies/christiansen/*.csv
    quick_overrides={
        "run.warmup": "20min",  # the thesis's warm-up: the browsers' start-up burst lasts minutes
        "run.duration": "5min",
        "sweep.replications": 1,
        "sweep.grid.var.load": [90, 98, 110],
    },
)
