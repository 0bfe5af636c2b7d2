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
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.studies import Study, Table, Verdict
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


def _add_columns(sweep: pd.DataFrame, sweep_dir, columns: tuple[str, ...], of_run) -> pd.DataFrame:
    """`sweep` with `columns` from `of_run(run directory)` for each ok run (NaN for the rest)."""
    if all(c in sweep.columns for c in columns):
        return sweep
    df = sweep.copy()
    rows = [
        of_run(Path(sweep_dir) / "runs" / r["run"]) if r["status"] == "ok" else {} for _, r in df.iterrows()
    ]
    extra = pd.DataFrame(rows, index=df.index, columns=list(columns))
    for c in columns:
        df[c] = pd.to_numeric(extra[c])
    return df


def mix_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """The prague-mix sweep with MIX_COLUMNS added from each ok run's request table."""
    from aqmlab.storage.run_dir import load_run

    def of_run(d: Path) -> dict:
        run = load_run(d)
        return {
            "classic_median_rt_ms": workload_median_ms(run.requests, run.warmup_ns, CLASSIC_WORKLOADS),
            "l4s_median_rt_ms": workload_median_ms(run.requests, run.warmup_ns, L4S_WORKLOADS),
        }

    return _add_columns(sweep, sweep_dir, MIX_COLUMNS, of_run)


def flow_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """A long-flow sweep with FLOW_COLUMNS added from each ok run's pcaps."""
    return _add_columns(sweep, sweep_dir, FLOW_COLUMNS, flow_columns)


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


# --- the sources --------------------------------------------------------------------------

_RFC8289 = (
    'RFC 8289 (CoDel), Abstract: "This document describes CoDel (Controlled Delay) -- a general '
    'framework that controls bufferbloat-generated excess delay in modern networking environments."'
)
_RFC8033 = (
    'RFC 8033 (PIE), Abstract: "This document presents a lightweight active queue management design '
    'called "PIE" (Proportional Integral controller Enhanced) that can effectively control the average '
    'queuing latency to a target value."'
)
_BBR = (
    "BBR (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00, 2017, "
    'Abstract, the same BBR v1): "Relative to loss-based congestion control algorithms such as Reno '
    "[RFC5681] or CUBIC [draft-ietf-tcpm-cubic], BBR offers substantially higher throughput for "
    "bottlenecks with shallow buffers or random losses, and substantially lower queueing delays for "
    'bottlenecks with deep buffers (avoiding "bufferbloat")."'
)
_RFC8290_WEB = (
    'RFC 8290 (FQ-CoDel), Abstract: "It provides isolation for low-rate traffic such as DNS, web, and '
    'videoconferencing traffic."'
)
_RFC8290_MIX = (
    'RFC 8290 (FQ-CoDel), Abstract: "FQ-CoDel mixes packets from multiple flows and reduces the impact '
    'of head-of-line blocking from bursty traffic."'
)
_RFC8033_UTIL = (
    'RFC 8033 (PIE), Abstract: "Simulation results, theoretical analysis, and Linux testbed results '
    "have shown that PIE can ensure low latency and achieve high link utilization under various "
    'congestion situations."'
)
_RFC9330 = (
    'RFC 9330 (L4S architecture), Abstract: "The aim is for L4S latency and throughput to be usually '
    'much better (and rarely worse) while typically not impacting Classic performance."'
)
_DUALQ = (
    'draft-ietf-tsvwg-aqm-dualq-coupled-18 (2021, which became RFC 9332), Abstract: "The coupling '
    "acts like a semi-permeable membrane: isolating the sub-millisecond average queuing delay and zero "
    "congestion loss of L4S from Classic latency and loss; but pooling the capacity between any "
    'combination of Scalable and Classic flows with roughly equivalent throughput per flow."'
)
_MA2017 = (
    "Ma et al. 2017, Fairness of Congestion-Based Congestion Control: Experimental Evaluation and "
    'Analysis (arXiv:1706.09115), as summarised at emergentmind.com/topics/fair-bbr-bbq: "when '
    "multiple BBR flows with different RTTs compete, bandwidth allocation is highly skewed. For "
    "example, in a 100 Mbps bottleneck with a 10 ms-RTT flow and a 50 ms-RTT flow, the 10 ms flow "
    'receives just 6.3 Mbps, while the 50 ms flow achieves 87.3 Mbps."'
)

