"""`aqmlab.run()`: run the variants of a scenario file through the Rust core and get pandas
DataFrames back; `RunResult` is what one variant produced (and what `load_run` reads back).
pandas is imported only when a table is first used."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aqmlab import _core
from aqmlab.build import engine_build
from aqmlab.io import (
    TABLES,
    check_out_dir,
    check_run_target,
    commit_run_dir,
    parquet_name,
    parse_summary,
    remove_stale_scratch,
    scratch_dir,
)

if TYPE_CHECKING:
    import pandas as pd

# progress(variant, sim_s, end_s)
ProgressFn = Callable[[str, float, float], None]


class _Table:
    """A table of a RunResult (`requests`, `queue`, `links`): a DataFrame given to the
    constructor, or read from `RunResult.files[name]` (a Parquet file's path or bytes) at the
    first access, so a run that only needs its summary never loads pandas or its rows."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name
        self.given = f"_{name}_given"  # a DataFrame given or assigned (written as such)
        self.cache = f"_{name}_read"  # the DataFrame read from `files`

    def __get__(self, obj, objtype=None):
        if obj is None:
            return None  # the dataclass default: not given, read from `files`
        frame = obj.__dict__.get(self.given)
        if frame is None:
            frame = obj.__dict__.get(self.cache)
        if frame is None and self.name in obj.files:
            from aqmlab.io import read_parquet_frame

            frame = read_parquet_frame(obj.files[self.name])
            obj.__dict__[self.cache] = frame
        return frame

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.given] = value

    def given_frame(self, obj):
        """The DataFrame given or assigned for this table (None: the table is in `files`)."""
        return obj.__dict__.get(self.given)


@dataclass
class RunResult:
    """One run. `summary` is the run summary (seed 000's table columns, see README);
    `requests`/`queue`/`links` the per-run tables (pandas DataFrames, read from `files` when
    first used); `engine` the engine counters; `summary_json` the summary exactly as written to
    summary.json (without the final newline); `warmup_ns` the warm-up (records starting before
    it are not measured); `wall_s` the wall-clock time of the run (None for a run read from
    disk); `files` the Parquet file (path or bytes) of each table not given as a DataFrame."""

    name: str
    summary: dict
    requests: pd.DataFrame = _Table()
    queue: pd.DataFrame = _Table()
    links: pd.DataFrame = _Table()
    engine: dict = field(default_factory=dict)
    summary_json: str = field(default="", repr=False)
    warmup_ns: int = 0
    seed: int | None = None
    scenario: str | None = None
    wall_s: float | None = None
    files: dict[str, Path | bytes] = field(default_factory=dict, repr=False, compare=False)

    def given_frame(self, table: str):
        """The DataFrame given or assigned for `table`, or None if it is read from `files`
        (`aqmlab.io.write_run` copies those files instead of encoding them again)."""
        return type(self).__dict__[table].given_frame(self)


def _from_core(d: dict, scenario: str) -> RunResult:
    """A RunResult from `_core.run_scenario_text`'s dict (tables as columns, in memory)."""
    from aqmlab.tables import arrow_to_frame, columns_to_arrow

    return RunResult(
        name=d["name"],
        summary=parse_summary(d["summary_json"]),
        requests=arrow_to_frame(columns_to_arrow("requests", d["requests"])),
        queue=arrow_to_frame(columns_to_arrow("queue", d["queue"])),
        links=arrow_to_frame(columns_to_arrow("links", d["links"])),
        engine={**dict(d["engine"]), "build": engine_build()},
        summary_json=d["summary_json"],
        warmup_ns=int(d["warmup_ns"]),
        seed=int(d["seed"]),
        scenario=scenario,
        wall_s=float(d["wall_s"]),
    )


def _from_dir_run(d: dict, scenario: str, files: dict[str, Path | bytes]) -> RunResult:
    """A RunResult from `_core.run_variant`'s dict, its tables in `files`."""
    return RunResult(
        name=d["name"],
        summary=parse_summary(d["summary_json"]),
        engine={**dict(d["engine"]), "build": engine_build()},
        summary_json=d["summary_json"],
        warmup_ns=int(d["warmup_ns"]),
        seed=int(d["seed"]),
        scenario=scenario,
        wall_s=float(d["wall_s"]),
        files=files,
    )


