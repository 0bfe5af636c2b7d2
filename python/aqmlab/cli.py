"""The `aqmlab` command.

    aqmlab run SCENARIO --out DIR [--variant NAME]   (SCENARIO - : standard input)
    aqmlab report DIR [DIR ...] [--out report.png] [--xmax 2.0]
    aqmlab sweep SCENARIO --out DIR [--jobs N] [--dask tcp://host:8786]   (aqmlab.sweeps.run)
    aqmlab tune SCENARIO --out DIR [--trials N] [--timeout S] [--jobs N] [--dask ADDR] [--seed S]
                [--metrics STUDY]
                                                                            (aqmlab.tuning.search)
    aqmlab tune-study tuning --out DIR [--quick] [--jobs N] [--dask ADDR] [--publish]
                                                                            (aqmlab.tuning.study)
    aqmlab report SWEEP_DIR [--xmax 2.0]   (a sweep directory: report.html + report.md there)
    aqmlab report TUNE_DIR    (a tuning directory: its report.html + report.md again)
    aqmlab calibrate SCENARIO [--points X,Y,...] [--warmup T] [--duration T] [--force]
    aqmlab reproduce STUDY [--quick] [--reading NAME] [--out DIR] [--jobs N] [--dask ADDR] [--publish]
    aqmlab params [NAME]   ([tcp] or a queue kind: keys, units, defaults, ranges, sources)
    aqmlab testbed SCENARIO --out DIR [--variant NAME] [--duration D] [--warmup D] [--pcap]
                   [--closest-linux]
                                       (real Linux TCP, as root; aqmlab.testbed.run execs the binary)

Errors (a rejected scenario, an experiment the engine cannot build, a missing directory, an
output directory that cannot be written: checked before anything runs) print one line
"aqmlab: error: …" (`PATH: reason` for file-system errors) to stderr and exit with status 2;
Ctrl-C exits with 130. A variant
that fails leaves no directory behind (run directories are written atomically).

`aqmlab report DIR` writes DIR/report.png (several DIRs: in the directory they share) unless
--out names the PNG; a run it cannot show (interrupted, a file unreadable) is named with the
reason and skipped, and the status is then 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aqmlab import _core
from aqmlab.reports.summary_table import summary_table
from aqmlab.storage.run_dir import OutDirError, check_out_dir, os_reason

PROG = "aqmlab"
# Subcommands whose modules are imported only when used (they load pandas, scipy, matplotlib):
# `aqmlab run` starts in a fraction of the time (see bench/HISTORY.md).
_COMMANDS = (
    "run",
    "calibrate",
    "reproduce",
    "params",
    "sweep",
    "tune",
    "tune-study",
    "report",
    "testbed",
)


# One-line help of the subcommands whose modules load pandas and scipy (declared here only).
_HEAVY_HELP = {
    "reproduce": "run a study's sweeps and write a report beside the paper's numbers",
    "tune-study": "run a tuning study (studies/tuning/): tune each queue per network and load, compare",
}


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line parser; with `only`, just that subcommand's (the others' modules are
    then not imported)."""
    p = argparse.ArgumentParser(
        prog=PROG, description="aqmlab: router queue management under web traffic (simulation lab)."
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def want(name: str) -> bool:
        return only is None or only == name

    def heavy(name: str) -> bool:
        """Whether to build `name`'s full parser; `aqmlab --help` (no subcommand named) lists
        it by its one-line help without importing its module (pandas, scipy: seconds)."""
        if only is None:
            sub.add_parser(name, help=_HEAVY_HELP[name])
        return only == name

    if want("run"):
        _add_run(sub)
    if want("calibrate"):
        from aqmlab.engine import calibrate

        calibrate.add_parser(sub)  # `aqmlab calibrate`; `load = …` in [[workload]] (aqmlab.engine.calibrate)
    if heavy("reproduce"):
        from aqmlab.studies import reproduce

        reproduce.add_parser(sub, _HEAVY_HELP["reproduce"])  # (aqmlab.studies.reproduce)
    if want("params"):
        from aqmlab.engine import model_params

        model_params.add_parser(sub)  # `aqmlab params [NAME]` (aqmlab.engine.model_params)
    if want("sweep"):
        _add_sweep(sub)
    if want("tune"):
        _add_tune(sub)
    if heavy("tune-study"):
        from aqmlab.tuning import study as tunestudy

        tunestudy.add_parser(sub, _HEAVY_HELP["tune-study"])  # (aqmlab.tuning.study)
    if want("report"):
        _add_report(sub)
    if want("testbed"):
        from aqmlab.testbed import run as testbed

        testbed.add_parser(sub)  # `aqmlab testbed SCENARIO --out DIR` (aqmlab.testbed.run)
    return p


def _add_run(sub) -> None:
    r = sub.add_parser(
        "run",
        help="run a scenario's variants and write DIR/<variant>/",
        description="Run every variant of SCENARIO (or only --variant) with a progress bar in "
        "simulated seconds, write each to DIR/<variant>/ and print the summaries.",
    )
    r.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML; - for standard input)")
    r.add_argument(
        "--out", required=True, metavar="DIR", help="output directory (one subdirectory per variant)"
    )
    r.add_argument("--variant", metavar="NAME", help="run only this variant")
    r.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_sweep(sub) -> None:
    sw = sub.add_parser(
        "sweep",
        help="run the [sweep] of a scenario (grid/zip/derived values, replications) into DIR",
        description="Expand the [sweep] table of SCENARIO into runs (see docs/scenarios.md, Sweeps), run "
        "the unfinished ones in parallel with a progress bar, and write DIR/runs/<id>/ and "
        "DIR/sweep.parquet. A run that fails is recorded and does not stop the others.",
    )
    sw.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML) with a [sweep] table")
    sw.add_argument("--out", required=True, metavar="DIR", help="sweep directory")
    sw.add_argument("--jobs", type=int, metavar="N", help="local processes (default: all cores)")
    sw.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786)")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_tune(sub) -> None:
    tu = sub.add_parser(
        "tune",
        help="search the [tune] parameters of a scenario with Optuna (trials, replications, report)",
        description="Search the keys of SCENARIO's [tune] table (see docs/scenarios.md, Tuning) with Optuna "
        "(TPE, or NSGA-II for several objectives), each trial run with the same seeds; re-run the "
        "best trials and the baselines with more seeds, compare them, and write DIR/report.html "
        "and DIR/report.md. The study is stored in DIR/study.db: run again to resume.",
    )
    tu.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML) with a [tune] table")
    tu.add_argument("--out", required=True, metavar="DIR", help="tuning directory")
    tu.add_argument("--trials", type=int, metavar="N", help="trials in the study (default: [tune] trials)")
    tu.add_argument("--timeout", type=float, metavar="S", help="ask no new trials after S seconds")
    tu.add_argument("--jobs", type=int, metavar="N", help="local processes (default: all cores)")
    tu.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786)")
    tu.add_argument("--seed", type=int, metavar="S", help="the sampler's seed (default: [tune] seed)")
    tu.add_argument(
        "--metrics", metavar="STUDY",
        help="add STUDY's per-run metrics as columns the objectives may name (aqmlab.tuning.metrics; "
        "e.g. weigle-multi's e2e_median_rt_ms, http_loss_pct)",
    )  # fmt: skip
    tu.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_report(sub) -> None:
    rep = sub.add_parser(
        "report",
        help="draw the response-time CDFs of runs and print their summaries",
        description="Each DIR is a run directory (has summary.json) or a directory of run "
        "directories. Draws the response-time CDFs of all runs in one PNG and prints the "
        "summaries side by side. A run that cannot be shown (an interrupted run, an unreadable "
        "summary.json, a missing requests.parquet) is named with the reason and skipped "
        "(exit status 1).",
    )
    rep.add_argument("dirs", nargs="+", metavar="DIR")
    rep.add_argument(
        "--out", metavar="PNG",
        help="output image (default: report.png in DIR, or in the directory the DIRs share)",
    )  # fmt: skip
    rep.add_argument("--xmax", type=float, default=2.0, help="x axis limit in seconds (default: 2)")


