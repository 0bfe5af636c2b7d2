"""`aqmlab tune-study tuning [--quick] --out DIR`: the seeds' queue comparisons answered by search.

The study `tuning` (studies/tuning/, issue 13) asks of seed 000 (Christiansen 2001, "Tuning RED
for web traffic") and seed 001 (Weigle, Jeffay, Smith 2006) whether a proper search of the
parameter space changes their conclusions:

- seed 000, the constrained lab network (scenarios/christiansen2000/lab_constrained.toml) at
  90, 98 and 110 % load: the best RED found (min_th, max_th, w_q, max_p, limit) against the
  thesis's best RED for that load (Table B.15) and against the best drop-tail limit found;
- seed 001, the two-way PackMime dumbbell (scenarios/weigle2006/dumbbell.toml) at 80 and 105 %
  load (the paper's "moderately" and "severely congested" levels, §6.5): the best ARED, PI,
  CoDel and PIE found against DT-148q and against the best drop-tail buffer found.

A *cell* is one network at one load, studies/tuning/<cell>.toml: the base file by `extends`, at
that load, with the load's baselines and utilization constraint (`[tune] constraints`); a
*family* one tuned queue (studies/tuning/<file>.toml: its variants and `[tune]` table). For each
cell and family the driver writes the full scenario (the cell, the family's variants and the
cell's variants the family's `baselines` name, the search run length; data files by absolute
path) to OUT/scenarios/<cell>_<family>.toml and runs `aqmlab.tuning.search.tune` on it into
OUT/tunes/<cell>_<family>/ (each its own report). The family's best is the tuner's: the
finalist with the best mean over the tune's final seeds.

Then, per cell, the final comparison: the best of each family and the cell's baselines (the
thesis's best RED / DT-148q, as written) re-run at the *full* run length (the seeds' own: 20 +
70 min for seed 000, 120 s + 250,000 responses for seed 001) with `final_replications` common
seeds (run.seed 1, 2, …: the same seeds for every configuration, so comparisons are paired by
seed) into OUT/final/<cell>/runs/; mean ± 95 % Student-t half width of each column
(aqmlab.reports.stats.t_ci) and the paired differences of the cell's `compare` pairs
(aqmlab.tuning.search.compare: mean difference over the seeds, its 95 % interval, paired t-test).

Objective: maximise `pct_le_1s`, the share of responses complete within 1 s — the response-time
measure of the thesis's tables (B.4-B.18 give ≤ 1 s, 1-2 s, 2-3 s, > 3 s and the median) and
the region of the CDF both seeds judge by (their "best" settings were chosen from the body of
the CDF). Constraint: the bottleneck carries at least 95 % of the offered load, capped at the
link (utilization ≥ 0.95 · min(load, 100) / 100), so that response times are not bought with an
idle link or with responses that never complete.

Quick mode (`--quick`, for tests): one load per network (98 %, 80 %), 3-4 trials of one
replication on a few simulated minutes, final runs of a few minutes with 2 seeds.

Outputs: OUT/results.csv (one row per cell and configuration: mean and half width of each
column), OUT/comparisons.csv, OUT/final/<cell>/final.parquet (one row per configuration and
seed), OUT/study.json (trial counts, wall times), OUT/report.md + OUT/figures/ (the CDFs of each
cell) and OUT/report.html. `--publish` copies report.md, the CSVs and the figures to
docs/reproductions/tuning[-quick]/.

Validation: python/tests/test_tune_study.py (the quick study, end to end).
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import math
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from aqmlab import _core
from aqmlab.engine.document import dumps_toml, read_document
from aqmlab.reports.page_text import write_atomic
from aqmlab.reports.stats import t_ci
from aqmlab.storage.run_dir import check_out_dir
from aqmlab.sweeps.run import execute_runs, prepare_out, run_dir, write_sweep_table
from aqmlab.tuning.param_values import duration_ms
from aqmlab.tuning.search import SUMMARY_COLUMNS, TuneError, parse, validate

REPO_ROOT = Path(__file__).resolve().parents[3]
STUDIES = REPO_ROOT / "studies"
#: Columns of the results table (mean ± half width each).
COLUMNS = ("pct_le_1s", "median_rt_ms", "p90_rt_ms", "utilization", "drops_pct", "mean_qlen")


class StudyError(ValueError):
    """A study that cannot run as defined: `FILE: KEY: reason`."""


@dataclass(frozen=True)
class Family:
    label: str  # "RED (tuned)"
    file: str  # studies/tuning/<file>


@dataclass(frozen=True)
class Network:
    """One seed's network: the base scenario, its loads (cells), the run lengths."""

    name: str
    title: str
    scenario: str  # repository-relative; each load's cell file studies/tuning/<name>_<load>.toml extends it
    loads: tuple[int, ...]
    quick_loads: tuple[int, ...]
    families: tuple[Family, ...]
    baselines: tuple[str, ...]  # variant names run as written in the final (from the cell files)
    compare: tuple[tuple[str, str], ...]  # (a, b) labels: a − b
    search_run: dict
    quick_search_run: dict
    quick_final_run: dict
    final_replications: int = 5
    quick_trials: dict = field(default_factory=dict)  # family file → quick-mode trials (default 3)


