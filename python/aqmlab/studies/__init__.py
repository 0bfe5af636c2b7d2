"""Study definitions for `aqmlab reproduce STUDY [--quick]` (issue 6).

A study is a set of tables from one paper, each reproduced by one sweep scenario, plus the
paper's own numbers and the paper's conclusions as checks. Layout of one study `NAME`:

    studies/NAME/               data of the study (repository root)
        README.md               what is reproduced, how the setup differs from the paper
        *.toml                  sweep scenario files (`aqmlab sweep` format, with [sweep])
        paper.csv               the paper's numbers, one value per row:
                                table,row,metric,value   (row = the paper's row label, e.g.
                                "load=98,qlen=60"; metric = a summary column name such as
                                kb_per_s, drops_pct, mean_qlen, median_rt_ms, pct_le_1s)
        verdicts.csv            the paper's conclusions: id,claim,quote (`read_verdicts`)
        causes.csv              documented causes of failing verdicts: reading,verdict,cause
    python/aqmlab/studies/NAME.py
        STUDY = Study(...)      the definition below

`aqmlab.studies.reproduce` runs every table's sweep (quick mode scales durations and replications
down), matches sweep rows to paper rows with `Table.row_label`, writes the report (paper value,
aqmlab mean ± 95 % CI, difference) and evaluates the verdicts.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from aqmlab.studies.compare import Check

#: The repository's studies/ folder: studies/NAME/ holds study NAME's data.
STUDIES_DIR = Path(__file__).resolve().parents[3] / "studies"


@dataclass(frozen=True)
class Table:
    """One table of the paper reproduced by one sweep.

    `id`: the paper's table id ("B.4"); `title`: its caption in short; `scenario`: sweep file
    name inside studies/NAME/; `metrics`: summary columns to show, in the paper's order;
    `row_label(row) -> str`: the paper row label of one row of the sweep table (aqmlab's
    `load_sweep` DataFrame: axes by key path, `variant`, `replication`, summary columns), or
    None to leave the row out."""

    id: str
    title: str
    scenario: str
    metrics: tuple[str, ...]
    row_label: Callable[[pd.Series], str | None]
    quick_overrides: dict[str, object] = field(default_factory=dict)
    """Optional: overrides for this table's sweep file in `--quick` mode, applied after the
    study's `quick_overrides` (same key paths; see aqmlab.studies.reproduce)."""
    run_metrics: Callable[[pd.DataFrame, str | os.PathLike], pd.DataFrame] | None = None
    """Optional: `run_metrics(sweep, sweep_dir) -> sweep` adds columns that are not summary
    columns (e.g. one workload's response times), computed from each run's directory
    `sweep_dir/runs/<run id>`; `metrics` may then name them. Called once per sweep file, before
    `row_label` (seed 002 study: aqmlab.studies.weigle_multi)."""
    run_checks: tuple[str, ...] = ()
    """Optional: per-run columns (from `run_metrics`) that say whether a run meets a condition
    of the paper's method (weigle2006: §5.4's long transfer), shown beside the metrics where the
    results have them and not required of results that lack them (ns-2.35's)."""


@dataclass(frozen=True)
class Verdict:
    """One conclusion of the paper and the rule that checks it (docs/verdicts.md).

    `id`: short stable name (`w06-ecn-beats-drops`) that causes and the ns-2.35 side refer to;
    `claim`: the paper's conclusion in words; `quote`: the paper's sentence(s) it checks, with
    section/page; `check(results) -> aqmlab.studies.compare.Check` (outcome and evidence), where
    `results` maps table id → DataFrame with columns `row`, each metric's mean (`<metric>`) and,
    where there are replications, CI half-width (`<metric>_ci`) and count (`<metric>_n` or `n`):
    aqmlab's, ns-2.35's or the paper's own numbers alike."""

    id: str
    claim: str
    quote: str
    check: Callable[[dict[str, pd.DataFrame]], Check]


