"""`aqmlab reproduce STUDY --ns2 [--ns2-nearest] [--quick] [--reading R] [--out DIR] [--jobs N] [--publish]`:
run the study's grid in ns-2.35 (aqmlab.ns2grid.grid; N ns-2 processes at once, default 2;
`--jobs 0` runs nothing and collects the runs already finished), evaluate the study's verdicts
on its results, write OUT/ns2/results.csv, points.csv and report.md, and with `--publish` copy
those three to docs/reproductions/STUDY[-READING]/ns2/."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from aqmlab.ns2grid.grid import explain, ns2_version, run_grid, write_results

#: At most this many ns-2 processes at once unless --jobs says otherwise (the machines are 2-core).
DEFAULT_JOBS = 2


def cmd_ns2(args, command: str) -> int:
    """Run the ns-2 grid for parsed `aqmlab reproduce` arguments; `command` is the rerunnable
    command line the report records."""
    from aqmlab.studies.sweep_files import REPO_ROOT
    from aqmlab.studies.verdicts import evaluate

    if shutil.which(args.ns) is None:
        print(f"aqmlab reproduce: error: --ns2: {args.ns}: not found (Debian: apt-get install ns2)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.dask:
        print("aqmlab reproduce: error: --ns2 runs ns-2 locally; --dask does not apply", file=sys.stderr)
        return 2
    jobs = DEFAULT_JOBS if args.jobs is None else args.jobs
    if jobs < 0:
        print(f"aqmlab reproduce: error: --jobs: expected 0 or more, got {jobs}", file=sys.stderr)
        return 2
    out = Path(args.out) / "ns2" if args.out else None
    # --jobs 0: run nothing, collect the runs already finished (e.g. while a grid still runs)
    grid = run_grid(args.study, args.quick, out, reading=args.reading, jobs=jobs, ns=args.ns,
                    log=None if args.quiet else (lambda m: print(m, file=sys.stderr)),
                    run=jobs > 0, nearest=args.ns2_nearest)  # fmt: skip
    verdicts = explain(evaluate(grid.study, grid.results), grid.frame, grid.study, grid.results)
    report = write_results(grid, command, ns2_version(args.ns), verdicts)
    for v in verdicts:
        print(f"[{v.outcome}] {v.id}: {v.evidence}")
    print(f"ns-2.35 results: {grid.out / 'results.csv'}  report: {report}")
    if args.publish:
        rd = grid.study.reading(args.reading)
        name = grid.study.name + (f"-{rd.name}" if rd else "")
        dest = REPO_ROOT / "docs" / "reproductions" / name / "ns2"
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("results.csv", "points.csv", "report.md"):
            shutil.copyfile(grid.out / name, dest / name)
        print(f"published: {dest}")
    return 0
