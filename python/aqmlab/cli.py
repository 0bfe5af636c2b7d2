"""The `aqmlab` command.

    aqmlab run SCENARIO --out DIR [--variant NAME]
    aqmlab report DIR [DIR ...] [--out report.png] [--xmax 2.0]

Errors (a rejected scenario, an experiment the engine cannot build, a missing directory) print
one line "aqmlab: error: …" to stderr and exit with status 2; Ctrl-C exits with 130. A variant
that fails leaves no directory behind (run directories are written atomically).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aqmlab import _core
from aqmlab.report import open_runs, plot_cdfs, run_cdf, summary_table

PROG = "aqmlab"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="aqmlab: router queue management under web traffic (simulation lab)."
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser(
        "run",
        help="run a scenario's variants and write DIR/<variant>/",
        description="Run every variant of SCENARIO (or only --variant) with a progress bar in "
        "simulated seconds, write each to DIR/<variant>/ and print the summaries.",
    )
    r.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    r.add_argument(
        "--out", required=True, metavar="DIR", help="output directory (one subdirectory per variant)"
    )
    r.add_argument("--variant", metavar="NAME", help="run only this variant")
    r.add_argument("--quiet", action="store_true", help="no progress bar")

    rep = sub.add_parser(
        "report",
        help="draw the response-time CDFs of runs and print their summaries",
        description="Each DIR is a run directory (has summary.json) or a directory of run "
        "directories. Draws the response-time CDFs of all runs in one PNG and prints the "
        "summaries side by side.",
    )
    rep.add_argument("dirs", nargs="+", metavar="DIR")
    rep.add_argument("--out", default="report.png", metavar="PNG", help="output image (default: report.png)")
    rep.add_argument("--xmax", type=float, default=2.0, help="x axis limit in seconds (default: 2)")
    return p


def cmd_run(args: argparse.Namespace) -> int:
    from aqmlab.api import run

    results = run(args.scenario, variant=args.variant, out=args.out, progress=not args.quiet)
    print(summary_table([(name, r.summary) for name, r in results.items()]))
    for name, r in results.items():
        print(f"{name}: {Path(args.out) / name}  ({r.wall_s:.1f} s wall)", file=sys.stderr)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    if not args.xmax > 0:
        raise ValueError(f"--xmax: must be > 0, got {args.xmax}")
    runs = open_runs(args.dirs)
    curves = []
    for r in runs:
        x, y = run_cdf(r)
        curves.append((r.label, x, y))
    out = plot_cdfs(curves, args.out, xmax=args.xmax)
    print(summary_table([(r.label, r.summary) for r in runs]))
    print(f"CDF: {out}", file=sys.stderr)
    return 0


def _error(msg: str) -> int:
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return cmd_run(args)
        return cmd_report(args)
    except (_core.ScenarioError, _core.SimError) as e:
        return _error(str(e))
    except OSError as e:
        return _error(str(e) if e.filename is None or str(e.filename) in str(e) else f"{e.filename}: {e}")
    except ValueError as e:
        return _error(str(e))
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
