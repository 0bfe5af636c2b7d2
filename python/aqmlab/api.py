"""`aqmlab.run()`: run the variants of a scenario file through the Rust core and get pandas
DataFrames back, one `RunResult` (aqmlab.record) per variant, written with `aqmlab.io`.
pandas is imported only when a table is first used."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from aqmlab import _core
from aqmlab.build import engine_build
from aqmlab.io import (
    TABLES,
    check_out_dir,
    check_run_target,
    commit_run_dir,
    parquet_name,
    remove_stale_scratch,
    scratch_dir,
)

# aqmlab.record (dataclasses, inspect) is imported after the engine has run, when a result is
# made: `aqmlab run` imports it meanwhile (aqmlab.cli.cmd_run).
TYPE_CHECKING = False  # as in aqmlab.record: typing's, without importing typing

if TYPE_CHECKING:
    from aqmlab.record import RunResult


def __getattr__(name: str):
    """`aqmlab.api.RunResult` and `parse_summary` (imported here before 2026-11-27) still work,
    imported when first asked for."""
    if name in ("RunResult", "parse_summary"):
        from aqmlab import record

        return getattr(record, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# progress(variant, sim_s, end_s)
ProgressFn = Callable[[str, float, float], None]


def _from_dir_run(d: dict, scenario: str, files: dict[str, Path | bytes]) -> RunResult:
    """A RunResult from `_core.run_variant`'s (or `run_scenario_text`'s) dict, its tables in
    `files`."""
    from aqmlab.record import RunResult, parse_summary

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


def variants(scenario: str | os.PathLike | dict) -> list[str]:
    """Names of the variants of a scenario (a path, TOML text or a dict, as `run` takes), in
    file order, as `run` names its results. Raises ScenarioError for a scenario the core
    rejects; one with `load = …` (resolved only when it runs) is checked as far as parsing."""
    from aqmlab.document import PYTHON_TABLES, text_document, uses_python_keys

    label, text, base_dir, doc = _source(scenario, None)
    if doc is None:
        doc = text_document(text, label, base_dir)
    if not uses_python_keys(doc):
        if text is None:
            import tomli_w

            text = tomli_w.dumps(doc)
        return _core.scenario_text_variants(text, label, base_dir)
    plain = {k: v for k, v in doc.items() if k not in PYTHON_TABLES}
    return [name for name, _ in _core.variant_documents(plain, label)]


# core(dest, progress) -> the core's dict: `_core.run_variant` or `_core.run_scenario_text`
# with the scenario bound; progress is None, True (the core draws its progress bar on stderr
# when that is a terminal: crates/py/src/progress_bar.rs) or a callable(sim_s, end_s)
CoreRun = Callable[[str, object], dict]


def _core_run(core: CoreRun, variant: str, dest: Path, progress: bool | ProgressFn) -> dict:
    """`core` into the directory `dest`, with `progress` as in `run_one`."""
    if callable(progress):
        cb = progress
        return core(os.fspath(dest), lambda s, e: cb(variant, s, e))
    return core(os.fspath(dest), True if progress else None)


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

    def core(dest: str, cb) -> dict:
        return _core.run_variant(path, variant, dest, cb)

    return _run_into(core, variant, path if label is None else label, progress, out_dir)


def run_text(
    text: str,
    label: str,
    base_dir: str | os.PathLike,
    variant: str,
    progress: bool | ProgressFn = False,
    out_dir: str | os.PathLike | None = None,
) -> RunResult:
    """`run_one` for a resolved scenario's TOML `text` (sweeps, tuning, studies): `label` names
    it in errors, gives the default variant name (its stem) and is the scenario recorded in
    run.json; relative data files resolve against `base_dir`. Same writer, so the same files
    as `run_one` of a file holding `text`."""

    def core(dest: str, cb) -> dict:
        return _core.run_scenario_text(text, label, os.fspath(base_dir), variant, dest, cb)

    return _run_into(core, variant, label, progress, out_dir)


def _run_into(
    core: CoreRun,
    variant: str,
    label: str,
    progress: bool | ProgressFn,
    out_dir: str | os.PathLike | None,
) -> RunResult:
    """Run `core` into `out_dir` (atomically) or a temporary directory (see `run_one`)."""
    if out_dir is None:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="aqmlab-run-") as td:
            d = _core_run(core, variant, Path(td), progress)
            files = {t: (Path(td) / parquet_name(t)).read_bytes() for t in TABLES}
        return _from_dir_run(d, label, files)
    final = check_run_target(out_dir)
    created = [p for p in [final.parent, *final.parent.parents] if not p.exists()]  # deepest first
    tmp = scratch_dir(final)
    try:
        d = _core_run(core, variant, tmp, progress)
        r = _from_dir_run(d, label, {t: final / parquet_name(t) for t in TABLES})
        commit_run_dir(r, tmp, final)
    except BaseException:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
        for p in created:  # a failed run leaves no directory behind
            try:
                p.rmdir()
            except OSError:
                break
        raise
    return r


#: Shortest estimated wall time, seconds, that `aqmlab run` announces (aqmlab.runcost.ANNOUNCE_S,
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


#: Labels of a scenario given as a dict or as TOML text (in errors; their runs are named
#: "base" when they have no variants: crates/scenario/src/lib.rs).
DICT_LABEL, TEXT_LABEL = "<dict>", "<text>"

#: A scenario: a file path (`-` is standard input), TOML text (a string with a line break) or
#: the parsed document as a dict.
Scenario = str | os.PathLike | dict


def _source(scenario: Scenario, source: tuple[str, str] | None) -> tuple[str, str | None, str, dict | None]:
    """(label, text, base_dir, doc) of a scenario given as a path, TOML text or dict (see
    `run`); text and base dir are `source` when the caller has read the file already."""
    if isinstance(scenario, dict):
        return DICT_LABEL, None, ".", scenario
    if isinstance(scenario, str) and "\n" in scenario:
        return TEXT_LABEL, scenario, ".", None
    if not isinstance(scenario, str | os.PathLike):
        raise TypeError(f"scenario: expected a path, TOML text or a dict, got {type(scenario).__name__}")
    label = os.fspath(scenario)
    text, base_dir = _core.read_scenario(label) if source is None else source
    return label, text, base_dir, None


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
    document uses no Python-only key (aqmlab.document.uses_python_keys), else the document with
    `load` resolved (aqmlab.calibrate.LoadResolver) and `[sweep]`, `[tune]`, `[calibration]`
    dropped; `log` hears the value used. `out` is checked before a calibration runs."""
    from aqmlab.document import text_document, uses_python_keys

    if doc is None:
        doc = text_document(text, label, base_dir)
        if not uses_python_keys(doc):
            return text, doc
    import tomli_w

    if not uses_python_keys(doc):
        return tomli_w.dumps(doc), doc
    from aqmlab.calibrate import LoadResolver

    if out is not None:
        check_out_dir(out)  # before a calibration runs: `DIR: reason`, nothing created
    resolved = LoadResolver(doc, label, base_dir, cache=cache, log=log).resolve(doc)
    return tomli_w.dumps(resolved), doc


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
    aqmlab.calibrate); a `[sweep]` or `[tune]` table is left out (its base scenario runs).
    `log`, if given, hears the value `load` resolved to and what was left out. `announce`, if
    given, gets a line for each variant the engine estimates at a minute or more (`aqmlab run`
    prints it on stderr before the runs start; aqmlab.runcost).

    Raises `ScenarioError` (bad file, unknown variant) before anything runs, `SimError` if the
    engine cannot build an experiment; an exception from the progress callable (or Ctrl-C)
    aborts the run."""
    label, text, base_dir, doc = _source(scenario, source)
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