# What `aqmlab run` imports only after the engine has run (aqmlab.storage.record: dataclasses with
# inspect, ast, dis, tokenize; 10 ms of a 25 ms start-up).
_AFTER_RUN = ("aqmlab.storage.record",)


def _import_meanwhile(names: tuple[str, ...]):
    """Import the modules `names` on a thread of their own and return it (to join): the core
    releases the GIL while the engine runs (crates/py/src/lib.rs `simulate`), so they are
    imported on the other core meanwhile instead of before or after the run. An import that
    fails is left to fail again, with its message, where the module is used."""
    import threading

    def go() -> None:
        for name in names:
            try:
                __import__(name)
            except Exception:  # noqa: BLE001, S110 — reported where it is used (see above)
                pass

    t = threading.Thread(target=go, name="aqmlab-imports")
    t.start()
    return t


def cmd_run(args: argparse.Namespace) -> int:
    import gc

    from aqmlab.engine.api import run

    # What is loaded by now lives until the process ends: the collector leaves it alone from
    # here, and the interpreter's last collection at exit skips it (4 ms, 0.91x the time of
    # importing and exiting alone; bench/paired.py, 2026-11-27).
    gc.freeze()

    # Read once, bounded, by the core: `-` and /dev/stdin work, /dev/zero is one line. `load`,
    # [sweep], [tune] are resolved in aqmlab.engine.api.run (aqmlab.engine.calibrate is imported only then).
    source = _core.read_scenario(args.scenario)
    importing = []  # the thread importing `_AFTER_RUN`, started once the checks passed
    try:
        results = run(
            args.scenario, variant=args.variant, out=args.out, progress=not args.quiet,
            checked=lambda: importing.append(_import_meanwhile(_AFTER_RUN)), source=source,
            announce=lambda m: print(f"{PROG}: run: {m}", file=sys.stderr, flush=True),
            log=lambda m: print(m, file=sys.stderr, flush=True),
        )  # fmt: skip
    finally:
        for t in importing:
            t.join()
    print(summary_table([(name, r.summary) for name, r in results.items()]))
    for name, r in results.items():
        print(f"{name}: {Path(args.out) / name}  ({r.wall_s:.1f} s wall)", file=sys.stderr)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from aqmlab.sweeps.run import run_sweep

    t = run_sweep(args.scenario, args.out, jobs=args.jobs, dask=args.dask, progress=not args.quiet)
    counts = t["status"].value_counts()
    print(
        f"{args.out}: {len(t)} runs: {counts.get('ok', 0)} ok ({t.attrs.get('reused', 0)} reused), "
        f"{counts.get('failed', 0)} failed, {counts.get('pending', 0)} pending; "
        f"table: {Path(args.out) / 'sweep.parquet'}"
    )
    return 1 if counts.get("failed", 0) else 0


