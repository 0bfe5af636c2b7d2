"""The report of `aqmlab tune`: DIR/report.md and DIR/report.html (as sweeps: figures in
DIR/report/, embedded in the HTML).

Contents:
- the final comparison: the finalists (best trials) and the baselines re-run with
  `final_replications` common seeds, each objective and constraint column as mean ± 95 %
  Student-t half width (aqmlab.reports.stats.t_ci);
- the paired comparisons of the best finalist with the runner-up and each baseline (difference
  of the means over the same seeds, its 95 % interval, paired t-test p-value; aqmlab.tuning.search.compare);
- the ten best trials with their parameters;
- optimisation history (each trial's objective, infeasible ones hollow, the best so far);
- parameter importances (Optuna's PED-ANOVA, Watanabe et al. 2023: no scikit-learn needed)
  for each objective;
- slice plots (objective against each of the four most important parameters);
- contour plots of the objective over each pair of the three most important numeric parameters
  (linear interpolation between the trials on a Delaunay triangulation, in log coordinates for
  log-scale parameters; the trials drawn on top, the best feasible one starred);
- with several objectives, the Pareto front of the first two;
- the response-time CDFs of the best finalist and the baselines (mean of the final
  replications with the 95 % pointwise band), when their run directories exist.

Validation: python/tests/test_tune.py (the report of a small study).
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.reports.run_report import CDF_COLUMNS, fmt_value, response_time_cdf
from aqmlab.reports.stats import t_ci
from aqmlab.storage.run_dir import read_info, read_summary, read_table, warmup_ns_of
from aqmlab.sweeps.report import Group, _fig, _png, _shown_path, fig_cdf, write_sections
from aqmlab.sweeps.run import RUNS
from aqmlab.tuning.param_values import axis_label, fmt_param, numeric_column
from aqmlab.tuning.store import load_study, load_tune

TOP_TRIALS = 10
SLICE_PARAMS = 4
CONTOUR_PARAMS = 3


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return fmt_value(v) if isinstance(v, float) else str(v)


def final_rows(final: pd.DataFrame, columns: list[str]) -> tuple[list[str], list[list[str]]]:
    header = ["configuration", "n", *columns]
    rows = []
    for cfg, g in final.groupby("config", sort=False):
        cells = [cfg, str(int(g[columns[0]].notna().sum()))]
        for c in columns:
            ci = t_ci(g[c].to_numpy(dtype=float))
            cells.append(_fmt(ci.mean) if math.isnan(ci.half) else f"{_fmt(ci.mean)} ± {_fmt(ci.half)}")
        rows.append(cells)
    return header, rows


def comparison_rows(tests: list[dict]) -> list[list[str]]:
    return [
        [t["a"], t["b"], t["column"], f"{_fmt(t['diff'])} ± {_fmt(t['half'])}", str(t["n"]),
         f"{t['p']:.2g}" if math.isfinite(t["p"]) else "", "yes" if t["significant"] else "no"]
        for t in tests
    ]  # fmt: skip


def top_rows(df: pd.DataFrame, info: dict) -> tuple[list[str], list[list[str]]]:
    objs = info["objectives"]
    first = objs[0]
    keys = [p["path"] for p in info["params"]] + [d["path"] for d in info["derive"]]
    cols = [o["column"] for o in objs]
    done = df[df["state"] == "COMPLETE"]
    done = done.sort_values(
        ["feasible", first["column"], "number"], ascending=[False, first["direction"] == "minimize", True]
    ).head(TOP_TRIALS)
    header = ["trial", *cols, "feasible", *keys]
    rows = [[str(r["number"]), *[_fmt(r[c]) for c in cols], "yes" if r["feasible"] else "no",
             *[fmt_param(r[k]) for k in keys]] for _, r in done.iterrows()]  # fmt: skip
    return header, rows


def fig_history(df: pd.DataFrame, obj: dict) -> bytes:
    plt, fig, ax = _fig()
    col = obj["column"]
    done = df[df["state"] == "COMPLETE"].sort_values("number")
    feas = done[done["feasible"]]
    infeas = done[~done["feasible"]]
    ax.scatter(feas["number"], feas[col], s=14, label="trial (feasible)")
    if len(infeas):
        ax.scatter(
            infeas["number"], infeas[col], s=14, facecolors="none", edgecolors="grey", label="infeasible"
        )
    if len(feas):
        vals = feas[col].to_numpy(dtype=float)
        best = np.minimum.accumulate(vals) if obj["direction"] == "minimize" else np.maximum.accumulate(vals)
        ax.step(feas["number"], best, where="post", color="C3", label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel(f"{col} (mean over replications)")
    ax.set_title(f"Optimisation history: {obj['direction']} {col}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return _png(plt, fig)


def importances(study, n_obj: int) -> list[dict[str, float]]:
    """PED-ANOVA importances per objective ({} when too few trials or one parameter)."""
    import optuna

    out = []
    for i in range(n_obj):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ev = optuna.importance.PedAnovaImportanceEvaluator()
                imp = optuna.importance.get_param_importances(
                    study, evaluator=ev, target=(lambda t, i=i: t.values[i]) if n_obj > 1 else None
                )
            out.append(dict(imp))
        except (RuntimeError, ValueError, ZeroDivisionError):
            out.append({})
    return out


def fig_importance(imp: dict[str, float], col: str) -> bytes:
    plt, fig, ax = _fig()
    names = list(imp)[::-1]
    ax.barh(names, [imp[n] for n in names])
    ax.set_xlabel("importance (PED-ANOVA, sums to 1)")
    ax.set_title(f"Parameter importances for {col}")
    ax.grid(True, axis="x", alpha=0.3)
    return _png(plt, fig)


def draw_slice(ax, done: pd.DataFrame, p: str, col: str, log: bool) -> None:
    """Objective `col` against parameter `p` on `ax`: a numeric axis for numbers and durations
    (in ms, labelled so; log when the parameter is searched on a log scale), one column per
    value for a choice; at most 5 major ticks, so the labels never overlap."""
    from matplotlib.ticker import MaxNLocator

    sub = done[done[p].notna()]
    x = numeric_column(sub[p])
    if x is None:
        cats = sorted(set(map(str, sub[p])))
        xv = sub[p].map(lambda v, c=cats: c.index(str(v))).to_numpy(dtype=float)
        long = sum(map(len, cats)) > 24
        ax.set_xticks(
            range(len(cats)), cats, fontsize=7, rotation=30 if long else 0, ha="right" if long else "center"
        )
    else:
        xv = x.to_numpy(dtype=float)
    ax.scatter(xv, sub[col], s=10, c=sub["number"], cmap="viridis")
    if x is not None:
        if log and (xv > 0).all():
            ax.set_xscale("log")
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.set_xlabel(axis_label(p, sub[p]), fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)


def fig_slices(df: pd.DataFrame, obj: dict, params: list[str], info: dict) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    logs = {p["path"]: p["log"] for p in info["params"]}
    n = len(params)
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 3.2), dpi=110, squeeze=False)
    done = df[df["state"] == "COMPLETE"]
    col = obj["column"]
    for ax, p in zip(axes[0], params, strict=True):
        draw_slice(ax, done, p, col, bool(logs.get(p)))
    axes[0][0].set_ylabel(col)
    fig.suptitle(f"{col} against the most important parameters (colour: trial number)", fontsize=9)
    return _png(plt, fig)


def contour_pairs(df: pd.DataFrame, params: list[str]) -> list[tuple[str, str]]:
    """The pairs of the first CONTOUR_PARAMS numeric parameters of `params` (importance order)
    that at least 3 complete trials set (a contour needs a triangle)."""
    done = df[df["state"] == "COMPLETE"]
    numeric = [
        p for p in params
        if p in done.columns and numeric_column(done[p]) is not None and done[p].notna().sum() >= 3
        and done[p].nunique() >= 2
    ][:CONTOUR_PARAMS]  # fmt: skip
    return [(a, b) for i, a in enumerate(numeric) for b in numeric[i + 1 :]]


def fig_contours(df: pd.DataFrame, obj: dict, pairs: list[tuple[str, str]], info: dict) -> bytes:
    """The objective over each pair of parameters: filled contours interpolated between the
    trials (where the triangulation allows), the trials as dots, the best feasible trial as a
    star."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.tri as mtri

    logs = {p["path"]: p["log"] for p in info["params"]}
    col = obj["column"]
    done = df[df["state"] == "COMPLETE"]
    feas = done[done["feasible"]]
    best = None
    if len(feas):
        best = feas.loc[feas[col].idxmin() if obj["direction"] == "minimize" else feas[col].idxmax()]
    n = len(pairs)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.3), dpi=110, squeeze=False)
    for ax, (a, b) in zip(axes[0], pairs, strict=True):
        sub = done[done[a].notna() & done[b].notna() & done[col].notna()]
        x, y = (numeric_column(sub[c]).to_numpy(dtype=float) for c in (a, b))
        z = sub[col].to_numpy(dtype=float)
        lx = bool(logs.get(a)) and (x > 0).all()
        ly = bool(logs.get(b)) and (y > 0).all()
        tx, ty = (np.log10(x) if lx else x), (np.log10(y) if ly else y)
        try:
            tri = mtri.Triangulation(tx, ty)
            cs = ax.tricontourf(tri, z, levels=12, cmap="viridis", alpha=0.8)
            fig.colorbar(cs, ax=ax, fraction=0.046, pad=0.02)
        except (ValueError, RuntimeError):  # collinear or too few distinct points: dots only
            pass
        ax.scatter(tx, ty, s=9, c="white", edgecolors="black", linewidths=0.5)
        if best is not None and pd.notna(best[a]) and pd.notna(best[b]):
            bx, by = (float(numeric_column(pd.Series([best[c]])).iloc[0]) for c in (a, b))
            ax.scatter(np.log10(bx) if lx else bx, np.log10(by) if ly else by, marker="*", s=120, c="C3")
        ax.set_xlabel(f"log10 {axis_label(a, sub[a])}" if lx else axis_label(a, sub[a]), fontsize=8)
        ax.set_ylabel(f"log10 {axis_label(b, sub[b])}" if ly else axis_label(b, sub[b]), fontsize=8)
        ax.tick_params(labelsize=7)
    fig.suptitle(f"{col} over pairs of the most important parameters (star: best feasible)", fontsize=9)
    fig.tight_layout()
    return _png(plt, fig)


