"""`aqmlab tune SCENARIO --out DIR`: search a scenario's `[tune]` parameters with Optuna.

The `[tune]` table names the keys to search, the objectives and constraints; the core parses
and checks it and writes each trial's scenario (`_core.TuneSpec`, crates/scenario/src/tune/,
reference in docs/scenarios.md "Tuning"): this module asks Optuna for values and tells it results.
Optuna proposes trials: TPE (Bergstra et al. 2011; multivariate, grouped for conditional keys)
for one objective, NSGA-II (Deb et al. 2002) for several, which gives the Pareto front;
constraints go to the sampler as `constraints_func` (a trial is feasible when every constraint
holds on its means). Each trial is run `replications` times with the seeds run.seed, run.seed +
1, … — the same seeds in every trial (common random numbers) — through the sweep machinery
(aqmlab.sweeps.run.execute_runs): ordinary run directories `DIR/runs/<id>/`, identified by the hash of
the resolved scenario, so a configuration that recurs (or a finished run of an interrupted
trial) is never run twice; a local process pool on all cores by default, or `dask`. A trial's
objective values are the means over its replications. With `[tune] paired = ["A", "B"]` a trial
runs both variants on each seed and every column is the per-seed margin A − B (the core's tune space),
averaged over the replications; the final comparison's rows are those margins, so a finalist's
interval is the margin's 95 % interval over the final seeds, paired by seed.

Determinism: trials are asked in batches of `batch` (trial k is in batch k // batch); every
trial of a batch is asked before any is run, and the batch is told in trial order. The sampler
is made anew for each trial with a seed derived from (`seed`, trial number), so the trial
sequence depends only on the seed, the batch size and the results, not on `jobs`, on the order
in which runs finish, or on whether the study was interrupted.

Resume: the study lives in `DIR/study.db` (Optuna's SQLite storage). Started again on the same
DIR, `aqmlab tune` asks the missing trials of an unfinished batch, re-evaluates the trials that
were running (their finished runs are read back, not recomputed), and continues to `trials`
trials in all; a finished trial is never recomputed. A DIR holding a study of another `[tune]`
table (other keys, ranges, objectives, constraints, replications, seed, batch or base
scenario) is refused.

At the end the `finalists` best trials (one objective: the best feasible values; several: the
Pareto front, ordered by the first objective) and the baselines are run with
`final_replications` seeds (the first `replications` are the runs already made) and compared
with 95 % Student-t intervals (aqmlab.reports.stats); with common random numbers the comparisons are
paired by seed: the best against the runner-up and against each baseline, mean difference with
its 95 % interval and a paired t-test p-value ("significant" when the interval excludes 0);
"best" and "runner-up" are ranked by their means over the final seeds.

Store layout (besides `runs/` and `study.db`):
    DIR/tune.json        the table as parsed, for the report
    DIR/trials.parquet   one row per trial (the DataFrame `tune()` returns)
    DIR/final.parquet    one row per (configuration, seed) of the final comparison
    DIR/report.md, DIR/report.html   aqmlab.tuning.report

Validation: python/tests/test_tune.py (synthetic optimum, determinism, resume after SIGKILL).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab import _core
from aqmlab.engine.document import TableError, dumps_toml, file_dir, read_document
from aqmlab.reports.page_text import write_atomic
from aqmlab.reports.stats import t_ci
from aqmlab.storage.dirs import TRIALS_TABLE, TUNE_INFO, is_tune_dir  # noqa: F401 (is_tune_dir re-exported)
from aqmlab.storage.run_dir import read_summary
from aqmlab.sweeps import cost as runcost
from aqmlab.sweeps.run import SweepRun, execute_runs, prepare_out, run_dir, write_sweep_table
from aqmlab.tuning.store import FINAL_TABLE, STUDY_DB, STUDY_NAME, quiet_optuna

LEVEL = 0.95
#: The columns of summary.json (crates/metrics/src/summary.rs `Summary`), which objectives and
#: constraints name (python/tests/test_tune_spec.py checks them against a run's summary.json).
SUMMARY_COLUMNS: tuple[str, ...] = _core.SUMMARY_COLUMNS
#: A parsed `[tune]` table (crates/scenario/src/tune/): `params`, `derive`, `objectives`, …
TuneSpec = _core.TuneSpec


class TuneError(TableError):
    """A rejected tuning table: message `file: key: reason`, attributes `file`, `key`, `reason`."""


def parse(file: str, overrides: dict | None = None, log=None, columns: tuple = ()) -> TuneSpec:
    """The `[tune]` table of `file`, checked by the core (`overrides`: `trials`, `timeout`, `seed`
    from the command line, None = as in the file; `columns`: run columns besides the summary's
    that objectives may name); `load = …` resolves once, in the base, as
    `aqmlab run` resolves it (the tuned keys are the queue's and the transport's, which a
    calibration does not see). Raises TuneError."""
    from aqmlab.engine.calibrate import load_resolver

    def resolve(base: dict) -> dict:
        return load_resolver(base, file, Path(file).parent, log=log).resolve(base)

    with TuneError.from_core():
        doc = read_document(file)[0]
        return _core.TuneSpec(doc, file, file_dir(file), overrides, resolve, list(columns))


def validate(spec: TuneSpec) -> None:
    """Have the core build the baselines and a sample trial of each choice; raises TuneError
    naming the key (and the trial's values)."""
    with TuneError.from_core():
        spec.validate()


def check_size(spec: TuneSpec) -> str | None:
    """Refuse a tune of too many runs or estimated too costly (aqmlab.sweeps.cost; the runs as the
    core counts them, each estimated as the first baseline); else the line announcing it when
    estimated at a minute or more."""
    size = spec.size()
    text = dumps_toml(spec.baseline(spec.baselines[0]))
    per_run = runcost.base_estimates(text, spec.file, spec.base_dir)
    runs = size["runs"]
    return runcost.refuse_if_too_large(TuneError, spec.file, size["key"], "tune", size["text"], runs, per_run)


def _canonical(x) -> str:
    """`x` as sorted, compact JSON: the key of a study's settings and of a trial's values."""
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


#: evaluate(runs) → [summary dict, or an error text, for each run in order]: what runs a batch.
Evaluator = Callable[[list[SweepRun]], list[dict | str]]


class TuneStoreError(ValueError):
    """`DIR: reason` for an output directory that holds another study."""


# -------------------------------------------------------------------------------------------
# Evaluators


class SimEvaluator:
    """Runs through the sweep machinery into `out/runs/<id>/` and reads the summaries back."""

    def __init__(
        self, spec: TuneSpec, out: Path, jobs: int | None, dask: str | None,
        metrics: Callable[[Path], dict] | None = None,
    ):  # fmt: skip
        self.spec, self.out, self.jobs, self.dask, self.metrics = spec, out, jobs, dask, metrics

    def __call__(self, runs: list[SweepRun]) -> list[dict | str]:
        execute_runs(
            self.out, runs, self.spec.file, self.spec.base_dir, jobs=self.jobs, dask=self.dask, desc="tune"
        )
        got: dict[str, dict | str] = {}
        for r in runs:
            d = run_dir(self.out, r)
            if (d / "summary.json").is_file():
                got[r.id] = read_summary(d)
                if self.metrics is not None:  # --metrics: the study's columns of this run
                    got[r.id] = {**got[r.id], **self.metrics(d)}
            else:
                err = d / "error.txt"
                got[r.id] = (
                    err.read_text(encoding="utf-8").split("\n\n", 1)[0] if err.is_file() else "not run"
                )
        return [got[r.id] for r in runs]


def function_evaluator(fn: Callable[[dict, int], dict]) -> Evaluator:
    """An evaluator from `fn(values, seed) → summary dict` (values: the trial's tuned and derived
    keys as written); for tests and synthetic objectives. Runs in this process."""

    def evaluate(runs: list[SweepRun]) -> list[dict | str]:
        return [fn(dict(r.values), r.seed) for r in runs]

    return evaluate


# -------------------------------------------------------------------------------------------
# Optuna glue


def trial_seed(seed: int, number: int) -> int:
    """The sampler seed of trial `number` (numpy SeedSequence of (seed, number), 32 bits)."""
    return int(np.random.SeedSequence([seed, number]).generate_state(1)[0])


def _constraints(ft) -> list[float]:
    return list(ft.user_attrs.get("constraint", []))


def make_sampler(spec: TuneSpec, number: int):
    """TPE (one objective) or NSGA-II (several), seeded for trial `number`."""
    optuna = quiet_optuna()
    cf = _constraints if spec.constraints else None
    s = trial_seed(spec.seed, number)
    if len(spec.objectives) == 1:
        return optuna.samplers.TPESampler(seed=s, multivariate=True, group=True, constraints_func=cf)
    return optuna.samplers.NSGAIISampler(seed=s, population_size=spec.population, constraints_func=cf)


def suggest(trial, spec: TuneSpec) -> dict:
    """The trial's values of the active parameters (as written into the scenario), in order."""

    def pick(p):
        if p.kind == "choice":
            return trial.suggest_categorical(p.path, p.choices)
        if p.kind == "int":
            return trial.suggest_int(p.path, p.lo, p.hi, log=p.log, step=p.step or 1)
        return trial.suggest_float(p.path, p.lo, p.hi, log=p.log, step=p.step)

    return spec.sample(pick)


def _param_text(p) -> str:
    """A searched key as the study fingerprint has written it since the tuning table was parsed
    in Python (the repr of its dataclass), so that a study made then still resumes."""
    lo, hi = (math.nan, math.nan) if p.kind == "choice" else (p.lo, p.hi)
    when = tuple((w, tuple(v)) for w, v in p.when)
    return (
        f"Param(path={p.path!r}, kind={p.kind!r}, lo={lo!r}, hi={hi!r}, log={p.log!r}, step={p.step!r}, "
        f"choices={tuple(p.choices)!r}, when={when!r}, unit={p.unit!r})"
    )


def fingerprint(spec: TuneSpec) -> str:
    """What makes trials comparable: a study in DIR must have been made with the same."""
    doc = {
        "base": spec.base,
        "variant": spec.variant,
        "params": [_param_text(p) for p in spec.params],
        "derive": [(d["path"], d["expr"], d["when"]) for d in spec.derive],
        "objectives": [o.label for o in spec.objectives],
        "constraints": [c.text for c in spec.constraints],
        "replications": spec.replications,
        "seed": spec.seed,
        "batch": spec.batch,
        "population": spec.population,
        **({"paired": list(spec.paired)} if spec.paired else {}),
    }
    return hashlib.sha256(_canonical(doc).encode()).hexdigest()[:16]


def open_study(spec: TuneSpec, out: Path):
    """Create or load the study in `out/study.db`; TuneStoreError if it is another study's."""
    optuna = quiet_optuna()
    storage = optuna.storages.RDBStorage(f"sqlite:///{(out / STUDY_DB).resolve()}")
    study = optuna.create_study(
        storage=storage,
        study_name=STUDY_NAME,
        directions=[o.direction for o in spec.objectives],
        load_if_exists=True,
        sampler=make_sampler(spec, 0),
    )
    fp = fingerprint(spec)
    had = study.user_attrs.get("fingerprint")
    if had is None:
        study.set_user_attr("fingerprint", fp)
    elif had != fp:
        raise TuneStoreError(
            f"{out}: holds a study of another [tune] table or scenario (fingerprint {had}, this one "
            f"{fp}); use another --out, or remove {out / STUDY_DB}"
        )
    return study


# -------------------------------------------------------------------------------------------
# Trials


@dataclass
class Config:
    """A configuration to run: `label`, the values written (None: a baseline as written)."""

    label: str
    values: dict | None
    baseline: str | None = None

    def runs(self, spec: TuneSpec, seeds: list[int], name: str) -> list[SweepRun]:
        """One run per seed; paired: A's and B's run of each seed, in that order (the values
        passed to an evaluator then name the variant too: `"variant"`)."""
        out = []
        for i, s in enumerate(seeds):
            if spec.paired is None:
                doc = spec.baseline(self.baseline, s) if self.values is None else spec.resolve(self.values, s)
                vals = {**(self.values or {}), "run.seed": s}
                out.append(SweepRun(_core.run_id(doc), name, i, s, vals, doc, dumps_toml(doc)))
                continue
            for v in spec.paired:
                doc = spec.baseline(v, s) if self.values is None else spec.resolve(self.values, s, v)
                vals = {**(self.values or {}), "run.seed": s, "variant": v}
                out.append(SweepRun(_core.run_id(doc), v, i, s, vals, doc, dumps_toml(doc)))
        return out


def _value(s: dict, c: str) -> float:
    # None: a value not measured (steady_state of a short window); bools count as 0/1
    return math.nan if s.get(c) is None else float(s[c])


def per_seed(spec: TuneSpec, summaries: list[dict]) -> list[dict]:
    """The summaries of one configuration's runs (in `Config.runs` order), one per seed:
    as they are, or paired, A's minus B's for every column (the margin of that seed)."""
    if spec.paired is None:
        return summaries
    pairs = zip(summaries[::2], summaries[1::2], strict=True)
    return [{c: _value(a, c) - _value(b, c) for c in spec.columns} for a, b in pairs]


def _means(spec: TuneSpec, summaries: list[dict]) -> dict[str, float]:
    out = {}
    for c in spec.columns:
        v = [_value(s, c) for s in summaries]  # bools average as shares
        out[c] = float(np.mean(v)) if v else math.nan
    return out


def _tell_batch(study, spec: TuneSpec, batch: list, evaluate: Evaluator, name: str) -> None:
    """Run the trials of `batch` (Trial objects, in number order) and tell the study."""
    optuna = quiet_optuna()
    seeds = spec.seeds(spec.replications)
    plan: dict[int, tuple[dict, list[SweepRun]] | str] = {}
    runs: list[SweepRun] = []
    for trial in batch:
        values = suggest(trial, spec)
        try:
            full = spec.derived(values)
        except _core.DeriveError as e:
            plan[trial.number] = f"derived value {e.path}: {e.reason}"
            continue
        rs = Config(f"trial {trial.number}", full).runs(spec, seeds, name)
        plan[trial.number] = (full, rs)
        runs += rs
    results = dict(zip(map(id, runs), evaluate(runs), strict=True)) if runs else {}
    for trial in batch:
        p = plan[trial.number]
        if isinstance(p, str):
            trial.set_user_attr("error", p)
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        full, rs = p
        trial.set_user_attr("values", full)
        trial.set_user_attr("runs", [r.id for r in rs])
        got = [results.get(id(r), "not run") for r in rs]
        errors = [g for g in got if isinstance(g, str)]
        if errors:
            trial.set_user_attr("error", errors[0])
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        means = _means(spec, per_seed(spec, got))
        trial.set_user_attr("mean", means)
        if spec.constraints:
            trial.set_user_attr("constraint", [c.violation(means[c.column]) for c in spec.constraints])
        vals = [means[o.column] for o in spec.objectives]
        if not all(math.isfinite(v) for v in vals):
            trial.set_user_attr("error", "an objective is not a finite number (no responses measured?)")
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        study.tell(trial, vals)


def optimise(
    spec: TuneSpec,
    study,
    evaluate: Evaluator,
    name: str,
    progress: bool = False,
    on_batch: Callable[[int], None] | None = None,
) -> None:
    """Ask, run and tell batches until the study has `spec.trials` trials (or `spec.timeout`
    seconds have passed since this call; the running batch is finished). Resumes an
    interrupted batch first (module doc)."""
    optuna = quiet_optuna()
    start = time.monotonic()
    bar = None
    if progress:
        from aqmlab.engine.console import progress_bar

        bar = progress_bar(spec.trials, "tune", "trial")  # on a terminal only
    try:
        while True:
            trials = study.get_trials(deepcopy=False)
            n = len(trials)
            running = [t for t in trials if t.state == optuna.trial.TrialState.RUNNING]
            if bar is not None:
                bar.n = min(n - len(running), spec.trials)
                bar.refresh()
            if not running:
                if n >= spec.trials:
                    break
                if spec.timeout is not None and time.monotonic() - start >= spec.timeout:
                    break
            batch = []
            for ft in running:  # interrupted trials: re-create them with their trial's sampler
                study.sampler = make_sampler(spec, ft.number)
                batch.append(optuna.trial.Trial(study, ft._trial_id))
                suggest(batch[-1], spec)
            end = min((n // spec.batch + 1) * spec.batch, spec.trials)
            if running and n % spec.batch == 0:
                end = n  # the batch was asked whole
            for number in range(n, end):
                study.sampler = make_sampler(spec, number)
                trial = study.ask()
                assert trial.number == number, (trial.number, number)
                suggest(trial, spec)
                batch.append(trial)
            batch.sort(key=lambda t: t.number)
            _tell_batch(study, spec, batch, evaluate, name)
            if on_batch is not None:
                on_batch(len(batch))
    finally:
        if bar is not None:
            bar.close()


def trials_frame(spec: TuneSpec, study) -> pd.DataFrame:
    """One row per trial: `number`, `state`, one column per objective (its mean), `feasible`,
    one column per constraint (its column's mean), the tuned and derived keys (None where not
    active), `runs` (run ids, comma-separated), `error`."""
    keys = [p.path for p in spec.params] + [d["path"] for d in spec.derive]
    cols = [o.column for o in spec.objectives] + [c.column for c in spec.constraints]
    cols = list(dict.fromkeys(cols))
    rows = []
    for t in study.get_trials(deepcopy=False):
        mean = t.user_attrs.get("mean", {})
        values = t.user_attrs.get("values", {})
        viol = t.user_attrs.get("constraint", [])
        row = {"number": t.number, "state": t.state.name}
        row.update({c: mean.get(c, math.nan) for c in cols})
        row["feasible"] = bool(mean) and all(v <= 0 for v in viol)
        row.update({k: values.get(k, t.params.get(k)) for k in keys})
        row["runs"] = ",".join(t.user_attrs.get("runs", []))
        row["error"] = t.user_attrs.get("error")
        rows.append(row)
    df = pd.DataFrame(rows, columns=["number", "state", *cols, "feasible", *keys, "runs", "error"])
    for k in keys:  # a column mixing numbers and strings is stored as strings
        kinds = {type(v) for v in df[k] if v is not None and not (isinstance(v, float) and math.isnan(v))}
        if len(kinds) > 1 and not kinds <= {int, float}:
            df[k] = [None if v is None else str(v) for v in df[k]]
    return df


def best_trials(spec: TuneSpec, study) -> list:
    """The finalists: feasible completed trials, best first (several objectives: the Pareto
    front by the first objective), one per distinct configuration, at most `spec.finalists`."""
    optuna = quiet_optuna()
    done = [t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE]
    feasible = [t for t in done if all(v <= 0 for v in t.user_attrs.get("constraint", []))]
    sign = 1 if spec.objectives[0].direction == "minimize" else -1
    if len(spec.objectives) == 1:
        pool = sorted(feasible, key=lambda t: (sign * t.values[0], t.number))
    else:
        front = {t.number for t in study.best_trials}
        pool = sorted(
            (t for t in feasible if t.number in front), key=lambda t: (sign * t.values[0], t.number)
        )
    out, seen = [], set()
    for t in pool:
        key = _canonical(t.user_attrs.get("values", {}))
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out[: spec.finalists]


# -------------------------------------------------------------------------------------------
# The final comparison


def final_frame(spec: TuneSpec, configs: list[Config], evaluate: Evaluator, name: str) -> pd.DataFrame:
    """Run `configs` with `final_replications` seeds; one row per (configuration, seed):
    `config`, `kind` (trial/baseline), `seed`, `run`, every summary column."""
    seeds = spec.seeds(spec.final_replications)
    plan = [
        (c, c.runs(spec, seeds, c.baseline if c.values is None and c.baseline else name)) for c in configs
    ]
    flat = [r for _, rs in plan for r in rs]
    got = dict(zip(map(id, flat), evaluate(flat), strict=True)) if flat else {}
    rows = []
    step = 2 if spec.paired else 1  # paired: A's and B's run of a seed make one row (A − B)
    for c, rs in plan:
        for k in range(0, len(rs), step):
            group = rs[k : k + step]
            got_g = [got.get(id(r)) for r in group]
            row = {
                "config": c.label,
                "kind": "baseline" if c.values is None else "trial",
                "seed": group[0].seed,
                "run": group[0].id,
            }
            if spec.paired:
                row["run_b"] = group[1].id
            errors = [g for g in got_g if not isinstance(g, dict)]
            if errors:
                row.update(dict.fromkeys(spec.columns, math.nan))
            else:
                one = per_seed(spec, got_g)[0]
                row.update({col: one.get(col, math.nan) for col in spec.columns})
            row["error"] = next((g for g in errors if isinstance(g, str)), None)
            rows.append(row)
    return pd.DataFrame(rows)


def compare(final: pd.DataFrame, a: str, b: str, column: str) -> dict:
    """Paired comparison of configurations `a` and `b` on `column` over the seeds both ran:
    mean difference a − b, its 95 % t interval, the paired t-test p-value, `significant`."""
    from scipy import stats as st

    fa = final[final["config"] == a].set_index("seed")[column]
    fb = final[final["config"] == b].set_index("seed")[column]
    d = (fa - fb).dropna()
    ci = t_ci(d.to_numpy())
    p = math.nan
    if len(d) >= 2:
        sd = float(d.std(ddof=1))
        if sd > 1e-12 * max(1.0, abs(ci.mean)):
            t = ci.mean / (sd / math.sqrt(len(d)))
            p = float(2 * st.t.sf(abs(t), len(d) - 1))
        else:  # identical differences on every seed
            p = 0.0 if ci.mean != 0 else 1.0
    sig = math.isfinite(ci.half) and (ci.lo > 0 or ci.hi < 0) or (ci.half == 0 and ci.mean != 0)
    return {"a": a, "b": b, "column": column, "diff": ci.mean, "half": ci.half, "n": ci.n, "p": p,
            "significant": bool(sig)}  # fmt: skip


def comparisons(
    spec: TuneSpec, final: pd.DataFrame, finalists: list[str], baselines: list[str]
) -> list[dict]:
    """The best finalist against the runner-up and against each baseline, on every objective."""
    if not finalists:
        return []
    best = finalists[0]
    others = ([finalists[1]] if len(finalists) > 1 else []) + baselines
    return [compare(final, best, o, obj.column) for o in others for obj in spec.objectives]


# -------------------------------------------------------------------------------------------
# The driver


def _info(spec: TuneSpec, name: str) -> dict:
    return {
        "scenario": spec.file,
        "variant": spec.variant,
        "paired": list(spec.paired) if spec.paired else None,
        "run_name": name,
        "baselines": [b or name for b in spec.baselines],
        "objectives": [{"column": o.column, "direction": o.direction} for o in spec.objectives],
        "constraints": [c.text for c in spec.constraints],
        "params": [
            {
                "path": p.path,
                "kind": p.kind,
                "lo": p.lo,
                "hi": p.hi,
                "log": p.log,
                "choices": p.choices,
                "when": [[w, v] for w, v in p.when],
            }
            for p in spec.params
        ],  # fmt: skip
        "derive": [{"path": d["path"], "expr": d["expr"]} for d in spec.derive],
        "trials": spec.trials,
        "replications": spec.replications,
        "final_replications": spec.final_replications,
        "finalists": spec.finalists,
        "seed": spec.seed,
        "batch": spec.batch,
        "sampler": "TPE" if len(spec.objectives) == 1 else "NSGA-II",
    }


def _run_name(spec: TuneSpec) -> str:
    if spec.paired:
        return f"{spec.paired[0]} − {spec.paired[1]}"
    if spec.variant:
        return spec.variant
    return _core.variant_documents(spec.baseline(None), spec.file)[0][0]


def tune(
    scenario: str | os.PathLike,
    out: str | os.PathLike,
    trials: int | None = None,
    timeout: float | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    seed: int | None = None,
    progress: bool = False,
    evaluate: Callable[[dict, int], dict] | None = None,
    report: bool = True,
    metrics: str | None = None,
) -> pd.DataFrame:
    """Tune `scenario`'s `[tune]` parameters into `out` (module doc) and return the trials (one
    row per trial, see `trials_frame`; also `out/trials.parquet`). `trials`, `timeout`, `seed`
    override the table's. `evaluate(values, seed) → summary dict` replaces the simulation (a
    synthetic objective; nothing is written under `out/runs/`). `df.attrs["final"]` holds the
    final comparison, `df.attrs["comparisons"]` the paired tests. `metrics`: a study whose
    per-run metrics join each run's summary as columns (aqmlab.tuning.metrics). Raises TuneError
    before anything runs."""
    file = os.fspath(scenario)
    columns, of_run = (), None
    if metrics is not None:
        from aqmlab.tuning.metrics import study_metrics

        columns, of_run = study_metrics(metrics)
    spec = parse(
        file, overrides={"trials": trials, "timeout": timeout, "seed": seed},
        log=lambda m: print(m, file=sys.stderr, flush=True), columns=columns,
    )  # fmt: skip
    validate(spec)
    line = check_size(spec)  # refuses a tune too large; else says when it is long
    if line is not None and evaluate is None:
        print(f"{file}: {line}", file=sys.stderr, flush=True)
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs: must be >= 1, got {jobs}")
    out = Path(out)
    prepare_out(out)
    name = _run_name(spec)
    ev: Evaluator = function_evaluator(evaluate) if evaluate else SimEvaluator(spec, out, jobs, dask, of_run)
    study = open_study(spec, out)
    info = _info(spec, name)
    write_atomic(out / TUNE_INFO, json.dumps(info, indent=2) + "\n")
    try:
        optimise(spec, study, ev, name, progress=progress)
    finally:
        df = trials_frame(spec, study)
        write_sweep_table(df, out / TRIALS_TABLE)
    best = best_trials(spec, study)
    configs = [Config(f"trial {t.number}", t.user_attrs["values"]) for t in best]
    configs += [Config(f"baseline {b or name}", None, b) for b in spec.baselines]
    final = final_frame(spec, configs, ev, name)
    write_sweep_table(final, out / FINAL_TABLE)
    # The best is the finalist with the best mean over the final seeds (not over the search's
    # few seeds, where the winner of many noisy trials is flattered); ties by trial order.
    obj = spec.objectives[0]
    sign = 1 if obj.direction == "minimize" else -1
    order = [c.label for c in configs if c.values is not None]
    means = final.groupby("config", sort=False)[obj.column].mean()
    pos = {lab: i for i, lab in enumerate(order)}
    order.sort(key=lambda lab: (sign * means.get(lab, math.inf), pos[lab]))
    tests = comparisons(spec, final, order, [c.label for c in configs if c.values is None])
    info["comparisons"] = tests
    info["finalists"] = order
    write_atomic(out / TUNE_INFO, json.dumps(info, indent=2, default=str) + "\n")
    df.attrs["final"] = final
    df.attrs["comparisons"] = tests
    if report:
        from aqmlab.tuning.report import write_tune_report

        write_tune_report(out, study=study)
    return df


def trial_values_text(df: pd.DataFrame, info: dict, config: str) -> str:
    """The tuned and derived values of the configuration labelled `config` ("trial N"), as
    `key = value` pairs (durations in ms, aqmlab.tuning.param_values); "" for a baseline."""
    from aqmlab.tuning.param_values import fmt_param

    number = config.removeprefix("trial ")
    if not number.isdigit():
        return ""
    rows = df[df["number"] == int(number)]
    if not len(rows):
        return ""
    row = rows.iloc[0]
    keys = [p["path"] for p in info["params"]] + [d["path"] for d in info["derive"]]
    return ", ".join(f"{k} = {fmt_param(row[k])}" for k in keys if k in row and fmt_param(row[k]))


def print_summary(df: pd.DataFrame, out: Path) -> None:
    """The best trials and the comparisons, for the command line."""
    info = json.loads((out / TUNE_INFO).read_text(encoding="utf-8"))
    done = (df["state"] == "COMPLETE").sum()
    print(f"{out}: {len(df)} trials ({done} complete, {(df['state'] == 'FAIL').sum()} failed)")
    final = df.attrs.get("final")
    if final is not None and len(final):
        for obj in info["objectives"]:
            col = obj["column"]
            for cfg, g in final.groupby("config", sort=False):
                ci = t_ci(g[col].to_numpy(dtype=float))
                line = f"  {cfg:<24} {col} = {ci.mean:.4g} ± {ci.half:.2g} (n = {ci.n})"
                values = trial_values_text(df, info, cfg)
                print(f"{line}  {values}" if values else line)
    for c in df.attrs.get("comparisons", []):
        verdict = "significant" if c["significant"] else "not significant"
        diff = f"{c['column']} {c['diff']:+.4g} ± {c['half']:.2g}"
        print(f"  {c['a']} − {c['b']}: {diff}, p = {c['p']:.3g} ({verdict})")
    print(f"report: {out / 'report.html'}  {out / 'report.md'}", file=sys.stderr)
