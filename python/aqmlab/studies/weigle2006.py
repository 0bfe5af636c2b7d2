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
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.storage.tables import missing_columns
from aqmlab.studies import Reading, Study, Table, loaded_run_columns
from aqmlab.studies.compare import (
    Check,
    Est,
    Outcome,
    all_of,
    any_of,
    best,
    ge,
    get,
    gt,
    le,
    lowest,
    lt,
    within,
)

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
RUN_COLUMNS = (
    "pct_flows_with_drops", "large_n", "large_median_rt_ms", "large_p90_rt_ms", "sec54_long_response",
)  # fmt: skip
#: §5.4: "at least one 10 MB response has started a transfer before 1000 s after the warm-up
#: period" (1 MB = 10⁶ B, as the paper's 50 KB is 50,000 B).
LONG_RESPONSE_B, LONG_RESPONSE_BY_NS = 10_000_000, 1000 * 10**9
#: The named option for §5.4's condition (`run_metrics`): "flag" keeps every run and sets
#: `sec54_long_response` (1 if the run meets the condition, else 0); "reject" also sets the
#: status of a run that does not to REJECTED, so that no table counts it. Default "flag": the
#: paper's requirement selects runs (a run without such a response is not one of its
#: experiments, and the paper replaces it with another), but dropping a run without a
#: replacement removes whole rows (the open-loop workload is the same for every queue at one load
#: and seed) and changes the number of replications; the column shows which runs the paper
#: would have replaced (studies/weigle2006/README.md, "Load calibration").
SEC54_POLICIES = ("flag", "reject")
SEC54 = "flag"
#: Sweep status of a run rejected by §5.4's condition under SEC54 = "reject".
REJECTED = "rejected: no 10 MB response started before 1000 s after the warm-up (§5.4)"


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


def has_long_response(requests: pd.DataFrame, warmup_ns: int, end_ns: int) -> bool:
    """§5.4's condition: a response of at least 10 MB (either direction) whose exchange started
    (first SYN; its response follows within an RTT) before warm-up + 1000 s, or before the end
    of the run (`end_ns`) if that comes first (quick mode runs 600 s)."""
    by = min(warmup_ns + LONG_RESPONSE_BY_NS, end_ns)
    q = requests[requests["kind"] == "http"]
    return bool(((q["response_bytes"] >= LONG_RESPONSE_B) & (q["start_ns"] < by)).any())


def metrics_of_run(run) -> dict[str, float]:
    """Every per-run column (RUN_COLUMNS) of one run (an aqmlab RunResult or loaded run)."""
    end_ns = run.warmup_ns + int(round(float(run.summary["measured_s"]) * 1e9))
    return {
        "pct_flows_with_drops": pct_flows_with_drops(run.requests, run.warmup_ns),
        **large_response_times(run.requests, run.warmup_ns, end_ns),
        "sec54_long_response": float(has_long_response(run.requests, run.warmup_ns, end_ns)),
    }


def run_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike, sec54: str | None = None) -> pd.DataFrame:
    """The sweep table with RUN_COLUMNS added, computed from each ok run's directory
    (`sweep_dir/runs/<run id>`); other runs get NaN. `sec54` ("flag" or "reject"; None: the
    module's SEC54): under "reject" an ok run without §5.4's long response gets the status
    REJECTED."""
    sec54 = SEC54 if sec54 is None else sec54
    if sec54 not in SEC54_POLICIES:
        raise ValueError(f"sec54: {sec54!r}: expected one of {', '.join(SEC54_POLICIES)}")
    df = loaded_run_columns(metrics_of_run, RUN_COLUMNS)(sweep, sweep_dir)
    if sec54 == "reject":
        df = df.copy()  # the caller's table stays as it was
        df.loc[(df["status"] == "ok") & (df["sec54_long_response"] == 0), "status"] = REJECTED
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


def loads_present(res: Results, table: str, queues: Iterable[str], want: Iterable[int]) -> list[int]:
    """The loads among `want` at which every queue of `queues` has a row (quick mode runs fewer
    loads); KeyError if there is none."""
    df = res.get(table)
    rows = set(df["row"]) if df is not None else set()
    out = [ld for ld in want if all(f"load={ld},queue={q}" in rows for q in queues)]
    if not out:
        raise KeyError(f"table {table}: none of the loads {list(want)} has rows for {list(queues)}")
    return out


