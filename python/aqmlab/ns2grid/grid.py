"""A study's sweep grid run in ns-2.35: the same sweep points as `aqmlab reproduce STUDY`
(the study's sweep files, expanded by aqmlab.sweeps.run after the quick overrides and the
reading are applied exactly as aqmlab.studies.reproduce applies them), each turned into a seed001.tcl
run (aqmlab.ns2grid.command) or refused with the reason, run (aqmlab.ns2grid.runner) and parsed
(aqmlab.ns2grid.parse) into the results dict aqmlab.studies.reproduce builds from aqmlab's runs: table id
→ DataFrame with `row`, `n` and per metric the mean and `<metric>_ci`, so the study's verdict
checks run on it unchanged.

Layout of OUT (default runs/reproduce/STUDY[-READING][-quick]/ns2/): scenarios/ (the resolved
sweep files), runs/ (one directory per ns-2 run, see the runner), and what `write_results`
writes: results.csv, points.csv and report.md.
"""

from __future__ import annotations

import datetime as _dt
import functools
import io
import math
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from aqmlab.ns2grid import parse, runner
from aqmlab.ns2grid.command import Ns2Point, Refused, ns2_point
from aqmlab.studies import Study, Table

#: The columns of a point table besides the sweep axes and the metrics.
META = ("run", "variant", "replication", "seed")


@dataclass
class Point:
    """One distinct sweep point of a table: its aqmlab sweep run, and its ns-2 run or the
    reason it has none."""

    table: str
    run: object  # aqmlab.sweeps.run.SweepRun
    axes: tuple[str, ...]
    ns2: Ns2Point | None
    refused: str | None


def study_points(study: Study, quick: bool, out: Path, reading: str | None = None,
                 studies_dir: Path | None = None, nearest: bool = False) -> list[Point]:  # fmt: skip
    """Every distinct point of every table's sweep (tables sharing a file share its points);
    `nearest`: settings ns-2.35 lacks run at its nearest counterpart (`ns2_point`)."""
    from aqmlab.studies.sweep_files import REPO_ROOT, ReproduceError, resolved_sweep_file
    from aqmlab.sweeps.run import expand

    sdir = (studies_dir or REPO_ROOT / "studies") / study.name
    try:
        rd = study.reading(reading)
    except ValueError as e:
        raise ReproduceError(str(e)) from None
    try:
        mapper = point_mapper(study.name, nearest)
    except ValueError as e:
        raise ReproduceError(str(e)) from None
    points: list[Point] = []
    sweeps = {}
    for table in study.tables:  # each sweep file once, with its first table's overrides (as reproduce)
        src = sdir / table.scenario
        if not src.is_file():
            raise ReproduceError(f"{src}: table {table.id}: scenario: no such sweep file")
        if table.scenario not in sweeps:
            scenario = src
            if quick or rd is not None:
                over = {**study.quick_overrides, **table.quick_overrides} if quick else {}
                scenario = resolved_sweep_file(src, over, out / "scenarios", rd)
            sweeps[table.scenario] = expand(scenario)
        sweep = sweeps[table.scenario]
        seen: set[str] = set()
        for r in sweep.runs:
            if r.id in seen:
                continue
            seen.add(r.id)
            try:
                p, why = mapper(r.doc, sweep.base_dir), None
            except Refused as e:
                p, why = None, f"refused: {table.scenario}: {e}"
            points.append(Point(table.id, r, tuple(sweep.axes), p, why))
    return points


def point_mapper(study: str, nearest: bool = False):
    """The function that maps one resolved sweep point of `study` to its ns-2 run: the seed 003
    twin's script for pisa (aqmlab.ns2grid.pisa), the seed 002 twin's for weigle-multi
    (aqmlab.ns2grid.parkinglot), the seed 001 script for the others (`nearest`: only there)."""
    if nearest and study in ("pisa", "weigle-multi"):
        raise ValueError(f"--ns2-nearest: {study}'s ns-2 script has no nearest settings (seed 001's only)")
    if study == "pisa":
        from aqmlab.ns2grid.pisa import pisa_point

        return pisa_point
    if study == "weigle-multi":
        from aqmlab.ns2grid.parkinglot import parkinglot_point

        return parkinglot_point
    return functools.partial(ns2_point, nearest=nearest)


