"""Seed 003 (Kim 2004, PISA and PIMC vs PI and drop-tail): Tables 5.1-5.4 (standard
experiment), 5.6-5.7 (50 FTP flows) and 5.8-5.9 (5 Mbps), with the thesis's conclusions as
verdicts. Data and setup notes: studies/pisa/ (README.md, paper.csv, the sweep files).

Compared columns: `responses_completed` (the thesis's "Number of Object": web objects completed
in the 500 s run), `mean_qlen`, `utilization`, and the drop rate as `drops` / `measured_s`
(the summary has no drops-per-second column; paper.csv's `drops_per_s` rows are the thesis's
values). Per-class values (FTP/HTTP cwnd, drops, utilization) are transcribed in paper.csv but
aqmlab's summary has no per-workload columns, so they are not compared. Tables 5.10-5.11 (objects
per RTT group) are not reproduced: they need per-group object counts.
"""

from __future__ import annotations

import pandas as pd

from aqmlab.studies import Study, Table, Verdict

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


DROPS = ("drops", "measured_s", "mean_qlen")
OBJECTS = ("responses_completed",)


def _value(results: dict[str, pd.DataFrame], table: str, row: str, metric: str) -> tuple[float, float]:
    """(mean, CI half-width) of `metric` in row `row` of table `table`; KeyError if missing."""
    df = results[table]
    hit = df[df["row"] == row]
    if hit.empty:
        raise KeyError(f"table {table} has no row {row!r}")
    r = hit.iloc[0]
    ci = r.get(f"{metric}_ci", float("nan"))
    return float(r[metric]), float(ci)


def objects_gain(results: dict[str, pd.DataFrame], table: str, aqm: str) -> tuple[float, str]:
    """Relative gain in objects of `aqm` over PI in `table` (0.22 = 22 % more) and its evidence."""
    n_pi, ci_pi = _value(results, table, "PI", "responses_completed")
    n, ci = _value(results, table, aqm, "responses_completed")
    gain = n / n_pi - 1.0
    ev = f"Table {table}: {aqm} {n:.0f} ± {ci:.0f} vs PI {n_pi:.0f} ± {ci_pi:.0f} objects"
    return gain, f"{ev} ({100 * gain:+.1f} %)"


def drop_rate(results: dict[str, pd.DataFrame], table: str, row: str) -> float:
    """Drops per second at the forward bottleneck: mean drops / mean measured seconds."""
    return _value(results, table, row, "drops")[0] / _value(results, table, row, "measured_s")[0]


