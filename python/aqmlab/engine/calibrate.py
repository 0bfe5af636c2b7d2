"""The `aqmlab calibrate` command and `aqmlab.engine.calibrate.calibrate()`: load calibration and the
`load = …` workload key (docs/calibration.md). The language and the procedure live in the core
(crates/scenario/src/load/, the engine runs in crates/py/src/calibration.rs); this module reads
the command line, checks the cache directory before the first run and prints the result."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import SimpleNamespace

from aqmlab import _core

DEFAULT_RATE = "100Mbps"  # as crates/scenario/src/load/settings.rs
DEFAULT_DURATION = "120s"
DIRECTIONS = ("forward", "reverse", "both")

Log = Callable[[str], None]


def check_cache_dir(d: str) -> None:
    """Before the first calibration run: the cache directory `d` must be writable (`DIR:
    reason`); scratch files of a killed earlier calibration are removed."""
    from aqmlab.storage.run_dir import OutDirError, check_out_dir, remove_stale_scratch

    try:
        check_out_dir(d)
    except OutDirError as e:
        raise OutDirError(f"{e} (the calibration cache: --cache DIR or $AQMLAB_CACHE)") from None
    remove_stale_scratch(d)


def load_resolver(
    base: dict,
    label: str | os.PathLike,
    base_dir: str | os.PathLike,
    cache: str | os.PathLike | None = None,
    jobs: int | None = None,
    log: Log | None = None,
) -> _core.LoadResolver:
    """The core's resolver of `load = …` for the file `label` whose base document is `base`
    (`resolve(doc)` gives `doc` with `load` resolved and `[calibration]`, `[tune]`, `[sweep]`
    dropped); a calibration it must compute is checked and stored in `cache` as `calibrate`
    does."""
    return _core.LoadResolver(
        base, os.fspath(label), os.fspath(base_dir), cache=cache, jobs=jobs, log=log,
        before_runs=check_cache_dir,
    )  # fmt: skip


def calibrate(
    scenario: str | os.PathLike,
    *,
    workload: int | None = None,
    points: list[float] | None = None,
    warmup: str | None = None,
    duration: str | None = None,
    rate: str | None = None,
    direction: str | None = None,
    link: str | None = None,
    jobs: int | None = None,
    cache: str | os.PathLike | None = None,
    force: bool = False,
    log: Log | None = None,
) -> SimpleNamespace:
    """Calibrate the scenario file `scenario` (docs/calibration.md): the cached fit when its
    settings match (arguments over its `[calibration]` over the defaults), else the points run
    in parallel (`jobs`, default one per CPU), fitted and stored. The result's attributes are
    the stored record's (`hash`, `points`, `slope`, `intercept`, `r2`, `max_rel_residual`, …),
    `cached`, `runs` (engine runs made) and `text` (as the command prints it). Raises
    ScenarioError before any run for a bad file."""
    from aqmlab.engine.document import read_document

    doc, base_dir = read_document(scenario)
    d = _core.calibrate(
        doc, os.fspath(scenario), base_dir, workload=workload, points=points, warmup=warmup,
        duration=duration, rate=rate, direction=direction, link=link, jobs=jobs, cache=cache,
        force=force, log=log, before_runs=check_cache_dir,
    )  # fmt: skip
    return SimpleNamespace(**d)


def add_parser(sub) -> None:
    """Add `aqmlab calibrate SCENARIO [--points X,Y,…] [--warmup T] [--duration T] [--rate R]
    [--direction D] [--link rA_rB] [--workload I] [--jobs N] [--cache DIR] [--force]`."""
    c = sub.add_parser(
        "calibrate",
        help="fit offered load against a workload's users/rate on an unconstrained bottleneck",
        description="Run SCENARIO with its bottleneck at --rate (100 Mbps) at several values of its "
        "workload's users/rate/flows, fit offered load = slope·x + intercept, report linearity "
        "and cache the fit (keyed by the scenario content) for `load = …` in [[workload]].",
    )
    c.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    c.add_argument("--points", metavar="X,Y,…", help="parameter values (default: automatic, 25–125 %% of C)")
    c.add_argument("--warmup", metavar="T", help="warm-up of each run (default: the scenario's)")
    c.add_argument("--duration", metavar="T", help=f"measured time of each run (default {DEFAULT_DURATION})")
    c.add_argument("--rate", metavar="R", help=f"calibration bottleneck rate (default {DEFAULT_RATE})")
    c.add_argument("--direction", choices=DIRECTIONS, help="measured direction (default forward)")
    c.add_argument(
        "--link", metavar="rA_rB", help="parking lot: measured router link (default its bottleneck)"
    )
    c.add_argument("--workload", type=int, metavar="I", help="index of the calibrated [[workload]]")
    c.add_argument("--jobs", type=int, metavar="N", help="parallel runs (default: one per CPU)")
    c.add_argument("--cache", metavar="DIR", help="cache root (default $AQMLAB_CACHE or .aqmlab-cache)")
    c.add_argument("--force", action="store_true", help="recompute even if cached")


def cmd_calibrate(args) -> int:
    """The `calibrate` command: the points table, the fit and linearity on stdout."""
    points = None
    if args.points is not None:
        try:
            points = [float(p) for p in args.points.split(",") if p.strip()]
        except ValueError:
            raise ValueError(f"--points: expected numbers separated by commas, got {args.points!r}") from None
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs: must be ≥ 1, got {args.jobs}")
    c = calibrate(
        args.scenario, workload=args.workload, points=points, warmup=args.warmup,
        duration=args.duration, rate=args.rate, direction=args.direction, link=args.link,
        jobs=args.jobs, cache=args.cache, force=args.force,
        log=lambda m: print(m, file=sys.stderr),
    )  # fmt: skip
    print(
        f"{c.scenario}: workload[{c.workload}] ({c.kind}), {c.parameter}; "
        f"calibration {c.hash[:12]} ({c.date})"
    )
    print(c.text)
    return 0
