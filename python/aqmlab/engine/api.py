"""`aqmlab.run()`: run the variants of a scenario file through the Rust core and get pandas
DataFrames back, one `RunResult` (aqmlab.storage.record) per variant, written with `aqmlab.storage.run_dir`.
pandas is imported only when a table is first used. `load = …` is resolved first
(aqmlab.engine.calibrate); each variant then runs as `aqmlab.engine.run_variant.run_text` runs it (`run_one`,
`run_text` and `variants` are importable from here too)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from aqmlab import _core
from aqmlab.engine.document import dumps_toml
from aqmlab.engine.run_variant import (
    DICT_LABEL,
    TEXT_LABEL,
    ProgressFn,
    Scenario,
    run_one,
    run_text,
    scenario_source,
    variants,
)
from aqmlab.storage.run_dir import check_out_dir, check_run_target, remove_stale_scratch

__all__ = ["DICT_LABEL", "TEXT_LABEL", "ProgressFn", "Scenario", "run", "run_one", "run_text", "variants"]

# aqmlab.storage.record (dataclasses, inspect) is imported after the engine has run, when a result is
# made: `aqmlab run` imports it meanwhile (aqmlab.cli.cmd_run).
TYPE_CHECKING = False  # as in aqmlab.storage.record: typing's, without importing typing

if TYPE_CHECKING:
    from aqmlab.storage.record import RunResult


def __getattr__(name: str):
    """`aqmlab.engine.api.RunResult` and `parse_summary` (imported here before 2026-11-27) still work,
    imported when first asked for."""
    if name in ("RunResult", "parse_summary"):
        from aqmlab.storage import record

        return getattr(record, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Shortest estimated wall time, seconds, that `aqmlab run` announces (aqmlab.sweeps.cost.ANNOUNCE_S,
#: not imported: `aqmlab run` starts in milliseconds).
ANNOUNCE_S = 60.0


def _announcement(label: str, name: str, est: dict) -> str | None:
    """The line announcing variant `name` of `label` with the engine's estimate `est`
    (`_core.scenario_text_estimates`), or None below `ANNOUNCE_S`."""
    if not est["seconds"] >= ANNOUNCE_S:
        return None
    setup = est["setup_s"]
    parts = [f"at least {_core.duration_text(est['seconds'])}"]
    if setup >= 1.0:
        parts.append(f"{_core.duration_text(setup)} of it setting up {est['nodes']} nodes")
    return f"{label}: {name}: estimated {', '.join(parts)}; Ctrl-C stops it"


def _runnable(
    label: str,
    text: str | None,
    base_dir: str,
    doc: dict | None,
    out: str | os.PathLike | None,
    cache: str | os.PathLike | None,
    log: Callable[[str], object] | None,
) -> tuple[str, dict]:
    """(the TOML text the core runs, the document as the core read it): `text` itself when the
    document uses no Python-only key (aqmlab.engine.document.uses_python_keys), else the document with
    `load` resolved (the core's LoadResolver, aqmlab.engine.calibrate.load_resolver) and `[sweep]`,
    `[tune]`, `[calibration]` dropped; `log` hears the value used. `out` is checked before a
    calibration runs."""
    from aqmlab.engine.document import text_document, uses_python_keys

    if doc is None:
        doc = text_document(text, label, base_dir)
        if not uses_python_keys(doc):
            return text, doc
    if not uses_python_keys(doc):
        return dumps_toml(doc), doc
    from aqmlab.engine.calibrate import load_resolver

    if out is not None:
        check_out_dir(out)  # before a calibration runs: `DIR: reason`, nothing created
    resolved = load_resolver(doc, label, base_dir, cache=cache, log=log).resolve(doc)
    return dumps_toml(resolved), doc


def run(
    scenario: Scenario,
    variant: str | None = None,
    out: str | os.PathLike | None = None,
    progress: bool | ProgressFn = False,
    checked: Callable[[], object] | None = None,
    source: tuple[str, str] | None = None,
    announce: Callable[[str], object] | None = None,
    cache: str | os.PathLike | None = None,
    log: Callable[[str], object] | None = None,
) -> dict[str, RunResult]:
    """Run every variant of `scenario` (or only `variant`), in file order. `scenario` is a file
    path, TOML text (a string with a line break) or the scenario as a dict (relative data files
    of text and dicts resolve against the working directory). With `out`, each variant is
    written to `out/<variant>/` as soon as it has finished (see `write_run`).
    `progress`: True for a progress bar per variant, drawn by the core on stderr when stderr is a
    terminal (and TERM is set and not "dumb"), or a callable(variant, sim_s, end_s).
    `checked`, if given, is called once when the scenario and the output directory have passed
    their checks, just before the first variant runs (`aqmlab run` starts its imports there:
    the engine runs without the GIL).

    A file is read once (`-` is standard input), at most 64 MiB, by the core
    (`_core.read_scenario`), and every variant runs from that text; `source` is that function's
    `(text, base_dir)` when the caller has read it already. `load = …` in a [[workload]] is
    resolved first from the cached calibration (computed when missing, in `cache`: see
    aqmlab.engine.calibrate); a `[sweep]` or `[tune]` table is left out (its base scenario runs).
    `log`, if given, hears the value `load` resolved to and what was left out. `announce`, if
    given, gets a line for each variant the engine estimates at a minute or more (`aqmlab run`
    prints it on stderr before the runs start; aqmlab.sweeps.cost).

    Raises `ScenarioError` (bad file, unknown variant) before anything runs, `SimError` if the
    engine cannot build an experiment; an exception from the progress callable (or Ctrl-C)
    aborts the run."""
    label, text, base_dir, doc = scenario_source(scenario, source)
    runnable, doc = _runnable(label, text, base_dir, doc, out, cache, log)
    estimates = {e["name"]: e for e in _core.scenario_text_estimates(runnable, label, base_dir)}
    if log is not None:  # once the base scenario has passed the core's checks
        for table in (t for t in ("sweep", "tune") if t in doc):
            log(
                f"{label}: [{table}]: running the base scenario only, without the [{table}] table "
                f"(aqmlab {table} {label} --out DIR runs the {table})"
            )
    names = list(estimates)
    if variant is not None:
        if variant not in names:
            raise _core.ScenarioError(
                f'{label}: variant: no variant named "{variant}" (the file has: {", ".join(names)})'
            )
        names = [variant]
    if out is not None:
        check_out_dir(out)  # before the simulations: `DIR: reason`, nothing created
        for name in names:
            check_run_target(Path(out) / name)
        remove_stale_scratch(out)  # what a killed earlier run left half-written
    if announce is not None:
        for name in names:
            line = _announcement(label, name, estimates[name])
            if line is not None:
                announce(line)
    if checked is not None:
        checked()
    results: dict[str, RunResult] = {}
    for name in names:
        out_dir = None if out is None else Path(out) / name
        results[name] = run_text(runnable, label, base_dir, name, progress, out_dir=out_dir)
    return results
