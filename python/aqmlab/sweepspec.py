"""Sweeps in scenario files: the `[sweep]` table, expanded into resolved runs.

The file is read by the core (aqmlab.document: one parse, file order, `extends` resolved); a
run whose document has `load = …` gets it resolved like `aqmlab run` (aqmlab.calibrate).
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
    "variant[red].queue.min_th" = [5, 30, 60]
    "workload[0].rate" = [150.0, 200.0, 250.0]

    [sweep.zip]                      # lists of one length, taken together (i-th with i-th)
    "variant[red].queue.w_q" = ["1/512", "1/128"]
    "variant[red].queue.max_p" = [0.1, 0.05]

    [sweep.derive]                   # derived values, computed in this order (aqmlab.expr)
    "variant[red].queue.max_th" = "3 * variant[red].queue.min_th"
    "variant[red].queue.limit" = "max(8 * variant[red].queue.min_th, 120)"

The queue keys name the red variant's own table (`variant[red].queue.…`): a variant whose
queue has another `kind` than the base's replaces the base `[queue]`, so plain `queue.min_th`
would change no run (and is rejected, see below). Points are the product of the grid and the zip
rows (grid × zip; either may be absent); each point runs `replications` times for each selected
variant. Here: 3 × 3 grid × 2 zip rows × 5
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
an expression that cannot be evaluated, a key that changes no run, and any error the core finds
in a resolved scenario) is reported as `FILE: KEY: reason` before anything runs.

A key changes no run when every run's variant hides it: the variant sets the key itself, sets a
table on its path with another `kind`/`dist` (which replaces the base table wholesale: a
`variants = ["red"]` sweep of `queue.min_th` on a drop-tail base changes nothing, the path that
works is `variant[red].queue.min_th`), replaces an array on its path, or sets one of the
mutually exclusive `rtt`/`matrix`/`matrix_file` (the merge rule of crates/scenario/src/merge.rs).
Also rejected: `variant[NAME]...` of a variant that is not run, a `var.NAME` that no effective
derived value reads, and replications > 1 when every variant sets `run.seed`. A key read by a
derived value that takes effect counts as effective (it is an input).

Validation: python/tests/test_sweep_spec.py.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
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
    key path (in that order); `doc` the resolved scenario document, `text` the same as TOML;
    `applies`: the keys of `values` that take effect in this run (in axis order; a key of
    another variant, one this run's variant hides, or a variable no effective derived value
    reads does not; see "Keys that change no run" below)."""

    id: str
    name: str
    replication: int
    seed: int
    values: dict
    doc: dict = field(repr=False)
    text: str = field(repr=False)
    applies: tuple[str, ...] = field(default=(), repr=False)
    #: The engine's estimate of the run (`validate` fills it in): events and set-up seconds, at
    #: least (aqmlab.runcost).
    events: float = field(default=0.0, repr=False)
    setup_s: float = field(default=0.0, repr=False)


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


def load_toml(file: str, text: str | None, error: type[ValueError]) -> dict:
    """The document of the scenario `file` as the core reads it (aqmlab.document: `extends`
    resolved; `text` overrides reading the file); a file the core cannot read or parse raises
    `error(FILE, KEY, reason)` (SweepError, TuneError) with the core's key (`(file)`,
    `line L, column C`, `extends`)."""
    from aqmlab import _core
    from aqmlab.document import file_dir, read_document, text_document

    try:
        if text is None:
            return read_document(file)[0]
        return text_document(text, file, file_dir(file))
    except _core.ScenarioError as e:
        raise error(e.file, e.key, e.reason) from None


