"""Running a sweep (`aqmlab sweep SCENARIO --out DIR`) and its results store.

The scenario's `[sweep]` table is expanded into resolved runs by the core (`expand`:
crates/scenario/src/sweep/, whose module doc is the reference of the table: grid, zip, derived
values, replications, variants, run ids, the keys that change no run); a workload's `load = …` is
resolved here, between the core's plan and its expansion (aqmlab.engine.calibrate), and the size limits
checked (aqmlab.sweeps.cost). Every resolved scenario is checked by the core before anything runs.
Then each run that is not finished yet is executed, one run per process: a local process pool
over all cores by default (`jobs`), in this process when `jobs == 1`, or on a Dask distributed
cluster given its scheduler address (`dask`).
Every run goes through the core's streaming writer, as `aqmlab run` does (`aqmlab.engine.api.run_text`,
`_core.run_scenario_text`), so a run directory holds the same files, byte for byte, as `aqmlab
run` of its scenario.toml writes (run.json differs only in `name` and `scenario`: the variant
and file the sweep names). Local workers write their run directory themselves (atomically,
under `<id>.tmp-<pid>` until complete: a killed worker's leftovers are removed at the next
start); Dask workers write into a temporary directory and return the files' bytes, and this
process writes the run directory, so the output directory need not be shared with remote
workers (the scenario's data files must be readable there).

Store layout:
    DIR/sweep.json            the sweep: scenario, axes, load axis, replications (for reports)
    DIR/sweep.parquet         one row per distinct run (resolved scenario): `run` (id),
                              `variant`, `replication`, `seed`, one column per axis (key path;
                              null where the axis does not apply to the run: a key of another
                              variant, one the run's variant hides, a variable no derived value
                              of the run reads), `status` ("ok", "failed", "pending"), `error`
                              (first line of the error), then every summary column (NaN unless
                              ok)
    DIR/runs/<id>/            as `aqmlab run` writes a run (summary.json, the Parquet tables,
                              run.json) plus scenario.toml, the resolved scenario; a failed run
                              has scenario.toml and error.txt only.

Resume: a run whose directory holds summary.json and was made by the engine build now loaded
(run.json `engine.build`, aqmlab.engine.build) is finished and never recomputed; a run made by another
build is recomputed (and the count printed), so one table never mixes two engines. An
interrupted sweep started again runs only the rest. A failed run is tried again by the next
`aqmlab sweep` (its error stays in the table until then). The sweep table is rewritten at the
end of every invocation, also after Ctrl-C. Runs with the same resolved scenario (e.g. two points
that a derived value rounds to the same value, or a variant that an axis of another variant does
not touch) share one id, are run once and are one row of the table (the first point's values).

Validation: python/tests/test_sweep_run.py (resume, failures, Dask vs process pool).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aqmlab import _core
from aqmlab.engine.build import engine_build
from aqmlab.engine.document import TableError, dumps_toml
from aqmlab.reports.page_text import write_atomic
from aqmlab.storage.dirs import SWEEP_INFO, SWEEP_TABLE, is_sweep_dir  # noqa: F401 (is_sweep_dir re-exported)
from aqmlab.storage.run_dir import (
    check_out_dir,
    is_run_dir,
    read_info,
    read_summary,
    remove_stale_scratch,
    write_parquet,
    write_run,
)
from aqmlab.sweeps import cost as runcost
from aqmlab.sweeps.workers import pool, terminate

if TYPE_CHECKING:  # imported where used: workers and the runs need neither
    import pandas as pd

RUNS = "runs"
SCENARIO = "scenario.toml"
ERROR = "error.txt"
META_COLUMNS = ["run", "variant", "replication", "seed"]
STATUS_COLUMNS = ["status", "error"]


class SweepError(TableError):
    """A rejected sweep: message `file: key: reason`, attributes `file`, `key`, `reason`."""


@dataclass
class SweepRun:
    """One run of a sweep (`_core.sweep_expand`): `values` the point's grid, zip and derived
    values by key path, `doc` the resolved scenario document, `text` the same as TOML (the run's
    scenario.toml), `applies` the keys of `values` that reach this run."""

    id: str
    name: str
    replication: int
    seed: int
    values: dict
    doc: dict = field(repr=False)
    text: str = field(repr=False)
    applies: tuple[str, ...] = field(default=(), repr=False)
    #: The engine's estimate of the run (`validate` fills it in): events and set-up seconds.
    events: float = field(default=0.0, repr=False)
    setup_s: float = field(default=0.0, repr=False)


@dataclass
class Sweep:
    """An expanded sweep: `axes` the key paths that vary (grid, zip, derive), `runs` every run
    (point-major, then replication, then variant)."""

    scenario: str
    base_dir: str
    axes: list[str]
    replications: int
    load_axis: str | None
    runs: list[SweepRun]


def _document(scenario, text: str | None) -> tuple[str, dict]:
    """(label, document) of `scenario`: a path (`text` overrides reading it), TOML text (a string
    with a line break; data files resolve against the current directory) or a dict."""
    from aqmlab.engine.document import file_dir, text_document
    from aqmlab.engine.run_variant import scenario_source

    source = None if text is None else (text, file_dir(os.fspath(scenario)))
    with SweepError.from_core():
        label, text, base_dir, doc = scenario_source(scenario, source)
        return label, text_document(text, label, base_dir) if doc is None else doc


def expand(scenario: str | os.PathLike | dict, text: str | None = None, log=None) -> Sweep:
    """The resolved runs of the sweep `scenario` (a file with a `[sweep]` table, `text`
    overriding its contents; TOML text; or a document dict), as the core expands them. A run whose document
    has `load = …` gets it resolved as `aqmlab run` would (aqmlab.engine.calibrate.load_resolver; `log`
    hears the values), and its id is that of the document that runs. Raises SweepError (also
    for a sweep too large to run, before it is expanded)."""
    from aqmlab.engine.calibrate import load_resolver

    file, doc = _document(scenario, text)
    with SweepError.from_core():
        plan = _core.sweep_plan(doc, file)
    base = {k: v for k, v in doc.items() if k not in ("sweep", "calibration")}
    # Relative data files resolve against `sweep.data_dir` (itself relative to the sweep file).
    base_dir = str(Path(file).parent / plan["data_dir"]) or "."
    calibration = doc.get("calibration")
    loads = load_resolver(
        base if calibration is None else {**base, "calibration": calibration}, file, base_dir, log=log
    )
    resolved = dumps_toml(loads.resolve(base))  # a bad `load` is reported before the points
    if plan["runs"] > 1:
        per_run = runcost.base_estimates(resolved, file, base_dir, plan["variants"])
        runcost.refuse_if_too_large(
            SweepError, file, plan["size_key"], "sweep", plan["size_text"], plan["runs"], per_run
        )
    with SweepError.from_core():
        _, runs = _core.sweep_expand(doc, file)
    out = []
    for r in runs:
        rdoc = loads.resolve(r["doc"]) if _core.has_load(r["doc"]) else r["doc"]
        out.append(
            SweepRun(
                id=_core.run_id(rdoc) if rdoc is not r["doc"] else r["id"],
                name=r["name"],
                replication=r["replication"],
                seed=r["seed"],
                values=r["values"],
                doc=rdoc,
                text=dumps_toml(rdoc),
                applies=r["applies"],
            )
        )
    return Sweep(file, base_dir, plan["axes"], plan["replications"], plan["load_axis"], out)


def _describe(values: dict) -> str:
    return ", ".join(f"{k} = {v!r}" for k, v in values.items()) or "the base scenario"


def validate(sweep: Sweep) -> None:
    """Have the core check every resolved scenario (each distinct one once), fill in the names
    of runs of a file without variants and each run's estimate. Raises SweepError naming the
    point."""
    checked: dict[str, list[dict]] = {}
    for run in sweep.runs:
        if run.id not in checked:
            try:
                checked[run.id] = _core.scenario_text_estimates(run.text, sweep.scenario, sweep.base_dir)
            except _core.ScenarioError as e:
                point = _describe({**run.values, "run.seed": run.seed})
                raise SweepError(e.file, e.key, f"{e.reason} (sweep point: {point})") from None
        ests = checked[run.id]
        if not run.name:
            run.name = ests[0]["name"]
        est = next((e for e in ests if e["name"] == run.name), ests[0])
        run.events, run.setup_s = est["events"], est["setup_s"]


def execute_run(
    text: str, label: str, base_dir: str, name: str, dest: str | None = None
) -> tuple[str, object]:
    """Simulate one resolved run (in a worker) through the core's streaming writer. With `dest`
    the run directory is written there (atomically; what an earlier failure left there is
    removed first), else the result holds its files as bytes. Returns ("ok", RunResult) or
    ("failed", error text); never raises for a failing run."""
    from aqmlab.engine.api import run_text

    try:
        if dest is not None and os.path.lexists(dest) and not is_run_dir(Path(dest)):
            shutil.rmtree(dest)  # the leftovers of an earlier failure of this run
        return "ok", run_text(text, label, base_dir, name, out_dir=dest)
    except Exception as e:  # noqa: BLE001 - a failing run is recorded, not raised
        return "failed", f"{type(e).__name__}: {e}\n\n{traceback.format_exc()}"


def run_dir(out: Path, run: SweepRun) -> Path:
    return out / RUNS / run.id


def _store(out: Path, run: SweepRun, status: str, payload, written: bool) -> None:
    """Record `run`'s outcome in its directory: a result not `written` there by its worker
    (Dask) is written from its files' bytes; then its resolved scenario (and error)."""
    d = run_dir(out, run)
    if status == "ok":
        if not written:
            if d.exists() and not is_run_dir(d):
                shutil.rmtree(d)  # the leftovers of an earlier failure of this run
            write_run(payload, d)
        write_atomic(d / SCENARIO, run.text)
    else:
        d.mkdir(parents=True, exist_ok=True)
        write_atomic(d / SCENARIO, run.text)
        write_atomic(d / ERROR, str(payload))


