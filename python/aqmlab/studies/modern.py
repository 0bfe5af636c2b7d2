"""The modern study (issue 33 item 4): modern queues under web traffic with CUBIC, BBR and TCP
Prague senders, and long-lived coexistence checks. Not a paper's reproduction: its statements
are what the literature claims (RFC 8033, 8289, 8290, 9330, 9332, BBR), written down as rules
before the runs, each quoting its source.

Tables (sweep files in studies/modern/; studies/modern/README.md says why these settings):

- `web` (web.toml): seed 001's two-way PackMime network at 50, 80, 90, 105 % load, Linux's TCP
  (`profile = "linux"`), queues DT-148q, ARED (byte mode), PIE, CoDel, FQ-CoDel, DualPI2 ×
  senders CUBIC (`cubic_sack`, with HyStart) and BBR v1. Rows `load=90,queue=CoDel,tcp=cubic`.
- `prague-mix` (web_prague.toml): the same with half of each direction's connections TCP Prague,
  through DualPI2 and FQ-CoDel. Rows `load=90,queue=DualPI2,tcp=prague-mix`. Per-run columns
  `classic_median_rt_ms` and `l4s_median_rt_ms`: the median response time of the CUBIC half
  (workloads 0, 1) and of the Prague half (workloads 2, 3), over the measured responses (first
  SYN at or after the warm-up, both directions), a response unfinished at the end counted slower
  than every finished one (as the summary's quantiles; +inf if the median falls on one); and the
  DualPI2 runs' summary keys `l_sojourn_mean_ms`, `l_sojourn_p99_ms`, `c_sojourn_p99_ms` (each
  queue's sojourn of the packets leaving it after the warm-up, docs/summary.md; NaN for FQ-CoDel).
- `coexist` (coexist.toml): one Prague and one CUBIC long flow at equal RTT (24 ms) through
  DualPI2 and FQ-CoDel. Rows `queue=DualPI2,tcp=prague-vs-cubic`; flow 0 is Prague, flow 1 CUBIC.
- `rtt` (rtt_fairness.toml): two long flows of one sender at 10 ms (flow 0) and 160 ms (flow 1)
  base RTT. Rows `queue=DT-1000q,tcp=bbr`.
  Both long-flow tables: per-run `flow0_mbps`, `flow1_mbps`, `ratio` (flow 0 / flow 1), `jain`
  (aqmlab.studies.modern_flows, from the pcaps of the two servers' access links).

paper.csv is empty: there is no paper; the rules carry their numbers.

Validation: python/tests/test_study_modern.py (each rule on hand-made tables where it holds,
fails and is within noise; row labels; the per-run columns; the sweep files' grids).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from aqmlab.studies import Study, Table, add_run_columns, loaded_run_columns
from aqmlab.studies.compare import Check, Est, all_of, ge, get, gt, le, lt
from aqmlab.studies.modern_flows import FLOW_COLUMNS, flow_columns
from aqmlab.studies.weigle2006 import censored_quantile

WEB, PRAGUE, COEXIST, RTT = "web", "prague-mix", "coexist", "rtt"
#: The queues of the web table, by variant-name prefix; DT-148q is the reference.
QUEUES = ("DT-148q", "ARED", "PIE", "CoDel", "FQ-CoDel", "DualPI2")
AQMS = QUEUES[1:]
#: The load the statements are made at (%): the busiest load below capacity.
LOAD = 90
WEB_METRICS = (
    "utilization", "drops_pct", "mean_qlen", "median_rt_ms", "p90_rt_ms", "p99_rt_ms", "pct_le_1s",
)  # fmt: skip
MIX_COLUMNS = ("classic_median_rt_ms", "l4s_median_rt_ms")
#: A DualPI2 run's per-queue sojourn figures, ms (summary keys; absent for other queues).
LANE_COLUMNS = ("l_sojourn_mean_ms", "l_sojourn_p99_ms", "c_sojourn_p99_ms")
#: The L queue's delay line of `mod-dualpi2-l-p99`, ms.
L_DELAY_MS = 1.0
FLOW_METRICS = (*FLOW_COLUMNS, "utilization", "mean_qlen", "drops_pct")
#: PackMime workloads of web_prague.toml: CUBIC (forward, reverse), then Prague (forward, reverse).
CLASSIC_WORKLOADS, L4S_WORKLOADS = (0, 1), (2, 3)

Results = dict[str, pd.DataFrame]


# --- row labels ---------------------------------------------------------------------------


def _queue_tcp(variant: str) -> tuple[str, str]:
    """`CoDel_cubic` → ("CoDel", "cubic"); a name without `_` (coexist.toml) is a queue whose
    pair is Prague against CUBIC."""
    queue, sep, tcp = str(variant).rpartition("_")
    return (queue, tcp) if sep else (str(variant), "prague-vs-cubic")


def web_row(row: pd.Series) -> str:
    """Row label of the web and prague-mix tables: `load=90,queue=CoDel,tcp=cubic`."""
    queue, tcp = _queue_tcp(row["variant"])
    return f"load={int(round(100 * float(row['var.load'])))},queue={queue},tcp={tcp}"


def flow_row(row: pd.Series) -> str:
    """Row label of the coexist and rtt tables: `queue=DualPI2,tcp=prague-vs-cubic`."""
    queue, tcp = _queue_tcp(row["variant"])
    return f"queue={queue},tcp={tcp}"


# --- per-run columns ----------------------------------------------------------------------


def workload_median_ms(requests: pd.DataFrame, warmup_ns: int, workloads: tuple[int, ...]) -> float:
    """Median response time (ms) of the measured HTTP responses of `workloads` (first SYN at or
    after `warmup_ns`), unfinished ones counted slower than all finished (+inf if the median
    falls on one; NaN without responses)."""
    q = requests[
        (requests["kind"] == "http")
        & (requests["start_ns"] >= warmup_ns)
        & requests["workload"].isin(workloads)
    ]
    done = q[q["completed"].astype(bool)]
    rt = (done["end_ns"] - done["start_ns"]).to_numpy(dtype=np.float64) / 1e6
    return censored_quantile(rt, len(q) - len(done), 0.5)


def _mix_of_run(run) -> dict[str, float]:
    return {
        "classic_median_rt_ms": workload_median_ms(run.requests, run.warmup_ns, CLASSIC_WORKLOADS),
        "l4s_median_rt_ms": workload_median_ms(run.requests, run.warmup_ns, L4S_WORKLOADS),
    }


#: The prague-mix sweep with MIX_COLUMNS added from each ok run's request table.
mix_metrics = loaded_run_columns(_mix_of_run, MIX_COLUMNS)


def flow_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """A long-flow sweep with FLOW_COLUMNS added from each ok run's pcaps."""
    return add_run_columns(sweep, sweep_dir, flow_columns, FLOW_COLUMNS)


