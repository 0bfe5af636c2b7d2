"""`aqmlab reproduce STUDY [--quick]`: run a study's sweeps and set aqmlab's numbers beside the
paper's (issue 6; the study interface is aqmlab.studies).

Steps, for a study (aqmlab.studies.load(NAME)) and an output directory OUT:
1. Each distinct sweep file of the study's tables (studies/NAME/<scenario>) runs once with
   aqmlab.sweeps.run.run_sweep into OUT/sweeps/<file stem>/ (resume comes with it: a run finished by the same
   engine build is never recomputed). In quick mode the study's `quick_overrides` (then the table's own, if it
   has any) are applied to the sweep document first; the resolved sweep file is written to
   OUT/scenarios/<file> and that file runs (aqmlab.studies.sweep_files: the override rule).
2. Each ok run of the sweep gets its paper row label from `Table.row_label` (None: left out);
   per row and metric, the mean over replications and the half width of the 95 % Student-t
   interval (aqmlab.reports.stats.summary_ci; NaN with one replication).
3. paper.csv (table,row,metric,value) is joined on (table, row, metric): the difference is
   aqmlab's mean − the paper's value (steps 2-3: aqmlab.studies.paper_tables).
4. Each verdict's rule runs on aqmlab's {table id: results}, on the paper's own numbers
   (paper.csv as a results dict) and, if given, on ns-2.35's results of the same grid
   (aqmlab.studies.verdicts, docs/verdicts.md): holds, fails, within noise (95 % intervals), or not
   evaluated with the reason (e.g. a row that quick mode does not run).
5. OUT/report.md and OUT/report.html (self-contained) hold the date, the command (as a user can
   rerun it from the repository root: `rerunnable_argv`), per
   table the paper / aqmlab ± CI / difference lines, the verdict table (claim, aqmlab,
   ns-2.35, paper, cause, evidence; the quotes under it), and the figures of
   each sweep's own report (aqmlab.sweeps.report, also written into each sweep directory).
   Every file is written under a temporary name and renamed.

`--reading R` runs one of the study's readings of the paper's setup (aqmlab.studies.Reading):
its overrides (key paths, as in quick mode) are applied and its queue options set in every
matching queue table of every sweep file before step 1 (the resolved files are written to
OUT/scenarios/ and run from there); the default output becomes runs/reproduce/NAME-R[-quick] and
`--publish` goes to docs/reproductions/NAME-R/.

`--publish` copies report.md and its figures to docs/reproductions/NAME/.

Validation: python/tests/test_reproduce.py.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from aqmlab.reports.page_text import html_figure, html_page, html_table, md_table, write_atomic
from aqmlab.reports.run_report import fmt_value
from aqmlab.storage.run_dir import check_out_dir
from aqmlab.studies import Reading, Study, Table
from aqmlab.studies.paper_tables import PAPER_CSV, RUN_HEALTH, join_paper, read_paper, table_results
from aqmlab.studies.sweep_files import REPO_ROOT, ReproduceError, default_out, resolved_sweep_file
from aqmlab.studies.verdicts import (  # noqa: F401 (evaluate, VerdictResult re-exported)
    HEADER,
    VerdictResult,
    VerdictRow,
    evaluate,
    paper_results,
    tally,
    verdict_table,
)

_FIG_LINE = re.compile(r"^!\[(?P<name>.+)\]\(report/(?P<file>fig\d+\.png)\)$")


# ---------------------------------------------------------------------------------------------
# 5. the report (steps 2-3: aqmlab.studies.paper_tables; 4: aqmlab.studies.verdicts)


def _cell(v: float) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt_value(v)


def _mean_ci(mean: float, ci: float) -> str:
    if math.isnan(mean):
        return "–"
    return fmt_value(mean) if math.isnan(ci) else f"{fmt_value(mean)} ± {fmt_value(ci)}"


def _diff(d: float) -> str:
    if math.isnan(d):
        return "–"
    return ("+" if d > 0 else "") + fmt_value(d)


def table_lines(table: Table, joined: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one table of the report: three lines per paper row (paper, aqmlab
    mean ± CI with the number of replications, difference)."""
    health = [m for m in RUN_HEALTH if m not in table.metrics]
    header = ["row", "", *table.metrics, *health, "steady"]
    rows = []
    for d in joined:
        ms = [d["metrics"][m] for m in table.metrics]
        hs = [_mean_ci(*d[m]) if m in d else "–" for m in health]
        blank = ["–"] * (len(health) + 1)
        rows.append([d["row"], "paper", *[_cell(x["paper"]) for x in ms], *blank])
        rows.append(["", f"aqmlab (n={d['n']})", *[_mean_ci(x["mean"], x["ci"]) for x in ms], *hs,
                     d.get("steady", "-")])  # fmt: skip
        rows.append(["", "difference", *[_diff(x["diff"]) for x in ms], *blank])
    return header, rows