Task = tuple[str, str, str, str, str | None]  # text, label, base_dir, name, dest (None: Dask)


def _local(tasks: dict[str, Task], jobs: int) -> Iterator[tuple[str, str, object]]:
    if jobs == 1:
        for rid, t in tasks.items():
            yield (rid, *execute_run(*t))
        return
    ex = pool(jobs)  # workers ignore Ctrl-C and die with this process (aqmlab.sweeps.workers)
    try:
        pending = {ex.submit(execute_run, *t): rid for rid, t in tasks.items()}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                rid = pending.pop(f)
                try:
                    yield (rid, *f.result())
                except Exception as e:  # noqa: BLE001 - e.g. a worker process that died
                    yield rid, "failed", f"{type(e).__name__}: {e}"
    except BaseException:
        # Interrupted: do not wait for the runs in progress (they are not recorded anyway).
        terminate(ex)
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _dask(tasks: dict[str, Task], address: str) -> Iterator[tuple[str, str, object]]:
    from distributed import Client, as_completed

    with Client(address) as client:
        futures = {
            client.submit(execute_run, *t, key=f"aqmlab-run-{rid}", pure=False): rid
            for rid, t in tasks.items()
        }
        try:
            for f in as_completed(futures):
                rid = futures[f]
                try:
                    yield (rid, *f.result())
                except Exception as e:  # noqa: BLE001 - a lost worker, a serialization error
                    yield rid, "failed", f"{type(e).__name__}: {e}"
        finally:
            client.cancel(list(futures))