def cmd_tune(args: argparse.Namespace) -> int:
    from aqmlab.tuning.search import print_summary, tune

    df = tune(
        args.scenario, args.out, trials=args.trials, timeout=args.timeout, jobs=args.jobs, dask=args.dask,
        seed=args.seed, progress=not args.quiet, metrics=args.metrics,
    )  # fmt: skip
    print_summary(df, Path(args.out))
    return 0


def report_png(dirs: list[str], out: str | None) -> Path:
    """Where `aqmlab report` writes its PNG: `--out`, else `report.png` in the one DIR given,
    else in the directory the DIRs share; never in the current directory unasked (a second
    report there would overwrite the first): ValueError when the DIRs share only it."""
    if out is not None:
        png = Path(out)
    else:
        import os

        common = Path(os.path.commonpath([os.path.abspath(d) for d in dirs]))
        if len(dirs) > 1 and common == Path.cwd():
            raise ValueError("report: the DIRs share no directory but the current one: name the PNG (--out)")
        png = (Path(dirs[0]) if len(dirs) == 1 else common) / "report.png"
    if png.is_dir():
        raise OutDirError(f"{png}: is a directory; --out names the PNG file to write")
    try:
        check_out_dir(png.parent)
    except OutDirError as e:
        raise OutDirError(f"{e}; name the PNG elsewhere with --out" if out is None else str(e)) from None
    return png