def _q(res: Results, table: str, load: int, queue: str, metric: str) -> Est:
    return get(res, table, f"load={load},queue={queue}", metric)


# --- load calibration --------------------------------------------------------------------


def equal_rate_fit(sweep_dir: str | Path) -> tuple[pd.DataFrame, float]:
    """The seed's load calibration (§5.4) from a finished run of
    studies/weigle2006/calibration_equal_rates.toml: per run, the forward and reverse bottleneck
    wire rates (Mbit/s, `links` rows ending after the warm-up: exact, the warm-up being a whole
    number of 1 s link intervals) and their mean `both`; and the least-squares slope through the
    origin of `both` against the rate x (kbit/s per conn/s; two-way traffic has no load that does
    not scale with x). Load fraction L of 10 Mbps then needs x = L · 10⁴ / slope conn/s."""
    from aqmlab.storage.run_dir import load_run
    from aqmlab.sweeps.run import load_sweep

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


def reno_equals_sack(res: Results) -> Check:
    """Rule (§6.4: with ARED + ECN "SACK and Reno are essentially identical independent of load";
    with drop-tail "Reno appears to provide somewhat superior response times especially when
    congestion is severe"; "SACK provides no better performance than Reno"): at every load of the
    Reno/SACK table, with ARED-ECN-5ms SACK's median and p75 lie within 10 % (at least 10 ms) of
    Reno's; with DT-148q SACK's median and p75 are at least 0.9 × Reno's (no better)."""
    df = res.get(SACK_TABLE)
    if df is None:
        raise KeyError(f"no results for table {SACK_TABLE}")
    parts = []
    for row in sorted(r for r in df["row"] if ",tcp=reno," in r):
        srow = row.replace(",tcp=reno,", ",tcp=sack,")
        what = row.replace(",tcp=reno", "")
        for m in ("median_rt_ms", "p75_rt_ms"):
            a, b = get(res, SACK_TABLE, row, m), get(res, SACK_TABLE, srow, m)
            if row.endswith("queue=DT-148q"):
                parts.append(ge(b, 0.9 * a, f"{what} {m[:-6]} ms: SACK vs 0.9 × Reno"))
            else:
                parts.append(within(b, a, max(0.10 * a.mean, 10.0), f"{what} {m[:-6]} ms: SACK vs Reno"))
    return all_of(parts)


def _ecn_gain(res: Results, load: int, target: str) -> Est:
    """pct_le_1s(ARED-ECN-target) − pct_le_1s(ARED-target) at `load`, percentage points."""
    return _q(res, LOAD_TABLE, load, f"ARED-ECN-{target}", "pct_le_1s") - _q(
        res, LOAD_TABLE, load, f"ARED-{target}", "pct_le_1s"
    )


def ecn_beats_drops(res: Results) -> Check:
    """Rule (§6.3: "ARED + ECN-5 ms delivers superior or equivalent performance for all response
    times"; §7: "ARED with ECN marking performs better than ARED with packet dropping"): at 80 %
    and 105 %, for both targets, ARED+ECN's share of responses ≤ 1 s is at least ARED's and its
    median no larger."""
    parts = []
    for load in (80, 105):
        for t in ("5ms", "60ms"):
            parts.append(ge(_ecn_gain(res, load, t), 0.0, f"{load}% {t} ≤1 s gain pp"))
            parts.append(
                le(
                    _q(res, LOAD_TABLE, load, f"ARED-ECN-{t}", "median_rt_ms"),
                    _q(res, LOAD_TABLE, load, f"ARED-{t}", "median_rt_ms"),
                    f"{load}% {t} median ms ECN vs drops",
                )
            )
    return all_of(parts)


def ecn_gain_grows(res: Results) -> Check:
    """Rule (§7: "the value of ECN marking increases as the offered load increases. ECN also
    offers more significant gains in performance when the target delay is small"): the 5 ms ECN
    gain in pct_le_1s is larger at 105 % than at 80 %, and at both loads the 5 ms gain exceeds
    the 60 ms gain."""
    g = {(ld, t): _ecn_gain(res, ld, t) for ld in (80, 105) for t in ("5ms", "60ms")}
    return all_of(
        [
            gt(g[105, "5ms"], g[80, "5ms"], "5ms gain pp 105% vs 80%"),
            gt(g[80, "5ms"], g[80, "60ms"], "80% gain pp 5ms vs 60ms"),
            gt(g[105, "5ms"], g[105, "60ms"], "105% gain pp 5ms vs 60ms"),
        ]
    )