def _variant(doc: dict, name: str) -> dict | None:
    return next((v for v in doc.get("variant", []) if v.get("name") == name), None)


SEED000 = Network(
    name="seed000",
    title="Seed 000: the constrained lab network (Christiansen 2001)",
    scenario="scenarios/christiansen2000/lab_constrained.toml",
    loads=(90, 98, 110),
    quick_loads=(98,),
    families=(
        Family("RED (tuned)", "seed000_red.toml"),
        Family("drop-tail (tuned)", "seed000_droptail.toml"),
    ),
    baselines=("thesis",),
    compare=(
        ("RED (tuned)", "thesis"),
        ("RED (tuned)", "drop-tail (tuned)"),
        ("thesis", "drop-tail (tuned)"),
    ),
    # The thesis's 20 min warm-up (shorter ones leave the browsers' start-up transient in the
    # measurement: 10 min gave 95 % utilization at 90 % load, against 90 % after 20 min), then
    # the first 5 of its 70 measured minutes.
    search_run={"warmup": "20min", "duration": "5min"},
    final_replications=4,
    quick_search_run={"warmup": "5min", "duration": "2min"},
    quick_final_run={"warmup": "5min", "duration": "3min"},
    quick_trials={"seed000_red.toml": 4, "seed000_droptail.toml": 3},
)

_SEED001_FAMILIES = (
    Family("ARED (tuned)", "seed001_ared.toml"),
    Family("PI (tuned)", "seed001_pi.toml"),
    Family("CoDel (tuned)", "seed001_codel.toml"),
    Family("PIE (tuned)", "seed001_pie.toml"),
    Family("drop-tail (tuned)", "seed001_droptail.toml"),
)

SEED001 = Network(
    name="seed001",
    title="Seed 001: the two-way PackMime dumbbell (Weigle et al. 2006)",
    scenario="scenarios/weigle2006/dumbbell.toml",
    loads=(80, 105),  # the paper's "moderately" and "severely congested" levels (§6.5)
    quick_loads=(80,),
    families=_SEED001_FAMILIES,
    baselines=("DT-148q",),
    # every tuned queue against the paper's DT-148q, then every AQM against the tuned drop-tail
    compare=tuple(
        (f.label, b) for b in ("DT-148q", "drop-tail (tuned)") for f in _SEED001_FAMILIES if f.label != b
    ),
    search_run={"warmup": "120s", "duration": "240s"},  # the paper's warm-up, then 4 min
    quick_search_run={"warmup": "60s", "duration": "90s"},
    quick_final_run={"warmup": "60s", "duration": "120s"},
)

STUDIES_KNOWN = {"tuning": (SEED000, SEED001)}


# -------------------------------------------------------------------------------------------
# Scenario files