def run_sweep(
    scenario: str | os.PathLike,
    out: str | os.PathLike,
    jobs: int | None = None,
    dask: str | None = None,
    progress: bool = True,
    on_run: Callable[[SweepRun, str], None] | None = None,
) -> pd.DataFrame:
    """Expand and validate the sweep of `scenario`, run every unfinished run into `out` and return
    the sweep table (also written to `out/sweep.parquet`). `jobs`: local processes (default: all
    cores; 1 = in this process); `dask`: a Dask scheduler address instead. `on_run(run, status)`
    is called after each run is stored; a failed run is printed on stderr as it fails.
    `table.attrs["reused"]`: the runs found finished (by this engine build) and not run again.
    Raises SweepError before anything runs."""
    sweep = expand(scenario, log=lambda m: print(m, file=sys.stderr, flush=True))
    validate(sweep)
    distinct = {r.id: r for r in sweep.runs}.values()
    runcost.check_runs(
        SweepError, sweep.scenario, "sweep", "sweep", [(r.events, r.setup_s) for r in distinct]
    )
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs: must be >= 1, got {jobs}")
    out = Path(out)
    prepare_out(out)  # `DIR: reason` (a file, read-only, …) before anything runs
    write_atomic(out / SWEEP_INFO, json.dumps(sweep_info(sweep), indent=2) + "\n")

    reused = sum(is_finished(out, r) for r in distinct)
    try:
        execute_runs(
            out, sweep.runs, sweep.scenario, sweep.base_dir, jobs=jobs, dask=dask, progress=progress,
            on_run=on_run, announce=True,
        )  # fmt: skip
    finally:
        table = sweep_table(sweep, out)
        write_sweep_table(table, out / SWEEP_TABLE)
    table.attrs["reused"] = reused
    return table