AQMS = ("ARED-5ms", "ARED-60ms", "ARED-ECN-5ms", "ARED-ECN-60ms")


def little_benefit_below_80(res: Results) -> Check:
    """Rule (§6.6: "much below 80 % offered load ... ARED + ECN performs only marginally better
    than drop-tail ... no difference in link utilization ... no average loss over 3 %"): at 50 %
    and 60 % (those that ran), no ARED setting has more than 2 percentage points more responses
    ≤ 1 s than DT-148q, every queue's utilization is within 0.01 of DT-148q's, and no queue
    loses more than 3 %."""
    parts = []
    for ld in loads_present(res, LOAD_TABLE, ("DT-148q", *AQMS), (50, 60)):
        dt_le = _q(res, LOAD_TABLE, ld, "DT-148q", "pct_le_1s")
        dt_u = _q(res, LOAD_TABLE, ld, "DT-148q", "utilization")
        gain = best(_q(res, LOAD_TABLE, ld, q, "pct_le_1s") for q in AQMS) - dt_le
        parts.append(le(gain, 2.0, f"{ld}% best ARED ≤1 s gain pp"))
        parts += [
            within(_q(res, LOAD_TABLE, ld, q, "utilization"), dt_u, 0.01, f"{ld}% util {q} vs DT-148q")
            for q in AQMS
        ]
        loss = best(_q(res, LOAD_TABLE, ld, q, "drops_pct") for q in ("DT-148q", "DT-111q", *AQMS))
        parts.append(le(loss, 3.0, f"{ld}% max loss %"))
    return all_of(parts)


def _by_quantile(
    cmp, res: Results, table: str, load: int, a: str, b: str, shares: Iterable[int]
) -> list[Check]:
    """Per quantile share: `cmp(a's response time, b's)` (lt: `a` shorter; gt: `a` longer)."""
    return [
        cmp(_q(res, table, load, a, QUANTILES[s]), _q(res, table, load, b, QUANTILES[s]), f"p{s} ms")
        for s in shares
    ]


#: "marginally worse": at most this factor above DT-148q at p90 and p95 (§6.5).
MARGINAL = 1.25


def ecn5_beats_dt_at_80(res: Results) -> Check:
    """Rule (§6.5: "better response-time performance for nearly 75 % of responses but marginally
    worse for the rest"): at 80 %, ARED-ECN-5ms has shorter p10, p25 and median than DT-148q; at
    p90 or p95 it is not shorter (the CDFs cross near 75 %; p75 lies at the crossing and is not
    tested); and its p90 and p95 are at most 1.25 × DT-148q's (marginally worse)."""
    a, b = "ARED-ECN-5ms", "DT-148q"
    worse = any_of(
        [
            le(
                _q(res, LOAD_TABLE, 80, b, QUANTILES[s]),
                _q(res, LOAD_TABLE, 80, a, QUANTILES[s]),
                f"p{s} ms DT ≤ ECN",
            )
            for s in (90, 95)
        ]
    )
    marginal = [
        le(
            _q(res, LOAD_TABLE, 80, a, QUANTILES[s]),
            MARGINAL * _q(res, LOAD_TABLE, 80, b, QUANTILES[s]),
            f"p{s} ms ECN vs 1.25 × DT",
        )
        for s in (90, 95)
    ]
    return all_of(
        [
            all_of(_by_quantile(lt, res, LOAD_TABLE, 80, a, b, (10, 25, 50)), prefix="ECN shorter: "),
            worse,
            *marginal,
        ]
    )


def tradeoff_at_105(res: Results) -> Check:
    """Rule (§6.5, §7: ARED-ECN-5ms improves "about half the responses but worsens the other
    half"; "link utilization is significantly better with drop-tail"): at 105 %, ARED-ECN-5ms
    has shorter p10 and p25 and longer p75 and p90 than DT-148q, and DT-148q's utilization is
    at least 0.02 higher."""
    a, b = "ARED-ECN-5ms", "DT-148q"
    du = _q(res, LOAD_TABLE, 105, b, "utilization") - _q(res, LOAD_TABLE, 105, a, "utilization")
    return all_of(
        [
            all_of(_by_quantile(lt, res, LOAD_TABLE, 105, a, b, (10, 25)), prefix="ECN shorter: "),
            all_of(_by_quantile(gt, res, LOAD_TABLE, 105, a, b, (75, 90)), prefix="ECN longer: "),
            ge(du, 0.02, "DT-148q utilization − ECN's"),
        ]
    )


