"""Seed 002 (Weigle, Vembar, Du, "Assessing the Impact of Multiple Active Queue Management
Routers"): Table I and the response-time statements of §IV-C on the 8Q parking lot.

Data: studies/weigle-multi/ (README.md, table1_{1,2,3}cl.toml, paper.csv). One table per number
of congested links (Table I's three blocks); a row is one queue mix, labelled by the queues at
R1-R2, R3-R4, R5-R6 joined by "-" (e.g. "DT-REM" = drop-tail at R1-R2, REM at R3-R4).

Row values are not run-summary columns: the summary covers every workload and only the first
congested link, while seed 002 measures the end-to-end forward classes. `run_metrics` computes
them per run from the run's tables (workload indices of the study's scenarios: 0 = end-to-end
forward HTTP, 2 = forward long-lived flows):

- `ll_goodput_kbps`: forward long-lived goodput, all 10 flows together, kbit/s (1 kbit = 1000
  bit). The link r7_r8 (to the extra measurement router r8) carries only long-lived traffic:
  forward data segments (1460 B + 40 B headers) and the reverse flows' pure ACKs (40 B), so its
  links rows after the warm-up give the delivered data segments n = (bytes − 40·packets)/1460
  and goodput = n·1460·8 / measured time.
- `ll_loss_pct`: 100 · retransmitted data segments / (delivered + retransmitted) of workload 2,
  i.e. losses estimated by retransmissions (NewReno retransmits each lost segment once; a
  spurious timeout would count as a loss).
- `http_loss_pct`: the same estimate for the end-to-end forward HTTP exchanges (workload 0,
  started after the warm-up): 100 · (data + SYN + FIN retransmissions) / (data segments of
  request and response + 4 control segments per connection). Pure ACKs are not counted.
- `e2e_median_rt_ms`, `e2e_mean_rt_ms`, `e2e_pct_le_1s`, `e2e_pct_le_2s`: response times of the
  completed end-to-end forward HTTP exchanges started after the warm-up (seed 002 §III-D; the
  figures stop at 2 s).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from aqmlab.storage.tables import missing_columns
from aqmlab.studies import Reading, Study, Table, loaded_run_columns
from aqmlab.studies.compare import Check, Est, Outcome, all_of, best, ge, get, gt, le, lowest, lt, mean_of

#: Wire sizes of aqmlab's TCP: 40 B of TCP/IP headers, 1460 B MSS (crates/tcp config defaults).
HEADER_B = 40
MSS_B = 1460
#: Workload indices in the study's scenarios (studies/weigle-multi/make_scenarios.py).
E2E_HTTP = 0
LONG_LIVED = 2
#: The link to the measurement router that only long-lived traffic crosses.
LL_LINK = "r7_r8"
AQMS = ("ARED", "PI", "REM")

TABLE_METRICS = (
    "ll_goodput_kbps",
    "ll_loss_pct",
    "http_loss_pct",
    "e2e_median_rt_ms",
    "e2e_mean_rt_ms",
    "e2e_pct_le_1s",
    "e2e_pct_le_2s",
)


def goodput_from_links(links: pd.DataFrame, warmup_ns: int, measured_s: float) -> tuple[float, float]:
    """(delivered data segments, goodput kbit/s) on `LL_LINK` from links rows ending after the
    warm-up: segments n = (bytes − 40·packets)/1460 (data 1500 B, ACKs 40 B on the wire)."""
    rows = links[(links["link"] == LL_LINK) & (links["t_ns"] > warmup_ns)]
    b, p = float(rows["bytes"].sum()), float(rows["packets"].sum())
    n = max(b - HEADER_B * p, 0.0) / MSS_B
    return n, n * MSS_B * 8 / measured_s / 1000


def _segments(nbytes: pd.Series) -> pd.Series:
    return np.ceil(nbytes.astype(float) / MSS_B)


def e2e_metrics(requests: pd.DataFrame, warmup_ns: int) -> dict[str, float]:
    """Loss estimate and response-time statistics of the end-to-end forward HTTP exchanges
    (workload 0) started at or after the warm-up."""
    q = requests[(requests["workload"] == E2E_HTTP) & (requests["start_ns"] >= warmup_ns)]
    # NaN, not a sum treating missing as 0, if a counter was not measured (the testbed's fin_retx).
    cols = ["data_retx", "syn_retx", "fin_retx"]
    retx = math.nan if missing_columns(q, cols) else float(q[cols].sum().sum())
    segs = float((_segments(q["request_bytes"]) + _segments(q["response_bytes"])).sum())
    segs += 4.0 * float((q["exchange"] == 0).sum())
    done = q[q["completed"]]
    rt = (done["end_ns"] - done["start_ns"]).to_numpy(dtype=float) / 1e6
    nan = math.nan
    return {
        "http_loss_pct": 100 * retx / segs if segs else nan,
        "e2e_median_rt_ms": float(np.median(rt)) if len(rt) else nan,
        "e2e_mean_rt_ms": float(rt.mean()) if len(rt) else nan,
        "e2e_pct_le_1s": 100 * float((rt <= 1000).mean()) if len(rt) else nan,
        "e2e_pct_le_2s": 100 * float((rt <= 2000).mean()) if len(rt) else nan,
        "e2e_responses": float(len(rt)),
    }


def metrics_of_run(run) -> dict[str, float]:
    """Every row metric of one run (an aqmlab RunResult or loaded run)."""
    measured_s = float(run.summary["measured_s"])
    n, goodput = goodput_from_links(run.links, run.warmup_ns, measured_s)
    ll = run.requests[run.requests["workload"] == LONG_LIVED]
    retx = float(ll["data_retx"].sum())
    out = {
        "ll_goodput_kbps": goodput,
        "ll_loss_pct": 100 * retx / (n + retx) if n + retx > 0 else math.nan,
    }
    out.update(e2e_metrics(run.requests, run.warmup_ns))
    return out


#: The sweep table with the row metrics of each ok run added as columns (NaN for the others).
run_metrics = loaded_run_columns(metrics_of_run)


def row_label(row: pd.Series) -> str | None:
    """Paper row label of a sweep row: its variant name (queues at R1-R2[-R3-R4[-R5-R6]])."""
    name = str(row["variant"])
    parts = name.split("-")
    if not parts or any(p not in ("DT", *AQMS) for p in parts) or len({p for p in parts if p != "DT"}) > 1:
        return None
    return name


# --------------------------------------------------------------------------------------------
# Verdicts. `res` maps table id ("I-1CL", "I-2CL", "I-3CL") → rows with mean columns.

TABLE_IDS = {1: "I-1CL", 2: "I-2CL", 3: "I-3CL"}


def _v(res: dict[str, pd.DataFrame], n_cl: int, row: str, metric: str) -> Est:
    return get(res, TABLE_IDS[n_cl], row, metric)


def _rows(n_cl: int, aqm: str) -> list[str]:
    """Every mix of `aqm` and DT with at least one `aqm` router, for `n_cl` links."""
    import itertools

    return ["-".join(c) for c in itertools.product(("DT", aqm), repeat=n_cl) if aqm in c]


def _all(n: int, queue: str) -> str:
    """The row with `queue` ("DT" or an AQM) on each of the `n` congested links."""
    return "-".join([queue] * n)


def check_dt_best_goodput(res) -> Check:
    """Rule: for every CL count, no AQM row's long-lived goodput is above DT's (DT ≥ the best
    AQM row)."""
    parts = []
    for n in (1, 2, 3):
        dt = _v(res, n, _all(n, "DT"), "ll_goodput_kbps")
        best_row = max(
            (r for a in AQMS for r in _rows(n, a)), key=lambda r: _v(res, n, r, "ll_goodput_kbps").mean
        )
        parts.append(
            ge(dt, _v(res, n, best_row, "ll_goodput_kbps"), f"{n}CL DT vs best AQM row {best_row} (kbps)")
        )
    return all_of(parts)


def check_goodput_falls_with_aqm_routers(res) -> Check:
    """Rule (3CL, each AQM): the mean goodput over the mixes with k AQM routers does not rise
    by more than 3 % from k to k+1, k = 0 (DT) … 3, and all-AQM is below DT. The paper's own
    numbers pass (largest rise: REM 998 → 1003 kbps, +0.5 %)."""
    parts = []
    for a in AQMS:
        means = [_v(res, 3, _all(3, "DT"), "ll_goodput_kbps")]
        for k in (1, 2, 3):
            ks = [r for r in _rows(3, a) if r.split("-").count(a) == k]
            means.append(mean_of([_v(res, 3, r, "ll_goodput_kbps") for r in ks]))
        steps = [le(means[k + 1], 1.03 * means[k], f"{a} k={k + 1} vs 1.03 × k={k}") for k in range(3)]
        parts.append(all_of([*steps, lt(means[3], means[0], f"{a} all-AQM vs DT")]))
    return all_of(parts, prefix="3CL mean goodput by AQM routers (kbps): ")


def check_pi_rem_beat_ared(res) -> Check:
    """Rule: in every row (all CL counts and mixes) long-lived loss with PI and with REM is below
    ARED's, and long-lived goodput with PI and with REM exceeds ARED's in ≥ 80 % of rows (the
    paper: 100 % of 13 rows); the share counts rows where it holds, and rows within noise count
    for the share's upper bound only."""
    loss, wins, noisy, total = [], 0, 0, 0
    for n in (1, 2, 3):
        for r_ared in _rows(n, "ARED"):
            ared_l, ared_g = _v(res, n, r_ared, "ll_loss_pct"), _v(res, n, r_ared, "ll_goodput_kbps")
            for a in ("PI", "REM"):
                r = r_ared.replace("ARED", a)
                loss.append(lt(_v(res, n, r, "ll_loss_pct"), ared_l, f"{n}CL {r} loss vs {r_ared}"))
                g = gt(_v(res, n, r, "ll_goodput_kbps"), ared_g).outcome
                wins += g == Outcome.HOLDS
                noisy += g == Outcome.NOISE
                total += 1
    lo, hi = wins / total, (wins + noisy) / total
    share = Outcome.HOLDS if lo >= 0.8 else Outcome.FAILS if hi < 0.8 else Outcome.NOISE
    bad = [c for c in loss if c.outcome != Outcome.HOLDS]
    loss_c = all_of(loss)
    text = (
        f"PI/REM goodput > ARED in {wins}/{total} rows beyond noise, {noisy} within noise (rule ≥ 80 %); "
        f"loss lower in {len(loss) - len(bad)}/{len(loss)} rows"
        + ("; " + "; ".join(c.text for c in bad[:3]) if bad else "")
    )
    return all_of([Check(share, ""), Check(loss_c.outcome, text, loss_c.notes)], sep="")


