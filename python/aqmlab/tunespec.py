"""Tuning in scenario files: the `[tune]` table, parsed and checked into a `TuneSpec`.

A scenario file with a `[tune]` table says which keys `aqmlab tune` searches, what it optimises
and under which constraints. Example (scenarios/quickstart_tune.toml):

    [tune]
    variant = "red"                      # the variant tuned (required if the file has several)
    # paired = ["a", "b"]                # or: tune the margin a − b of two variants (below)
    baselines = ["red", "droptail"]      # variants run as written, to compare against
                                         # (default: the tuned variant as written)
    objectives = ["max pct_le_1s"]       # "min COL" / "max COL", COL a summary column; several
                                         # objectives give a Pareto front (NSGA-II)
    constraints = ["utilization >= 0.85"]   # "COL >= NUMBER" / "COL <= NUMBER", on the mean
    trials = 40                          # trials in the study (all invocations together)
    timeout = 600                        # optional: stop asking new trials after this many s
    replications = 2                     # seeds run.seed, run.seed + 1, … for EVERY trial
    final_replications = 6               # the finalists and baselines re-run with these seeds
    finalists = 3                        # how many of the best trials are re-run
    seed = 1                             # the sampler's seed (same seed, same trials)
    batch = 4                            # trials asked together, then run in parallel
    population = 10                      # NSGA-II population (several objectives only)

    [tune.params]                        # key path = search range
    "queue.min_th" = { int = [5, 120], log = true }
    "queue.max_p" = { float = [0.01, 0.5], log = true }
    "queue.w_q" = "default"              # the range the core declares (aqmlab params red)
    "queue.target" = { duration = ["1ms", "50ms"], log = true }
    "queue.kind" = { choice = ["red", "pie"] }     # a choice of values
    "queue.alpha" = { float = [0.01, 1], when = { "queue.kind" = "pie" } }   # conditional

    [tune.derive]                        # computed in this order (the core's sweep/expr.rs)
    "queue.max_th" = "3 * queue.min_th"
    "queue.limit" = { expr = "max(8 * queue.min_th, 120)", when = { "queue.kind" = "red" } }

Search ranges: `{ int = [lo, hi] }`, `{ float = [lo, hi] }`, `{ duration = ["lo", "hi"] }`
(duration strings; searched in milliseconds, written in whole microseconds), each with an
optional `log = true` (log scale: lo must be > 0) and `step` (int/float, linear scale only);
`{ choice = [v1, v2, …] }`; `"default"` or `{ search = "default" }`: the range the core
declares for the key (`aqmlab.params(kind)`, field `search`: the default ÷/× 10 on a log scale
inside the declared range; a key with no declared range must be given one). `when = { "PATH" =
VALUE or [VALUES] }` makes a parameter (or derived value) active only when the choice parameter
PATH, listed before it, took one of those values; an inactive key is not written.

Key paths are those of sweeps (crates/scenario/src/sweep/path.rs): `queue.min_th`, `tcp.min_rto`,
`workload[0].rate`, `var.NAME` (a tuned variable only derived values read). With `variant`
set, a path names a key of that variant's configuration: it is written into the variant's own
table (`variant[NAME].queue.min_th`), which the core merges over the base; a path into an
array the variant's table lacks (`workload[0].rate`) is set in a copy of the base's array there
(a variant's array replaces the base's whole). Setting a table's
`kind` to another kind than the one it has replaces that table by `{ kind = … }` (as a variant
with another kind does), so the other keys come from the new kind's defaults and the tuned
ones.

Objectives and constraints are computed on the mean over a trial's replications; the
replications use the same seeds in every trial (common random numbers), so trials differ by their
parameters, not by their luck.

`paired = ["A", "B"]` (instead of `variant`) tunes a margin between two variants under a setup
both share: each trial runs A and B with the same values and the same seeds; the key paths are
written into the base document, so they apply to both (a key that A's or B's own table sets
would hide the base value: an error); every column is the per-seed difference A − B, averaged
over the trial's replications; the baseline is the pair as written, and the final re-runs give
the margin with its 95 % interval over the final seeds (paired by seed). Not with `variant`
(`tune.paired: give either tune.variant or tune.paired`), `constraints` or `baselines`; exactly
two distinct names of the file's variants.

Every mistake (unknown key, bad range, log scale with a bound ≤ 0, an unknown objective column,
a constraint that is not `COL <= NUMBER` / `COL >= NUMBER`, a key its model does not declare, a
`when` on a key that is not a choice listed before, and anything the core rejects in the baseline
or in a sample trial of each choice) is reported as `FILE: KEY: reason` before anything runs.

Validation: python/tests/test_tune_spec.py.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from aqmlab import _core
from aqmlab.document import dumps_toml, file_dir, read_document, text_document

#: Errors of key paths and expressions (the core's `ValueError`s: aqmlab._core.get_key, Expr).
PathError = ExprError = ValueError
Expr = _core.Expr
parse_expr = _core.Expr
get_path = _core.get_key
parse_path = _core.check_key_path


def set_path(doc: dict, path: str, value) -> None:
    """Set the key path `path` of `doc` to `value` in place (`_core.set_key`)."""
    new = _core.set_key(doc, path, value)
    doc.clear()
    doc.update(new)


def load_toml(file: str, text: str | None) -> dict:
    """The document of the scenario `file` as the core reads it (`text` overrides reading it);
    TuneError(FILE, KEY, reason) when the core cannot read or parse it."""
    try:
        if text is None:
            return read_document(file)[0]
        return text_document(text, file, file_dir(file))
    except _core.ScenarioError as e:
        raise TuneError(e.file, e.key, e.reason) from None


TUNE_KEYS = (
    "params", "derive", "objectives", "constraints", "trials", "timeout", "replications",
    "final_replications", "finalists", "seed", "variant", "baselines", "batch", "population", "paired",
)  # fmt: skip
PARAM_KEYS = ("int", "float", "duration", "choice", "search", "log", "step", "when")
RANGE_KINDS = ("int", "float", "duration", "choice")

#: The columns of summary.json (crates/metrics/src/summary.rs `Summary`; the engine test of
#: python/tests/test_tune_spec.py checks this list against a run's summary.json).
SUMMARY_COLUMNS = (
    "measured_s", "kb_per_s", "utilization", "drops_pct", "aqm_drops_pct", "overflow_drops_pct",
    "unforced_pct", "forced_pct", "marks", "arrivals", "drops", "drops_aqm", "drops_overflow",
    "mean_qlen", "max_qlen", "responses_started", "responses_completed", "pct_completed",
    "steady_state", "in_progress_first_tenth", "in_progress_last_tenth",
    "forced_drops_first_tenth", "forced_drops_last_tenth",
    "median_rt_ms", "p10_rt_ms", "p25_rt_ms", "p75_rt_ms", "p90_rt_ms", "p95_rt_ms",
    "p99_rt_ms", "pct_le_1s", "pct_1_2s", "pct_2_3s", "pct_gt_3s",
    "mean_rt_ms_of_completed", "median_rt_ms_of_completed", "p10_rt_ms_of_completed",
    "p25_rt_ms_of_completed", "p75_rt_ms_of_completed", "p90_rt_ms_of_completed",
    "p95_rt_ms_of_completed", "p99_rt_ms_of_completed", "pct_le_1s_of_completed",
    "pct_1_2s_of_completed", "pct_2_3s_of_completed", "pct_gt_3s_of_completed",
    "syn_retx", "fin_retx", "data_retx", "timeouts",
)  # fmt: skip

DEFAULTS = {
    "trials": 40, "replications": 2, "final_replications": 6, "finalists": 3, "seed": 1,
    "batch": 4, "population": 10,
}  # fmt: skip

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(ns|us|µs|ms|s|min|h)\s*$")
_NS_PER = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9, "h": 3600e9}
_OBJECTIVE = re.compile(r"^\s*(min|max|minimize|maximize)\s+([A-Za-z_][A-Za-z0-9_]*)\s*$")
_CONSTRAINT = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=)\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$"
)
#: Integer search values of these declared syntaxes are written with a unit (sizes, rates).
_UNIT_OF = {"size": "B", "rate": "bps"}


class TuneError(ValueError):
    """A rejected tuning table: message `file: key: reason`, attributes `file`, `key`, `reason`."""

    def __init__(self, file: str, key: str, reason: str):
        super().__init__(f"{file}: {key}: {reason}")
        self.file, self.key, self.reason = file, key, reason


class DeriveError(ValueError):
    """A derived value that cannot be evaluated for a trial: `path` and the reason."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def parse_duration_ms(text) -> float:
    """`"20ms"` → 20.0 (milliseconds); ValueError for anything else."""
    m = _DURATION.match(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f'{text!r} is not a duration such as "20ms" (ns, us, ms, s, min, h)')
    return float(m.group(1)) * _NS_PER[m.group(2)] / 1e6