@dataclass(frozen=True)
class Reading:
    """One reading of how the paper configured its setup, run with `aqmlab reproduce STUDY
    --reading NAME`: `queue_options` (key → value) is set in every queue table of a kind in
    `kinds` (top-level `queue`/`reverse_queue` and each variant's), overriding what the sweep
    file says; a value of None removes the key (its default, or the profile's, applies).
    `overrides` are sweep-file key paths → values applied to every sweep file as quick-mode
    overrides are (aqmlab.studies.reproduce; e.g. `sweep.derive.workload[0].rate` for another load
    calibration). `about` says which reading of the paper it is and its source. `causes`: causes
    that hold under this reading only (verdict id → text), over the study's own."""

    name: str
    about: str
    queue_options: dict[str, object] = field(default_factory=dict)
    kinds: tuple[str, ...] = ("red", "ared")
    overrides: dict[str, object] = field(default_factory=dict)
    causes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    """A paper to reproduce: `name` (the `aqmlab reproduce` argument), `paper` (citation),
    `tables`, `verdicts`, and the quick mode: `quick_overrides` are sweep-file key paths → values
    applied to every table's scenario in `--quick` mode (e.g. {"run.duration": "120s",
    "run.warmup": "60s", "sweep.replications": 1}), chosen so the whole study runs in minutes.
    `readings`: the alternative readings of the paper's queue configuration (the sweep files
    themselves are the default reading, `default_reading`)."""

    name: str
    paper: str
    tables: tuple[Table, ...]
    verdicts: tuple[Verdict, ...] = ()
    quick_overrides: dict[str, object] = field(default_factory=dict)
    readings: tuple[Reading, ...] = ()
    default_reading: str = "as-stated"
    causes: dict[str, str] = field(default_factory=dict)
    """Documented causes of failing verdicts that the table cannot derive (verdict id → text: a
    setup difference that was tested, with the run that shows it, or "open: <what was tried>");
    aqmlab.studies.verdicts fills the report's `cause` column from them."""
    ns2_refused: str | None = None
    """Why the study's grid has no ns-2.35 counterpart (None: `--ns2` runs it in ns-2.35); the
    report says so and `aqmlab reproduce NAME --ns2` stops with it."""
    run_metrics: Callable[[pd.DataFrame, str | os.PathLike], pd.DataFrame] | None = None
    """Optional: the `Table.run_metrics` of every table that gives none (the study's per-run
    columns, said once); `run_checks` likewise."""
    run_checks: tuple[str, ...] = ()
    checks: Mapping[str, Callable[[dict[str, pd.DataFrame]], Check]] | None = None
    """Optional: the rule of each verdict of studies/NAME/verdicts.csv by id; given, the
    verdicts, the study's causes and each reading's are read from studies/NAME/ (`read_verdicts`,
    `read_causes`), not passed."""

    def __post_init__(self) -> None:
        if self.checks is not None:  # frozen: set once, from the study's CSV files
            object.__setattr__(self, "verdicts", read_verdicts(self.name, self.checks))
            object.__setattr__(self, "causes", read_causes(self.name))
            readings = tuple(replace(r, causes=read_causes(self.name, r.name)) for r in self.readings)
            object.__setattr__(self, "readings", readings)
        tables = tuple(
            replace(
                t, run_metrics=t.run_metrics or self.run_metrics, run_checks=t.run_checks or self.run_checks
            )
            for t in self.tables
        )
        object.__setattr__(self, "tables", tables)  # frozen: the tables with the study's defaults
        ids = [v.id for v in self.verdicts]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"study {self.name}: verdict ids not unique: {', '.join(dup)}")
        for v in self.verdicts:
            if not v.id or not v.quote.strip():
                raise ValueError(f"study {self.name}: verdict {v.claim!r}: needs an id and a quote")
        for where, causes in [
            ("causes", self.causes),
            *((f"reading {r.name}: causes", r.causes) for r in self.readings),
        ]:
            unknown = sorted(set(causes) - set(ids))
            if unknown:
                raise ValueError(f"study {self.name}: {where}: unknown verdict ids: {', '.join(unknown)}")

    def reading(self, name: str | None) -> Reading | None:
        """The reading called `name` (None or the default: no changes); ValueError if unknown."""
        if name is None or name == self.default_reading:
            return None
        for r in self.readings:
            if r.name == name:
                return r
        known = ", ".join([self.default_reading, *(r.name for r in self.readings)])
        raise ValueError(f"study {self.name}: unknown reading {name!r}; expected one of: {known}")