# --- the rules ----------------------------------------------------------------------------


def _web(res: Results, queue: str, tcp: str, metric: str, load: int = LOAD) -> Est:
    return get(res, WEB, f"load={load},queue={queue},tcp={tcp}", metric)


def aqms_cut_median(res: Results) -> Check:
    """Rule: at 90 % load with CUBIC senders, every AQM's median response time is at most 0.8 ×
    DT-148q's (each beats the drop-tail buffer by ≥ 20 %)."""
    dt = _web(res, "DT-148q", "cubic", "median_rt_ms")
    return all_of(
        le(_web(res, q, "cubic", "median_rt_ms"), 0.8 * dt, f"{q} median ms vs 0.8 × DT-148q") for q in AQMS
    )


def bbr_shorter_dt_queue(res: Results) -> Check:
    """Rule: at 90 % load through DT-148q, BBR senders keep a shorter mean queue (packets) than
    CUBIC senders."""
    return lt(
        _web(res, "DT-148q", "bbr", "mean_qlen"),
        _web(res, "DT-148q", "cubic", "mean_qlen"),
        "DT-148q mean queue, BBR vs CUBIC",
    )


def bbr_loss_under_aqm(res: Results) -> Check:
    """Rule: at 90 % load, BBR's loss rate (drops_pct) under CoDel and under PIE is at least
    2 × CUBIC's under the same queue."""
    return all_of(
        ge(
            _web(res, q, "bbr", "drops_pct"),
            2 * _web(res, q, "cubic", "drops_pct"),
            f"{q} drops %: BBR vs 2 × CUBIC",
        )
        for q in ("CoDel", "PIE")
    )