@dataclass(frozen=True)
class Param:
    """One searched key. `kind`: int, float, duration (searched in ms) or choice; `when`: the
    (choice path, allowed values) pairs that must all hold for it to be active."""

    path: str
    kind: str
    lo: float = math.nan
    hi: float = math.nan
    log: bool = False
    step: float | None = None
    choices: tuple = ()
    when: tuple[tuple[str, tuple], ...] = ()
    unit: str = ""  # written after an int value: "B" for a size key, "bps" for a rate key

    def value(self, x):
        """The value written into the scenario for the sampled `x` (durations: whole µs)."""
        if self.kind == "duration":
            return f"{max(1, round(x * 1000))}us"
        if self.unit:
            return f"{x}{self.unit}"
        return x

    def sample_point(self):
        """A point inside the range (its geometric or arithmetic middle; the first choice)."""
        if self.kind == "choice":
            return self.choices[0]
        mid = math.sqrt(self.lo * self.hi) if self.log else (self.lo + self.hi) / 2
        return int(round(mid)) if self.kind == "int" else mid


@dataclass(frozen=True)
class Derived:
    path: str
    expr: Expr
    when: tuple[tuple[str, tuple], ...] = ()


@dataclass(frozen=True)
class Objective:
    column: str
    direction: str  # "minimize" or "maximize"

    @property
    def label(self) -> str:
        return f"{'min' if self.direction == 'minimize' else 'max'} {self.column}"