def _verdict_intro(verdicts: list[VerdictRow]) -> list[str]:
    return [
        f"aqmlab: {tally(verdicts)}. Each rule compares 95 % intervals over replications "
        "(docs/verdicts.md): `within noise` = the intervals straddle the rule's line. `paper`: the "
        "rule on the paper's own numbers (paper.csv); `cause`: why a conclusion does not hold. "
        "The quote each rule checks is listed under the table."
    ]


def _verdict_notes_md(verdicts: list[VerdictRow]) -> list[str]:
    out = []
    for v in verdicts:
        notes = v.notes()
        out.append(f"- `{v.id}`: {notes[0]}")
        out += [f"  - {n}" for n in notes[1:]]
    return out


def _html_verdicts(verdicts: list[VerdictRow]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
    trs = []
    for v in verdicts:
        cells = v.cells()
        first = f'<td title="{html.escape(v.quote, quote=True)}">{html.escape(cells[0])}</td>'
        trs.append("<tr>" + first + "".join(f"<td>{html.escape(c)}</td>" for c in cells[1:]) + "</tr>")
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(trs)}</tbody></table>"


@dataclass
class SweepOutcome:
    """One sweep of the study as run: its file, directory, run counts and report figures
    (section name, PNG path)."""

    scenario: Path
    dir: Path
    ok: int
    failed: int
    figures: list[tuple[str, Path]]


def _sweep_figures(sweep_dir: Path) -> list[tuple[str, Path]]:
    from aqmlab.sweeps.report import write_sweep_report

    try:
        _, md = write_sweep_report(sweep_dir)
    except FileNotFoundError:
        return []
    figs = []
    for line in md.read_text(encoding="utf-8").splitlines():
        m = _FIG_LINE.match(line)
        if m:
            figs.append((m.group("name"), sweep_dir / "report" / m.group("file")))
    return figs


def _has_paper_numbers(tables: list[tuple[Table, list[dict]]]) -> bool:
    """Whether any row of any table has a paper value."""
    return any(
        not math.isnan(x["paper"]) for _, joined in tables for d in joined for x in d["metrics"].values()
    )


