"""Running one variant of a scenario through the Rust core: `run_one` (a scenario file) and
`run_text` (a resolved scenario's TOML text) write the run's tables straight into its run
directory (atomically, `aqmlab.storage.run_dir`) or into a temporary one, and return its `RunResult`
(aqmlab.storage.record); `variants` names a scenario's variants as the core does. The layer below
`aqmlab.run()` (aqmlab.engine.api). aqmlab.storage.record (dataclasses, inspect) is imported after the engine
has run, when a result is made."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from aqmlab import _core
from aqmlab.engine.build import engine_build
from aqmlab.engine.document import dumps_toml
from aqmlab.storage.run_dir import TABLES, check_run_target, commit_run_dir, parquet_name, scratch_dir

TYPE_CHECKING = False  # as in aqmlab.storage.record: typing's, without importing typing

if TYPE_CHECKING:
    from aqmlab.storage.record import RunResult


#: Labels of a scenario given as a dict or as TOML text (in errors; their runs are named
#: "base" when they have no variants: crates/scenario/src/lib.rs).
DICT_LABEL, TEXT_LABEL = "<dict>", "<text>"

#: A scenario: a file path (`-` is standard input), TOML text (a string with a line break) or
#: the parsed document as a dict.
Scenario = str | os.PathLike | dict


def scenario_source(
    scenario: Scenario, source: tuple[str, str] | None
) -> tuple[str, str | None, str, dict | None]:
    """(label, text, base_dir, doc) of a scenario given as a path, TOML text or dict (as
    `aqmlab.run` takes it); text and base dir are `source` when the caller has read the file
    already."""
    if isinstance(scenario, dict):
        return DICT_LABEL, None, ".", scenario
    if isinstance(scenario, str) and "\n" in scenario:
        return TEXT_LABEL, scenario, ".", None
    if not isinstance(scenario, str | os.PathLike):
        raise TypeError(f"scenario: expected a path, TOML text or a dict, got {type(scenario).__name__}")
    label = os.fspath(scenario)
    text, base_dir = _core.read_scenario(label) if source is None else source
    return label, text, base_dir, None


# progress(variant, sim_s, end_s)
ProgressFn = Callable[[str, float, float], None]


def _from_dir_run(d: dict, scenario: str, files: dict[str, Path | bytes]) -> RunResult:
    """A RunResult from `_core.run_variant`'s (or `run_scenario_text`'s) dict, its tables in
    `files`."""
    from aqmlab.storage.record import RunResult, parse_summary

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
    from aqmlab.engine.document import PYTHON_TABLES, text_document, uses_python_keys

    label, text, base_dir, doc = scenario_source(scenario, None)
    if doc is None:
        doc = text_document(text, label, base_dir)
    if not uses_python_keys(doc):
        if text is None:
            text = dumps_toml(doc)
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
    `aqmlab.storage.run_dir`; the result's tables are read from there when used), else into a temporary
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