VERDICTS = (
    Verdict(
        "mod-aqms-cut-median",
        "At 90 % load with CUBIC, every AQM beats DT-148q's median response time by ≥ 20 %",
        f"{_RFC8289} {_RFC8033}",
        aqms_cut_median,
    ),
    Verdict(
        "mod-bbr-short-dt-queue",
        "At 90 % load through DT-148q, BBR keeps a shorter mean queue than CUBIC",
        _BBR,
        bbr_shorter_dt_queue,
    ),
    Verdict(
        "mod-bbr-loss-under-aqm",
        "At 90 % load, BBR's loss rate under CoDel and PIE is ≥ 2 × CUBIC's",
        f"{_BBR} (BBR v1 does not reduce its rate on loss, so the AQMs' drops do not slow it.)",
        bbr_loss_under_aqm,
    ),
    Verdict(
        "mod-fq-codel-best-median",
        "At 90 % load with CUBIC, FQ-CoDel has the lowest median response time of the six queues",
        _RFC8290_WEB,
        fq_codel_best_median,
    ),
    Verdict(
        "mod-aqm-utilization",
        "At 90 % load with CUBIC, PIE and CoDel keep utilisation within 2 points of DT-148q's",
        _RFC8033_UTIL,
        aqm_keeps_utilization,
    ),
    Verdict(
        "mod-l4s-half-faster",
        "Half Prague through DualPI2 at 90 % load: the Prague half's median ≤ the CUBIC half's",
        _RFC9330,
        l4s_half_faster,
    ),
    Verdict(
        "mod-classic-unharmed",
        "Half Prague through DualPI2 at 90 % load: the CUBIC half's median ≤ 1.1 × all-CUBIC's",
        _RFC9330,
        classic_unharmed,
    ),
    Verdict(
        "mod-dualpi2-l-p99",
        "Half Prague through DualPI2 at 90 % load: the L queue's mean and p99 sojourn ≤ 1 ms",
        f"{_DUALQ} (The quote speaks of the average; the statement holds the tail to it too, the "
        "p99 the issue names.)",
        dualpi2_l_sub_ms,
    ),
    Verdict(
        "mod-dualpi2-balance",
        "Prague vs CUBIC at equal RTT through DualPI2: Jain index ≥ 0.9",
        _DUALQ,
        coexist_balanced("DualPI2"),
    ),
    Verdict(
        "mod-fq-codel-balance",
        "Prague vs CUBIC at equal RTT through FQ-CoDel: Jain index ≥ 0.9",
        _RFC8290_MIX,
        coexist_balanced("FQ-CoDel"),
    ),
    Verdict(
        "mod-bbr-long-rtt-wins",
        "BBR 10 vs 160 ms through DT-1000q: the 160 ms flow gets more",
        _MA2017,
        bbr_long_rtt_wins,
    ),
    Verdict(
        "mod-cubic-fairer-than-bbr",
        "10 vs 160 ms through DT-1000q: CUBIC's Jain index > BBR's",
        _MA2017,
        cubic_fairer_than_bbr,
    ),
    Verdict(
        "mod-fq-codel-rtt-fair",
        "10 vs 160 ms through FQ-CoDel: Jain index ≥ 0.9 with CUBIC and with BBR",
        _RFC8290_MIX,
        fq_codel_rtt_fair,
    ),
)

#: Documented causes (Study.causes) of verdicts aqmlab fails, from studies/modern/README.md.
CAUSES = {
    "mod-aqms-cut-median": "CoDel's own behaviour: its code matches RFC 8289 and Linux codel_dequeue; under "
    "this traffic (~120 new connections/s each way, 90 % of responses within the initial window) its "
    "interval/√count drop rate ramps too slowly, so the forward sojourn stays above 5 ms in 91-93 % of "
    "the 100 ms rows (mean 67-82 ms; 57-59 % of the forward packets are ACKs). Tested "
    "(studies/modern/codel_interval.toml, seeds 1-3): with a 20 ms interval CoDel's median is 287-328 ms, "
    "below 0.8 × DT-148q's in each seed; at the RFC's 100 ms it is 399-476 ms "
    '(studies/modern/README.md, "CoDel\'s standing queue")',
    "mod-bbr-short-dt-queue": "the claim is BBR's steady state with long flows (here too: two long "
    "flows through DT-1000q, BBR 327 against CUBIC 826 packets); web load at 90 % runs a loop instead: "
    "arrivals are open-loop, so slower responses mean more connections in progress, each keeping its "
    "window, so a fuller queue and more loss. CUBIC's decrease holds it (seed 1: on average 242 responses in "
    "progress, the 148-packet buffer at its limit in 46 % of the 100 ms rows, 9.1 % dropped); BBR v1, "
    "which keeps its window and pacing rate through loss (Linux's loss response, as modelled), runs to "
    "1201 in progress, at the limit in 78 % of the rows, 27.4 % dropped; the two agree for the first 60 "
    "s and part after. Not the buffer's depth: through DT-1000q with web load BBR's queue is longer too "
    "(653 against 616, seed 1). No bug found in aqmlab's BBR (studies/modern/bbr_trace.toml; README "
    '"BBR\'s queue and loss")',
    "mod-bbr-loss-under-aqm": "PIE, not BBR: PIE holds the queue near its 15 ms target for both "
    "senders (mean 32.4 and 32.9 packets) by dropping, so CUBIC already loses 15.0 % (CoDel: 3.4 %), "
    "timeout-bound (a response over 100 segments takes 27 timeouts; CoDel 2.1) and no longer the "
    "loss-responsive reference the statement assumes. BBR does drop 1.86 × CUBIC's packets (184k against "
    "99k, seed 1), 1.58 × as a share of arrivals, which grow with the retransmissions; under CoDel, which"
    " lets a standing queue grow instead, the statement holds (studies/modern/bbr_trace.toml; README "
    '"BBR\'s queue and loss")',
    "mod-dualpi2-l-p99": "the link's packet time and Prague's initial windows: at 10 Mbps a 1500-byte"
    " packet takes 1.2 ms, so one packet ahead in the L queue, or the C packet on the wire, is already "
    "more than 1 ms (seeds 1-3 at 90 %: L mean 2.2-2.8 ms, p50 1.2-1.4, p99 12.9-17.0; C p99 60-73 ms), "
    "and a response's first 10 segments leave unpaced (as Linux), a burst of up to 12 ms that the 1 ms "
    "step answers a round trip later: with Prague's initial window 2 the L p99 halves (seed 1: 12.9 to "
    "6.5 ms). The same traffic at 100 Mbps (rates × 10, seed 1): L mean 0.36 ms, p99 2.0 ms: the average "
    "is sub-millisecond there, the tail not (studies/modern/dualpi2_100mbps.toml, "
    'dualpi2_prague_iw2.toml; README "The L queue at 10 Mbps")',
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
    verdicts=VERDICTS,
    causes=CAUSES,
    quick_overrides={"sweep.replications": 1, "sweep.grid.var.load": [0.5, 0.9]},
)