def dt_equals_ecn60(res: Results) -> Check:
    """Rule (§7: "at all loads there is little difference" between DT-148q and ARED-ECN-60ms): at
    every load that ran, medians within 15 % (of DT-148q's) and shares ≤ 1 s within 3
    percentage points."""
    loads = loads_present(
        res, LOAD_TABLE, ("DT-148q", "ARED-ECN-60ms"), (50, 60, 70, 80, 85, 90, 95, 100, 105)
    )
    parts = []
    for ld in loads:
        a, b = (_q(res, LOAD_TABLE, ld, q, "median_rt_ms") for q in ("DT-148q", "ARED-ECN-60ms"))
        la, lb = (_q(res, LOAD_TABLE, ld, q, "pct_le_1s") for q in ("DT-148q", "ARED-ECN-60ms"))
        parts += [within(b, a, 0.15 * a.mean, f"{ld}% median ms"), within(lb, la, 3.0, f"{ld}% ≤1 s %")]
    return all_of(parts, prefix="ECN-60ms vs DT-148q: ")


def dt111_vs_dt148(res: Results) -> Check:
    """Rule (§6.1: little difference; at 80 % load the CDFs cross at (700 ms, 80 %), so 80 % of
    responses complete within 700 ms with either queue): at 80 %, shares ≤ 1 s within 2 pp, and
    for both queues p75 ≤ 700 ms ≤ p90."""
    le1 = {q: _q(res, LOAD_TABLE, 80, q, "pct_le_1s") for q in ("DT-111q", "DT-148q")}
    parts = [within(le1["DT-111q"], le1["DT-148q"], 2.0, "≤1 s % DT-111q vs DT-148q")]
    for q in ("DT-111q", "DT-148q"):
        parts += [
            le(_q(res, LOAD_TABLE, 80, q, "p75_rt_ms"), 700.0, f"{q} p75 ms"),
            ge(_q(res, LOAD_TABLE, 80, q, "p90_rt_ms"), 700.0, f"{q} p90 ms"),
        ]
    return all_of(parts, prefix="80%: ")


def ared5_vs_ared60(res: Results) -> Check:
    """Rule (§6.2: crossover near 400 ms; at 105 % "about 60 % of responses (those taking longer
    than 300-400 ms)" are better with drop-tail and with ARED-60ms than with ARED-5ms): at 80 %
    and 105 %, ARED-5ms has a shorter p10 and a longer p90 than ARED-60ms; at 105 % DT-148q and
    ARED-60ms both have a shorter p75 and p90 than ARED-5ms."""
    parts = []
    for ld in (80, 105):
        parts.append(
            all_of(
                [
                    *_by_quantile(lt, res, LOAD_TABLE, ld, "ARED-5ms", "ARED-60ms", (10,)),
                    *_by_quantile(gt, res, LOAD_TABLE, ld, "ARED-5ms", "ARED-60ms", (90,)),
                ],
                prefix=f"{ld}% ARED-5ms vs ARED-60ms: ",
            )
        )
    for q in ("DT-148q", "ARED-60ms"):
        parts.append(
            all_of(
                _by_quantile(lt, res, LOAD_TABLE, 105, q, "ARED-5ms", (75, 90)),
                prefix=f"105% {q} vs ARED-5ms: ",
            )
        )
    return all_of(parts)


def ared_beats_red(res: Results) -> Check:
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
    parts = [
        ge(g, 0.0, f"{ld}% ≤1 s gain pp {a} vs {r}")
        for ld, gs in gains.items()
        for g, (a, r) in zip(gs, pairs, strict=True)
    ]
    parts.append(gt(gains[90][0] + gains[90][1], gains[80][0] + gains[80][1], "summed gain pp 90% vs 80%"))
    return all_of(parts)