def check_pi_rem_minimal_loss(res) -> Check:
    """Rule: with PI or REM on every congested link, long-lived and HTTP loss are both below
    0.5 % (the paper: at most 0.30 %)."""
    parts = []
    for n in (1, 2, 3):
        for a in ("PI", "REM"):
            parts += [
                lt(_v(res, n, _all(n, a), m), 0.5, f"{n}CL {a} {w} loss %")
                for m, w in (("ll_loss_pct", "long-lived"), ("http_loss_pct", "HTTP"))
            ]
    return all_of(parts)


def check_aqm_lowers_response_times(res) -> Check:
    """Rule: for every CL count and AQM, the all-AQM row has a lower end-to-end median response
    time and a higher share ≤ 1 s than all-DT, and no mix of that AQM has a lower median than
    the all-AQM row (the improvement is largest with an AQM router on every congested link)."""
    parts = []
    for n in (1, 2, 3):
        dt_m, dt_1 = _v(res, n, _all(n, "DT"), "e2e_median_rt_ms"), _v(res, n, _all(n, "DT"), "e2e_pct_le_1s")
        for a in AQMS:
            full = _all(n, a)
            m, p1 = _v(res, n, full, "e2e_median_rt_ms"), _v(res, n, full, "e2e_pct_le_1s")
            best = lowest(_v(res, n, r, "e2e_median_rt_ms") for r in _rows(n, a))
            parts += [
                lt(m, dt_m, f"{n}CL {full} vs DT median ms"),
                gt(p1, dt_1, f"{n}CL {full} vs DT ≤1 s %"),
                le(m, best, f"{n}CL {full} vs its best mix median ms"),
            ]
    return all_of(parts)