def run_metrics(runs: Path, p: Ns2Point) -> dict[str, float]:
    """The columns of one finished run, by the parser of its script."""
    if p.output == "pisa":
        from aqmlab.ns2grid.pisa import pisa_metrics

        return pisa_metrics(runs / p.key(), runner.stdout_of(runs, p), p)
    if p.output == "parkinglot":
        from aqmlab.ns2grid.parkinglot import parkinglot_metrics

        return parkinglot_metrics(runs / p.key(), runner.stdout_of(runs, p), p)
    return parse.metrics(runs / p.key(), runner.stdout_of(runs, p), p.warmup_s, p.measured_s,
                         p.bottleneck_bps)  # fmt: skip


def point_frame(points: list[Point], runs: Path, status: dict[str, str | None]) -> pd.DataFrame:
    """One row per point: META, the sweep axes, `status` (ok / refused / failed / pending),
    `error`, `wall_s` and every metric of aqmlab.ns2grid.parse (NaN unless ok)."""
    rows = []
    for pt in points:
        r = pt.run
        row = {"table": pt.table, "run": pt.ns2.key() if pt.ns2 else "", "variant": r.name,
               "replication": r.replication, "seed": r.seed}  # fmt: skip
        row.update({a: r.values.get(a) if a in r.applies else None for a in pt.axes})
        row["nearest"] = "; ".join(pt.ns2.nearest) if pt.ns2 else ""
        if pt.ns2 is None:
            row.update(status="refused", error=pt.refused)
        else:
            k = pt.ns2.key()
            if k not in status:
                row.update(status="pending", error=None)
            elif status[k] is not None:
                row.update(status="failed", error=status[k])
            else:
                row.update(status="ok", error=None, wall_s=runner.wall_of(runs, pt.ns2))
                m = run_metrics(runs, pt.ns2)
                stop = pt.ns2.stop_after_responses
                if stop is not None and m["responses_completed"] >= stop:
                    row.update(status="failed", error=(
                        f"run.stop_after_responses = {stop}: ns-2 completed "
                        f"{m['responses_completed']:.0f} measured responses, and cannot stop at a "
                        "count; this run is longer than the sweep point"))  # fmt: skip
                else:
                    row.update(m)
        rows.append(row)
    return pd.DataFrame(rows)


