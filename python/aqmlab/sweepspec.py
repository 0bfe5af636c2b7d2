"""Sweeps in scenario files: the `[sweep]` table, expanded into resolved runs.

A scenario file with a `[sweep]` table describes many runs: the base scenario (everything but
`[sweep]`), a set of points where keys take other values, replications with consecutive seeds,
and every `[[variant]]` of the file at each point. Example:

    [sweep]
    replications = 5                 # seeds run.seed, run.seed + 1, … (run.seed default 1)
    variants = ["red"]               # optional: only these variants (default: all)
    load_axis = "workload[0].rate"   # optional: the x axis of the load figures
    data_dir = "../data"             # optional: where relative data files resolve (default:
                                     # the sweep file's directory; not part of a run's identity)

    [sweep.grid]                     # product of the lists (first key varies slowest)
    "queue.min_th" = [5, 30, 60]
    "workload[0].rate" = [150.0, 200.0, 250.0]

    [sweep.zip]                      # lists of one length, taken together (i-th with i-th)
    "queue.w_q" = ["1/512", "1/128"]
    "queue.max_p" = [0.1, 0.05]

    [sweep.derive]                   # derived values, computed in this order (aqmlab.expr)
    "queue.max_th" = "3 * queue.min_th"
    "queue.limit" = "max(8 * queue.min_th, 120)"

Points are the product of the grid and the zip rows (grid × zip; either may be absent); each
point runs `replications` times for each selected variant. Here: 3 × 3 grid × 2 zip rows × 5
replications × 1 variant = 90 runs.

Key paths: segments joined by `.`; a segment is a key (`queue`), an array element (`workload[0]`)
or a variant by name (`variant[red].queue.min_th`, which overrides inside that variant's table).
A path writes into the base document (missing tables on the way are created; the core then
rejects unknown keys); `var.NAME` is a sweep variable: not written into the scenario, only read
by derived values (e.g. `"var.load" = [0.5, 0.9]` with `"workload[0].rate" = "250 * var.load"`).
`run.seed` cannot be swept together with replications > 1.

Each run is one variant at one point and one seed. Its resolved scenario is the base document
with the point's values and the seed set, `[sweep]` (and `[calibration]`) removed, and
`[[variant]]` reduced to the one variant it runs (so the resolved file is runnable on its own
with `aqmlab run`). Its id is
the first 16 hex digits of the SHA-256 of the canonical JSON of that document (sorted keys, no
whitespace): the same resolved scenario always gets the same id, whatever the comments, key
order or sweep it came from, and any value change gives another id.

Every mistake (unknown `[sweep]` key, a list of the wrong length, a path that does not resolve,
an expression that cannot be evaluated, and any error the core finds in a resolved scenario) is
reported as `FILE: KEY: reason` before anything runs.

Validation: python/tests/test_sweep_spec.py.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from aqmlab.expr import Expr, ExprError, parse_expr

SWEEP_KEYS = ("grid", "zip", "derive", "replications", "variants", "load_axis", "data_dir")
HASH_HEX = 16
_SEG = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\[\]]+)\])?$")


class SweepError(ValueError):
    """A rejected sweep: message `file: key: reason`, attributes `file`, `key`, `reason`."""

    def __init__(self, file: str, key: str, reason: str):
        super().__init__(f"{file}: {key}: {reason}")
        self.file, self.key, self.reason = file, key, reason


class PathError(ValueError):
    """A key path that is malformed or does not resolve in the document."""


Segment = tuple[str, int | str | None]


def parse_path(path: str) -> list[Segment]:
    """`workload[0].rate` → [("workload", 0), ("rate", None)]; `variant[red]` → ("variant",
    "red"). Raises PathError for a malformed path."""
    if not isinstance(path, str) or not path:
        raise PathError("empty key path")
    segs: list[Segment] = []
    for part in path.split("."):
        m = _SEG.match(part)
        if not m:
            raise PathError(f"malformed key path segment {part!r} (want key, key[N] or variant[NAME])")
        name, idx = m.group(1), m.group(2)
        if idx is None:
            segs.append((name, None))
        elif idx.isdigit():
            segs.append((name, int(idx)))
        elif name == "variant":
            segs.append((name, idx))
        else:
            raise PathError(f"{part!r}: index must be a non-negative integer")
    return segs


def _step(node, seg: Segment, path: str, create: bool):
    name, idx = seg
    if not isinstance(node, dict):
        raise PathError(f"{path}: {name!r} is inside a value that is not a table")
    if idx is None:
        if name not in node:
            if not create:
                raise PathError(f"{path}: no key {name!r} in the scenario")
            node[name] = {}
        return node[name]
    arr = node.get(name)
    if not isinstance(arr, list):
        raise PathError(f"{path}: {name!r} is not an array in the scenario")
    if isinstance(idx, int):
        if idx >= len(arr):
            raise PathError(f"{path}: {name}[{idx}] is out of range (the scenario has {len(arr)})")
        return arr[idx]
    for v in arr:
        if isinstance(v, dict) and v.get("name") == idx:
            return v
    names = [v.get("name") for v in arr if isinstance(v, dict)]
    raise PathError(f"{path}: no variant named {idx!r} (the file has: {', '.join(map(str, names))})")


def get_path(doc: dict, path: str):
    """Value at key `path` of `doc` (PathError if there is none)."""
    node = doc
    for seg in parse_path(path):
        node = _step(node, seg, path, create=False)
    return node


def set_path(doc: dict, path: str, value) -> None:
    """Set key `path` of `doc` to `value`, creating missing tables on the way (not arrays or
    array elements)."""
    segs = parse_path(path)
    node = doc
    for seg in segs[:-1]:
        node = _step(node, seg, path, create=True)
    name, idx = segs[-1]
    if not isinstance(node, dict):
        raise PathError(f"{path}: {name!r} is inside a value that is not a table")
    if idx is None:
        node[name] = copy.deepcopy(value)
        return
    arr = node.get(name)
    if not isinstance(arr, list) or not isinstance(idx, int) or idx >= len(arr):
        raise PathError(f"{path}: the last segment must be a key or an existing array element")
    arr[idx] = copy.deepcopy(value)


def canonical_json(doc: dict) -> str:
    """Sorted keys, no whitespace, UTF-8 text; TOML dates/times as their ISO strings."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def scenario_hash(doc: dict) -> str:
    """Run id: first 16 hex digits of SHA-256 of `canonical_json(doc)`."""
    return hashlib.sha256(canonical_json(doc).encode("utf-8")).hexdigest()[:HASH_HEX]