def expand(scenario: str | os.PathLike, text: str | None = None, log=None) -> Sweep:
    """Parse `scenario` (a file with a `[sweep]` table; `text` overrides reading it) and expand it
    into resolved runs. Checks everything except what only the core can check (see
    `validate`). A run whose document has `load = …` gets it resolved as `aqmlab run` would
    (aqmlab.calibrate.LoadResolver; `log` hears the values). Raises SweepError (ScenarioError
    for a bad `load`)."""
    file = os.fspath(scenario)
    base = load_toml(file, text, SweepError)
    if "sweep" not in base:
        raise SweepError(file, "sweep", "no [sweep] table: this is not a sweep (use `aqmlab run`)")
    sweep_table = base.pop("sweep")
    data_dir = sweep_table.get("data_dir", ".")
    if not isinstance(data_dir, str):
        raise SweepError(file, "sweep.data_dir", f"must be a directory path string, got {data_dir!r}")
    grid, zipped, exprs, reps, only, load_axis = _parse_table(file, sweep_table)
    calibration = base.pop("calibration", None)  # `aqmlab calibrate`'s defaults; not part of a run
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
    # Relative data files (`file = ...`) resolve against `sweep.data_dir` (itself relative to
    # the sweep file) or the sweep file's directory; `[sweep]` is not part of a run's identity.
    parent = Path(file).parent / data_dir
    base_dir = str(parent) if str(parent) else "."
    from aqmlab.calibrate import LoadResolver, doc_has_load

    with_calibration = base if calibration is None else {**base, "calibration": calibration}
    loads = LoadResolver(with_calibration, file, base_dir, log=log)
    _check_size(file, loads.resolve(base), base_dir, grid, zipped, reps, selected)
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
    _check_effect(file, runs, grid, zipped, exprs, reps, selected, only)
    for run in runs:
        _drop_hidden(base, run, reps)
        if doc_has_load(run.doc):  # its id is that of the document that runs
            run.doc = loads.resolve(run.doc)
            run.id, run.text = scenario_hash(run.doc), tomli_w.dumps(run.doc)
    return Sweep(
        scenario=file,
        base_dir=base_dir,
        axes=axes,
        replications=reps,
        load_axis=load_axis or _guess_load_axis(axes),
        runs=runs,
    )


def _check_size(
    file: str, base: dict, base_dir: str, grid: dict, zipped: dict, reps: int, selected: list
) -> None:
    """Refuse a sweep of too many runs, or estimated too costly from its base scenario's runs,
    before it is expanded (aqmlab.runcost; a 1000 × 1000 grid would take minutes to expand)."""
    from aqmlab import runcost

    n_grid = [len(v) for v in grid.values()]
    n_zip = len(next(iter(zipped.values()))) if zipped else 1
    n_var = len(selected) or 1
    runs = math.prod(n_grid) * n_zip * reps * n_var
    parts = [" × ".join(map(str, n_grid)) + " grid points"] if grid else []
    parts += [f"{n_zip} zip rows"] if zipped else []
    parts += [f"{reps} replication{'s' * (reps != 1)}", f"{n_var} variant{'s' * (n_var != 1)}"]
    factors = {
        "sweep.grid": math.prod(n_grid),
        "sweep.zip": n_zip,
        "sweep.replications": reps,
        "sweep.variants": n_var,
    }
    key = max(factors, key=lambda k: factors[k])  # the largest factor; ties: the first
    if runs <= 1:
        return
    per_run = runcost.base_estimates(tomli_w.dumps(base), file, base_dir, selected)
    runcost.refuse_if_too_large(SweepError, file, key, "sweep", " × ".join(parts), runs, per_run)


def _drop_hidden(base: dict, run: SweepRun, reps: int) -> None:
    """Rebuild `run`'s document from `base` with only the values that apply to it, so a base key
    its variant hides (e.g. the base `[queue]`'s limit under a variant with another queue kind)
    does not make two ids of one scenario, run twice and counted as two replications."""
    if all(p in run.applies for p in run.values if not _is_var(p)):
        return
    doc = copy.deepcopy(base)
    if reps > 1:
        set_path(doc, "run.seed", run.seed)
    for p in run.applies:
        if not _is_var(p):
            set_path(doc, p, run.values[p])
    if run.name and isinstance(doc.get("variant"), list):
        doc["variant"] = [v for v in doc["variant"] if v.get("name") == run.name]
    run.doc, run.id, run.text = doc, scenario_hash(doc), tomli_w.dumps(doc)


def get_seed(doc: dict, default: int) -> int:
    run = doc.get("run")
    return run.get("seed", default) if isinstance(run, dict) else default


def _describe(values: dict) -> str:
    return ", ".join(f"{k} = {v!r}" for k, v in values.items()) or "the base scenario"


def validate(sweep: Sweep) -> None:
    """Have the core check every resolved scenario (each distinct one once), fill in the names
    of runs of a file without variants and each run's estimate. Raises SweepError naming the
    point."""
    from aqmlab import _core

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


# ---------------------------------------------------------------------------------------------
# Keys that change no run (the merge rule of crates/scenario/src/merge.rs, mirrored)

_EXCLUSIVE = (("rtt", "matrix", "matrix_file"),)
_SELECTORS = ("kind", "dist")


def _same_kind(base: dict, over: dict) -> bool:
    """Whether a variant's table merges into the base table (no selector differs)."""
    return all(base[k] == over[k] for k in _SELECTORS if k in base and k in over)


def _fmt_selector(t: dict) -> str:
    parts = [f"{k} = {json.dumps(t[k], ensure_ascii=False)}" for k in _SELECTORS if k in t]
    return ", ".join(parts) or "no kind"