def write_report(
    out: Path,
    study: Study,
    tables: list[tuple[Table, list[dict]]],
    verdicts: list[VerdictRow],
    sweeps: list[SweepOutcome],
    command: str,
    date: str,
    quick: bool,
    reading: Reading | None = None,
    ns2_about: str | None = None,
) -> tuple[Path, Path]:
    """Write OUT/report.md (figures copied to OUT/figures/) and OUT/report.html (figures
    embedded); returns both paths. `ns2_about` says where the ns-2.35 column's results come
    from (None: not run)."""
    title = (
        f"Reproduction: {study.name}"
        + (f", reading {reading.name!r}" if reading else "")
        + (" (quick)" if quick else "")
    )
    n_ok = sum(s.ok for s in sweeps)
    n_failed = sum(s.failed for s in sweeps)
    intro = [
        f"Paper: {study.paper}",
        f"Date: {date}",
        f"Command (from the repository root): `{command}`",
        f"Mode: {'quick (quick_overrides applied: ' + _overrides_text(study) + ')' if quick else 'full'}; "
        f"{n_ok} runs finished, {n_failed} failed.",
        "Each table: per paper row, the paper's value, aqmlab's mean ± 95 % CI over replications "
        "(no interval with one replication) and the difference aqmlab − paper."
        if _has_paper_numbers(tables)
        else "Each table: per row, aqmlab's mean ± 95 % CI over replications (no interval with one "
        "replication); the study has no paper numbers to set beside them.",
        "ns-2.35 column: "
        + (
            f"the same grid run in ns-2.35, from {ns2_about}"
            if ns2_about
            else f"not applicable: {study.ns2_refused}"
            if study.ns2_refused
            else f"not run (`aqmlab reproduce {study.name} --ns2` runs the grid in ns-2.35)"
        ),
    ]
    if reading is not None:
        opts = ", ".join(
            f"{k} = {v!r}" if v is not None else f"{k} removed" for k, v in reading.queue_options.items()
        )
        sets = [f"set in every {'/'.join(reading.kinds)} queue: {opts}"] if opts else []
        over = ", ".join(f"{k} = {v!r}" for k, v in reading.overrides.items())
        sets += [f"in every sweep file: {over}"] if over else []
        what = "; ".join(sets)
        intro.insert(4, f"Reading {reading.name!r}: {reading.about} {what[:1].upper() + what[1:]}.")
    elif study.readings:
        intro.insert(4, f"Reading {study.default_reading!r}: the sweep files as they are.")
    md = [f"# {title}", ""] + [f"{line}  " for line in intro] + [""]
    body = [f"<h1>{html.escape(title)}</h1>"] + [
        f"<p>{html.escape(line).replace('`', '')}</p>" for line in intro
    ]

    md += [
        "## Verdicts",
        "",
        *_verdict_intro(verdicts),
        "",
        md_table(list(HEADER), [v.cells() for v in verdicts]),
        "",
        *_verdict_notes_md(verdicts),
        "",
    ]
    body += [
        "<h2>Verdicts</h2>",
        *(f"<p>{html.escape(line).replace('`', '')}</p>" for line in _verdict_intro(verdicts)),
        _html_verdicts(verdicts),
        "<ul>"
        + "".join(
            f"<li><b>{html.escape(v.id)}</b>: " + "<br>".join(html.escape(n) for n in v.notes()) + "</li>"
            for v in verdicts
        )
        + "</ul>",
    ]

    for table, joined in tables:
        name = f"Table {table.id}: {table.title}"
        h, r = table_lines(table, joined)
        md += [f"## {name}", "", f"Sweep: `{table.scenario}`", "", md_table(h, r), ""]
        body += [f"<h2>{html.escape(name)}</h2>", f"<p>Sweep: {html.escape(table.scenario)}</p>",
                 html_table(h, r)]  # fmt: skip

    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    for s in sweeps:
        md += [f"## Figures of {s.scenario.name}", ""]
        body += [f"<h2>Figures of {html.escape(s.scenario.name)}</h2>"]
        if s.failed:
            md += [f"{s.failed} run(s) failed: see {s.dir}/report.md.", ""]
        for name, png in s.figures:
            rel = f"figures/{s.scenario.stem}-{png.name}"
            data = png.read_bytes()
            write_atomic(out / rel, data)
            md += [f"### {name}", "", f"![{name}]({rel})", ""]
            body += html_figure(name, data, "h3")

    page = html_page(title, body)
    md_path, html_path = out / "report.md", out / "report.html"
    write_atomic(md_path, ("\n".join(md) + "\n").encode("utf-8"))
    write_atomic(html_path, page.encode("utf-8"))
    return md_path, html_path


def _overrides_text(study: Study) -> str:
    items = [f"{k} = {v!r}" for k, v in study.quick_overrides.items()]
    return "; ".join(items) or "none"


# ---------------------------------------------------------------------------------------------
# the whole pipeline