def _is_var(path: str) -> bool:
    return path.startswith("var.")


@dataclass
class SweepRun:
    """One run of a sweep. `values`: the point's swept, zipped, derived and variable values by
    key path (in that order); `doc` the resolved scenario document, `text` the same as TOML."""

    id: str
    name: str
    replication: int
    seed: int
    values: dict
    doc: dict = field(repr=False)
    text: str = field(repr=False)


@dataclass
class Sweep:
    """A parsed sweep. `axes` lists the key paths that vary between points (grid, zip, derive,
    in file order), `runs` every run (point-major, then replication, then variant order)."""

    scenario: str
    base_dir: str
    axes: list[str]
    replications: int
    load_axis: str | None
    runs: list[SweepRun]


def _qkey(section: str, path: str) -> str:
    return f'sweep.{section}."{path}"'


def _values_list(file: str, section: str, path: str, v) -> list:
    if not isinstance(v, list) or not v:
        raise SweepError(file, _qkey(section, path), "must be a non-empty array of values")
    return v


def _parse_table(file: str, sweep) -> tuple[dict, dict, dict[str, Expr], int, list | None, str | None]:
    if not isinstance(sweep, dict):
        raise SweepError(file, "sweep", "must be a table")
    for k in sweep:
        if k not in SWEEP_KEYS:
            raise SweepError(file, f"sweep.{k}", f"unknown key (allowed: {', '.join(SWEEP_KEYS)})")
    grid = sweep.get("grid", {})
    zipped = sweep.get("zip", {})
    derive = sweep.get("derive", {})
    for sec, t in (("grid", grid), ("zip", zipped), ("derive", derive)):
        if not isinstance(t, dict):
            raise SweepError(file, f"sweep.{sec}", 'must be a table of "key.path" = ...')
    for path, v in grid.items():
        _values_list(file, "grid", path, v)
    lens = {path: len(_values_list(file, "zip", path, v)) for path, v in zipped.items()}
    if len(set(lens.values())) > 1:
        desc = ", ".join(f"{p} has {n}" for p, n in lens.items())
        raise SweepError(file, "sweep.zip", f"all lists must have one length ({desc})")
    exprs: dict[str, Expr] = {}
    for path, text in derive.items():
        try:
            exprs[path] = parse_expr(text)
        except ExprError as e:
            raise SweepError(file, _qkey("derive", path), str(e)) from None
    seen: dict[str, str] = {}
    for sec, t in (("grid", grid), ("zip", zipped), ("derive", derive)):
        for path in t:
            try:
                parse_path(path)
            except PathError as e:
                raise SweepError(file, _qkey(sec, path), str(e)) from None
            if path in seen:
                raise SweepError(file, _qkey(sec, path), f"already set in sweep.{seen[path]}")
            seen[path] = sec
    reps = sweep.get("replications", 1)
    if type(reps) is not int or reps < 1:
        raise SweepError(file, "sweep.replications", f"must be an integer >= 1, got {reps!r}")
    if reps > 1 and "run.seed" in seen:
        raise SweepError(file, _qkey(seen["run.seed"], "run.seed"), "cannot be swept with replications > 1")
    variants = sweep.get("variants")
    if variants is not None and (
        not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants)
    ):
        raise SweepError(file, "sweep.variants", "must be a non-empty array of variant names")
    load_axis = sweep.get("load_axis")
    if load_axis is not None and load_axis not in seen:
        raise SweepError(
            file, "sweep.load_axis", f"{load_axis!r} is not a key of sweep.grid, sweep.zip or sweep.derive"
        )
    return grid, zipped, exprs, reps, variants, load_axis