def is_finished(out: Path, run: SweepRun, build: str | None = None) -> bool:
    """Whether `run` has a finished run directory under `out` made by the engine build now
    loaded (module doc: such a run is never recomputed)."""
    d = run_dir(out, run)
    return is_run_dir(d) and read_info(d).get("engine", {}).get("build") == (build or engine_build())


def prepare_out(out: Path) -> None:
    """Check that `out` and `out/runs` can be written (`DIR: reason` before anything runs),
    create them and remove the scratch names of an earlier driver killed mid-write."""
    check_out_dir(out)
    check_out_dir(out / RUNS)
    (out / RUNS).mkdir(parents=True, exist_ok=True)
    for d in (out, out / RUNS, *(p for p in (out / RUNS).iterdir() if p.is_dir())):
        remove_stale_scratch(d)


def execute_runs(
    out: Path,
    runs: list[SweepRun],
    scenario: str,
    base_dir: str,
    jobs: int | None = None,
    dask: str | None = None,
    progress: bool = False,
    on_run: Callable[[SweepRun, str], None] | None = None,
    desc: str = "sweep",
    announce: bool = False,
) -> int:
    """Run every run of `runs` (distinct ids once) that is not finished under `out` (see
    `is_finished`) and store it in `out/runs/<id>/`: a local process pool of `jobs` (default all
    cores; 1 = in this process) or the Dask scheduler `dask`. `scenario` names the file in
    messages, `base_dir` resolves its relative data files. With `announce`, the runs to do are
    announced on stderr when estimated at a minute or more (their `events`, `setup_s`: see
    aqmlab.sweeps.cost). Returns the number of failed runs."""
    by_id: dict[str, SweepRun] = {}
    for r in runs:
        by_id.setdefault(r.id, r)
    todo: dict[str, Task] = {}
    stale = 0
    build = engine_build()
    for rid, r in by_id.items():
        d = run_dir(out, r)
        if is_finished(out, r, build):
            if not (d / SCENARIO).is_file():
                write_atomic(d / SCENARIO, r.text)
            continue
        stale += is_run_dir(d)  # made by another engine build (or before builds were recorded)
        todo[rid] = (r.text, scenario, base_dir, r.name, None if dask else os.fspath(d))
    if stale:
        print(
            f"{out}: {stale} finished run(s) were made by another engine build; recomputing them",
            file=sys.stderr,
        )

    if announce:
        todo_runs = [by_id[rid] for rid in todo]
        line = runcost.announcement(
            desc, len(todo_runs), sum(r.events for r in todo_runs), sum(r.setup_s for r in todo_runs)
        )
        if line is not None:
            print(f"{scenario}: {line}", file=sys.stderr, flush=True)
    from aqmlab.engine.console import progress_bar

    bar = progress_bar(len(todo), desc, "run") if progress and todo else None  # on a terminal only
    failed = 0
    try:
        if todo:
            stream = _dask(todo, dask) if dask else _local(todo, jobs or os.cpu_count() or 1)
            with closing(stream):
                for rid, status, payload in stream:
                    _store(out, by_id[rid], status, payload, written=not dask)
                    failed += status != "ok"
                    if status != "ok":  # as it happens (a full disk), not only in the table; above the bar
                        line = f"{desc}: run {rid} failed: {str(payload).splitlines()[0]}"
                        (print if bar is None else bar.write)(line, file=sys.stderr)
                    if bar is not None:
                        if failed:
                            bar.set_postfix(failed=failed)
                        bar.update(1)
                    if on_run is not None:
                        on_run(by_id[rid], status)
    finally:
        if bar is not None:
            bar.close()
    return failed