def reproduce(
    study: Study | str,
    out: str | os.PathLike | None = None,
    quick: bool = False,
    jobs: int | None = None,
    dask: str | None = None,
    studies_dir: str | os.PathLike | None = None,
    command: str | None = None,
    progress: bool = True,
    log=None,
    reading: str | None = None,
    ns2_results: dict[str, pd.DataFrame] | None = None,
) -> tuple[Path, Path, list[VerdictRow]]:
    """Reproduce `study` (a Study or its name) into `out` (see the module doc); returns the
    paths of report.md and report.html and the verdict table. `studies_dir` holds
    NAME/ (default: the repository's studies/); `reading` names one of the study's readings;
    `ns2_results` (table id → DataFrame of the same shape, from ns-2.35 runs of the same grid)
    fills the table's ns-2.35 column."""
    from aqmlab.studies import load
    from aqmlab.sweeps.run import run_sweep

    if isinstance(study, str):
        study = load(study)
    sdir = Path(studies_dir) if studies_dir is not None else REPO_ROOT / "studies"
    sdir = sdir / study.name
    try:
        rd = study.reading(reading)
    except ValueError as e:
        raise ReproduceError(str(e)) from None
    out = Path(out) if out is not None else default_out(study.name, quick, reading=rd and rd.name)
    check_out_dir(out)  # `DIR: reason` before any sweep runs
    out.mkdir(parents=True, exist_ok=True)
    paper = read_paper(sdir / PAPER_CSV)
    date = _dt.date.today().isoformat()
    command = command or f"aqmlab reproduce {study.name}" + (" --quick" if quick else "")

    # Every distinct sweep file runs once, with the overrides of its first table.
    sweeps: dict[str, SweepOutcome] = {}
    frames: dict[str, pd.DataFrame] = {}
    for table in study.tables:
        if table.scenario in frames:
            continue
        src = sdir / table.scenario
        if not src.is_file():
            raise ReproduceError(f"{src}: table {table.id}: scenario: no such sweep file")
        scenario = src
        if quick or rd is not None:
            over = {**study.quick_overrides, **table.quick_overrides} if quick else {}
            scenario = resolved_sweep_file(src, over, out / "scenarios", rd)
        sweep_dir = out / "sweeps" / src.stem
        if log:
            log(f"table {table.id}: sweep {scenario} → {sweep_dir}")
        df = run_sweep(scenario, sweep_dir, jobs=jobs, dask=dask, progress=progress)
        for t in study.tables:  # per-run metrics that are not summary columns (Table.run_metrics)
            if t.scenario == table.scenario and t.run_metrics is not None:
                df = t.run_metrics(df, sweep_dir)
        frames[table.scenario] = df
        counts = df["status"].value_counts()
        sweeps[table.scenario] = SweepOutcome(
            src, sweep_dir, int(counts.get("ok", 0)), int(counts.get("failed", 0)), _sweep_figures(sweep_dir)
        )

    results: dict[str, pd.DataFrame] = {}
    joined = []
    for table in study.tables:
        res = table_results(frames[table.scenario], table)
        results[table.id] = res
        joined.append((table, join_paper(paper, table, res)))
    ns2_about = "given by the caller"
    published = ns2_results is None
    if published:
        ns2_results, ns2_about = published_ns2_results(study.name + (f"-{rd.name}" if rd else ""))
    ns2 = evaluate(study, ns2_results) if ns2_results is not None else None
    if ns2 is not None and published:  # a verdict whose rows ns-2.35 refused says why
        from aqmlab.ns2grid.grid import explain_published

        ns2 = explain_published(study, ns2, REPO_ROOT / "docs" / "reproductions" /
                                (study.name + (f"-{rd.name}" if rd else "")) / "ns2")  # fmt: skip
    verdicts = verdict_table(study, evaluate(study, results), evaluate(study, paper_results(paper)), ns2, rd)
    md, htm = write_report(out, study, joined, verdicts, list(sweeps.values()), command, date, quick, rd,
                           ns2_about if ns2 is not None else None)  # fmt: skip
    return md, htm, verdicts


def published_ns2_results(name: str, root: Path = REPO_ROOT) -> tuple[dict | None, str]:
    """The ns-2.35 results of the same grid published for report NAME
    (docs/reproductions/NAME/ns2/results.csv, written by `aqmlab reproduce STUDY --ns2
    --publish`) and where they come from; (None, "") if there are none."""
    path = root / "docs" / "reproductions" / name / "ns2" / "results.csv"
    if not path.is_file():
        return None, ""
    from aqmlab.ns2grid.grid import read_results

    results, about = read_results(path)
    return results, f"{path.relative_to(root)} ({about})"


def publish(out: Path, name: str, root: Path = REPO_ROOT, files: tuple[str, ...] = ("report.md",)) -> Path:
    """Copy OUT/figures/ and `files` of OUT (the report, whose first lines carry the date and the
    command) to docs/reproductions/NAME/; returns the copied report's path."""
    dest = root / "docs" / "reproductions" / name
    (dest / "figures").mkdir(parents=True, exist_ok=True)
    for png in sorted((out / "figures").glob("*.png")):
        write_atomic(dest / "figures" / png.name, png.read_bytes())
    for f in files:
        write_atomic(dest / f, (out / f).read_bytes())
    return dest / "report.md"