def check_more_links_slower(res) -> Check:
    """Rule: for DT and each all-AQM configuration the end-to-end median response time rises
    from 1 to 2 to 3 congested links; DT has the highest median at every CL count and the
    largest rise (3CL − 1CL, ms)."""
    parts, rises = [], {}
    for a in ("DT", *AQMS):
        ms = [_v(res, n, _all(n, a), "e2e_median_rt_ms") for n in (1, 2, 3)]
        parts += [lt(ms[0], ms[1], f"{a} median 1CL vs 2CL"), lt(ms[1], ms[2], f"{a} median 2CL vs 3CL")]
        rises[a] = ms[2] - ms[0]
    for n in (1, 2, 3):
        dt = _v(res, n, _all(n, "DT"), "e2e_median_rt_ms")
        parts += [gt(dt, _v(res, n, _all(n, a), "e2e_median_rt_ms"), f"{n}CL median DT vs {a}") for a in AQMS]
    parts.append(gt(rises["DT"], best(rises[a] for a in AQMS), "DT's rise vs the largest AQM rise (ms)"))
    return all_of(parts)


def check_dt_rem_beats_rem_dt(res) -> Check:
    """Rule (2CL): DT-REM has a lower median response time and a higher share ≤ 1 s than REM-DT,
    and REM-DT's HTTP loss is at least 1.5 × DT-REM's ("almost twice"; paper: 1.10 vs 0.64 %,
    1.7 ×)."""
    return all_of(
        [
            lt(
                _v(res, 2, "DT-REM", "e2e_median_rt_ms"),
                _v(res, 2, "REM-DT", "e2e_median_rt_ms"),
                "median ms DT-REM vs REM-DT",
            ),
            gt(
                _v(res, 2, "DT-REM", "e2e_pct_le_1s"),
                _v(res, 2, "REM-DT", "e2e_pct_le_1s"),
                "≤1 s % DT-REM vs REM-DT",
            ),
            ge(
                _v(res, 2, "REM-DT", "http_loss_pct"),
                1.5 * _v(res, 2, "DT-REM", "http_loss_pct"),
                "HTTP loss % REM-DT vs 1.5 × DT-REM",
            ),
        ]
    )