@dataclass(frozen=True)
class Constraint:
    """`column op bound` on the mean over replications; `violation(v)` ≤ 0 means satisfied."""

    column: str
    op: str
    bound: float
    text: str

    def violation(self, v: float) -> float:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return math.inf
        return v - self.bound if self.op == "<=" else self.bound - v


@dataclass
class TuneSpec:
    """A parsed `[tune]` table with the base scenario it applies to (see the module doc)."""

    file: str
    base_dir: str
    base: dict = field(repr=False)
    variant: str | None
    baselines: list[str | None]
    params: list[Param]
    derive: list[Derived]
    objectives: list[Objective]
    constraints: list[Constraint]
    trials: int
    timeout: float | None
    replications: int
    final_replications: int
    finalists: int
    seed: int
    batch: int
    population: int
    run_seed: int = 1
    #: `[tune] paired`: the two variants whose margin A − B is tuned (module doc), else None.
    paired: tuple[str, str] | None = None
    #: Columns a run has besides the summary's (`aqmlab tune --metrics STUDY`, aqmlab.tunemetrics).
    extra_columns: tuple[str, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column of a run's results: the summary's and `extra_columns`."""
        return SUMMARY_COLUMNS + self.extra_columns

    # -- resolving trials into scenarios ------------------------------------------------------

    def _target(self, path: str) -> str:
        return f"variant[{self.variant}].{path}" if self.variant else path

    def _lookup(self, values: dict, path: str):
        if path in values:
            return values[path]
        if path.startswith("var."):
            raise ExprError(f"no tuned variable {path!r} (or it is not active in this trial)")
        if self.variant:
            try:
                return get_path(self.base, f"variant[{self.variant}].{path}")
            except PathError:
                pass
        return get_path(self.base, path)

    def active(self, when: tuple, values: dict) -> bool:
        return all(values.get(p) in allowed for p, allowed in when)

    def derived_values(self, values: dict) -> dict:
        """`values` (tuned key → value as written) plus the active derived values, in order.
        Raises DeriveError naming the derived key that cannot be evaluated."""
        out = dict(values)
        for d in self.derive:
            if self.active(d.when, out):
                try:
                    out[d.path] = d.expr.eval(lambda p, _o=out: self._lookup(_o, p))
                except (ExprError, PathError) as e:
                    raise DeriveError(d.path, str(e)) from None
        return out

    def resolve(self, values: dict, seed: int | None, name: str | None = None) -> dict:
        """The resolved scenario document of a configuration: the base without `[tune]`, the
        variant list reduced to the tuned variant (or to `name`, one of a `paired` pair),
        `values` (tuned and derived keys, as written, `var.` keys skipped) set in its table (in
        the base when paired), and `run.seed` = `seed` (None: as written)."""
        doc = copy.deepcopy(self.base)
        keep = name or self.variant
        if keep:
            doc["variant"] = [v for v in doc["variant"] if v.get("name") == keep]
        for path, v in values.items():
            if path.startswith("var."):
                continue
            target = self._target(path)
            if path.endswith(".kind") or path == "kind":
                _set_kind(doc, self.base, self.variant, path, v)
            else:
                _copy_array(doc, self.variant, path)
                set_path(doc, target, v)
        if seed is not None:
            set_path(doc, "run.seed", seed)
        return doc

    def baseline(self, name: str | None, seed: int | None) -> dict:
        """The scenario as written for baseline variant `name` (None: the file has no variants)."""
        doc = copy.deepcopy(self.base)
        if name is not None:
            doc["variant"] = [v for v in doc["variant"] if v.get("name") == name]
        if seed is not None:
            set_path(doc, "run.seed", seed)
        return doc

    def seeds(self, n: int) -> list[int]:
        """The seeds of n replications: run.seed, run.seed + 1, … (the same for every trial)."""
        return [self.run_seed + i for i in range(n)]


def _copy_array(doc: dict, variant: str | None, path: str) -> None:
    """A variant's array (`workload`) replaces the base's whole (crates/scenario merge.rs): before
    a tuned key goes into an element of an array the variant's table lacks, the table gets a copy
    of the base's array."""
    head = path.split(".", 1)[0]
    if not variant or "[" not in head:
        return
    name = head.split("[", 1)[0]
    table = next(v for v in doc["variant"] if v.get("name") == variant)
    if name not in table and isinstance(doc.get(name), list):
        table[name] = copy.deepcopy(doc[name])


def _set_kind(doc: dict, base: dict, variant: str | None, path: str, kind) -> None:
    """Set the `kind` at `path` (`queue.kind`): keep the table if it already has that kind,
    else replace the variant's (or the base's) table by `{ kind = … }`."""
    table_path = path[: -len(".kind")] if path.endswith(".kind") else ""
    current = None
    for candidate in ([f"variant[{variant}].{table_path}"] if variant else []) + [table_path]:
        try:
            t = get_path(doc, candidate) if candidate else doc
        except PathError:
            continue
        if isinstance(t, dict) and "kind" in t:
            current = t["kind"]
            break
    target = f"variant[{variant}].{table_path}" if variant else table_path
    if current == kind:
        return
    set_path(doc, target, {"kind": kind})


def _q(section: str, path: str) -> str:
    return f'tune.{section}."{path}"'


def _number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _parse_when(file: str, key: str, when, params: list[Param]) -> tuple:
    if not isinstance(when, dict) or not when:
        raise TuneError(file, f"{key}.when", 'must be a table such as { "queue.kind" = "red" }')
    out = []
    choices = {p.path: p for p in params if p.kind == "choice"}
    for p, allowed in when.items():
        if p not in choices:
            raise TuneError(file, f"{key}.when", f"{p!r} is not a choice parameter listed before this key")
        allowed = tuple(allowed) if isinstance(allowed, list) else (allowed,)
        bad = [a for a in allowed if a not in choices[p].choices]
        if bad or not allowed:
            raise TuneError(
                file,
                f"{key}.when",
                f"{bad or allowed!r}: not among the choices of {p} {list(choices[p].choices)!r}",
            )
        out.append((p, allowed))
    return tuple(out)


def _declared_search(spec: dict) -> dict | None:
    """The core's declared search range of a key (`search` field) as a table, or None."""
    text = spec.get("search", "")
    if not text:
        return None
    from aqmlab.document import text_document

    return text_document(f"x = {text}", "<declared search>", ".")["x"]


def _parse_range(file: str, key: str, t: dict, path: str, when: tuple) -> Param:
    kinds = [k for k in RANGE_KINDS if k in t]
    if len(kinds) != 1:
        raise TuneError(
            file, key, f'give exactly one of {", ".join(RANGE_KINDS)} (or "default"), got {kinds or "none"}'
        )
    kind = kinds[0]
    log = t.get("log", False)
    if not isinstance(log, bool):
        raise TuneError(file, f"{key}.log", f"must be true or false, got {log!r}")
    step = t.get("step")
    if kind == "choice":
        ch = t["choice"]
        if not isinstance(ch, list) or not ch or any(isinstance(c, dict | list) for c in ch):
            raise TuneError(file, f"{key}.choice", "must be a non-empty array of values")
        if len(set(map(repr, ch))) != len(ch):
            raise TuneError(file, f"{key}.choice", "has a value twice")
        if log or step is not None:
            raise TuneError(file, key, "a choice takes no log or step")
        return Param(path, "choice", choices=tuple(ch), when=when)
    r = t[kind]
    if not isinstance(r, list) or len(r) != 2:
        raise TuneError(file, f"{key}.{kind}", f"must be [lo, hi], got {r!r}")
    if kind == "duration":
        try:
            lo, hi = (parse_duration_ms(x) for x in r)
        except ValueError as e:
            raise TuneError(file, f"{key}.duration", str(e)) from None
    else:
        if not all(_number(x) for x in r) or (kind == "int" and not all(type(x) is int for x in r)):
            raise TuneError(
                file,
                f"{key}.{kind}",
                f"bounds must be {'integers' if kind == 'int' else 'numbers'}, got {r!r}",
            )
        lo, hi = r
        if not all(math.isfinite(x) for x in r):
            raise TuneError(file, f"{key}.{kind}", f"bounds must be finite, got {r!r}")
    if not lo < hi:
        raise TuneError(file, f"{key}.{kind}", f"bad range: lo must be less than hi, got {r!r}")
    if log and lo <= 0:
        raise TuneError(file, f"{key}.log", f"a log scale needs a positive lower bound, got {r[0]!r}")
    if step is not None:
        if kind == "duration" or not _number(step) or step <= 0 or log:
            raise TuneError(
                file, f"{key}.step", "a positive number, for int and float ranges on a linear scale"
            )
        if kind == "int" and type(step) is not int:
            raise TuneError(file, f"{key}.step", f"must be an integer for an int range, got {step!r}")
    return Param(path, kind, lo=lo, hi=hi, log=log, step=step, when=when)


def _model_of(base: dict, variant: str | None, table_path: str) -> str | None:
    """The declared model whose keys the table at `table_path` holds: `tcp`, or the table's
    queue or workload `kind` as the tuned configuration has it (None when not known)."""
    if table_path == "tcp":
        return "tcp"
    for candidate in ([f"variant[{variant}].{table_path}"] if variant else []) + [table_path]:
        try:
            t = get_path(base, candidate)
        except PathError:
            continue
        if isinstance(t, dict) and "kind" in t:
            return str(t["kind"])
    return None


def _declared(model: str) -> dict[str, dict] | None:
    from aqmlab.model_params import models, params

    declared = params(model) if model in models() else []
    # None also for http10, bulk, replay: listed by `aqmlab params`, their keys not declared.
    return {p["key"]: p for p in declared} if declared else None


def _check_declared(
    file: str, key: str, base: dict, variant, path: str, params: list[Param], when
) -> list[dict]:
    """The declarations of `path` in every model it may name (several under a kind choice);
    TuneError for a key one of them does not declare. [] when no model declares the table."""
    if path.startswith("var."):
        return []
    segs = path.rsplit(".", 1)
    if len(segs) != 2 or segs[1] == "kind":
        return []
    table, leaf = segs
    kinds: list[str] = []
    kind_param = next((p for p in params if p.path == f"{table}.kind"), None)
    if kind_param is not None:
        allowed = dict(when).get(kind_param.path, kind_param.choices)
        kinds = [str(k) for k in allowed]
    else:
        m = _model_of(base, variant, table)
        kinds = [m] if m else []
    out = []
    for m in kinds:
        decl = _declared(m)
        if decl is None:
            continue
        if leaf not in decl:
            raise TuneError(
                file,
                key,
                f"unknown key: a {m} table has no {leaf!r} (keys: {', '.join(decl)}; aqmlab params {m})",
            )
        out.append(decl[leaf] | {"model": m})
    return out


def _parse_param(file: str, path: str, raw, base, variant, params: list[Param]) -> Param:
    key = _q("params", path)
    try:
        parse_path(path)
    except PathError as e:
        raise TuneError(file, key, str(e)) from None
    if raw == "default":
        raw = {"search": "default"}
    if not isinstance(raw, dict):
        raise TuneError(
            file, key, 'must be "default" or a range such as { int = [5, 200] }, { float = [0.01, 0.5], '
            'log = true }, { duration = ["1ms", "50ms"] }, { choice = [...] }'
        )  # fmt: skip
    for k in raw:
        if k not in PARAM_KEYS:
            raise TuneError(file, f"{key}.{k}", f"unknown key (allowed: {', '.join(PARAM_KEYS)})")
    when = _parse_when(file, key, raw["when"], params) if "when" in raw else ()
    decls = _check_declared(file, key, base, variant, path, params, when)
    if "search" in raw:
        if raw["search"] != "default" or any(k in raw for k in RANGE_KINDS):
            raise TuneError(file, f"{key}.search", 'must be "default" (the declared range), without a range')
        ranges = [_declared_search(d) for d in decls]
        if not decls or any(r is None for r in ranges):
            which = next((d["model"] for d, r in zip(decls, ranges, strict=True) if r is None), None)
            why = f"{which} declares no search range for it" if which else "no declared model holds this key"
            raise TuneError(file, key, f'"default": {why}; give a range such as {{ float = [lo, hi] }}')
        if any(r != ranges[0] for r in ranges):
            raise TuneError(file, key, f'"default": the kinds declare different ranges ({ranges}); give one')
        table = dict(ranges[0])
        if "log" in raw:
            table["log"] = raw["log"]
        raw = table
    param = _parse_range(file, key, raw, path, when)
    units = {_UNIT_OF.get(d["value"], "") for d in decls}
    if param.kind == "int" and len(units) == 1 and (unit := units.pop()):
        param = dataclasses.replace(param, unit=unit)
    return param


def _parse_derive(file: str, path: str, raw, params: list[Param], seen: set[str]) -> Derived:
    key = _q("derive", path)
    try:
        parse_path(path)
    except PathError as e:
        raise TuneError(file, key, str(e)) from None
    if path in seen:
        raise TuneError(file, key, "already a tuned parameter")
    when = ()
    if isinstance(raw, dict):
        for k in raw:
            if k not in ("expr", "when"):
                raise TuneError(file, f"{key}.{k}", "unknown key (allowed: expr, when)")
        when = _parse_when(file, key, raw["when"], params) if "when" in raw else ()
        raw = raw.get("expr")
    try:
        return Derived(path, parse_expr(raw), when)
    except ExprError as e:
        raise TuneError(file, key, str(e)) from None


def _int_key(file: str, t: dict, k: str, lo: int) -> int:
    v = t.get(k, DEFAULTS[k])
    if type(v) is not int or v < lo:
        raise TuneError(file, f"tune.{k}", f"must be an integer >= {lo}, got {v!r}")
    return v


def _parse_paired(file: str, t: dict, names: list[str]) -> tuple[str, str] | None:
    """`[tune] paired` checked against the file's variant `names` (module doc); None if absent."""
    if "paired" not in t:
        return None
    if "variant" in t:
        raise TuneError(file, "tune.paired", "give either tune.variant or tune.paired")
    p = t["paired"]
    if not isinstance(p, list) or len(p) != 2 or not all(isinstance(x, str) for x in p) or p[0] == p[1]:
        raise TuneError(file, "tune.paired", "give two distinct variant names")
    for x in p:
        if x not in names:
            raise TuneError(file, "tune.paired", f'no variant "{x}" (variants: {", ".join(names) or "none"})')
    if "constraints" in t:
        raise TuneError(file, "tune.constraints", "not allowed with tune.paired")
    if "baselines" in t:
        why = "not allowed with tune.paired (the baseline is the pair as written)"
        raise TuneError(file, "tune.baselines", why)
    return p[0], p[1]


def _check_shared(file: str, base: dict, paired: tuple[str, str], key: str, path: str) -> None:
    """A paired key must reach both variants: neither may set `path` in its own table."""
    if path.startswith("var."):
        return
    for name in paired:
        try:
            get_path(base, f"variant[{name}].{path}")
        except PathError:
            continue
        why = f'variant "{name}" sets it in its own table, so the tuned base value would not apply'
        raise TuneError(file, key, why)


def _string_list(file: str, t: dict, k: str) -> list[str]:
    v = t.get(k, [])
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TuneError(file, f"tune.{k}", "must be an array of strings")
    return v


def parse(
    file: str, text: str | None = None, overrides: dict | None = None, log=None, columns: tuple = ()
) -> TuneSpec:
    """Parse the `[tune]` table of `file` (`text` overrides reading it; `overrides`: values of
    `trials`, `timeout`, `seed` given on the command line, None = as in the file; `columns`:
    run columns besides the summary's that objectives may name). Checks everything that does
    not need the core (see `validate`). Raises TuneError."""
    known = SUMMARY_COLUMNS + tuple(columns)
    what = "a summary column" if not columns else "a summary or --metrics column"
    base = load_toml(file, text)
    if "tune" not in base:
        raise TuneError(file, "tune", "no [tune] table: nothing to tune (see aqmlab.tunespec)")
    t = base.pop("tune")
    base.pop("sweep", None)
    # `load = …` resolves once, in the base, as `aqmlab run` resolves it (the tuned keys are
    # the queue's and the transport's, which a calibration does not see).
    from aqmlab.calibrate import LoadResolver

    base = LoadResolver(base, file, Path(file).parent, log=log).resolve(base)
    if not isinstance(t, dict):
        raise TuneError(file, "tune", "must be a table")
    for k in t:
        if k not in TUNE_KEYS:
            raise TuneError(file, f"tune.{k}", f"unknown key (allowed: {', '.join(TUNE_KEYS)})")
    t = {**t, **{k: v for k, v in (overrides or {}).items() if v is not None}}

    names = [v.get("name") for v in base.get("variant", []) if isinstance(v, dict)]
    paired = _parse_paired(file, t, names)
    variant = t.get("variant")
    if variant is None and len(names) > 1 and paired is None:
        raise TuneError(
            file,
            "tune.variant",
            f"the file has {len(names)} variants ({', '.join(names)}): name the one to tune",
        )
    if variant is None and len(names) == 1 and paired is None:
        variant = names[0]
    if variant is not None and variant not in names:
        raise TuneError(
            file, "tune.variant", f"no variant named {variant!r} (the file has: {', '.join(names) or 'none'})"
        )
    # paired: the one baseline is the pair as written (None).
    baselines: list[str | None] = _string_list(file, t, "baselines") or [variant]
    for b in baselines:
        if b is not None and b not in names:
            raise TuneError(
                file, "tune.baselines", f"no variant named {b!r} (the file has: {', '.join(names) or 'none'})"
            )

    raw_params = t.get("params")
    if not isinstance(raw_params, dict) or not raw_params:
        raise TuneError(file, "tune.params", 'must be a table of "key.path" = range, with at least one key')
    params: list[Param] = []
    for path, raw in raw_params.items():
        params.append(_parse_param(file, path, raw, base, variant, params))
        if paired:
            _check_shared(file, base, paired, _q("params", path), path)
    raw_derive = t.get("derive", {})
    if not isinstance(raw_derive, dict):
        raise TuneError(file, "tune.derive", 'must be a table of "key.path" = "expression"')
    seen = {p.path for p in params}
    derive = []
    for path, raw in raw_derive.items():
        derive.append(_parse_derive(file, path, raw, params, seen))
        if paired:
            _check_shared(file, base, paired, _q("derive", path), path)
        seen.add(path)

    objectives = []
    for text_o in _string_list(file, t, "objectives"):
        m = _OBJECTIVE.match(text_o)
        if not m:
            raise TuneError(file, "tune.objectives", f'{text_o!r}: want "min COLUMN" or "max COLUMN"')
        if m.group(2) not in known:
            raise TuneError(
                file,
                "tune.objectives",
                f"{m.group(2)!r}: not {what} (columns: {', '.join(known)})",
            )
        objectives.append(Objective(m.group(2), "minimize" if m.group(1).startswith("min") else "maximize"))
    if not objectives:
        raise TuneError(file, "tune.objectives", 'at least one, e.g. ["min median_rt_ms"]')
    if len({o.column for o in objectives}) != len(objectives):
        raise TuneError(file, "tune.objectives", "a column is named twice")
    constraints = []
    for text_c in _string_list(file, t, "constraints"):
        m = _CONSTRAINT.match(text_c)
        if not m:
            raise TuneError(
                file, "tune.constraints", f'{text_c!r}: want "COLUMN >= NUMBER" or "COLUMN <= NUMBER"'
            )
        if m.group(1) not in known:
            raise TuneError(
                file,
                "tune.constraints",
                f"{m.group(1)!r}: not {what} (columns: {', '.join(known)})",
            )
        constraints.append(Constraint(m.group(1), m.group(2), float(m.group(3)), text_c.strip()))

    timeout = t.get("timeout")
    if timeout is not None and (not _number(timeout) or not timeout > 0):
        raise TuneError(file, "tune.timeout", f"must be a number of seconds > 0, got {timeout!r}")
    seed = t.get("seed", DEFAULTS["seed"])
    if type(seed) is not int or seed < 0:
        raise TuneError(file, "tune.seed", f"must be an integer >= 0, got {seed!r}")
    reps = _int_key(file, t, "replications", 1)
    final = t.get("final_replications", max(DEFAULTS["final_replications"], reps))
    if type(final) is not int or final < reps:
        raise TuneError(
            file, "tune.final_replications", f"must be an integer >= replications ({reps}), got {final!r}"
        )
    run = base.get("run", {})
    run_seed = run.get("seed", 1) if isinstance(run, dict) else 1
    if type(run_seed) is not int:
        raise TuneError(file, "run.seed", f"must be an integer, got {run_seed!r}")
    if any(p.path == "run.seed" for p in params) or any(d.path == "run.seed" for d in derive):
        raise TuneError(file, _q("params", "run.seed"), "the seed is not a parameter (replications set it)")
    return TuneSpec(
        file=file,
        base_dir=str(Path(file).parent) or ".",
        base=base,
        variant=variant,
        baselines=baselines,
        params=params,
        derive=derive,
        objectives=objectives,
        constraints=constraints,
        trials=_int_key(file, t, "trials", 1),
        timeout=float(timeout) if timeout is not None else None,
        replications=reps,
        final_replications=final,
        finalists=_int_key(file, t, "finalists", 1),
        seed=seed,
        batch=_int_key(file, t, "batch", 1),
        population=_int_key(file, t, "population", 2),
        run_seed=run_seed,
        paired=paired,
        extra_columns=tuple(columns),
    )


def sample_points(spec: TuneSpec) -> list[dict]:
    """Configurations that `validate` has the core check: each parameter at the middle of its
    range, once for each value of each choice (so every kind of a kind choice is built)."""
    points = []
    choices = [p for p in spec.params if p.kind == "choice"] or [None]
    for cp in choices:
        for c in cp.choices if cp is not None else [None]:
            vals: dict = {}
            for p in spec.params:
                if not spec.active(p.when, vals):
                    continue
                x = c if p is cp else p.sample_point()
                vals[p.path] = p.value(x)
            points.append(vals)
    return points


def validate(spec: TuneSpec) -> None:
    """Have the core check the baselines and the sample trials (`sample_points`), with derived
    values; raises TuneError naming the key (and the trial's values)."""
    from aqmlab import _core

    def check(doc: dict, what: str) -> None:
        try:
            _core.scenario_text_variants(dumps_toml(doc), spec.file, spec.base_dir)
        except _core.ScenarioError as e:
            raise TuneError(e.file, e.key, f"{e.reason} ({what})") from None

    for b in spec.baselines:
        check(spec.baseline(b, None), f"baseline {b or 'scenario'}")
    for vals in sample_points(spec):
        desc = ", ".join(f"{k} = {v!r}" for k, v in vals.items())
        try:
            full = spec.derived_values(vals)
        except DeriveError as e:
            raise TuneError(spec.file, _q("derive", e.path), f"{e.reason} (sample trial: {desc})") from None
        check(spec.resolve(full, None), f"sample trial: {desc}")


def check_size(spec: TuneSpec) -> str | None:
    """Refuse a tune of too many runs or estimated too costly (aqmlab.runcost: `trials` ×
    `replications` + (`finalists` + baselines) × `final_replications` runs, each estimated as the
    scenario as written); else the line announcing it when estimated at a minute or more."""
    from aqmlab import runcost

    pair = 2 if spec.paired else 1  # paired: both variants on every seed
    search = spec.trials * spec.replications * pair
    final = (spec.finalists + len(spec.baselines)) * spec.final_replications * pair
    runs = search + final
    size = (
        f"{spec.trials} trials × {spec.replications} replications + ({spec.finalists} finalists + "
        f"{len(spec.baselines)} baselines) × {spec.final_replications} final replications"
        + (" × 2 variants" if spec.paired else "")
    )
    key = "tune.trials" if search >= final else "tune.final_replications"
    text = dumps_toml(spec.baseline(spec.baselines[0], None))
    per_run = runcost.base_estimates(text, spec.file, spec.base_dir)
    runcost.refuse_if_too_large(TuneError, spec.file, key, "tune", size, runs, per_run)
    if not per_run:
        return None
    events = runs * sum(e["events"] for e in per_run) / len(per_run)
    setup = runs * sum(e["setup_s"] for e in per_run) / len(per_run)
    return runcost.announcement("tune", runs, events, setup)


def run_id(doc: dict) -> str:
    """The id of a resolved scenario (the same as a sweep's: `_core.run_id`)."""
    return _core.run_id(doc)