def fig_pareto(df: pd.DataFrame, objs: list[dict], front: set[int]) -> bytes:
    plt, fig, ax = _fig()
    a, b = objs[0]["column"], objs[1]["column"]
    done = df[df["state"] == "COMPLETE"]
    on = done["number"].isin(front)
    ax.scatter(done.loc[~on, a], done.loc[~on, b], s=12, color="grey", alpha=0.6, label="trial")
    ax.scatter(done.loc[on, a], done.loc[on, b], s=20, color="C3", label="Pareto front")
    ax.set_xlabel(f"{a} ({objs[0]['direction']})")
    ax.set_ylabel(f"{b} ({objs[1]['direction']})")
    ax.set_title("Pareto front (feasible, non-dominated trials)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return _png(plt, fig)


def cdf_groups(d: Path, final: pd.DataFrame, labels: list[str]) -> list[Group]:
    """Groups of the run directories of `labels` in the final comparison (those that exist)."""
    out = []
    for lab in labels:
        dirs = [d / RUNS / r for r in final.loc[final["config"] == lab, "run"]]
        dirs = [x for x in dirs if (x / "requests.parquet").is_file()]
        if not dirs:
            continue
        g = Group(lab, (lab,), dirs)
        for x in dirs:
            warm = warmup_ns_of(read_info(x), read_summary(x))
            s, _ = response_time_cdf(read_table(x, "requests", CDF_COLUMNS), warm)
            g.samples.append(s)
        out.append(g)
    return out


def _tuned(info: dict) -> str:
    if info.get("paired"):
        a, b = info["paired"]
        return f"the margin {a} − {b} (both variants with the same values and seeds; every column is A − B)"
    return info["variant"] or info["run_name"]


def write_tune_report(tune_dir: str | os.PathLike, study=None, xmax: float = 2.0) -> tuple[Path, Path]:
    """Write report.html and report.md into `tune_dir` (module doc); returns the two paths.
    `study`: the Optuna study (loaded from DIR/study.db when None)."""
    d = Path(tune_dir)
    df = load_tune(d)
    info = df.attrs["tune"]
    final = df.attrs.get("final")
    if study is None:
        study = load_study(d)
    objs = info["objectives"]
    cols = list(dict.fromkeys([o["column"] for o in objs] + [c.split()[0] for c in info["constraints"]]))
    sections: list[tuple] = []
    if final is not None and len(final):
        h, r = final_rows(final, cols)
        n_final = info["final_replications"]
        sections.append(("table", f"Final comparison (mean ± 95 % CI over {n_final} common seeds)", h, r))
        if info.get("comparisons"):
            sections.append(("table", "Paired comparisons (same seeds): best vs runner-up and baselines",
                             ["a", "b", "column", "a − b (95 % CI)", "n", "p (paired t)", "significant"],
                             comparison_rows(info["comparisons"])))  # fmt: skip
            sections.append(("text", "A difference is significant when its 95 % interval excludes 0. The "
                             "finalists were chosen as the best of many noisy trials, so their means in the "
                             "search are optimistic; the final runs add seeds, and the first "
                             f"{info['replications']} are those of the search."))  # fmt: skip
    h, r = top_rows(df, info)
    sections.append(("table", f"Best trials (of {len(df)})", h, r))
    failed = df[df["state"] == "FAIL"]
    if len(failed):
        rows = [[str(x["number"]), str(x["error"] or "")] for _, x in failed.iterrows()]
        sections.append(("table", "Failed trials", ["trial", "error"], rows))
    done = df[df["state"] == "COMPLETE"]
    if len(done):
        for o in objs:
            sections.append(("figure", f"Optimisation history: {o['column']}", fig_history(df, o)))
        imps = importances(study, len(objs)) if len(done) >= 4 else []
        for o, imp in zip(objs, imps, strict=False):
            if imp:
                sections.append(
                    ("figure", f"Parameter importances: {o['column']}", fig_importance(imp, o["column"]))
                )
        imp0 = imps[0] if imps and imps[0] else {}
        params = [p for p in imp0 if p in df.columns][:SLICE_PARAMS] or [p["path"] for p in info["params"]][
            :SLICE_PARAMS
        ]
        sections.append(("figure", f"Slices: {objs[0]['column']}", fig_slices(df, objs[0], params, info)))
        ranked = [p for p in imp0 if p in df.columns] + [p["path"] for p in info["params"]]
        pairs = contour_pairs(df, list(dict.fromkeys(ranked)))
        if pairs:
            sections.append(
                ("figure", f"Contours: {objs[0]['column']}", fig_contours(df, objs[0], pairs, info))
            )
        if len(objs) >= 2:
            front = {t.number for t in study.best_trials}
            sections.append(("figure", "Pareto front", fig_pareto(df, objs, front)))
    if final is not None and len(final):
        labels = list(dict.fromkeys(final["config"]))
        best = [x for x in info.get("finalists", [])][:1]
        # paired: a final row is a margin of two runs, so there is no one CDF to draw
        shown = [] if info.get("paired") else best + [x for x in labels if x.startswith("baseline")]
        gs = cdf_groups(d, final, shown)
        if gs:
            sections.append(("figure", "Response-time CDF: best vs baselines", fig_cdf(gs, xmax)))
    title = f"Tuning report: {_shown_path(info.get('scenario'), d.name)}"
    cons = "; ".join(info["constraints"]) or "none"
    obj_text = ", ".join(f"{o['direction']} {o['column']}" for o in objs)
    intro = (
        f"{len(df)} trials ({len(done)} complete, {len(failed)} failed), sampler {info['sampler']} "
        f"(seed {info['seed']}, batches of {info['batch']}); objectives: {obj_text}; constraints: {cons}; "
        f"{info['replications']} replication(s) per trial with common seeds; tuned: "
        f"{_tuned(info)}; command: aqmlab tune "
        f"{_shown_path(info.get('scenario'), '')} --out DIR --trials {info['trials']} --seed {info['seed']}."
    )
    return write_sections(d, title, intro, sections)