def fq_codel_best_median(res: Results) -> Check:
    """Rule: at 90 % load with CUBIC senders, FQ-CoDel's median response time is at most every
    other queue's."""
    fq = _web(res, "FQ-CoDel", "cubic", "median_rt_ms")
    return all_of(
        le(fq, _web(res, q, "cubic", "median_rt_ms"), f"FQ-CoDel median ms vs {q}")
        for q in QUEUES
        if q != "FQ-CoDel"
    )


def aqm_keeps_utilization(res: Results) -> Check:
    """Rule: at 90 % load with CUBIC senders, PIE's and CoDel's utilisation is at least
    DT-148q's minus 0.02 (two points of the link)."""
    dt = _web(res, "DT-148q", "cubic", "utilization")
    return all_of(
        ge(_web(res, q, "cubic", "utilization"), dt - 0.02, f"{q} utilisation vs DT-148q − 0.02")
        for q in ("PIE", "CoDel")
    )


def _mix(res: Results, metric: str, queue: str = "DualPI2") -> Est:
    return get(res, PRAGUE, f"load={LOAD},queue={queue},tcp=prague-mix", metric)


def l4s_half_faster(res: Results) -> Check:
    """Rule: at 90 % load through DualPI2 with half the connections Prague, the Prague half's
    median response time is at most the CUBIC half's."""
    return le(
        _mix(res, "l4s_median_rt_ms"),
        _mix(res, "classic_median_rt_ms"),
        "DualPI2 median ms, Prague vs CUBIC half",
    )


def classic_unharmed(res: Results) -> Check:
    """Rule: at 90 % load through DualPI2, the CUBIC half's median response time beside Prague is
    at most 1.1 × the median with all connections CUBIC."""
    return le(
        _mix(res, "classic_median_rt_ms"),
        1.1 * _web(res, "DualPI2", "cubic", "median_rt_ms"),
        "DualPI2 CUBIC-half median ms vs 1.1 × all-CUBIC median",
    )


def dualpi2_l_sub_ms(res: Results) -> Check:
    """Rule: at 90 % load through DualPI2 with half the connections Prague, the L queue's mean
    and p99 sojourn are each at most 1 ms."""
    return all_of(
        le(_mix(res, f"l_sojourn_{s}_ms"), L_DELAY_MS, f"DualPI2 L-queue {s} sojourn ms vs 1 ms")
        for s in ("mean", "p99")
    )


def _flow(res: Results, table: str, queue: str, tcp: str, metric: str) -> Est:
    return get(res, table, f"queue={queue},tcp={tcp}", metric)


def coexist_balanced(queue: str):
    """Rule factory: Prague and CUBIC long flows at equal RTT through `queue` have a Jain index
    ≥ 0.9 (a throughput ratio within [0.5, 2])."""

    def rule(res: Results) -> Check:
        j = _flow(res, COEXIST, queue, "prague-vs-cubic", "jain")
        return ge(j, 0.9, f"{queue} Jain index, Prague vs CUBIC")

    return rule