def table_results(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """aqmlab.studies.paper_tables.table_results on this table's ns-2 rows (refused, failed and pending
    rows left out, as aqmlab leaves out its runs that are not ok)."""
    from aqmlab.studies.paper_tables import table_results as aqmlab_table_results

    sub = frame[frame["table"] == table.id]
    if "status" not in sub:
        sub = sub.assign(status=[])
    return aqmlab_table_results(sub, table)


def ns2_version(ns: str = "ns") -> str:
    """ns-2's own version string (`ns-version`), with the binary's name."""
    try:
        p = subprocess.run([ns], input="puts [ns-version]; exit 0\n", capture_output=True, text=True,
                           timeout=60)  # fmt: skip
        return f"ns-{p.stdout.strip()}" if p.returncode == 0 and p.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def default_out(study: str, quick: bool, reading: str | None = None) -> Path:
    """runs/reproduce/STUDY[-READING][-quick]/ns2 (beside aqmlab's reproduction)."""
    from aqmlab.studies.sweep_files import default_out as aqmlab_out

    return aqmlab_out(study, quick, reading=reading) / "ns2"


@dataclass
class Grid:
    """A study's ns-2 grid as run: its points, their table (`point_frame`) and the results
    dict (table id → aqmlab.studies.paper_tables.table_results shape)."""

    study: Study
    out: Path
    points: list[Point]
    frame: pd.DataFrame
    results: dict[str, pd.DataFrame]
    wall_s: float


def run_grid(study: Study | str, quick: bool, out: str | os.PathLike | None = None,
             reading: str | None = None, jobs: int = 2, ns: str = "ns", log=None,
             run: bool = True, nearest: bool = False) -> Grid:  # fmt: skip
    """Expand, run (unless `run` is False: then only what is already on disk counts) and parse
    the ns-2 grid of `study` (`nearest`: see `study_points`)."""
    from aqmlab.studies import load

    study = load(study) if isinstance(study, str) else study
    rd = study.reading(reading)
    out = Path(out) if out is not None else default_out(study.name, quick, rd and rd.name)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    points = study_points(study, quick, out, reading, nearest=nearest)
    runs = out / "runs"
    todo = [p.ns2 for p in points if p.ns2 is not None]
    if run:
        status = runner.run_all(runs, todo, jobs=jobs, ns=ns, log=log)
    else:
        status = {p.key(): None for p in todo if runner.finished(runs, p, ns)}
    frame = point_frame(points, runs, status)
    results = {t.id: table_results(frame, t) for t in study.tables}
    return Grid(study, out, points, frame, results, time.monotonic() - t0)


def ns2_results(study: Study | str, quick: bool, out_dir: str | os.PathLike | None = None,
                reading: str | None = None, jobs: int = 2) -> dict[str, pd.DataFrame]:  # fmt: skip
    """The study's results dict computed from ns-2.35 runs of its grid (table id → DataFrame
    with `row`, `n`, `<metric>`, `<metric>_ci`, as aqmlab.studies.reproduce builds from aqmlab's runs),
    running what is not on disk yet in `out_dir` (default: `default_out`)."""
    return run_grid(study, quick, out_dir, reading=reading, jobs=jobs).results


# --- what the grid writes ---------------------------------------------------------------------


def results_long(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The results dict as one long table: table, row, metric, mean, ci, n."""
    rows = []
    for tid, df in results.items():
        # numeric columns only: `steady` ("yes", "no (k/n)", "-") is a run-health flag, not a metric
        metrics = [c for c in df.columns if c not in ("row", "n", "steady") and not c.endswith("_ci")]
        for _, r in df.iterrows():
            for m in metrics:
                rows.append({"table": tid, "row": r["row"], "metric": m, "mean": r[m],
                             "ci": r.get(f"{m}_ci", math.nan), "n": int(r["n"])})  # fmt: skip
    return pd.DataFrame(rows, columns=["table", "row", "metric", "mean", "ci", "n"])


def read_results(path: str | os.PathLike) -> tuple[dict[str, pd.DataFrame], str]:
    """A results.csv written by `write_results` back as the results dict (table id → `row`, `n`,
    each metric's mean and `_ci`), and its provenance (the header's `# date: …` line)."""
    text = Path(path).read_text(encoding="utf-8")
    about = next((ln[2:] for ln in text.splitlines() if ln.startswith("# date:")), "")
    long = pd.read_csv(io.StringIO(text), comment=None, skiprows=sum(1 for ln in text.splitlines()
                                                                      if ln.startswith("#")))  # fmt: skip
    out = {}
    for tid, g in long.groupby("table", sort=False):
        rows = []
        for row, r in g.groupby("row", sort=False):
            d = {"row": row, "n": int(r["n"].max())}
            for _, m in r.iterrows():
                d[m["metric"]], d[f"{m['metric']}_ci"] = float(m["mean"]), float(m["ci"])
            rows.append(d)
        out[str(tid)] = pd.DataFrame(rows)
    return out, about


def explain(
    verdicts: list,
    frame: pd.DataFrame,
    study: Study | None = None,
    results: dict[str, pd.DataFrame] | None = None,
) -> list:
    """`verdicts` (aqmlab.studies.verdicts.VerdictResult) with the evidence of each one not evaluated
    for want of a row said in ns-2 terms: the refusal of the variant it needed, or that its
    run has not finished. A row is found by its variant's name or, given the `study`, by its
    table's row label (pisa's 'PISA' is variant 'pisa'). Given the `study` and the `results`
    the verdicts were evaluated on, a verdict that changes when the rows run at ns-2.35's
    nearest setting (the frame's `nearest` column) are left out gets NEAREST_MARK before its
    evidence."""
    from aqmlab.studies.compare import Outcome
    from aqmlab.studies.verdicts import VerdictResult

    labels = [str(v) for v in frame["variant"]]
    if study is not None and len(frame):
        tables = {t.id: t for t in study.tables}
        labels = [tables[t].row_label(r) if t in tables else None for t, (_, r) in
                  zip(frame["table"], frame.iterrows(), strict=True)]  # fmt: skip
    frame = frame.assign(_label=labels)
    out = []
    for v in verdicts:
        if v.outcome == Outcome.NOT_EVALUATED:
            for status in ("refused", "failed", "pending"):
                rows = frame[frame["status"] == status]
                hit = [(n, lb) for n, lb in zip(rows["variant"], rows["_label"], strict=True) if n and (
                    f"queue={n}'" in v.evidence or f"'{n}'" in v.evidence
                    or (lb and f"'{lb}'" in v.evidence))]  # fmt: skip
                names = sorted({n for n, _ in hit})
                if names:
                    first = rows[rows["variant"] == names[0]]["error"].iloc[0]
                    why = first if status != "pending" else "its ns-2 run has not finished"
                    v = VerdictResult(v.id, v.claim, Outcome.NOT_EVALUATED,
                                      f"not run in ns-2.35 ({', '.join(names)}): {why}")  # fmt: skip
                    break
        out.append(v)
    return _mark_nearest(out, frame, study, results)


def _mark_nearest(verdicts: list, frame: pd.DataFrame, study: Study | None,
                  results: dict[str, pd.DataFrame] | None) -> list:  # fmt: skip
    from aqmlab.studies.compare import Outcome
    from aqmlab.studies.verdicts import NEAREST_MARK, VerdictResult, evaluate

    if study is None or results is None or "nearest" not in frame:
        return verdicts
    near = frame[frame["nearest"].fillna("").astype(str).str.len().gt(0) & (frame["status"] == "ok")]
    if near.empty:
        return verdicts
    rows: dict[str, set] = {}
    for t, lb in zip(near["table"], near["_label"], strict=True):
        rows.setdefault(str(t), set()).add(lb)
    exact = {t: df[~df["row"].isin(rows.get(t, set()))] for t, df in results.items()}
    out = []
    for v, e in zip(verdicts, evaluate(study, exact), strict=True):
        if v.outcome != Outcome.NOT_EVALUATED and (v.outcome, v.evidence) != (e.outcome, e.evidence):
            why = "; ".join(sorted(set(near["nearest"])))
            v = VerdictResult(v.id, v.claim, v.outcome, f"{NEAREST_MARK} ({why}): {v.evidence}")
        out.append(v)
    return out


def explain_published(study: Study, verdicts: list, ns2_dir: Path) -> list:
    """`explain` with the points and results of a published grid (NS2_DIR/points.csv and
    results.csv, written by `write_results`); `verdicts` unchanged if there are none."""
    path = Path(ns2_dir) / "points.csv"
    if not path.is_file():
        return verdicts
    frame = pd.read_csv(path, comment="#", dtype={"variant": str, "table": str, "error": str,
                                                  "nearest": str})  # fmt: skip
    res = Path(ns2_dir) / "results.csv"
    return explain(verdicts, frame, study, read_results(res)[0] if res.is_file() else None)


def write_results(grid: Grid, command: str, ns_version: str, verdicts: list) -> Path:
    """OUT/results.csv (the results dict, long), OUT/points.csv (every point: status, reason,
    wall time) and OUT/report.md (date, command, ns-2 version, wall time, the verdicts, the
    refused points); returns the report's path."""
    from aqmlab.reports.page_text import md_table, write_atomic

    out = grid.out
    fr = grid.frame
    ok = fr["status"] == "ok"
    walls = fr.loc[ok].drop_duplicates("run")["wall_s"] if ok.any() else pd.Series([], dtype=float)
    header = (f"# {grid.study.name}: ns-2.35 grid results (aqmlab.ns2grid)\n"
              f"# date: {_dt.date.today().isoformat()}; command: {command}; {ns_version}; "
              f"{walls.size} ns-2 runs, {walls.sum():.0f} s of ns-2 wall time; this command "
              f"{grid.wall_s:.0f} s{_nearest_about(fr)}\n")  # fmt: skip
    long = results_long(grid.results)
    write_atomic(out / "results.csv", (header + long.to_csv(index=False, float_format="%.6g")).encode())
    cols = [c for c in ("table", "run", "variant", *_axis_columns(grid), "status", "wall_s", "error",
                        "nearest")
            if c in grid.frame.columns]  # fmt: skip
    write_atomic(out / "points.csv", (header + grid.frame[cols].to_csv(index=False)).encode())
    n_ok, n_ref = int(ok.sum()), int((fr["status"] == "refused").sum())
    n_bad = len(fr) - n_ok - n_ref
    lines = [
        f"# ns-2.35 on the {grid.study.name} grid", "",
        f"Date: {_dt.date.today().isoformat()}  ",
        f"Command (from the repository root): `{command}`  ",
        f"Simulator: {ns_version} (Debian `ns2`), script `{_script_of(grid)}` "
        "(aqmlab.ns2grid maps every sweep point to its options)  ",
        f"Points: {n_ok} run, {n_ref} refused (a setting ns-2.35 cannot express), {n_bad} failed "
        f"or pending; {walls.size} distinct ns-2 runs, {walls.sum():.0f} s of ns-2 time; this "
        f"command's wall time {grid.wall_s:.0f} s{_nearest_about(fr)}.  ",
        "Results: `results.csv` (table, row, metric, mean, ci, n: the results dict the verdicts "
        "read); every point with its status in `points.csv`. A check that reads only the rows "
        "present (e.g. Reno vs SACK) is decided on the points that ran: the others are listed "
        "below.", "",
        "## Verdicts computed from the ns-2.35 runs", "",
        md_table(["claim", "ns-2.35", "evidence"],
                  [[v.claim, str(v.outcome), v.evidence] for v in verdicts]), "",
    ]  # fmt: skip
    reasons = (
        fr[fr["status"] != "ok"]
        .fillna({"error": "pending: its ns-2 run has not finished"})
        .groupby("error")["variant"]
        .agg(lambda s: ", ".join(sorted(set(s))))
    )
    if len(reasons):
        lines += ["## Points without an ns-2.35 result", ""]
        lines += [f"- {names}: {why}" for why, names in reasons.items()] + [""]
    path = out / "report.md"
    write_atomic(path, "\n".join(lines).encode("utf-8"))
    return path


def _nearest_about(frame: pd.DataFrame) -> str:
    """ "; N points (variants) at ns-2.35's nearest setting: why" for the points run with
    `nearest`, or "" when every point ran as stated."""
    if "nearest" not in frame or not frame["nearest"].astype(bool).any():
        return ""
    near = frame[frame["nearest"].astype(bool) & (frame["status"] == "ok")]
    parts = [f"{len(g)} points ({', '.join(sorted(set(g['variant'])))}) at ns-2.35's nearest setting: {why}"
             for why, g in near.groupby("nearest")]  # fmt: skip
    return "; " + "; ".join(parts) if parts else ""


def _axis_columns(grid: Grid) -> list[str]:
    axes: list[str] = []
    for p in grid.points:
        axes += [a for a in p.axes if a not in axes]
    return axes


def _script_of(grid: Grid) -> str:
    from aqmlab.ns2grid.command import REPO_ROOT

    mapped = [p.ns2 for p in grid.points if p.ns2 is not None]
    scripts = sorted({str(p.script.relative_to(REPO_ROOT)) for p in mapped})
    return ", ".join(scripts) or "none (every point refused)"
