"""Seed 003 (Kim 2004, PISA and PIMC vs PI and drop-tail): Tables 5.1-5.4 (standard
experiment), 5.6-5.7 (50 FTP flows), 5.8-5.9 (5 Mbps) and 5.10-5.11 (HTTP flows in 10 RTT
groups), with the thesis's conclusions as verdicts. Data and setup notes: studies/pisa/
(README.md, paper.csv, the sweep files).

Compared columns: `responses_completed` (the thesis's "Number of Object": web objects completed
in the 500 s run), `mean_qlen`, `utilization`, and the drop rate `drops_per_s` (forward
bottleneck drops / measured seconds). Computed per run by `run_metrics` from the run's directory
(workload 0 = the FTP flows, workload 1 = the HTTP flows in every sweep file):

- `drops_per_s`: summary `drops` / `measured_s` (exact).
- `ftp_drops_per_s`, `http_drops_per_s`: drops per class, *estimated by retransmissions* (the
  request table has no drop counts): FTP = data segments retransmitted by workload 0; HTTP = data
  + SYN + FIN retransmissions of workload 1, per measured second. A spurious timeout counts as a
  drop; a lost retransmission is counted each time it is resent.
- `util_http`: wire bytes of the completed HTTP objects, ⌈bytes / 1000⌉ · 1040 (MSS 1000 B + 40 B
  of headers, the preset's TCP), over the bottleneck capacity × measured seconds (capacity =
  summary kb_per_s · 8000 / utilization); `util_ftp` = `utilization` − `util_http` (the thesis's
  two columns also add up to its total). Left in `util_ftp` although HTTP: objects in flight at
  the end (100 objects of a mean 10 KB: 0.002), retransmitted HTTP segments (standard PI run:
  1.7/s, 0.0014) and SYN-ACK/FIN segments.
- Tables 5.10-5.11: `objects_rtt<R>` = completed HTTP objects of the flows whose base RTT is R
  ms (R = 200, 400, …, 2000; the request table's `base_rtt_ns`, rounded to 1 ms) and
  `pct_rtt<R>` = 100 · that / all completed HTTP objects (the thesis's "(%)" columns).

Not compared: the per-class cwnd of Tables 5.2, 5.6, 5.8 (the request table records no window
averages) and the drop ratios (`*_drop_ratio_pct`, §2: drops / packets sent by the class; the
packets an FTP flow sent are not recorded).

Verdict on Tables 5.10-5.11 (§5.7: PIMC's fragile flows "transfer 5.7% of total Web objects, the
same as PI's and PISA's. PIMC does not make HTTP flow performance worse"): in both tables the
2000-ms group's share of objects with PIMC and with PISA is at least PI's share − 0.5 percentage
points (the thesis: 5.7, 5.7, 5.7 % and 5.7, 5.6, 5.7 %).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.reports.run_report import measured_responses
from aqmlab.reports.stats import CI
from aqmlab.storage.tables import missing_columns
from aqmlab.studies import Study, Table, loaded_run_columns
from aqmlab.studies.compare import Check, Est, all_of, ge, get, gt, lt, note

#: Workload indices in every sweep file of the study: the FTP (bulk) flows, the HTTP flows.
FTP_WORKLOAD, HTTP_WORKLOAD = 0, 1
#: TCP segment size and header bytes of the preset (ns-2 packetSize_ 1000 B, 1040 B on the wire).
MSS_B, HEADER_B = 1000, 40
#: Base RTTs (ms) of the HTTP groups of Tables 5.10-5.11 (§5.7: 200 ms … 2000 ms).
RTT_GROUPS_MS = tuple(range(200, 2001, 200))
#: Hosts of the preset: HTTP flows on 0-99 (10 per RTT group), FTP on 100-109, CBR on 110.
HOSTS, HTTP_HOSTS, FTP_HOSTS = 111, range(0, 100), range(100, 110)
#: Propagation RTT of the dumbbell without DelayBox: 2 × (45 + 10 + 45) ms.
BASE_RTT_MS = 200

Results = dict[str, pd.DataFrame]

#: Variant name in the sweep files → the thesis's row label (Tables 5.2-5.9).
ROWS = {"pi": "PI", "pisa": "PISA", "pimc": "PIMC", "droptail": "Drop Tail"}


def row_label(row: pd.Series) -> str | None:
    """Row label of Tables 5.2, 5.3, 5.6, 5.8: the queue of the run ("PI", "Drop Tail", …)."""
    return ROWS.get(str(row["variant"]))


def row_label_51(row: pd.Series) -> str | None:
    """Table 5.1 has PI and "Drop tail" (lower-case t) only."""
    return {"pi": "PI", "droptail": "Drop tail"}.get(str(row["variant"]))


def row_label_objects(row: pd.Series) -> str | None:
    """Tables 5.4, 5.7, 5.9 (objects): PI, PISA, PIMC; no drop-tail row."""
    return {k: v for k, v in ROWS.items() if k != "droptail"}.get(str(row["variant"]))


DROPS = ("drops_per_s", "ftp_drops_per_s", "http_drops_per_s", "mean_qlen", "drops", "measured_s")
UTIL = ("util_ftp", "util_http", "utilization")
OBJECTS = ("responses_completed",)
RTT_OBJECTS = (*(f"objects_rtt{r}" for r in RTT_GROUPS_MS), "responses_completed")
RTT_SHARES = tuple(f"pct_rtt{r}" for r in RTT_GROUPS_MS)


# --------------------------------------------------------------------------------------------
# Tables 5.10-5.11: the RTT groups, and the per-run metrics


def extra_rtt_ms(host: int, ftp_rtt_ms: int) -> int:
    """DelayBox extra RTT (ms) of client host `host` in the RTT-group sweeps: HTTP host f gets
    200 · (f // 10) (group RTT 200 · (f // 10 + 1) ms), FTP hosts ftp_rtt_ms − 200, the CBR 0."""
    if host in HTTP_HOSTS:
        return RTT_GROUPS_MS[host // 10] - BASE_RTT_MS
    if host in FTP_HOSTS:
        return ftp_rtt_ms - BASE_RTT_MS
    return 0


def rtt_matrix_text(ftp_rtt_ms: int) -> str:
    """The DelayBox matrix file (studies/pisa/rtt_ftp<ftp_rtt_ms>.csv): extra RTT in ms, one row
    per client host, one column per server host (every column of a row equal)."""
    head = (
        f"# Seed 003 §5.7: extra RTT (ms) per client host (rows) × server host (columns); FTP RTT "
        f"{ftp_rtt_ms} ms.\n# Written by aqmlab.studies.pisa.write_rtt_matrix({ftp_rtt_ms}, PATH).\n"
    )
    rows = [",".join([str(extra_rtt_ms(c, ftp_rtt_ms))] * HOSTS) for c in range(HOSTS)]
    return head + "\n".join(rows) + "\n"


def write_rtt_matrix(ftp_rtt_ms: int, path: str | os.PathLike) -> None:
    """Write `rtt_matrix_text(ftp_rtt_ms)` to `path`."""
    Path(path).write_text(rtt_matrix_text(ftp_rtt_ms), encoding="utf-8")


def group_objects(requests: pd.DataFrame, warmup_ns: int = 0) -> dict[str, float]:
    """Completed HTTP objects (workload 1, started at or after the warm-up) per base-RTT group:
    `objects_rtt<R>` and the share `pct_rtt<R>` (%) for every R of RTT_GROUPS_MS; base RTTs are
    rounded to 1 ms, objects of other RTTs count in the total only."""
    q = measured_responses(requests, warmup_ns)
    q = q[q["workload"] == HTTP_WORKLOAD]
    rtt_ms = np.round(q["base_rtt_ns"].to_numpy(dtype=np.float64) / 1e6).astype(np.int64)
    total = len(q)
    out: dict[str, float] = {}
    for r in RTT_GROUPS_MS:
        n = int((rtt_ms == r).sum())
        out[f"objects_rtt{r}"] = float(n)
        out[f"pct_rtt{r}"] = 100 * n / total if total else math.nan
    return out


def class_metrics(requests: pd.DataFrame, summary: dict, warmup_ns: int = 0) -> dict[str, float]:
    """Drop rate, per-class drop rates (estimated by retransmissions) and per-class utilization
    of one run (see the module doc)."""
    secs = float(summary["measured_s"])
    q = requests[requests["start_ns"] >= warmup_ns]
    ftp = q[q["workload"] == FTP_WORKLOAD]
    http = q[(q["workload"] == HTTP_WORKLOAD) & (q["kind"] == "http")]
    ftp_retx = math.nan if missing_columns(ftp, ["data_retx"]) else float(ftp["data_retx"].sum())
    # NaN, not a sum treating missing as 0, if a counter was not measured (the testbed's fin_retx).
    http_cols = ["data_retx", "syn_retx", "fin_retx"]
    http_retx = math.nan if missing_columns(http, http_cols) else float(http[http_cols].sum().sum())
    done = http[http["completed"].astype(bool)]
    wire = float(
        (np.ceil(done["response_bytes"].to_numpy(dtype=np.float64) / MSS_B) * (MSS_B + HEADER_B)).sum()
    )
    util = float(summary["utilization"])
    capacity_bps = float(summary["kb_per_s"]) * 8000 / util if util > 0 else math.nan
    util_http = wire * 8 / (capacity_bps * secs) if secs > 0 else math.nan
    return {
        "drops_per_s": float(summary["drops"]) / secs if secs > 0 else math.nan,
        "ftp_drops_per_s": ftp_retx / secs if secs > 0 else math.nan,
        "http_drops_per_s": http_retx / secs if secs > 0 else math.nan,
        "util_http": util_http,
        "util_ftp": util - util_http,
    }


def metrics_of_run(run) -> dict[str, float]:
    """Every per-run column of the study for one run (an aqmlab RunResult or loaded run)."""
    return {
        **class_metrics(run.requests, run.summary, run.warmup_ns),
        **group_objects(run.requests, run.warmup_ns),
    }


RUN_COLUMNS = ("drops_per_s", "ftp_drops_per_s", "http_drops_per_s", "util_http", "util_ftp",
               *RTT_SHARES, *(f"objects_rtt{r}" for r in RTT_GROUPS_MS))  # fmt: skip


#: The sweep table with the per-run columns (RUN_COLUMNS) of each ok run added (NaN for the
#: others); a table that already has them (a sweep shared by several tables) is returned as is.
run_metrics = loaded_run_columns(metrics_of_run, RUN_COLUMNS)


# --------------------------------------------------------------------------------------------
# Issue 34 item 6: the candidate causes of the small gain, one sweep each


#: Sweep files of the candidate causes, studies/pisa/candidates/<name>.toml (PI, PISA, PIMC,
#: seeds 1-3; Table 5.4's experiment, the 50-FTP one (Table 5.7), and the 5-Mbps one (Table 5.9)
#: for the baseline and all candidates together), in the order of the README's table.
CANDIDATES = ("baseline", "one_way", "ssthresh50", "no_window_cap", "pareto_ii", "rto2004", "all",
              "ftp50_baseline", "ftp50_one_way", "ftp50_ssthresh50", "ftp50_no_window_cap",
              "ftp50_pareto_ii", "ftp50_rto2004", "ftp50_all", "bw5_baseline", "bw5_all")  # fmt: skip


def candidate_row(sweep: pd.DataFrame) -> dict[str, CI]:
    """One candidate's results from its sweep table (variants pi, pisa, pimc; one run per queue
    and seed, all ok): for each queue q, `q_objects`, `q_drops_per_s` and `q_mean_qlen` as the mean
    ± 95 % t half-width over seeds, and for PISA and PIMC `q_gain_pct`, the gain over PI in %
    paired by seed (100 · (objects / PI's objects of the same seed − 1), then its t interval)."""
    from aqmlab.reports.stats import t_ci

    df = sweep[sweep["status"] == "ok"].copy()
    df["drops_per_s"] = df["drops"] / df["measured_s"]
    by = {q: df[df["variant"] == q].set_index("seed").sort_index() for q in ("pi", "pisa", "pimc")}
    out: dict[str, CI] = {}
    for q, d in by.items():
        for col, name in (("responses_completed", "objects"), ("drops_per_s", "drops_per_s"),
                          ("mean_qlen", "mean_qlen")):  # fmt: skip
            out[f"{q}_{name}"] = t_ci(d[col].to_numpy(dtype=np.float64))
    for q in ("pisa", "pimc"):
        seeds = by["pi"].index.intersection(by[q].index)
        ratio = by[q].loc[seeds, "responses_completed"] / by["pi"].loc[seeds, "responses_completed"]
        out[f"{q}_gain_pct"] = t_ci(100 * (ratio.to_numpy(dtype=np.float64) - 1))
    return out


def candidate_table(root: str | os.PathLike) -> str:
    """The README's candidate tables (markdown) from `root/<name>/sweep.parquet` for each name
    of CANDIDATES present: objects and gains, then drops/s and mean queues."""
    rows = {n: candidate_row(pd.read_parquet(Path(root) / n / "sweep.parquet"))
            for n in CANDIDATES if (Path(root) / n / "sweep.parquet").exists()}  # fmt: skip

    def f(c: CI, digits: int = 0) -> str:
        return f"{c.mean:.{digits}f} ± {c.half:.{digits}f}"

    head = "| candidate | PI objects | PISA objects | PIMC objects | PISA gain % | PIMC gain % |"
    lines = [head, "|---|---|---|---|---|---|"]
    for n, r in rows.items():
        cells = [f(r["pi_objects"]), f(r["pisa_objects"]), f(r["pimc_objects"])]
        cells += [f(r["pisa_gain_pct"], 1), f(r["pimc_gain_pct"], 1)]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines += ["", "| candidate | drops/s PI | PISA | PIMC | mean queue PI | PISA | PIMC |"]
    lines.append("|---|---|---|---|---|---|---|")
    for n, r in rows.items():
        cells = [f(r[f"{q}_drops_per_s"], 2) for q in ("pi", "pisa", "pimc")]
        cells += [f(r[f"{q}_mean_qlen"], 1) for q in ("pi", "pisa", "pimc")]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _objects(results: Results, table: str, row: str) -> Est:
    return get(results, table, row, "responses_completed")


def _gain_at_least(table: str, aqm: str, threshold: float):
    """Rule: `aqm`'s objects ≥ (1 + threshold) × PI's in `table` (interval arithmetic)."""

    def check(results: Results) -> Check:
        pi, n = _objects(results, table, "PI"), _objects(results, table, aqm)
        c = ge(n, (1 + threshold) * pi, f"Table {table}: {aqm} objects vs {1 + threshold:g} × PI's")
        gain = 100 * (n.mean / pi.mean - 1)
        return note(c, f"(PI {pi}; gain {gain:+.1f} %, rule ≥ {100 * threshold:.0f} %)")

    return check


def pisa_beats_pimc(results: Results) -> Check:
    """Rule: in Tables 5.4, 5.7 and 5.9, PISA's objects ≥ PIMC's (the same PI, so PISA's gain
    ≥ PIMC's)."""
    return all_of(
        ge(_objects(results, t, "PISA"), _objects(results, t, "PIMC"), f"Table {t}: PISA vs PIMC objects")
        for t in ("5.4", "5.7", "5.9")
    )


def pisa_lowest_queue(results: Results) -> Check:
    """Rule: in Tables 5.2 and 5.6, PISA's mean queue is below PI's and PIMC's."""
    parts = []
    for t in ("5.2", "5.6"):
        q = {r: get(results, t, r, "mean_qlen") for r in ("PI", "PISA", "PIMC")}
        parts += [lt(q["PISA"], q[r], f"Table {t} mean queue PISA vs {r}") for r in ("PI", "PIMC")]
    return all_of(parts)


def fewer_drops_than_pi(results: Results) -> Check:
    """Rule: in Tables 5.2, 5.6 and 5.8, PISA's and PIMC's drops/s are below PI's."""
    parts = []
    for t in ("5.2", "5.6", "5.8"):
        pi = get(results, t, "PI", "drops_per_s")
        parts += [
            lt(get(results, t, r, "drops_per_s"), pi, f"Table {t} drops/s {r} vs PI")
            for r in ("PISA", "PIMC")
        ]
    return all_of(parts)


#: "almost zero" beside PI's 4.4 drops/s (§5.1): an order of magnitude below PI's.
DT_DROP_SHARE_OF_PI = 0.1


def droptail_no_drops(results: Results) -> Check:
    """Rule: drop-tail's drops/s is below a tenth of PI's (Table 5.1), and its mean queue is
    above twice PI's (Table 5.2)."""
    return all_of(
        [
            lt(
                get(results, "5.1", "Drop tail", "drops_per_s"),
                DT_DROP_SHARE_OF_PI * get(results, "5.1", "PI", "drops_per_s"),
                "Table 5.1 drops/s drop-tail vs 0.1 × PI's",
            ),
            gt(
                get(results, "5.2", "Drop Tail", "mean_qlen"),
                2 * get(results, "5.2", "PI", "mean_qlen"),
                "Table 5.2 mean queue drop-tail vs 2 × PI's",
            ),
        ]
    )


def fragile_share_kept(results: Results) -> Check:
    """Rule: in Tables 5.10 and 5.11, the 2000-ms group's share of objects with PISA and with
    PIMC is ≥ PI's − 0.5 percentage points."""
    parts = []
    for t in ("5.10%", "5.11%"):
        pi = get(results, t, "PI", "pct_rtt2000")
        parts += [
            ge(
                get(results, t, r, "pct_rtt2000"),
                pi - 0.5,
                f"Table {t[:-1]} 2000-ms share {r} vs PI − 0.5 pp",
            )
            for r in ("PISA", "PIMC")
        ]
    return all_of(parts)


#: The rule that checks each of the paper's conclusions (studies/pisa/verdicts.csv), by id.
CHECKS = {
    "pisa-gain-std": _gain_at_least("5.4", "PISA", 0.20),
    "pimc-gain-std": _gain_at_least("5.4", "PIMC", 0.15),
    "pisa-gain-ftp50": _gain_at_least("5.7", "PISA", 0.30),
    "pisa-gain-5mbps": _gain_at_least("5.9", "PISA", 0.35),
    "pisa-beats-pimc": pisa_beats_pimc,
    "pisa-lowest-queue": pisa_lowest_queue,
    "pisa-pimc-fewer-drops": fewer_drops_than_pi,
    "pisa-droptail-few-drops": droptail_no_drops,
    "pimc-fragile-share": fragile_share_kept,
}

STUDY = Study(
    name="pisa",
    paper="M. Kim, Proportional Integrator with Short-lived flow Adjustments, MS thesis, WPI, "
    "2004 (seed 003)",
    tables=(
        Table("5.1", "Drop rate of PI and drop-tail (standard)", "standard.toml", DROPS, row_label_51),
        Table(
            "5.2", "Cwnd, drop rate, queue (10 FTP + 100 HTTP, 10 Mbps)", "standard.toml", DROPS, row_label
        ),
        Table("5.3", "Utilization of the 10 Mbps link", "standard.toml", UTIL, row_label_objects),
        Table("5.4", "Web objects in 500 s (standard)", "standard.toml", OBJECTS, row_label_objects),
        Table("5.6", "Cwnd, drop rate, queue (50 FTP + 100 HTTP)", "ftp50.toml", DROPS, row_label),
        Table("5.7", "Web objects in 500 s (50 FTP + 100 HTTP)", "ftp50.toml", OBJECTS, row_label_objects),
        Table("5.8", "Cwnd, drop rate, queue (5 Mbps)", "bw5.toml", DROPS, row_label),
        Table("5.9", "Web objects in 500 s (5 Mbps)", "bw5.toml", OBJECTS, row_label_objects),
        Table(
            "5.10",
            "Web objects per HTTP RTT group, FTP RTT 200 ms",
            "rtt_ftp200.toml",
            RTT_OBJECTS,
            row_label_objects,
        ),
        Table(
            "5.10%",
            "Share of web objects (%) per HTTP RTT group, FTP RTT 200 ms",
            "rtt_ftp200.toml",
            RTT_SHARES,
            row_label_objects,
        ),
        Table(
            "5.11",
            "Web objects per HTTP RTT group, FTP RTT 2000 ms",
            "rtt_ftp2000.toml",
            RTT_OBJECTS,
            row_label_objects,
        ),
        Table(
            "5.11%",
            "Share of web objects (%) per HTTP RTT group, FTP RTT 2000 ms",
            "rtt_ftp2000.toml",
            RTT_SHARES,
            row_label_objects,
        ),
    ),
    checks=CHECKS,  # verdicts and causes: studies/pisa/*.csv
    run_metrics=run_metrics,  # every table's per-run columns (RUN_COLUMNS)
    # Runs are short (≈ 2-4 s of CPU per 500 s run): quick mode keeps the thesis's 500 s (object
    # counts are totals over the run) and cuts the replications from 5 to 2 (34 runs).
    quick_overrides={"sweep.replications": 2},
)