def known() -> list[str]:
    """Names of the studies `load` knows: the modules of this package that define `STUDY`
    (sorted; helper modules such as weigle2006_rtt are not studies)."""
    import importlib
    import pkgutil

    names = []
    for m in pkgutil.iter_modules(__path__):
        study = getattr(importlib.import_module(f"{__name__}.{m.name}"), "STUDY", None)
        if isinstance(study, Study):
            names.append(study.name)
    return sorted(names)


def load(name: str) -> Study:
    """The study called `name` (module aqmlab.studies.<name with - as _>)."""
    import importlib

    mod = importlib.import_module(f"aqmlab.studies.{name.replace('-', '_')}")
    return mod.STUDY


def add_run_columns(
    sweep: pd.DataFrame,
    sweep_dir: str | os.PathLike,
    of_run: Callable[[Path], dict[str, float]],
    columns: tuple[str, ...] | None = None,
) -> pd.DataFrame:
    """`sweep` (a sweep table) with the per-run columns `of_run(run directory)` of each ok run
    (`sweep_dir/runs/<run id>`) added, NaN for the other runs (a Table's `run_metrics`):
    `columns`, or None for the keys `of_run` returns. A table that has all of `columns` already
    (a sweep shared by several tables) is returned unchanged."""
    if columns is not None and all(c in sweep.columns for c in columns):
        return sweep
    df = sweep.copy()
    runs = Path(sweep_dir) / "runs"
    rows = [of_run(runs / r["run"]) if r["status"] == "ok" else {} for _, r in df.iterrows()]
    extra = pd.DataFrame(rows, index=df.index, columns=None if columns is None else list(columns))
    for c in extra.columns:
        df[c] = pd.to_numeric(extra[c])
    return df


def loaded_run_columns(
    of_run: Callable, columns: tuple[str, ...] | None = None
) -> Callable[[pd.DataFrame, str | os.PathLike], pd.DataFrame]:
    """A `run_metrics` (Table, Study) adding `of_run(run)`'s columns, `run` each ok run's
    directory read with aqmlab.storage.run_dir.load_run (`add_run_columns`: `columns`, NaN for
    the other runs)."""

    def run_metrics(sweep: pd.DataFrame, sweep_dir: str | os.PathLike) -> pd.DataFrame:
        from aqmlab.storage.run_dir import load_run

        return add_run_columns(sweep, sweep_dir, lambda d: of_run(load_run(d)), columns)

    return run_metrics


def _csv_rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the UTF-8 CSV file `path`, whose header must be `columns`."""
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != columns:
            raise ValueError(f"{path}: header: expected {','.join(columns)}")
        return list(reader)


def read_verdicts(
    name: str, checks: Mapping[str, Callable[[dict[str, pd.DataFrame]], Check]]
) -> tuple[Verdict, ...]:
    """Study `name`'s verdicts: the claims and the paper's quoted sentences of
    studies/NAME/verdicts.csv (id,claim,quote), in its order, each checked by `checks[id]`.
    ValueError naming the file for an id without a check or a check without a row."""
    path = STUDIES_DIR / name / "verdicts.csv"
    rows = _csv_rows(path, ("id", "claim", "quote"))
    ids = [r["id"] for r in rows]
    for what, missing in (("no check", set(ids) - set(checks)), ("no row", set(checks) - set(ids))):
        if missing:
            raise ValueError(f"{path}: {', '.join(sorted(missing))}: {what}")
    return tuple(Verdict(r["id"], r["claim"], r["quote"], checks[r["id"]]) for r in rows)


def read_causes(name: str, reading: str = "") -> dict[str, str]:
    """Study `name`'s documented causes (verdict id → text, Study.causes) under `reading` (""
    for the study's own, else a Reading's name), from studies/NAME/causes.csv
    (reading,verdict,cause)."""
    rows = _csv_rows(STUDIES_DIR / name / "causes.csv", ("reading", "verdict", "cause"))
    return {r["verdict"]: r["cause"] for r in rows if r["reading"] == reading}