def _tables() -> tuple[Table, ...]:
    return tuple(
        Table(
            id=TABLE_IDS[n],
            title=f"Table I, {n} congested link{'s' if n > 1 else ''}: long-lived goodput and loss, "
            "HTTP loss; end-to-end HTTP response times (§IV-C)",
            scenario=f"table1_{n}cl.toml",
            metrics=TABLE_METRICS,
            row_label=row_label,
        )
        for n in (1, 2, 3)
    )


# §IV-B describes REM with ECN as RFC 3168 practice ("the only packets that are dropped are those
# that arrive when the queue is full or those that are chosen for marking but are not
# ECN-enabled"), which the sweep files run (`ecn = true`). The paper's simulator had one ECN rule
# for REM, `markpkts_` (queue/rem.cc, unchanged since REM entered ns-2): ECT packets are marked
# at dequeue and nothing is dropped early, SYNs and ACKs included. The seed-002 twin runs that
# rule on both sides (validation/ns2/README.md, "Seed 002 twin").
NS2_REM_MARKPKTS = Reading(
    name="ns2-rem-markpkts",
    about=(
        "REM with ns-2's markpkts_ (ECT packets marked at dequeue, no early drops at all), the only "
        "ECN mode of ns-2's Queue/REM, instead of §IV-B's description (non-ECT packets dropped)."
    ),
    queue_options={"ecn": "ns2_markpkts"},
    kinds=("rem",),
)

#: The rule that checks each of the paper's conclusions (studies/weigle-multi/verdicts.csv), by id.
CHECKS = {
    "wm-dt-best-goodput": check_dt_best_goodput,
    "wm-goodput-falls": check_goodput_falls_with_aqm_routers,
    "wm-pi-rem-beat-ared": check_pi_rem_beat_ared,
    "wm-pi-rem-minimal-loss": check_pi_rem_minimal_loss,
    "wm-aqm-lowers-rt": check_aqm_lowers_response_times,
    "wm-more-links-slower": check_more_links_slower,
    "wm-dt-rem-beats-rem-dt": check_dt_rem_beats_rem_dt,
}

STUDY = Study(
    name="weigle-multi",
    paper="M. C. Weigle, D. Vembar, Z. Du, Assessing the Impact of Multiple Active Queue "
    "Management Routers (seed 002)",
    tables=_tables(),
    checks=CHECKS,  # verdicts and causes: studies/weigle-multi/*.csv
    run_metrics=run_metrics,  # every table's row metrics
    # Quick: 60 s warm-up kept (the long-lived flows start at 60 s), 150 s measured, one seed:
    # 36 runs × ≈ 4 s on one core.
    quick_overrides={"run.duration": "150s", "sweep.replications": 1},
    readings=(NS2_REM_MARKPKTS,),
    default_reading="as-stated",
)