def _points(grid: dict, zipped: dict) -> list[dict]:
    grid_pts = [dict(zip(grid, combo, strict=True)) for combo in itertools.product(*grid.values())]
    n_zip = len(next(iter(zipped.values()))) if zipped else 0
    zip_pts = [{p: v[i] for p, v in zipped.items()} for i in range(n_zip)] or [{}]
    return [{**g, **z} for g in grid_pts for z in zip_pts]


def _guess_load_axis(axes: list[str]) -> str | None:
    """A swept workload intensity (workload[i].rate / users / flows), or var.load."""
    for a in axes:
        if a == "var.load" or re.fullmatch(r"workload\[\d+\]\.(rate|users|flows)", a):
            return a
    return None


def expand(scenario: str | os.PathLike, text: str | None = None) -> Sweep:
    """Parse `scenario` (a file with a `[sweep]` table; `text` overrides reading it) and expand it
    into resolved runs. Checks everything except what only the core can check (see
    `validate`). Raises SweepError."""
    file = os.fspath(scenario)
    if text is None:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except OSError as e:
            raise SweepError(file, "(file)", f"cannot read the file: {e.strerror or e}") from None
    try:
        base = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(file, "(syntax)", f"TOML syntax error: {e}") from None
    if "sweep" not in base:
        raise SweepError(file, "sweep", "no [sweep] table: this is not a sweep (use `aqmlab run`)")
    sweep_table = base.pop("sweep")
    data_dir = sweep_table.get("data_dir", ".")
    if not isinstance(data_dir, str):
        raise SweepError(file, "sweep.data_dir", f"must be a directory path string, got {data_dir!r}")
    grid, zipped, exprs, reps, only, load_axis = _parse_table(file, sweep_table)
    base.pop("calibration", None)  # `aqmlab calibrate`'s defaults; not part of a run
    variant_tables = base.get("variant")
    all_names = (
        [v.get("name") for v in variant_tables if isinstance(v, dict)]
        if isinstance(variant_tables, list)
        else []
    )
    if only is not None:
        for v in only:
            if v not in all_names:
                raise SweepError(
                    file,
                    "sweep.variants",
                    f"no variant named {v!r} (the file has: {', '.join(map(str, all_names))})",
                )
    selected = [n for n in all_names if only is None or n in only]
    run_seed = base.get("run", {}).get("seed", 1) if isinstance(base.get("run"), dict) else 1
    if type(run_seed) is not int:
        raise SweepError(file, "run.seed", f"must be an integer, got {run_seed!r}")

    axes = [*grid, *zipped, *exprs]
    runs: list[SweepRun] = []
    for point in _points(grid, zipped):
        doc0 = copy.deepcopy(base)
        values: dict = {}
        for path, v in point.items():
            values[path] = v
            if _is_var(path):
                continue
            sec = "grid" if path in grid else "zip"
            try:
                set_path(doc0, path, v)
            except PathError as e:
                raise SweepError(file, _qkey(sec, path), str(e)) from None
        for r in range(reps):
            doc = copy.deepcopy(doc0)
            seed = run_seed + r if reps > 1 else get_seed(doc, run_seed)
            if reps > 1:
                set_path(doc, "run.seed", seed)
            vals = dict(values)
            for path, ex in exprs.items():

                def lookup(p: str, _doc=doc, _vals=vals):
                    if _is_var(p):
                        if p not in _vals:
                            raise ExprError(f"no sweep variable {p!r} (define it in sweep.grid or sweep.zip)")
                        return _vals[p]
                    return get_path(_doc, p)

                try:
                    v = ex.eval(lookup)
                    vals[path] = v
                    if not _is_var(path):
                        set_path(doc, path, v)
                except (ExprError, PathError) as e:
                    raise SweepError(file, _qkey("derive", path), f"{e} (at {_describe(values)})") from None
            for name in selected or [None]:
                rdoc = copy.deepcopy(doc)
                if name is not None:
                    rdoc["variant"] = [v for v in rdoc["variant"] if v.get("name") == name]
                runs.append(
                    SweepRun(
                        id=scenario_hash(rdoc),
                        name=name or "",
                        replication=r,
                        seed=seed,
                        values=vals,
                        doc=rdoc,
                        text=tomli_w.dumps(rdoc),
                    )
                )
    # Relative data files (`file = ...`) resolve against `sweep.data_dir` (itself relative to
    # the sweep file) or the sweep file's directory; `[sweep]` is not part of a run's identity.
    parent = Path(file).parent / data_dir
    return Sweep(
        scenario=file,
        base_dir=str(parent) if str(parent) else ".",
        axes=axes,
        replications=reps,
        load_axis=load_axis or _guess_load_axis(axes),
        runs=runs,
    )


def get_seed(doc: dict, default: int) -> int:
    run = doc.get("run")
    return run.get("seed", default) if isinstance(run, dict) else default


def _describe(values: dict) -> str:
    return ", ".join(f"{k} = {v!r}" for k, v in values.items()) or "the base scenario"


def validate(sweep: Sweep) -> None:
    """Have the core check every resolved scenario (each distinct one once) and fill in the
    names of runs of a file without variants. Raises SweepError naming the point."""
    from aqmlab import _core

    checked: dict[str, list[str]] = {}
    for run in sweep.runs:
        if run.id not in checked:
            try:
                checked[run.id] = _core.scenario_text_variants(run.text, sweep.scenario, sweep.base_dir)
            except _core.ScenarioError as e:
                point = _describe({**run.values, "run.seed": run.seed})
                raise SweepError(e.file, e.key, f"{e.reason} (sweep point: {point})") from None
        if not run.name:
            run.name = checked[run.id][0]