def _gain_at_least(table: str, aqm: str, threshold: float):
    def check(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
        gain, ev = objects_gain(results, table, aqm)
        return gain >= threshold, f"{ev}; rule: gain ≥ {100 * threshold:.0f} %"

    return check


def _pisa_beats_pimc(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    parts, ok = [], True
    for t in ("5.4", "5.7", "5.9"):
        g_sa, _ = objects_gain(results, t, "PISA")
        g_mc, _ = objects_gain(results, t, "PIMC")
        ok &= g_sa >= g_mc
        parts.append(f"{t}: PISA {100 * g_sa:+.1f} % vs PIMC {100 * g_mc:+.1f} %")
    return ok, "; ".join(parts) + "; rule: PISA's gain ≥ PIMC's in all three tables"


def _pisa_lowest_queue(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    q = {r: _value(results, "5.2", r, "mean_qlen")[0] for r in ("PI", "PISA", "PIMC")}
    ok = q["PISA"] < q["PI"] and q["PISA"] < q["PIMC"]
    ev = ", ".join(f"{r} {v:.1f}" for r, v in q.items())
    return ok, f"Table 5.2 mean queue (packets): {ev}; rule: PISA below PI and PIMC"


def _fewer_drops_than_pi(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    d = {r: drop_rate(results, "5.2", r) for r in ("PI", "PISA", "PIMC")}
    ok = d["PISA"] < d["PI"] and d["PIMC"] < d["PI"]
    ev = ", ".join(f"{r} {v:.3f}" for r, v in d.items())
    return ok, f"Table 5.2 drops/s: {ev}; rule: PISA and PIMC below PI"


def _droptail_no_drops(results: dict[str, pd.DataFrame]) -> tuple[bool, str]:
    d = drop_rate(results, "5.1", "Drop tail")
    q_dt = _value(results, "5.2", "Drop Tail", "mean_qlen")[0]
    q_pi = _value(results, "5.2", "PI", "mean_qlen")[0]
    ok = d < 0.1 and q_dt > 2.0 * q_pi
    return ok, (
        f"Table 5.1/5.2 drop-tail: {d:.3f} drops/s, mean queue {q_dt:.1f} vs PI {q_pi:.1f}; "
        "rule: < 0.1 drops/s and queue > 2 × PI's"
    )


VERDICTS = (
    Verdict(
        "PISA delivers ≥ 20 % more web objects than PI in the standard experiment (Table 5.4: +22 %)",
        _gain_at_least("5.4", "PISA", 0.20),
    ),
    Verdict(
        "PIMC delivers ≥ 15 % more web objects than PI in the standard experiment (Table 5.4: +18 %)",
        _gain_at_least("5.4", "PIMC", 0.15),
    ),
    Verdict(
        "With 50 FTP flows PISA delivers ≥ 30 % more objects than PI (Table 5.7: +32.7 %)",
        _gain_at_least("5.7", "PISA", 0.30),
    ),
    Verdict(
        "At 5 Mbps PISA delivers ≥ 35 % more objects than PI (Table 5.9: +41 %)",
        _gain_at_least("5.9", "PISA", 0.35),
    ),
    Verdict(
        "PISA performs at least as well as PIMC for web objects (§6.1; Tables 5.4, 5.7, 5.9)",
        _pisa_beats_pimc,
    ),
    Verdict(
        "PISA keeps the lowest average queue of the three PI queues (Table 5.2: 162 vs 197, 195)",
        _pisa_lowest_queue,
    ),
    Verdict(
        "PISA and PIMC drop fewer packets per second than PI (Table 5.2: 3.73, 2.62 vs 4.44)",
        _fewer_drops_than_pi,
    ),
    Verdict(
        "Drop-tail with 800 packets drops almost nothing but holds a long queue (Tables 5.1, 5.2: "
        "0.014 drops/s, 505 packets)",
        _droptail_no_drops,
    ),
)

STUDY = Study(
    name="pisa",
    paper="M. Kim, Proportional Integrator with Short-lived flow Adjustments, MS thesis, WPI, "
    "2004 (seed 003)",
    tables=(
        Table("5.1", "Drop rate of PI and drop-tail (standard)", "standard.toml", DROPS, row_label_51),
        Table(
            "5.2", "Cwnd, drop rate, queue (10 FTP + 100 HTTP, 10 Mbps)", "standard.toml", DROPS, row_label
        ),
        Table("5.3", "Utilization of the 10 Mbps link", "standard.toml", ("utilization",), row_label_objects),
        Table("5.4", "Web objects in 500 s (standard)", "standard.toml", OBJECTS, row_label_objects),
        Table("5.6", "Cwnd, drop rate, queue (50 FTP + 100 HTTP)", "ftp50.toml", DROPS, row_label),
        Table("5.7", "Web objects in 500 s (50 FTP + 100 HTTP)", "ftp50.toml", OBJECTS, row_label_objects),
        Table("5.8", "Cwnd, drop rate, queue (5 Mbps)", "bw5.toml", DROPS, row_label),
        Table("5.9", "Web objects in 500 s (5 Mbps)", "bw5.toml", OBJECTS, row_label_objects),
    ),
    verdicts=VERDICTS,
    # Runs are short (≈ 2-4 s of CPU per 500 s run): quick mode keeps the thesis's 500 s (object
    # counts are totals over the run) and cuts the replications from 5 to 2 (22 runs).
    quick_overrides={"sweep.replications": 2},
)