def variants(scenario: str | os.PathLike) -> list[str]:
    """Names of the variants of a scenario file (raises ScenarioError for a bad file)."""
    return _core.scenario_variants(os.fspath(scenario))


class _Bar:
    """A tqdm bar in simulated seconds for one variant, created at the first progress call (when
    the end time is known)."""

    def __init__(self, name: str):
        self.name = name
        self.bar = None

    def __call__(self, sim_s: float, end_s: float) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                desc=self.name,
                total=end_s,
                unit="sim s",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} sim s "
                "[{elapsed}<{remaining}, {rate_fmt}]",
                dynamic_ncols=True,
            )
        self.bar.update(sim_s - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _core_run(path: str, variant: str, dest: Path, progress: bool | ProgressFn) -> dict:
    """`_core.run_variant` into the directory `dest`, with `progress` as in `run_one`."""
    if callable(progress):
        cb = progress
        return _core.run_variant(path, variant, os.fspath(dest), lambda s, e: cb(variant, s, e))
    if progress:
        bar = _Bar(variant)
        try:
            return _core.run_variant(path, variant, os.fspath(dest), bar)
        finally:
            bar.close()
    return _core.run_variant(path, variant, os.fspath(dest))


def run_one(
    scenario: str | os.PathLike,
    variant: str,
    progress: bool | ProgressFn = False,
    out_dir: str | os.PathLike | None = None,
    label: str | None = None,
) -> RunResult:
    """Run one variant of a scenario file. The core writes its tables to Parquet as the run
    goes: with `out_dir` straight into that run directory (written atomically, see
    `aqmlab.io`; the result's tables are read from there when used), else into a temporary
    directory whose files the result keeps as bytes. `label` is the scenario recorded in the
    result and run.json (default: the scenario path)."""
    path = os.fspath(scenario)
    label = path if label is None else label
    if out_dir is None:
        with tempfile.TemporaryDirectory(prefix="aqmlab-run-") as td:
            d = _core_run(path, variant, Path(td), progress)
            files = {t: (Path(td) / parquet_name(t)).read_bytes() for t in TABLES}
        return _from_dir_run(d, label, files)
    final = check_run_target(out_dir)
    created = [p for p in [final.parent, *final.parent.parents] if not p.exists()]  # deepest first
    tmp = scratch_dir(final)
    try:
        d = _core_run(path, variant, tmp, progress)
        r = _from_dir_run(d, label, {t: final / parquet_name(t) for t in TABLES})
        commit_run_dir(r, tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for p in created:  # a failed run leaves no directory behind
            try:
                p.rmdir()
            except OSError:
                break
        raise
    return r


def run(
    scenario: str | os.PathLike,
    variant: str | None = None,
    out: str | os.PathLike | None = None,
    progress: bool | ProgressFn = False,
) -> dict[str, RunResult]:
    """Run every variant of `scenario` (or only `variant`), in file order. With `out`, each
    variant is written to `out/<variant>/` as soon as it has finished (see `write_run`).
    `progress`: True for a tqdm bar per variant, or a callable(variant, sim_s, end_s).

    Raises `ScenarioError` (bad file, unknown variant) before anything runs, `SimError` if the
    engine cannot build an experiment; an exception from the progress callable (or Ctrl-C)
    aborts the run."""
    names = variants(scenario)
    if variant is not None:
        if variant not in names:
            raise _core.ScenarioError(
                f'{os.fspath(scenario)}: variant: no variant named "{variant}" '
                f"(the file has: {', '.join(names)})"
            )
        names = [variant]
    if out is not None:
        check_out_dir(out)  # before the simulations: `DIR: reason`, nothing created
        for name in names:
            check_run_target(Path(out) / name)
        remove_stale_scratch(out)  # what a killed earlier run left half-written
    results: dict[str, RunResult] = {}
    for name in names:
        out_dir = None if out is None else Path(out) / name
        results[name] = run_one(scenario, name, progress, out_dir=out_dir)
    return results