def cmd_report(args: argparse.Namespace) -> int:
    if not args.xmax > 0:
        raise ValueError(f"--xmax: must be > 0, got {args.xmax}")
    # Every check that needs only the file system comes before pandas and matplotlib (1-3 s).
    from aqmlab.storage.dirs import find_run_dirs, is_sweep_dir, is_tune_dir

    one = args.dirs[0] if len(args.dirs) == 1 else None
    if one is not None and (is_tune_dir(one) or is_sweep_dir(one)):
        check_out_dir(one)  # report.html and report.md are written there
        if is_tune_dir(one):
            from aqmlab.tuning.report import write_tune_report as write_report
        else:
            from aqmlab.sweeps.report import write_sweep_report as write_report
        html_path, md_path = write_report(one, xmax=args.xmax)
        print(f"report: {html_path}  {md_path}")
        return 0
    find_run_dirs(args.dirs)  # a wrong DIR: `DIR: reason`
    png = report_png(args.dirs, args.out)
    from aqmlab.reports.run_report import BadRun, not_measured_notes, open_runs, plot_cdfs, run_cdf

    skipped: list[str] = []
    runs = []
    curves = []
    for r in open_runs(args.dirs, skipped):
        try:
            x, y = run_cdf(r)
        except BadRun as e:
            skipped.append(str(e))
            continue
        runs.append(r)
        curves.append((r.label, x, y))
    if not runs:
        raise ValueError("report: no run to report; " + "; ".join(skipped))
    out = plot_cdfs(curves, png, xmax=args.xmax)
    print(summary_table([(r.label, r.summary) for r in runs]))
    for note in not_measured_notes(runs):
        print(f"note: {note}")
    for why in skipped:
        print(f"note: skipped {why}")
    print(f"CDF: {out}", file=sys.stderr)
    return 1 if skipped else 0


def _os_message(e: OSError) -> str:
    """`PATH: reason` for an OSError (no `[Errno N]`); its own text if it names no path."""
    if e.filename is None:
        return str(e)
    paths = f"{e.filename} -> {e.filename2}" if e.filename2 is not None else f"{e.filename}"
    return f"{paths}: {os_reason(e)}"


def _error(msg: str) -> int:
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    words = sys.argv[1:] if argv is None else argv
    only = words[0] if words and words[0] in _COMMANDS else None
    args = _parser(only).parse_args(argv)
    try:
        if args.command == "calibrate":
            from aqmlab.engine import calibrate

            return calibrate.cmd_calibrate(args)
        if args.command == "run":
            return cmd_run(args)
        if args.command == "sweep":
            return cmd_sweep(args)
        if args.command == "tune":
            return cmd_tune(args)
        if args.command == "tune-study":
            from aqmlab.tuning import study as tunestudy

            return tunestudy.cmd_tune_study(args, argv)
        if args.command == "reproduce":
            from aqmlab.studies import reproduce

            return reproduce.cmd_reproduce(args, argv)
        if args.command == "params":
            from aqmlab.engine import model_params

            return model_params.cmd_params(args)
        if args.command == "testbed":
            from aqmlab.testbed import run as testbed

            return testbed.cmd_testbed(args)
        return cmd_report(args)
    except (_core.ScenarioError, _core.SimError) as e:
        return _error(str(e))
    except OSError as e:
        return _error(_os_message(e))
    except ValueError as e:
        return _error(str(e))
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
