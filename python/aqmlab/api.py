"""`aqmlab.run()`: run the variants of a scenario file through the Rust core and get pandas
DataFrames back, one `RunResult` (aqmlab.record) per variant, written with `aqmlab.io`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from aqmlab import _core
from aqmlab.build import engine_build
from aqmlab.io import check_out_dir, check_run_target, remove_stale_scratch, write_run
from aqmlab.record import RunResult, parse_summary
from aqmlab.tables import arrow_to_frame, columns_to_arrow

__all__ = ["ProgressFn", "RunResult", "run", "run_one", "variants"]

# progress(variant, sim_s, end_s)
ProgressFn = Callable[[str, float, float], None]


def _from_core(d: dict, scenario: str) -> RunResult:
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


def run_one(scenario: str | os.PathLike, variant: str, progress: bool | ProgressFn = False) -> RunResult:
    """Run one variant of a scenario file."""
    path = os.fspath(scenario)
    if callable(progress):
        cb = progress
        d = _core.run_variant(path, variant, lambda s, e: cb(variant, s, e))
    elif progress:
        bar = _Bar(variant)
        try:
            d = _core.run_variant(path, variant, bar)
        finally:
            bar.close()
    else:
        d = _core.run_variant(path, variant)
    return _from_core(d, path)


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
        r = run_one(scenario, name, progress)
        if out is not None:
            write_run(r, Path(out) / name)
        results[name] = r
    return results