def droptail_util_and_loss(res: Results) -> Check:
    """Rule (§6.3: "drop-tail results in the highest link utilization and the lowest drop
    rates"): at 90 % and 105 %, DT-148q's utilization is ≥ every ARED setting's and its drop
    rate ≤ every ARED setting's."""
    parts = []
    for ld in loads_present(res, LOAD_TABLE, ("DT-148q", *AQMS), (90, 105)):
        parts.append(
            ge(
                _q(res, LOAD_TABLE, ld, "DT-148q", "utilization"),
                best(_q(res, LOAD_TABLE, ld, q, "utilization") for q in AQMS),
                f"{ld}% util DT-148q vs ARED max",
            )
        )
        parts.append(
            le(
                _q(res, LOAD_TABLE, ld, "DT-148q", "drops_pct"),
                lowest(_q(res, LOAD_TABLE, ld, q, "drops_pct") for q in AQMS),
                f"{ld}% loss % DT-148q vs ARED min",
            )
        )
    return all_of(parts)


def ecn5_small_queue_low_util(res: Results) -> Check:
    """Rule (§6.3: ARED+ECN-5ms "produces lower link utilization than ARED+ECN-60ms" and "keeps
    the average queue size small"): at 80 % and 105 %, ARED-ECN-5ms has a mean queue under half
    of ARED-ECN-60ms's and a lower utilization."""
    parts = []
    for ld in (80, 105):
        q5, q60 = (_q(res, LOAD_TABLE, ld, f"ARED-ECN-{t}", "mean_qlen") for t in ("5ms", "60ms"))
        u5, u60 = (_q(res, LOAD_TABLE, ld, f"ARED-ECN-{t}", "utilization") for t in ("5ms", "60ms"))
        parts += [
            lt(q5, 0.5 * q60, f"{ld}% mean queue pkts 5ms vs half of 60ms"),
            lt(u5, u60, f"{ld}% util 5ms vs 60ms"),
        ]
    return all_of(parts)


def ared5_many_flows_with_drops(res: Results) -> Check:
    """Rule (§6.2: "With ARED-5ms, many flows experience packet drops", Fig. 6): at 80 % and
    105 %, ARED-5ms has a larger share of connections with drops than DT-148q and than
    ARED-60ms."""
    parts = []
    for ld in (80, 105):
        f5 = _q(res, LOAD_TABLE, ld, "ARED-5ms", "pct_flows_with_drops")
        parts += [
            gt(f5, _q(res, LOAD_TABLE, ld, q, "pct_flows_with_drops"), f"{ld}% ARED-5ms vs {q}")
            for q in ("DT-148q", "ARED-60ms")
        ]
    return all_of(parts, prefix="% of connections with drops: ")


def _large(res: Results, tcp: str, queue: str, metric: str = "large_median_rt_ms") -> Est:
    return get(res, SACK_TABLE, f"load=80,tcp={tcp},queue={queue}", metric)


def _finite(x: Est, what: str) -> Check:
    return Check(
        Outcome.HOLDS if math.isfinite(x.mean) else Outcome.FAILS,
        f"{what} {x}" + ("" if math.isfinite(x.mean) else " ✗"),
    )


def sack_helps_large(res: Results) -> Check:
    """Rule (§6.4, Fig. 18 at 80 %: for responses > 50 KB "SACK improves performance of these
    long flows over that of Reno" with drop-tail, a difference the text calls dramatic; with
    ARED+ECN "SACK improves performance ... a bit"): with DT-148q SACK's median response time of
    the > 50 KB responses is finite and at most 0.9 × Reno's; with ARED-ECN-5ms it is finite and
    at most Reno's."""
    dt_r, dt_s = _large(res, "reno", "DT-148q"), _large(res, "sack", "DT-148q")
    ecn_r, ecn_s = _large(res, "reno", "ARED-ECN-5ms"), _large(res, "sack", "ARED-ECN-5ms")
    # A SACK median of +inf (over half unfinished) is no improvement, whatever Reno's.
    fin = [_finite(dt_s, "DT-148q SACK median ms"), _finite(ecn_s, "ARED-ECN-5ms SACK median ms")]
    if any(c.outcome == Outcome.FAILS for c in fin):
        return all_of(fin, prefix="80 %, responses > 50 KB: ")
    return all_of(
        [
            le(dt_s, 0.9 * dt_r, "DT-148q median ms SACK vs 0.9 × Reno"),
            le(ecn_s, ecn_r, "ARED-ECN-5ms median ms SACK vs Reno"),
        ],
        prefix="80 %, responses > 50 KB: ",
    )