def add_parser(sub, help: str) -> None:
    """The `aqmlab reproduce` subcommand (`help`: its one-line help, from aqmlab.cli)."""
    import argparse

    from aqmlab.studies import known, load

    names = ", ".join(known())
    studies = [load(n) for n in known()]
    readings = "; ".join(
        f"{st.name}: {', '.join([st.default_reading, *(r.name for r in st.readings)])}"
        for st in studies
        if st.readings
    )
    p = sub.add_parser(
        "reproduce",
        help=help,
        description="Run every table's sweep of STUDY (studies/STUDY/, aqmlab.studies), compare "
        "with the paper's numbers (paper.csv), evaluate the paper's conclusions and write "
        f"OUT/report.md and OUT/report.html. Runs finished by the same engine build are never "
        f"recomputed. Studies: {names}.",
    )
    p.add_argument("study", metavar="STUDY", help=f"the study to reproduce: {names}")
    p.add_argument("--quick", action="store_true", help="short runs, one replication, fewer loads")
    p.add_argument("--out", metavar="DIR", help="output directory (default runs/reproduce/STUDY[-quick])")
    p.add_argument("--jobs", type=int, metavar="N", help="local processes (default: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786)")
    p.add_argument(
        "--reading",
        metavar="NAME",
        help=f"one of the study's readings of the paper's setup ({readings})",
    )
    p.add_argument("--publish", action="store_true",
                   help="copy the report to docs/reproductions/STUDY[-READING]/")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--ns2", action="store_true",
                   help="run the same grid in ns-2.35 instead (aqmlab.ns2grid; --jobs default 2; "
                        "output OUT/ns2/, --publish to docs/reproductions/STUDY/ns2/)")  # fmt: skip
    p.add_argument("--ns2-nearest", action="store_true",
                   help="with --ns2: run a setting ns-2.35 lacks at its nearest counterpart instead "
                        "of refusing the point (seed 001's grids: ns-2.1b9's ECN rule as ns-2.35's "
                        "use_mark_p_ false); each such point is named in points.csv")  # fmt: skip
    p.add_argument("--ns", default="ns", help=argparse.SUPPRESS)


def rerunnable_argv(argv: list[str], cwd: Path, root: Path = REPO_ROOT) -> list[str]:
    """The arguments of `aqmlab reproduce` as a report records them: a command a user can rerun
    from the repository root on any machine. `--out` inside the repository becomes relative to
    its root (whatever the directory it was typed in); `--out` outside it (a path of the machine
    it ran on) is left out, as is `--dask ADDRESS` (a cluster of that machine): neither changes
    the results, and the rerun uses the default output directory and local processes."""
    out: list[str] = []
    it = iter(argv)
    for a in it:
        name, eq, value = a.partition("=")
        if name in ("--out", "--dask"):
            if not eq:
                value = next(it, "")
            if name == "--dask":
                continue
            p = Path(os.path.normpath(cwd / value))
            try:
                rel = p.relative_to(Path(os.path.normpath(root)))
            except ValueError:
                continue  # outside the repository
            out += ["--out", rel.as_posix() or "."]
            continue
        out.append(a)
    return out


def cmd_reproduce(args, argv: list[str] | None = None) -> int:
    """Run `aqmlab reproduce` with parsed `args`; `argv` (the arguments as typed) makes the
    command line recorded in the report."""
    import shlex
    import sys

    from aqmlab.studies import known, load

    if args.study not in known():
        raise ReproduceError(f"unknown study {args.study!r} (known: {', '.join(known())})")
    study = load(args.study)
    if args.publish:  # fail now rather than after the sweeps
        check_out_dir(REPO_ROOT / "docs" / "reproductions")
    argv = sys.argv[1:] if argv is None else argv
    command = "aqmlab " + " ".join(shlex.quote(a) for a in rerunnable_argv(argv, Path.cwd()))
    if getattr(args, "ns2_nearest", False) and not getattr(args, "ns2", False):
        raise ReproduceError("--ns2-nearest: applies to the ns-2.35 grid only (add --ns2)")
    if getattr(args, "ns2", False) and study.ns2_refused:
        raise ReproduceError(f"{study.name}: --ns2: {study.ns2_refused}")
    if getattr(args, "ns2", False):
        from aqmlab.ns2grid.cli import cmd_ns2

        return cmd_ns2(args, command)
    md, htm, verdicts = reproduce(
        study, args.out, quick=args.quick, jobs=args.jobs, dask=args.dask, command=command,
        progress=not args.quiet, log=lambda m: print(m, file=sys.stderr), reading=args.reading,
    )  # fmt: skip
    for v in verdicts:
        print(f"[{v.aqmlab.outcome.value}] {v.id}: {v.aqmlab.evidence}")
    print(f"report: {md}  {htm}")
    if args.publish:
        rd = study.reading(args.reading)
        print(f"published: {publish(md.parent, study.name + (f'-{rd.name}' if rd else ''))}")
    return 0