def sweep_info(sweep: Sweep) -> dict:
    return {
        "scenario": sweep.scenario,
        "axes": sweep.axes,
        "load_axis": sweep.load_axis,
        "replications": sweep.replications,
        "runs": len(sweep.runs),
    }


def _status_of(out: Path, run: SweepRun) -> tuple[str, str | None]:
    d = run_dir(out, run)
    if is_finished(out, run):
        return "ok", None
    if is_run_dir(d):  # of another engine build, not recomputed (interrupted): not a result
        return "pending", None
    if (d / ERROR).is_file():
        return "failed", (d / ERROR).read_text(encoding="utf-8").split("\n\n", 1)[0]
    return "pending", None


def sweep_table(sweep: Sweep, out: Path) -> pd.DataFrame:
    """One row per distinct run of `sweep` (see the module doc), from what is on disk under
    `out`."""
    import pandas as pd

    rows = []
    summary_cols: list[str] = []
    listed: set[str] = set()
    for r in sweep.runs:
        if r.id in listed:
            continue
        listed.add(r.id)
        d = run_dir(out, r)
        status, error = _status_of(out, r)
        row = {"run": r.id, "variant": r.name, "replication": r.replication, "seed": r.seed}
        row.update({a: r.values.get(a) if a in r.applies else None for a in sweep.axes})
        row.update(status=status, error=error)
        if status == "ok":
            s = read_summary(d)
            summary_cols += [k for k in s if k not in summary_cols]
            row.update(s)
        rows.append(row)
    df = pd.DataFrame(rows, columns=[*META_COLUMNS, *sweep.axes, *STATUS_COLUMNS, *summary_cols])
    for a in sweep.axes:  # from the values as written (the frame would make int + None float)
        df[a] = _axis_column([r[a] for r in rows], df.index)
    for c in summary_cols:
        df[c] = pd.to_numeric(df[c])
    return df


def _axis_column(values: list, index: pd.Index) -> pd.Series:
    """An axis column with None where the axis does not apply: integers as Int64 (nullable, not
    floats), a mix of numbers and strings as strings, otherwise as pandas infers it."""
    import pandas as pd

    kinds = {type(v) for v in values if v is not None}
    if kinds == {int}:
        return pd.Series(values, dtype="Int64" if None in values else "int64", index=index)
    if len(kinds) > 1 and not kinds <= {int, float}:
        return pd.Series([None if v is None else str(v) for v in values], dtype=object, index=index)
    return pd.Series(values, index=index)


def write_sweep_table(df: pd.DataFrame, path: Path) -> None:
    """Parquet without pandas metadata, written under a temporary name and renamed."""
    import pyarrow as pa

    t = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    write_parquet(t, tmp)
    os.replace(tmp, path)


def load_sweep(dir: str | os.PathLike) -> pd.DataFrame:
    """The sweep table of a sweep directory (one row per run; see the module doc). The sweep's
    description (axes, load axis, replications) is in `df.attrs["sweep"]`."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = Path(dir)
    if not is_sweep_dir(d):
        raise FileNotFoundError(f"{d}: not a sweep directory (no {SWEEP_TABLE} and {SWEEP_INFO})")
    t = pq.read_table(d / SWEEP_TABLE)
    df = t.to_pandas()
    info = json.loads((d / SWEEP_INFO).read_text(encoding="utf-8"))
    for a in info.get("axes", []):  # an integer axis with nulls: Int64, as sweep_table made it
        if a in df.columns and pa.types.is_integer(t.schema.field(a).type) and t.column(a).null_count:
            df[a] = t.column(a).to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
    df.attrs["sweep"] = info
    return df