def _absolute_files(node, base: Path) -> None:
    """Make every relative `file = "…"` of the document absolute (resolved against `base`)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "file" and isinstance(v, str) and not Path(v).is_absolute():
                node[k] = str((base / v).resolve())
            else:
                _absolute_files(v, base)
    elif isinstance(node, list):
        for v in node:
            _absolute_files(v, base)


def cell_file(net: Network, load: int) -> Path:
    """The cell file of `net` at `load` % (module doc)."""
    return STUDIES / "tuning" / f"{net.name}_{load}.toml"


def scenario_doc(net: Network, fam: Family, load: int, quick: bool, final: bool = False) -> dict:
    """The full scenario of family `fam` at `load` (module doc); raises StudyError."""
    cell_path = cell_file(net, load)
    frag_path = STUDIES / "tuning" / fam.file
    try:
        doc = read_document(cell_path)[0]  # the base at this load: the core resolves `extends`
        frag = read_document(frag_path)[0]
    except _core.ScenarioError as e:
        raise StudyError(str(e)) from None
    cell_variants, cell_tune = doc.get("variant", []), doc.pop("tune", {})
    for k in ("sweep", "calibration"):
        doc.pop(k, None)
    unknown = set(frag) - {"variant", "tune"}
    if unknown:
        raise StudyError(f"{frag_path}: {sorted(unknown)[0]}: only [[variant]] and [tune] belong here")
    _absolute_files(doc, cell_path.parent)  # relative data files resolve against the cell file's folder
    tune = copy.deepcopy(frag.get("tune", {}))
    own = [v.get("name") for v in frag.get("variant", [])]
    wanted = [
        v for v in cell_variants if v.get("name") in tune.get("baselines", []) and v.get("name") not in own
    ]
    doc["variant"] = copy.deepcopy(frag.get("variant", []) + wanted)
    tune.update(cell_tune)  # the cell's utilization constraint
    if quick:
        tune["trials"] = net.quick_trials.get(fam.file, 3)
        tune["replications"] = 1
        tune["final_replications"] = 2
        tune["batch"] = 2
    doc["tune"] = tune
    run = dict(doc.get("run", {}))
    # a final run at full length is the cell's own [run]: the seed's lengths
    length = (
        (net.quick_final_run if quick else None)
        if final
        else (net.quick_search_run if quick else net.search_run)
    )
    if length is not None:
        run.pop("stop_after_responses", None)
        run.update(length)
    doc["run"] = run
    return doc


@dataclass
class Cell:
    net: Network
    load: int

    @property
    def name(self) -> str:
        return f"{self.net.name}_{self.load}"


def cells(name: str, quick: bool) -> list[Cell]:
    if name not in STUDIES_KNOWN:
        raise StudyError(f"unknown tuning study {name!r} (known: {', '.join(STUDIES_KNOWN)})")
    return [Cell(n, ld) for n in STUDIES_KNOWN[name] for ld in (n.quick_loads if quick else n.loads)]


def write_scenarios(cs: list[Cell], out: Path, quick: bool) -> dict[tuple[str, str], tuple[Path, Path]]:
    """Write and check (tuner.parse + validate: `FILE: KEY: reason`) every scenario before
    anything runs; {(cell, family file): (search file, final file)}."""
    sdir = out / "scenarios"
    sdir.mkdir(parents=True, exist_ok=True)
    files = {}
    for c in cs:
        for fam in c.net.families:
            stem = f"{c.name}_{Path(fam.file).stem.split('_', 1)[1]}"
            pair = []
            for final in (False, True):
                doc = scenario_doc(c.net, fam, c.load, quick, final)
                p = sdir / f"{stem}{'_final' if final else ''}.toml"
                header = (
                    f"# studies/tuning/{c.name}.toml with studies/tuning/{fam.file}"
                    f"{' (quick mode)' if quick else ''}, {'final' if final else 'search'} run length.\n"
                )
                write_atomic(p, header + dumps_toml(doc))
                try:
                    spec = parse(str(p))
                    validate(spec)
                except TuneError as e:
                    raise StudyError(f"studies/tuning/{fam.file} (as {p}): {e.key}: {e.reason}") from None
                pair.append(p)
            files[(c.name, fam.file)] = (pair[0], pair[1])
    return files


# -------------------------------------------------------------------------------------------
# Running


def _best_values(tune_dir: Path) -> tuple[dict, str, bool]:
    """The tuned best of a finished tune directory: (its values, its label, feasible). With no
    feasible trial the tuner has no finalists: then the best complete trial on the objective,
    infeasible (the report says so)."""
    info = json.loads((tune_dir / "tune.json").read_text(encoding="utf-8"))
    trials = pd.read_parquet(tune_dir / "trials.parquet")
    feasible = bool(info.get("finalists"))
    if feasible:
        best = info["finalists"][0]
        number = int(best.split()[-1])
    else:
        obj = info["objectives"][0]
        done = trials[trials["state"] == "COMPLETE"]
        if not len(done):
            raise StudyError(f"{tune_dir}: no trial completed (see its report.md)")
        done = done.sort_values([obj["column"], "number"], ascending=[obj["direction"] == "minimize", True])
        number = int(done.iloc[0]["number"])
        best = f"trial {number}"
    row = trials[trials["number"] == number].iloc[0]
    keys = [p["path"] for p in info["params"]] + [d["path"] for d in info["derive"]]
    vals = {}
    for k in keys:
        v = row[k]
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        vals[k] = v.item() if hasattr(v, "item") else v
    return vals, best, feasible


def final_runs(cell: Cell, files: dict, bests: dict, seeds: list[int]):
    """[(label, spec, SweepRun list)] of the cell's final comparison."""
    from aqmlab.tuning.search import Config

    plan = []
    specs = {}
    for fam in cell.net.families:
        spec = parse(str(files[(cell.name, fam.file)][1]))
        specs[fam.file] = spec
        vals = bests[fam.file]
        plan.append((fam.label, spec, Config(fam.label, vals).runs(spec, seeds, spec.variant)))
    for b in cell.net.baselines:
        spec = next(s for s in specs.values() if any(v.get("name") == b for v in s.base.get("variant", [])))
        plan.append((b, spec, Config(b, None, b).runs(spec, seeds, b)))
    return plan