def bbr_long_rtt_wins(res: Results) -> Check:
    """Rule: two BBR flows through DT-1000q, the 160 ms flow's throughput exceeds the 10 ms
    flow's."""
    return gt(
        _flow(res, RTT, "DT-1000q", "bbr", "flow1_mbps"),
        _flow(res, RTT, "DT-1000q", "bbr", "flow0_mbps"),
        "DT-1000q BBR Mbit/s, 160 ms flow vs 10 ms flow",
    )


def cubic_fairer_than_bbr(res: Results) -> Check:
    """Rule: through DT-1000q, the Jain index of the 10 ms and 160 ms flows is higher with CUBIC
    than with BBR."""
    return gt(
        _flow(res, RTT, "DT-1000q", "cubic", "jain"),
        _flow(res, RTT, "DT-1000q", "bbr", "jain"),
        "DT-1000q Jain index, CUBIC vs BBR",
    )


def fq_codel_rtt_fair(res: Results) -> Check:
    """Rule: through FQ-CoDel, the 10 ms and 160 ms flows have a Jain index ≥ 0.9 with CUBIC and
    with BBR."""
    return all_of(
        ge(_flow(res, RTT, "FQ-CoDel", t, "jain"), 0.9, f"FQ-CoDel Jain index, {t}") for t in ("cubic", "bbr")
    )


#: The rule that checks each of the literature's statements (studies/modern/verdicts.csv), by id.
CHECKS = {
    "mod-aqms-cut-median": aqms_cut_median,
    "mod-bbr-short-dt-queue": bbr_shorter_dt_queue,
    "mod-bbr-loss-under-aqm": bbr_loss_under_aqm,
    "mod-fq-codel-best-median": fq_codel_best_median,
    "mod-aqm-utilization": aqm_keeps_utilization,
    "mod-l4s-half-faster": l4s_half_faster,
    "mod-classic-unharmed": classic_unharmed,
    "mod-dualpi2-l-p99": dualpi2_l_sub_ms,
    "mod-dualpi2-balance": coexist_balanced("DualPI2"),
    "mod-fq-codel-balance": coexist_balanced("FQ-CoDel"),
    "mod-bbr-long-rtt-wins": bbr_long_rtt_wins,
    "mod-cubic-fairer-than-bbr": cubic_fairer_than_bbr,
    "mod-fq-codel-rtt-fair": fq_codel_rtt_fair,
}

STUDY = Study(
    name="modern",
    paper=(
        "none: modern queues (ARED, PIE, CoDel, FQ-CoDel, DualPI2) under seed 001's web traffic with "
        "CUBIC, BBR and TCP Prague senders; the statements are the literature's claims (issue 33 item 4)"
    ),
    ns2_refused="ns-2.35 has no BBR, TCP Prague, DualPI2, FQ-CoDel or Linux TCP profile",
    tables=(
        Table(
            WEB,
            "Six queues × CUBIC and BBR, two-way PackMime, 50-105 % load",
            "web.toml",
            WEB_METRICS,
            web_row,
        ),
        Table(
            PRAGUE,
            "Half the connections TCP Prague, DualPI2 and FQ-CoDel, 50-105 % load",
            "web_prague.toml",
            (*WEB_METRICS, *MIX_COLUMNS, *LANE_COLUMNS),
            web_row,
            run_metrics=mix_metrics,
        ),
        Table(
            COEXIST,
            "Prague (flow 0) vs CUBIC (flow 1) long flows at equal RTT, 50 Mbps",
            "coexist.toml",
            FLOW_METRICS,
            flow_row,
            run_metrics=flow_metrics,
        ),
        Table(
            RTT,
            "RTT fairness: 10 ms (flow 0) vs 160 ms (flow 1) long flows, 50 Mbps",
            "rtt_fairness.toml",
            FLOW_METRICS,
            flow_row,
            run_metrics=flow_metrics,
        ),
    ),
    checks=CHECKS,  # verdicts and causes: studies/modern/*.csv
    quick_overrides={"sweep.replications": 1, "sweep.grid.var.load": [0.5, 0.9]},
)
