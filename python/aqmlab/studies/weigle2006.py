"""Seed 001: Weigle, Jeffay, Smith 2006, "Quantifying the effects of recent protocol
improvements to TCP: impact on Web performance" (Computer Communications 29).

Two-way PackMime HTTP/1.0 over a 10 Mbps dumbbell with PackMime RTTs, Reno or SACK, drop-tail
(111, 148 packets), Adaptive RED with and without ECN (5 ms and 60 ms targets) and the original
RED, at offered loads 50-105 % (scenarios/weigle2006/dumbbell.toml; studies/weigle2006/README.md
says how the setup differs from the paper). The paper gives its results as figures only; the
numbers its text states (crossovers, shares of responses, loss bounds) and its rankings are the
verdicts' rules below, each with an explicit numeric test on the summary columns (response-time
quantiles p10/p25/median/p75/p90/p95, pct_le_1s, utilization, drops_pct, mean_qlen) or on the
per-run columns below. paper.csv is empty (no number of the paper is a column at a given row).

Per-run columns (`run_metrics`, from each run's request table; "measured" = HTTP exchanges of
either direction whose first SYN is sent at or after the warm-up, as in the summary):

- `pct_flows_with_drops` (Fig. 6, "average percentage of flows experiencing drops"): 100 · the
  measured connections with at least one retransmitted SYN, FIN or data segment / all measured
  connections (loss counted by retransmissions; an ECN mark is no drop; a spurious timeout would
  count). Load table.
- `large_n`, `large_median_rt_ms`, `large_p90_rt_ms` (Fig. 18, responses larger than 50 KB =
  50,000 B): the measured responses of more than 50 KB that started at least 20 s (Fig. 18's
  range) before the end of the run, and the median and 90th percentile of their response times
  with every response still unfinished at the end counted as slower than all finished ones
  (a quantile that falls on one is +inf). Reno/SACK table.

Left out: the one-way traffic runs of Fig. 15.

Validation: python/tests/test_study_weigle2006.py (row labels, every verdict on hand-made
results where it must hold and where it must fail, the sweep files against the preset).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.studies import Reading, Study, Table, Verdict
from aqmlab.tables import missing_columns

LOAD_TABLE, RED_TABLE, SACK_TABLE = "4-10,13-14,19-21", "11-12", "16-18,21"
METRICS = (
    "utilization", "drops_pct", "mean_qlen", "median_rt_ms", "p10_rt_ms", "p25_rt_ms",
    "p75_rt_ms", "p90_rt_ms", "p95_rt_ms", "pct_le_1s",
)  # fmt: skip
#: Response-time quantile columns by cumulative share (%), for the CDF statements.
QUANTILES = {10: "p10_rt_ms", 25: "p25_rt_ms", 50: "median_rt_ms", 75: "p75_rt_ms", 90: "p90_rt_ms",
             95: "p95_rt_ms"}  # fmt: skip

Results = dict[str, pd.DataFrame]
#: Fig. 18: responses larger than 50 KB (1 KB = 1000 B), CDF up to 20 s.
LARGE_B, LARGE_HORIZON_NS = 50_000, 20 * 10**9
RUN_COLUMNS = ("pct_flows_with_drops", "large_n", "large_median_rt_ms", "large_p90_rt_ms")


# --- per-run columns ------------------------------------------------------------------------


def _measured(requests: pd.DataFrame, warmup_ns: int) -> pd.DataFrame:
    """HTTP exchanges (both directions) whose first SYN is sent at or after the warm-up."""
    return requests[(requests["kind"] == "http") & (requests["start_ns"] >= warmup_ns)]


#: The retransmission counters `pct_flows_with_drops` adds up.
RETX_COLUMNS = ("syn_retx", "fin_retx", "data_retx")


def pct_flows_with_drops(requests: pd.DataFrame, warmup_ns: int) -> float:
    """% of measured connections with at least one retransmitted SYN, FIN or data segment (the
    counters are per connection: a connection's rows share them); NaN without measured
    connections or if a counter was not measured (missing values, the testbed's `fin_retx`)."""
    q = _measured(requests, warmup_ns)
    if q.empty or missing_columns(q, RETX_COLUMNS):
        return math.nan  # no connections, or a counter not measured (the testbed's fin_retx)
    retx = (q["syn_retx"] + q["fin_retx"] + q["data_retx"]).groupby(q["conn_id"]).max()
    return 100 * float((retx > 0).mean())


def censored_quantile(finished_ms: np.ndarray, unfinished: int, q: float) -> float:
    """The q-quantile (0 < q ≤ 1; lower rank ⌈q·n⌉ as the summary's) of `finished_ms` plus
    `unfinished` values slower than all of them (+inf if the rank falls on one; NaN if n = 0)."""
    n = len(finished_ms) + unfinished
    if n == 0:
        return math.nan
    rank = max(math.ceil(q * n), 1)
    if rank > len(finished_ms):
        return math.inf
    return float(np.sort(finished_ms)[rank - 1])


def large_response_times(requests: pd.DataFrame, warmup_ns: int, end_ns: int) -> dict[str, float]:
    """Fig. 18 columns (`large_n`, `large_median_rt_ms`, `large_p90_rt_ms`) for the measured
    responses > 50 KB started at least 20 s before `end_ns` (the end of the run)."""
    q = _measured(requests, warmup_ns)
    q = q[(q["response_bytes"] > LARGE_B) & (q["start_ns"] <= end_ns - LARGE_HORIZON_NS)]
    done = q[q["completed"].astype(bool)]
    rt = (done["end_ns"] - done["start_ns"]).to_numpy(dtype=np.float64) / 1e6
    left = len(q) - len(done)
    return {
        "large_n": float(len(q)),
        "large_median_rt_ms": censored_quantile(rt, left, 0.5),
        "large_p90_rt_ms": censored_quantile(rt, left, 0.9),
    }


def metrics_of_run(run) -> dict[str, float]:
    """Every per-run column (RUN_COLUMNS) of one run (an aqmlab RunResult or loaded run)."""
    end_ns = run.warmup_ns + int(round(float(run.summary["measured_s"]) * 1e9))
    return {
        "pct_flows_with_drops": pct_flows_with_drops(run.requests, run.warmup_ns),
        **large_response_times(run.requests, run.warmup_ns, end_ns),
    }


def run_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """The sweep table with RUN_COLUMNS added, computed from each ok run's directory
    (`sweep_dir/runs/<run id>`); other runs get NaN."""
    from aqmlab.io import load_run

    if all(c in sweep.columns for c in RUN_COLUMNS):
        return sweep
    df = sweep.copy()
    rows = [
        metrics_of_run(load_run(Path(sweep_dir) / "runs" / r["run"])) if r["status"] == "ok" else {}
        for _, r in df.iterrows()
    ]
    extra = pd.DataFrame(rows, index=df.index, columns=list(RUN_COLUMNS))
    for c in RUN_COLUMNS:
        df[c] = pd.to_numeric(extra[c])
    return df


def load_pct(row: pd.Series) -> int:
    """The offered load of a sweep row in percent (var.load 0.8 → 80)."""
    return int(round(100 * float(row["var.load"])))


def queue_row(row: pd.Series) -> str:
    """Row label of the load and RED tables: `load=80,queue=DT-148q`."""
    return f"load={load_pct(row)},queue={row['variant']}"


def sack_row(row: pd.Series) -> str:
    """Row label of the Reno/SACK table: `load=80,tcp=sack,queue=DT-148q`."""
    return f"load={load_pct(row)},tcp={row['tcp.variant']},queue={row['variant']}"


def val(res: Results, table: str, row: str, metric: str) -> float:
    """aqmlab's mean of `metric` at paper row `row` of `table` (KeyError naming what is missing)."""
    df = res.get(table)
    if df is None:
        raise KeyError(f"no results for table {table}")
    hit = df[df["row"] == row]
    if hit.empty:
        raise KeyError(f"table {table}: no row {row!r}")
    v = float(hit[metric].iloc[0])
    if math.isnan(v):
        raise KeyError(f"table {table}: row {row!r}: {metric} is NaN")
    return v


def loads_present(res: Results, table: str, queues: Iterable[str], want: Iterable[int]) -> list[int]:
    """The loads among `want` at which every queue of `queues` has a row (quick mode runs fewer
    loads); KeyError if there is none."""
    df = res.get(table)
    rows = set(df["row"]) if df is not None else set()
    out = [ld for ld in want if all(f"load={ld},queue={q}" in rows for q in queues)]
    if not out:
        raise KeyError(f"table {table}: none of the loads {list(want)} has rows for {list(queues)}")
    return out


def _q(res: Results, table: str, load: int, queue: str, metric: str) -> float:
    return val(res, table, f"load={load},queue={queue}", metric)


# --- load calibration --------------------------------------------------------------------


def equal_rate_fit(sweep_dir: str | Path) -> tuple[pd.DataFrame, float]:
    """The seed's load calibration (§5.4) from a finished run of
    studies/weigle2006/calibration_equal_rates.toml: per run, the forward and reverse bottleneck
    wire rates (Mbit/s, `links` rows ending after the warm-up: exact, the warm-up being a whole
    number of 1 s link intervals) and their mean `both`; and the least-squares slope through the
    origin of `both` against the rate x (kbit/s per conn/s; two-way traffic has no load that does
    not scale with x). Load fraction L of 10 Mbps then needs x = L · 10⁴ / slope conn/s."""
    from aqmlab.io import load_run
    from aqmlab.sweep import load_sweep

    d = Path(sweep_dir)
    table = load_sweep(d)
    rows = []
    for _, r in table[table["status"] == "ok"].iterrows():
        run = load_run(d / "runs" / r["run"])
        links = run.links[run.links["t_ns"] > run.warmup_ns]
        secs = float(r["measured_s"])
        rate = {
            k: links[links["link"] == f"bottleneck_{k}"]["bytes"].sum() * 8 / secs / 1e6
            for k in ("fwd", "rev")
        }
        rows.append({"x": float(r["var.x"]), "seed": int(r["seed"]), **rate})
    df = pd.DataFrame(rows)
    df["both"] = (df["fwd"] + df["rev"]) / 2
    return df, origin_slope(list(df["x"]), list(df["both"])) * 1000


def origin_slope(x: list[float], y: list[float]) -> float:
    """Least-squares slope of y = k·x (no intercept): Σxy / Σx²."""
    return sum(a * b for a, b in zip(x, y, strict=True)) / sum(a * a for a in x)


# --- verdict checks -----------------------------------------------------------------------


def reno_equals_sack(res: Results) -> tuple[bool, str]:
    """Rule: at every load and queue of the Reno/SACK table, SACK's median and p75 response time
    lie within 10 % (or 10 ms) of Reno's."""
    df = res[SACK_TABLE]
    ev, ok = [], True
    for row in sorted(r for r in df["row"] if ",tcp=reno," in r):
        srow = row.replace(",tcp=reno,", ",tcp=sack,")
        for m in ("median_rt_ms", "p75_rt_ms"):
            a, b = val(res, SACK_TABLE, row, m), val(res, SACK_TABLE, srow, m)
            good = abs(b - a) <= max(0.10 * a, 10.0)
            ok &= good
            ev.append(
                f"{row.replace(',tcp=reno', '')} {m[:-6]}: reno {a:.0f} sack {b:.0f}{'' if good else ' ✗'}"
            )
    if not ev:
        raise KeyError(f"table {SACK_TABLE}: no Reno rows")
    return ok, "; ".join(ev)


def _ecn_gain(res: Results, load: int, target: str) -> float:
    """pct_le_1s(ARED-ECN-target) − pct_le_1s(ARED-target) at `load`, percentage points."""
    return _q(res, LOAD_TABLE, load, f"ARED-ECN-{target}", "pct_le_1s") - _q(
        res, LOAD_TABLE, load, f"ARED-{target}", "pct_le_1s"
    )


def ecn_beats_drops(res: Results) -> tuple[bool, str]:
    """Rule: at 80 % and 105 %, for both targets, ARED+ECN has a share of responses ≤ 1 s at
    least that of ARED with drops and a median no larger (+2 % slack)."""
    ev, ok = [], True
    for load in (80, 105):
        for t in ("5ms", "60ms"):
            g = _ecn_gain(res, load, t)
            me = _q(res, LOAD_TABLE, load, f"ARED-ECN-{t}", "median_rt_ms")
            md = _q(res, LOAD_TABLE, load, f"ARED-{t}", "median_rt_ms")
            good = g >= 0 and me <= 1.02 * md
            ok &= good
            ev.append(f"{load}% {t}: ≤1s gain {g:+.1f} pp, median {md:.0f}→{me:.0f} ms{'' if good else ' ✗'}")
    return ok, "; ".join(ev)


def ecn_gain_grows(res: Results) -> tuple[bool, str]:
    """Rule: the ECN gain in pct_le_1s with the 5 ms target is larger at 105 % than at 80 %, and
    at 105 % larger with the 5 ms target than with 60 ms."""
    g80, g105 = _ecn_gain(res, 80, "5ms"), _ecn_gain(res, 105, "5ms")
    g105_60 = _ecn_gain(res, 105, "60ms")
    ok = g105 > g80 and g105 > g105_60
    return ok, f"5ms gain: 80% {g80:+.1f} pp, 105% {g105:+.1f} pp; 60ms gain at 105%: {g105_60:+.1f} pp"


AQMS = ("ARED-5ms", "ARED-60ms", "ARED-ECN-5ms", "ARED-ECN-60ms")


def little_benefit_below_80(res: Results) -> tuple[bool, str]:
    """Rule (§6.6: "much below 80 % offered load ... ARED + ECN performs only marginally better
    than drop-tail ... no difference in link utilization ... no average loss over 3 %"): at 50 %
    and 60 % (those that ran), no ARED setting has more than 2 percentage points more responses
    ≤ 1 s than DT-148q, every queue's utilization is within 0.01 of DT-148q's, and no queue
    loses more than 3 %."""
    loads = loads_present(res, LOAD_TABLE, ("DT-148q", *AQMS), (50, 60))
    ev, ok = [], True
    for ld in loads:
        dt_le, dt_u = (
            _q(res, LOAD_TABLE, ld, "DT-148q", "pct_le_1s"),
            _q(res, LOAD_TABLE, ld, "DT-148q", "utilization"),
        )
        gain = max(_q(res, LOAD_TABLE, ld, q, "pct_le_1s") - dt_le for q in AQMS)
        du = max(abs(_q(res, LOAD_TABLE, ld, q, "utilization") - dt_u) for q in AQMS)
        loss = max(_q(res, LOAD_TABLE, ld, q, "drops_pct") for q in ("DT-148q", "DT-111q", *AQMS))
        good = gain <= 2.0 and du <= 0.01 and loss <= 3.0
        ok &= good
        ev.append(f"{ld}%: best ARED ≤1s gain {gain:+.1f} pp, max |Δutil| {du:.3f}, max loss {loss:.2f} %"
                  f"{'' if good else ' ✗'}")  # fmt: skip
    return ok, "; ".join(ev)


def _share_better(res: Results, table: str, load: int, a: str, b: str) -> list[int]:
    """The quantile shares (%) at which queue `a` has the shorter response time than `b`."""
    return [s for s, m in QUANTILES.items() if _q(res, table, load, a, m) < _q(res, table, load, b, m)]


def ecn5_beats_dt_at_80(res: Results) -> tuple[bool, str]:
    """Rule (§6.5: "better for nearly 75 % of responses but marginally worse for the rest"): at
    80 %, ARED-ECN-5ms has shorter p10, p25, median and p75 than DT-148q, and a longer p90 or
    p95 (the CDFs cross above the 75th percentile)."""
    better = _share_better(res, LOAD_TABLE, 80, "ARED-ECN-5ms", "DT-148q")
    ok = {10, 25, 50, 75} <= set(better) and not {90, 95} <= set(better)
    return ok, f"ARED-ECN-5ms shorter than DT-148q at quantiles {better} % (want 10-75 yes, 90 or 95 no)"


def tradeoff_at_105(res: Results) -> tuple[bool, str]:
    """Rule (§6.5, §7: ARED-ECN-5ms improves "about half the responses but worsens the other
    half"; "link utilization is significantly better with drop-tail"): at 105 %, ARED-ECN-5ms
    has shorter p10 and p25 and longer p75 and p90 than DT-148q, and DT-148q's utilization is
    at least 0.02 higher."""
    better = set(_share_better(res, LOAD_TABLE, 105, "ARED-ECN-5ms", "DT-148q"))
    du = _q(res, LOAD_TABLE, 105, "DT-148q", "utilization") - _q(
        res, LOAD_TABLE, 105, "ARED-ECN-5ms", "utilization"
    )
    ok = {10, 25} <= better and not better & {75, 90} and du >= 0.02
    return (
        ok,
        f"ARED-ECN-5ms shorter at quantiles {sorted(better)} %; DT-148q utilization higher by {du:+.3f}",
    )


def dt_equals_ecn60(res: Results) -> tuple[bool, str]:
    """Rule (§7: "at all loads there is little difference" between DT-148q and ARED-ECN-60ms): at
    every load that ran, medians within 15 % and shares ≤ 1 s within 3 percentage points."""
    loads = loads_present(
        res, LOAD_TABLE, ("DT-148q", "ARED-ECN-60ms"), (50, 60, 70, 80, 85, 90, 95, 100, 105)
    )
    ev, ok = [], True
    for ld in loads:
        a, b = (
            _q(res, LOAD_TABLE, ld, "DT-148q", "median_rt_ms"),
            _q(res, LOAD_TABLE, ld, "ARED-ECN-60ms", "median_rt_ms"),
        )
        la, lb = (
            _q(res, LOAD_TABLE, ld, "DT-148q", "pct_le_1s"),
            _q(res, LOAD_TABLE, ld, "ARED-ECN-60ms", "pct_le_1s"),
        )
        good = abs(b - a) <= 0.15 * a and abs(lb - la) <= 3.0
        ok &= good
        ev.append(f"{ld}%: median {a:.0f}/{b:.0f} ms, ≤1s {la:.1f}/{lb:.1f} %{'' if good else ' ✗'}")
    return ok, "; ".join(ev)


def dt111_vs_dt148(res: Results) -> tuple[bool, str]:
    """Rule (§6.1: little difference; at 80 % load the CDFs cross at (700 ms, 80 %), so 80 % of
    responses complete within 700 ms with either queue): at 80 %, shares ≤ 1 s within 2 pp, and
    for both queues p75 ≤ 700 ms ≤ p90."""
    ev, ok = [], True
    le = {q: _q(res, LOAD_TABLE, 80, q, "pct_le_1s") for q in ("DT-111q", "DT-148q")}
    ok &= abs(le["DT-111q"] - le["DT-148q"]) <= 2.0
    ev.append(f"≤1s: {le['DT-111q']:.1f} / {le['DT-148q']:.1f} %")
    for q in ("DT-111q", "DT-148q"):
        p75, p90 = _q(res, LOAD_TABLE, 80, q, "p75_rt_ms"), _q(res, LOAD_TABLE, 80, q, "p90_rt_ms")
        ok &= p75 <= 700.0 <= p90
        ev.append(f"{q}: p75 {p75:.0f} ms, p90 {p90:.0f} ms")
    return ok, "; ".join(ev)


def ared5_vs_ared60(res: Results) -> tuple[bool, str]:
    """Rule (§6.2: crossover near 400 ms; at 105 % "about 60 % of responses (those taking longer
    than 300-400 ms)" are better with drop-tail and with ARED-60ms than with ARED-5ms): at 80 %
    and 105 %, ARED-5ms has a shorter p10 and a longer p90 than ARED-60ms; at 105 % DT-148q and
    ARED-60ms both have a shorter p75 and p90 than ARED-5ms."""
    ev, ok = [], True
    for ld in (80, 105):
        b = set(_share_better(res, LOAD_TABLE, ld, "ARED-5ms", "ARED-60ms"))
        good = 10 in b and 90 not in b
        ok &= good
        ev.append(f"{ld}%: ARED-5ms shorter than ARED-60ms at {sorted(b)} %{'' if good else ' ✗'}")
    for q in ("DT-148q", "ARED-60ms"):
        b = set(_share_better(res, LOAD_TABLE, 105, q, "ARED-5ms"))
        good = {75, 90} <= b
        ok &= good
        ev.append(f"105%: {q} shorter than ARED-5ms at {sorted(b)} %{'' if good else ' ✗'}")
    return ok, "; ".join(ev)


def ared_beats_red(res: Results) -> tuple[bool, str]:
    """Rule (§6.2, Figs. 11-12: ARED improves on the original RED, more so as congestion grows):
    at 80 % and 90 %, ARED-5ms ≥ RED-5-15 and ARED-60ms ≥ RED-30-90 in responses ≤ 1 s, and the
    summed gain at 90 % exceeds that at 80 %."""
    pairs = (("ARED-5ms", "RED-5-15"), ("ARED-60ms", "RED-30-90"))
    gains = {
        ld: [
            _q(res, RED_TABLE, ld, a, "pct_le_1s") - _q(res, RED_TABLE, ld, r, "pct_le_1s") for a, r in pairs
        ]
        for ld in (80, 90)
    }
    ok = all(g >= 0 for gs in gains.values() for g in gs) and sum(gains[90]) > sum(gains[80])
    ev = "; ".join(f"{ld}%: gains {gs[0]:+.1f} pp (5ms), {gs[1]:+.1f} pp (60ms)" for ld, gs in gains.items())
    return ok, ev


def droptail_util_and_loss(res: Results) -> tuple[bool, str]:
    """Rule (§6.3: "drop-tail results in the highest link utilization and the lowest drop
    rates"): at 90 % and 105 %, DT-148q's utilization is ≥ every ARED setting's (−0.005 slack)
    and its drop rate ≤ every ARED setting's."""
    ev, ok = [], True
    for ld in loads_present(res, LOAD_TABLE, ("DT-148q", *AQMS), (90, 105)):
        u = _q(res, LOAD_TABLE, ld, "DT-148q", "utilization")
        d = _q(res, LOAD_TABLE, ld, "DT-148q", "drops_pct")
        umax = max(_q(res, LOAD_TABLE, ld, q, "utilization") for q in AQMS)
        dmin = min(_q(res, LOAD_TABLE, ld, q, "drops_pct") for q in AQMS)
        good = u >= umax - 0.005 and d <= dmin
        ok &= good
        ev.append(f"{ld}%: DT-148q util {u:.3f} (ARED max {umax:.3f}), loss {d:.2f} % (ARED min {dmin:.2f} %)"
                  f"{'' if good else ' ✗'}")  # fmt: skip
    return ok, "; ".join(ev)


def ecn5_small_queue_low_util(res: Results) -> tuple[bool, str]:
    """Rule (§6.3: ARED+ECN-5ms "produces lower link utilization than ARED+ECN-60ms" and "keeps
    the average queue size small"): at 80 % and 105 %, ARED-ECN-5ms has a mean queue under half
    of ARED-ECN-60ms's and a lower utilization."""
    ev, ok = [], True
    for ld in (80, 105):
        q5, q60 = (_q(res, LOAD_TABLE, ld, f"ARED-ECN-{t}", "mean_qlen") for t in ("5ms", "60ms"))
        u5, u60 = (_q(res, LOAD_TABLE, ld, f"ARED-ECN-{t}", "utilization") for t in ("5ms", "60ms"))
        good = q5 < 0.5 * q60 and u5 < u60
        ok &= good
        ev.append(f"{ld}%: mean queue {q5:.1f}/{q60:.1f} pkts, util {u5:.3f}/{u60:.3f}{'' if good else ' ✗'}")
    return ok, "; ".join(ev)


def ared5_many_flows_with_drops(res: Results) -> tuple[bool, str]:
    """Rule (§6.2: "With ARED-5ms, many flows experience packet drops", Fig. 6): at 80 % and
    105 %, ARED-5ms has a larger share of connections with drops than DT-148q and than
    ARED-60ms."""
    ev, ok = [], True
    for ld in (80, 105):
        f = {
            q: _q(res, LOAD_TABLE, ld, q, "pct_flows_with_drops")
            for q in ("ARED-5ms", "DT-148q", "ARED-60ms")
        }
        good = f["ARED-5ms"] > f["DT-148q"] and f["ARED-5ms"] > f["ARED-60ms"]
        ok &= good
        ev.append(f"{ld}%: " + ", ".join(f"{q} {v:.1f} %" for q, v in f.items()) + ("" if good else " ✗"))
    return ok, "% of connections with drops: " + "; ".join(ev)


def _large(res: Results, tcp: str, queue: str, metric: str = "large_median_rt_ms") -> float:
    return val(res, SACK_TABLE, f"load=80,tcp={tcp},queue={queue}", metric)


def sack_helps_large(res: Results) -> tuple[bool, str]:
    """Rule (§6.4, Fig. 18 at 80 %: for responses > 50 KB "SACK improves performance of these
    long flows over that of Reno" with drop-tail, a difference the text calls dramatic; with
    ARED+ECN "SACK improves performance ... a bit"): with DT-148q SACK's median response time of
    the > 50 KB responses is finite and at least 10 % below Reno's; with ARED-ECN-5ms it is
    finite and at most 2 % above Reno's."""
    dt_r, dt_s = _large(res, "reno", "DT-148q"), _large(res, "sack", "DT-148q")
    ecn_r, ecn_s = _large(res, "reno", "ARED-ECN-5ms"), _large(res, "sack", "ARED-ECN-5ms")
    # A SACK median of +inf (over half unfinished) is no improvement, whatever Reno's.
    ok = math.isfinite(dt_s) and dt_s <= 0.9 * dt_r and math.isfinite(ecn_s) and ecn_s <= 1.02 * ecn_r
    return ok, (
        f"80 %, responses > 50 KB, median ms: DT-148q reno {dt_r:.0f} sack {dt_s:.0f} "
        f"({100 * (dt_s / dt_r - 1):+.1f} %, want ≤ −10 %); ARED-ECN-5ms reno {ecn_r:.0f} sack "
        f"{ecn_s:.0f} ({100 * (ecn_s / ecn_r - 1):+.1f} %, want ≤ +2 %)"
    )


def ecn5_poor_for_large(res: Results) -> tuple[bool, str]:
    """Rule (§6.4, Fig. 18 at 80 %: with ARED+ECN-5ms "the performance for larger flows is very
    poor", with SACK "still far below that of drop-tail"): for Reno and for SACK, the median
    response time of the > 50 KB responses with ARED-ECN-5ms is at least 1.5 × DT-148q's, and
    DT-148q's is finite."""
    ev, ok = [], True
    for tcp in ("reno", "sack"):
        dt, ecn = _large(res, tcp, "DT-148q"), _large(res, tcp, "ARED-ECN-5ms")
        good = math.isfinite(dt) and ecn >= 1.5 * dt
        ok &= good
        ev.append(f"{tcp}: DT-148q {dt:.0f}, ARED-ECN-5ms {ecn:.0f} ({ecn / dt:.2f} ×){'' if good else ' ✗'}")
    return ok, "80 %, responses > 50 KB, median ms: " + "; ".join(ev)


VERDICTS: tuple[tuple[str, Callable[[Results], tuple[bool, str]]], ...] = (
    ("Reno and SACK perform the same for typical (short) HTTP responses, at every load and queue "
     "(§6.4, §7)", reno_equals_sack),
    ("ARED with ECN marking performs better than ARED with packet drops (§6.3, §7)", ecn_beats_drops),
    ("The value of ECN grows with load and is larger with the 5 ms target (§6.3, §7)", ecn_gain_grows),
    ("Much below 80 % load (50-60 %) there is little benefit from (A)RED: equal utilization, no "
     "loss over 3 % (§6.6, §7)", little_benefit_below_80),
    ("At 80 % load ARED+ECN-5ms beats DT-148q for ~75 % of responses, marginally worse for the rest "
     "(§6.5, §7)", ecn5_beats_dt_at_80),
    ("At 105 % load ARED+ECN-5ms improves about half the responses and worsens the other half; "
     "drop-tail has significantly higher utilization (§6.5, §7)", tradeoff_at_105),
    ("At all loads little difference between DT-148q and ARED+ECN-60ms (§7)", dt_equals_ecn60),
    ("DT-111q and DT-148q differ little; at 80 % load 80 % of responses finish within 700 ms "
     "(§6.1)", dt111_vs_dt148),
    ("ARED-5ms vs ARED-60ms: a crossover (near 400 ms) — 5 ms better for short responses, worse for "
     "long; at 105 % drop-tail and ARED-60ms beat ARED-5ms for the slower ~60 % (§6.2)", ared5_vs_ared60),
    ("ARED (adaptive max_p, gentle) improves on the original RED, more at 90 % than at 80 % load "
     "(§6.2, Figs. 11-12)", ared_beats_red),
    ("Drop-tail gives the highest utilization and the lowest drop rates under congestion (§6.3)",
     droptail_util_and_loss),
    ("ARED+ECN-5ms keeps a small mean queue at the cost of lower utilization than ARED+ECN-60ms "
     "(§6.3)", ecn5_small_queue_low_util),
    ("With ARED-5ms many flows experience drops: more than with DT-148q or ARED-60ms (§6.2, Fig. 6)",
     ared5_many_flows_with_drops),
    ("For responses > 50 KB SACK improves on Reno: clearly with drop-tail, a bit with ARED+ECN-5ms "
     "(§6.4, Fig. 18)", sack_helps_large),
    ("For responses > 50 KB ARED+ECN-5ms is far worse than drop-tail, with Reno and with SACK "
     "(§6.4, Fig. 18)", ecn5_poor_for_large),
)  # fmt: skip

# The paper's Table 3 says "packet mode"; its ns-2 (a modified 2.1b9, 2002) had packet mode as the
# default and the rules the sweep files state (docs/ns2-red-history.md). The other reading is
# ns-2.35's defaults, which an ns-2 user today gets: byte mode with 500-byte units, no forced drop
# on the average (use_mark_p_), the automatic bottom, ECN marks only while p_b < 0.1.
NS235_BYTES = Reading(
    name="ns2.35-bytes",
    about=(
        "ns-2.35's Queue/RED defaults (bytes_, queue_in_bytes_ true, mean_pktsize_ 500, use_mark_p_ "
        "true, automatic bottom, ECN marks while p_b < 0.1), not the paper's stated packet mode."
    ),
    queue_options={
        "byte_mode": True,
        "queue_in_bytes": True,
        "mean_pktsize": "500B",
        "forced_drop_on_avg": None,
        "bottom": None,
        "ecn_rule": None,
    },
)

STUDY = Study(
    name="weigle2006",
    paper=(
        "M. C. Weigle, K. Jeffay, F. D. Smith, Quantifying the effects of recent protocol "
        "improvements to TCP: Impact on Web performance, Computer Communications 29 (2006) "
        "(seed 001)"
    ),
    tables=(
        Table(
            id=LOAD_TABLE,
            title="Reno: drop-tail and ARED (± ECN) vs offered load",
            scenario="load.toml",
            metrics=(*METRICS, "pct_flows_with_drops"),
            row_label=queue_row,
            run_metrics=run_metrics,
            quick_overrides={"sweep.grid.var.load": [0.5, 0.7, 0.8, 0.9, 1.05]},
        ),
        Table(
            id=RED_TABLE,
            title="Original RED vs ARED at 80 and 90 % load",
            scenario="red_vs_ared.toml",
            metrics=METRICS,
            row_label=queue_row,
        ),
        Table(
            id=SACK_TABLE,
            title="Reno vs SACK with DT-148q and ARED+ECN-5ms",
            scenario="reno_sack.toml",
            metrics=(*METRICS, "large_n", "large_median_rt_ms", "large_p90_rt_ms"),
            row_label=sack_row,
            run_metrics=run_metrics,
        ),
    ),
    verdicts=tuple(Verdict(claim, check) for claim, check in VERDICTS),
    quick_overrides={
        "run.warmup": "60s",
        "run.duration": "600s",
        "sweep.replications": 1,
    },
    readings=(NS235_BYTES,),
    default_reading="as-stated",
)