def run_final(cell: Cell, files: dict, bests: dict, out: Path, n: int, jobs, dask, log) -> pd.DataFrame:
    from aqmlab.storage.run_dir import read_summary

    seeds = list(range(1, n + 1))
    plan = final_runs(cell, files, bests, seeds)
    fdir = out / "final" / cell.name
    prepare_out(fdir)
    flat = [r for _, _, rs in plan for r in rs]
    spec0 = plan[0][1]
    log(f"{cell.name}: final comparison, {len(plan)} configurations × {n} seeds = {len(flat)} runs")
    execute_runs(fdir, flat, spec0.file, spec0.base_dir, jobs=jobs, dask=dask, progress=False)
    rows = []
    for label, _, rs in plan:
        for r in rs:
            d = run_dir(fdir, r)
            s = read_summary(d) if (d / "summary.json").is_file() else {}
            row = {"cell": cell.name, "config": label, "seed": r.seed, "run": r.id}
            row.update({k: float(s.get(k, math.nan)) for k in SUMMARY_COLUMNS})
            row["error"] = None if s else "failed"
            rows.append(row)
    df = pd.DataFrame(rows)
    write_sweep_table(df, fdir / "final.parquet")
    return df


def results_rows(final: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % half width of each of COLUMNS per (cell, config), from the replications."""
    rows = []
    for (cell, cfg), g in final.groupby(["cell", "config"], sort=False):
        row = {"cell": cell, "config": cfg, "n": int(g["pct_le_1s"].notna().sum())}
        for c in COLUMNS:
            ci = t_ci(g[c].to_numpy(dtype=float))
            row[c], row[f"{c}_ci"] = ci.mean, ci.half
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_rows(final: pd.DataFrame, cs: list[Cell]) -> pd.DataFrame:
    from aqmlab.tuning.search import compare

    rows = []
    for c in cs:
        f = final[final["cell"] == c.name]
        for a, b in c.net.compare:
            for col in ("pct_le_1s", "median_rt_ms"):
                rows.append({"cell": c.name, **compare(f, a, b, col)})
    return pd.DataFrame(rows)


def run_study(
    name: str,
    out: str | os.PathLike,
    quick: bool = False,
    jobs: int | None = 1,
    dask: str | None = None,
    command: str | None = None,
    log: Callable[[str], None] = lambda m: None,
) -> dict:
    """Run the study into `out` (module doc); returns the study record (also OUT/study.json)."""
    from aqmlab.tuning.search import tune

    out = Path(out)
    check_out_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    cs = cells(name, quick)
    files = write_scenarios(cs, out, quick)
    t_start = time.monotonic()
    record: dict = {
        "study": name,
        "quick": quick,
        "date": _dt.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}",
        "command": command or f"aqmlab tune-study {name}{' --quick' if quick else ''} --out DIR",
        "workers": jobs if dask is None else f"dask {dask}",
        "tunes": [],
        "finals": [],
    }
    # Wall times are those of the invocation(s) that computed: a tune or final comparison that an
    # earlier invocation recorded as finished (same trials and runs) keeps that invocation's time
    # (reading it back costs seconds); one it recorded unfinished adds up. An invocation killed
    # before it wrote study.json is not counted.
    earlier: dict[tuple, dict] = {}
    if (out / "study.json").is_file():
        prior = json.loads((out / "study.json").read_text(encoding="utf-8"))
        for t in prior.get("tunes", []):
            earlier[("tune", t["cell"], t["family"])] = t
        for t in prior.get("finals", []):
            earlier[("final", t["cell"])] = t

    def wall(key: tuple, t0: float, done: dict) -> float:
        e = earlier.get(key)
        if e is not None and all(e.get(k) == v for k, v in done.items()):
            return float(e["wall_s"])
        return round(time.monotonic() - t0 + (float(e["wall_s"]) if e else 0.0), 1)

    bests: dict[str, dict[str, dict]] = {}
    finals = []
    for c in cs:
        bests[c.name] = {}
        for fam in c.net.families:
            f_search, _ = files[(c.name, fam.file)]
            tdir = out / "tunes" / f_search.stem
            t0 = time.monotonic()
            log(f"{c.name}: tuning {fam.label} ({f_search.name})")
            df = tune(f_search, tdir, jobs=jobs, dask=dask, progress=False)
            vals, best, feasible = _best_values(tdir)
            bests[c.name][fam.file] = vals
            info = json.loads((tdir / "tune.json").read_text(encoding="utf-8"))
            entry = {
                "cell": c.name, "family": fam.label, "file": fam.file, "dir": f"tunes/{f_search.stem}",
                "trials": int(len(df)), "complete": int((df["state"] == "COMPLETE").sum()),
                "feasible": int(df["feasible"].sum()), "replications": info["replications"],
                "final_replications": info["final_replications"], "finalists": info["finalists"],
                "best": best, "best_feasible": feasible, "values": vals,
                "runs": int(len(list((tdir / "runs").iterdir()))),
            }  # fmt: skip
            done = {k: entry[k] for k in ("trials", "complete", "runs")}
            entry["wall_s"] = wall(("tune", c.name, fam.label), t0, done)
            record["tunes"].append(entry)
        t0 = time.monotonic()
        n = 2 if quick else c.net.final_replications
        finals.append(run_final(c, files, bests[c.name], out, n, jobs, dask, log))
        record["finals"].append(
            {
                "cell": c.name,
                "replications": n,
                "runs": int(len(finals[-1])),
                "wall_s": wall(("final", c.name), t0, {"replications": n, "runs": int(len(finals[-1]))}),
            }
        )
        write_atomic(out / "study.json", json.dumps(record, indent=2, default=str) + "\n")
    final = pd.concat(finals, ignore_index=True)
    res = results_rows(final)
    comp = comparison_rows(final, cs)
    res.to_csv(out / "results.csv", index=False, float_format="%.6g")
    comp.to_csv(out / "comparisons.csv", index=False, float_format="%.6g")
    record["wall_s_invocation"] = round(time.monotonic() - t_start, 1)
    record["wall_s"] = round(sum(t["wall_s"] for t in record["tunes"] + record["finals"]), 1)
    write_atomic(out / "study.json", json.dumps(record, indent=2, default=str) + "\n")
    write_report(out, record, cs, res, comp, final)
    return record


# -------------------------------------------------------------------------------------------
# Report


def _pm(m: float, h: float, digits: int = 3) -> str:
    if not math.isfinite(m):
        return ""
    fm = f"{m:.{digits}g}" if abs(m) < 10**digits else f"{m:.0f}"
    if not math.isfinite(h):
        return fm
    return f"{fm} ± {h:.2g}"


def _fmt_values(vals: dict) -> str:
    out = []
    for k, v in vals.items():
        if k.startswith("var."):
            continue
        k = k.removeprefix("queue.")
        if duration_ms(v) is not None:  # a searched duration, written in µs
            v = f"{duration_ms(v):.3g}ms"
        out.append(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}")
    return ", ".join(out)


def write_report(
    out: Path, record: dict, cs: list[Cell], res: pd.DataFrame, comp: pd.DataFrame, final
) -> None:
    from aqmlab.sweeps.report import fig_cdf
    from aqmlab.tuning.report import cdf_groups

    figs = out / "figures"
    figs.mkdir(exist_ok=True)
    tunes = {(t["cell"], t["family"]): t for t in record["tunes"]}
    md = [
        f"# Study `tuning`{' (quick mode)' if record['quick'] else ''}: the seeds' comparisons, by search",
        "",
        f"Date {record['date']}; machine: {record['machine']}; workers: {record['workers']}; "
        f"wall time {record.get('wall_s', 0) / 60:.1f} min (tunes and final runs).",
        "",
        f"Command (from the repository root): `{record['command']}`",
        "",
        "Objective: maximise `pct_le_1s` (share of responses complete within 1 s), subject to "
        "utilization ≥ 0.95 · min(load, 100 %) (python/aqmlab/tuning/study.py says why). Search: Optuna "
        "TPE on shortened runs with common seeds; each family's best is the tuner's finalist with the "
        "best mean over its final seeds. Final: every best and baseline re-run at the full run length "
        "with the same seeds 1…n; mean ± 95 % Student-t half width over the seeds; differences paired "
        "by seed.",
        "",
    ]
    for c in cs:
        net = c.net
        md += [f"## {net.title}, {c.load} % load", ""]
        md += ["| configuration | parameters | trials (feasible) | n | ≤ 1 s (%) | median (ms) "
               "| p90 (ms) | utilization | drops (%) | mean qlen |",
               "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for _, r in res[res["cell"] == c.name].iterrows():
            t = next((t for (cell, fam), t in tunes.items() if cell == c.name and fam == r["config"]), None)
            params = _fmt_values(t["values"]) if t else "as written (baseline)"
            v = None if t else _variant(read_document(cell_file(net, c.load))[0], r["config"])
            if v is not None:  # a baseline: as its cell file writes it
                params = _fmt_values(v["queue"])
            tri = f"{t['trials']} ({t['feasible']})" if t else ""
            if t and not t["best_feasible"]:
                tri += " no feasible trial: best infeasible one"
            cells_ = [_pm(r[col], r[f"{col}_ci"]) for col in COLUMNS]
            md.append(f"| {r['config']} | {params} | {tri} | {r['n']} | " + " | ".join(cells_) + " |")
        md += [
            "",
            "Paired differences (a − b over the same seeds; significant when the 95 % interval excludes 0):",
            "",
        ]
        md += ["| a | b | Δ ≤ 1 s (points) | p | Δ median (ms) | p |", "|---|---|---|---|---|---|"]
        cc = comp[comp["cell"] == c.name]
        for a, b in net.compare:
            x = cc[(cc["a"] == a) & (cc["b"] == b)].set_index("column")
            if not len(x):
                continue
            p1, p2 = x.loc["pct_le_1s"], x.loc["median_rt_ms"]
            star = lambda r: " *" if r["significant"] else ""  # noqa: E731
            md.append(
                f"| {a} | {b} | {_pm(p1['diff'], p1['half'])}{star(p1)} | {p1['p']:.2g} | "
                f"{_pm(p2['diff'], p2['half'])}{star(p2)} | {p2['p']:.2g} |"
            )
        # CDF figure from the final runs
        f = final[final["cell"] == c.name]
        groups = cdf_groups(out / "final" / c.name, f, list(dict.fromkeys(f["config"])))
        if groups:
            png = f"{c.name}_cdf.png"
            (figs / png).write_bytes(fig_cdf(groups, 3.0))
            md += ["", f"![{c.name} response-time CDFs](figures/{png})"]
        md += [""]
    md += ["## Runs and wall times", "",
           "| cell | family | trials | complete | feasible | replications (final) | runs | wall (s) "
           "| tune report |",
           "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for t in record["tunes"]:
        contours = _contour_figure(out / t["dir"])
        link = ""
        if contours is not None:
            png = f"{Path(t['dir']).name}_contours.png"
            shutil.copyfile(contours, figs / png)
            link = f"[contours](figures/{png})"
        md.append(
            f"| {t['cell']} | {t['family']} | {t['trials']} | {t['complete']} | {t['feasible']} | "
            f"{t['replications']} ({t['final_replications']}) | {t['runs']} | {t['wall_s']} | "
            f"OUT/{t['dir']}/report.md {link} |"
        )
    for fr in record["finals"]:
        md.append(
            f"| {fr['cell']} | final comparison | | | | {fr['replications']} | {fr.get('runs', '')} | "
            f"{fr['wall_s']} | |"
        )
    text = "\n".join(md) + "\n"
    write_atomic(out / "report.md", text)


def _contour_figure(tune_dir: Path) -> Path | None:
    """The contour figure of a tune's report (aqmlab.tuning.report), if it has one."""
    md = tune_dir / "report.md"
    if not md.is_file():
        return None
    for line in md.read_text(encoding="utf-8").splitlines():
        if line.startswith("![Contours: ") and line.endswith(".png)"):
            p = tune_dir / line[line.index("](") + 2 : -1]
            return p if p.is_file() else None
    return None


def publish(out: Path, quick: bool, root: Path = REPO_ROOT) -> Path:
    """Copy report.md, the CSVs and the figures to docs/reproductions/tuning[-quick]/."""
    from aqmlab.studies.reproduce import publish as publish_report

    name = "tuning-quick" if quick else "tuning"
    return publish_report(out, name, root, ("report.md", "results.csv", "comparisons.csv"))


def add_parser(sub, help: str) -> None:
    """The `aqmlab tune-study` subcommand (`help`: its one-line help, from aqmlab.cli)."""
    p = sub.add_parser(
        "tune-study",
        help=help,
        description="Tune every queue family of the study at each network and load with aqmlab "
        "tune, re-run each best and the seeds' baselines at full length with common seeds, and "
        "write OUT/report.md, OUT/results.csv, OUT/comparisons.csv (aqmlab.tuning.study).",
    )
    p.add_argument("study", metavar="STUDY", help=f"the study: {', '.join(STUDIES_KNOWN)}")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (resumable)")
    p.add_argument("--quick", action="store_true", help="one load per network, a few short trials")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="local processes (default: 1)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786)")
    p.add_argument("--publish", action="store_true", help="copy the report to docs/reproductions/tuning/")


def cmd_tune_study(args, argv: list[str] | None = None) -> int:
    import shlex

    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs: must be >= 1, got {args.jobs}")
    argv = sys.argv[1:] if argv is None else argv
    from aqmlab.studies.reproduce import rerunnable_argv

    words = rerunnable_argv(argv, Path.cwd())
    if "--out" not in words:  # outside the repository: a path of this machine
        words += ["--out", "DIR"]
    command = "aqmlab " + " ".join(shlex.quote(a) for a in words)
    rec = run_study(
        args.study, args.out, quick=args.quick, jobs=args.jobs, dask=args.dask, command=command,
        log=lambda m: print(m, file=sys.stderr, flush=True),
    )  # fmt: skip
    print(Path(args.out, "report.md").read_text(encoding="utf-8"))
    print(f"{args.out}: {rec['wall_s'] / 60:.1f} min", file=sys.stderr)
    if args.publish:
        print(f"published: {publish(Path(args.out), args.quick)}", file=sys.stderr)
    return 0