def shadowed_by(base: dict, variant: dict, path: str) -> str | None:
    """Why the variant table `variant` (a `[[variant]]` entry) hides the base document's key
    `path` when the core merges it into `base`, or None if the base value reaches the run."""
    segs = parse_path(path)
    name_v = variant.get("name")
    node_b, node_o = base, {k: v for k, v in variant.items() if k != "name"}
    done: list[str] = []
    for i, (name, idx) in enumerate(segs):
        for group in _EXCLUSIVE:
            if name in group and name not in node_o:
                others = [k for k in group if k in node_o]
                if others:
                    at = ".".join([*done, others[0]])
                    return f"variant {name_v} sets {at}, which drops the base's {name}"
        if name not in node_o:
            return None
        ov, bv = node_o[name], node_b.get(name) if isinstance(node_b, dict) else None
        here = ".".join([*done, name])
        if idx is not None:
            return f"variant {name_v} replaces the whole array {here}"
        if i == len(segs) - 1:
            return f"variant {name_v} sets {here} itself"
        if not (isinstance(ov, dict) and isinstance(bv, dict)):
            return f"variant {name_v} replaces {here} as a whole"
        if not _same_kind(bv, ov):
            return (
                f"variant {name_v} sets [{here}] with {_fmt_selector(ov)}, which replaces the "
                f"base's [{here}] ({_fmt_selector(bv)}) wholesale"
            )
        node_b, node_o = bv, ov
        done.append(name)
    return None


def _variant_of(path: str) -> str | None:
    name, idx = parse_path(path)[0]
    return idx if name == "variant" and isinstance(idx, str) else None


def _check_effect(
    file: str,
    runs: list[SweepRun],
    grid: dict,
    zipped: dict,
    exprs: dict[str, Expr],
    reps: int,
    selected: list[str],
    only: list | None,
) -> None:
    """Reject a swept, zipped or derived key that changes no run (see the module doc), naming
    the key, the variants that hide it and the path that would work. Checked on every distinct
    (point, variant): a key counts if it reaches at least one run. Sets each run's `applies`."""
    sections = {**{p: "grid" for p in grid}, **{p: "zip" for p in zipped}, **{p: "derive" for p in exprs}}
    why: dict[str, dict[str, str]] = {p: {} for p in sections}  # key → {variant: reason}
    effective: set[str] = set()
    seen: dict[tuple, tuple[str, ...]] = {}
    for run in runs:
        key = (tuple((k, repr(v)) for k, v in run.values.items()), run.name)
        if key in seen:
            run.applies = seen[key]
            continue
        variant = run.doc["variant"][0] if run.name and run.doc.get("variant") else None
        here: set[str] = set()
        # Derived values last-first: a key read by an effective derived value is effective.
        for path in reversed(list(sections)):
            reason = None
            v_name = _variant_of(path)
            if _is_var(path):
                reason = "no derived value that takes effect reads it"
            elif v_name is not None:
                if v_name != run.name:
                    reason = f"variant {v_name} is not run" + (
                        f" (sweep.variants = {only!r})" if only is not None else ""
                    )
            elif variant is not None:
                reason = shadowed_by(run.doc, variant, path)
            if reason is None or any(path in exprs[d].refs for d in here if d in exprs):
                here.add(path)
            else:
                why[path].setdefault(run.name, reason)
        effective |= here
        run.applies = seen[key] = tuple(p for p in sections if p in here)
    if reps > 1 and selected:
        # Replications differ only by run.seed: a variant that sets it makes them all one run.
        hiding = [shadowed_by(r.doc, r.doc["variant"][0], "run.seed") for r in runs]
        if hiding and all(hiding):
            raise SweepError(
                file, "sweep.replications",
                f"{hiding[0]}, so every replication runs with the same seed; remove run.seed "
                "from the variants or set replications = 1",
            )  # fmt: skip
    dead = [p for p in sections if p not in effective]
    if not dead:
        return
    path = dead[0]
    reasons = list(dict.fromkeys(why[path].values()))
    if _is_var(path):
        fix = "read it in a [sweep.derive] value or remove it"
    elif _variant_of(path) is not None:
        fix = "add the variant to sweep.variants or remove the key"
    else:
        fix = "sweep " + " and ".join(f'"variant[{n}].{path}"' for n in why[path]) + " instead"
    also = f" (also without effect: {', '.join(dead[1:])})" if len(dead) > 1 else ""
    raise SweepError(file, _qkey(sections[path], path), f"changes no run: {'; '.join(reasons)}; {fix}{also}")