def ecn5_poor_for_large(res: Results) -> Check:
    """Rule (§6.4, Fig. 18 at 80 %: with ARED+ECN-5ms "the performance for larger flows is very
    poor", with SACK "still far below that of drop-tail"): for Reno and for SACK, the median
    response time of the > 50 KB responses with ARED-ECN-5ms is at least 1.5 × DT-148q's, and
    DT-148q's is finite."""
    parts = []
    for tcp in ("reno", "sack"):
        dt, ecn = _large(res, tcp, "DT-148q"), _large(res, tcp, "ARED-ECN-5ms")
        fin = _finite(dt, f"{tcp}: DT-148q median ms")
        parts.append(
            fin if fin.outcome == Outcome.FAILS else ge(ecn, 1.5 * dt, f"{tcp}: median ms ECN vs 1.5 × DT")
        )
    return all_of(parts, prefix="80 %, responses > 50 KB: ")


#: The rule that checks each of the paper's conclusions (studies/weigle2006/verdicts.csv), by id.
CHECKS = {
    "w06-reno-sack-same": reno_equals_sack,
    "w06-ecn-beats-drops": ecn_beats_drops,
    "w06-ecn-value-grows": ecn_gain_grows,
    "w06-little-benefit-below-80": little_benefit_below_80,
    "w06-ecn5-beats-dt-80": ecn5_beats_dt_at_80,
    "w06-tradeoff-105": tradeoff_at_105,
    "w06-dt-equals-ecn60": dt_equals_ecn60,
    "w06-dt111-vs-dt148": dt111_vs_dt148,
    "w06-ared5-vs-ared60": ared5_vs_ared60,
    "w06-ared-beats-red": ared_beats_red,
    "w06-droptail-util-loss": droptail_util_and_loss,
    "w06-ecn5-small-queue": ecn5_small_queue_low_util,
    "w06-ared5-flows-drops": ared5_many_flows_with_drops,
    "w06-sack-helps-large": sack_helps_large,
    "w06-ecn5-poor-large": ecn5_poor_for_large,
}


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

#: Packets per connection besides the data segments and their ACKs (handshake, FINs, their
#: ACKs) in this preset: 5.075 ± 0.013 (95 %, 11 of the 12 runs of calibration_equal_rates.toml,
#: 2026-11-29; aqmlab.studies.packmime_load.control_packets; the 12th left an unfinished 1.17 GB
#: response).
CONTROL_PACKETS = 5.075
#: Connections per second per unit of load (each cloud) from the model's expectation:
#: aqmlab.studies.packmime_load.rate_per_unit_load(10 Mbit/s, MSS 1420 B, CONTROL_PACKETS)
#: = 124.5 (10,041 wire bytes per connection, 80.33 kbit/s per conn/s; the sweep files' 135.0
#: comes from three 1800-s runs per rate, which sit 8 % below the expectation: heavy tail).
MODEL_RATE_PER_LOAD = 124.5

# The paper's load rule (§5.4) applied to the model's expected bytes per connection instead of
# finite runs' (studies/weigle2006/README.md, "Load calibration"); the queues as stated.
MODEL_LOAD = Reading(
    name="model-load",
    about=(
        f"Both PackMime rates {MODEL_RATE_PER_LOAD} conn/s per unit of load: the seed's rule (§5.4) on the "
        "model's expected wire bytes per connection (quadrature of PackMime's distributions plus the "
        "measured headers and control packets), not on three finite runs (135.0); the queues as stated."
    ),
    overrides={
        "sweep.derive.workload[0].rate": f"{MODEL_RATE_PER_LOAD} * var.load",
        "sweep.derive.workload[1].rate": f"{MODEL_RATE_PER_LOAD} * var.load",
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
        ),
    ),
    checks=CHECKS,  # verdicts and causes: studies/weigle2006/*.csv
    run_metrics=run_metrics,  # every table shows the per-run columns and §5.4's check
    run_checks=("sec54_long_response",),
    quick_overrides={
        "run.warmup": "60s",
        "run.duration": "600s",
        "sweep.replications": 1,
    },
    readings=(NS235_BYTES, MODEL_LOAD),
    default_reading="as-stated",
)
