"""`aqmlab report SWEEP_DIR`: the report of a sweep, as DIR/report.html (self-contained: figures
embedded as base64 PNGs) and DIR/report.md (figures beside it in DIR/report/).

A configuration is one variant at one point of the sweep (all axes fixed); its replications are
pooled into means with 95 % Student-t intervals (aqmlab.reports.stats). Contents:
- the summary table in seed 000's format (aqmlab.reports.run_report.COLUMNS), "mean ± half width" per cell;
- response-time CDFs (mean of the replications' empirical CDFs with the pointwise band, drawn
  from `MIN_BAND_N` replications on) and CCDFs (log-log), per configuration, with short legend
  labels (`target=2ms`); with more than `MAX_FIG_GROUPS` configurations and a load
  axis, these are drawn once per load value and the two figures below at the highest load only;
- the crossover points of the CDFs of each pair of configurations (up to 8), only where the
  replications' 95 % bands separate on both sides (aqmlab.reports.stats.band_crossovers; the report
  states the definition), with the number of raw sign changes beside them;
- queue length over time at the forward bottleneck (100 ms means, the first replication);
- median response time by response size (pooled replications);
- with a load axis (`[sweep] load_axis`, or a swept workload rate/users/flows): utilization and
  drop rate against load, one line per configuration of the other axes, with CI error bars.

Only runs with status "ok" count; failed runs are listed with their error. A configuration is
one distinct resolved scenario up to the seed: the sweep table leaves an axis empty in the runs it
does not apply to (another variant's key, a key the variant hides), so a variant that no axis
touches is one configuration, listed once, whatever the number of points. Labels name the variant
and, of the axes that apply to it, those not determined by the axes before them (the load axis
first), so a derived value (`[sweep.derive]`, e.g. a rate computed from the load) does not clutter
them, and the lines against load join the points of one variant across loads.

Validation: python/tests/test_sweep_report.py.
"""

from __future__ import annotations

import html
import io
import itertools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.reports.page_text import html_figure, html_page, html_table, md_table, write_atomic
from aqmlab.reports.run_report import COLUMNS, fmt_value
from aqmlab.reports.stats import band_crossovers, cdf_band, crossovers, rt_by_size, summary_ci
from aqmlab.reports.summary_table import steady_cell
from aqmlab.storage.run_dir import read_info, read_summary, read_table, warmup_ns_of
from aqmlab.sweeps.run import RUNS, load_sweep

FWD_LINK = "bottleneck_fwd"
MAX_PAIRS_GROUPS = 8
#: Above this many configurations, per-configuration figures are split by load value.
MAX_FIG_GROUPS = 8


@dataclass
class Group:
    """One configuration: its label, axis values and the run directories of its replications."""

    label: str
    key: tuple
    dirs: list[Path]
    samples: list[np.ndarray] = field(default_factory=list)


def _fmt_axis(v) -> str:
    return fmt_value(v) if isinstance(v, float) else str(v)


def config_columns(df: pd.DataFrame) -> list[str]:
    axes = df.attrs.get("sweep", {}).get("axes", [])
    return ["variant", *axes]


def label_axes(df: pd.DataFrame) -> list[str]:
    """The axes that labels name, in axis order: each axis (the load axis considered first)
    unless its value is fixed by the variant and the axes kept before it (a derived value)."""
    axes = df.attrs.get("sweep", {}).get("axes", [])
    load = df.attrs.get("sweep", {}).get("load_axis")
    order = ([load] if load in axes else []) + [a for a in axes if a != load]
    kept = ["variant"]
    for a in order:
        if a not in df.columns or df.groupby(kept, dropna=False)[a].nunique(dropna=False).max() > 1:
            kept.append(a)
    return [a for a in axes if a in kept]


def _missing(v) -> bool:
    """An axis value that is absent: the axis does not apply to the run (aqmlab.sweeps.run)."""
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _label(cols: list[str], key: tuple, multi_variant: bool, named: list[str] | None = None) -> str:
    """The variant (when there are several) and the named axes that apply to the configuration."""
    parts = [str(key[0])] if multi_variant or len(cols) == 1 else []
    parts += [
        f"{c}={_fmt_axis(v)}"
        for c, v in zip(cols[1:], key[1:], strict=True)
        if (named is None or c in named) and not _missing(v)
    ]
    return ", ".join(parts) or str(key[0])


def groups(df: pd.DataFrame, sweep_dir: Path, drop: str | None = None) -> list[Group]:
    """One Group per configuration of the finished runs; labels leave out derived axes and
    `drop` (an axis a figure's title already gives)."""
    ok = df[df["status"] == "ok"]
    cols = config_columns(df)
    multi = df["variant"].nunique() > 1
    named = [a for a in label_axes(df) if a != drop]
    out = []
    for key, g in ok.groupby(cols, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        dirs = [sweep_dir / RUNS / rid for rid in g.sort_values("replication")["run"]]
        out.append(Group(_label(cols, key, multi, named), key, dirs))
    return out


def readable_runs(df: pd.DataFrame, sweep_dir: Path) -> dict[Path, np.ndarray]:
    """The response times (s, sorted) of each finished run, by directory. A finished run whose
    files cannot be read (a corrupt summary.json, requests.parquet missing: aqmlab.reports.run_report
    `open_run`) becomes status "unreadable" in `df` with the reason as its error (listed with
    the runs not finished) and is named on stderr; the others are reported."""
    import sys

    from aqmlab.reports.run_report import BadRun, open_run, run_cdf

    out: dict[Path, np.ndarray] = {}
    for i in df.index[df["status"] == "ok"]:
        p = sweep_dir / RUNS / df.at[i, "run"]
        try:
            out[p] = run_cdf(open_run(p))[0]
        except BadRun as e:
            df.loc[i, ["status", "error"]] = ["unreadable", str(e)]
            print(f"note: skipped {e}", file=sys.stderr)
    return out


def ci_table(df: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the summary table with CIs (seed 000's columns), and whether each
    configuration's runs reached a steady state (docs/summary.md)."""
    ok = df[df["status"] == "ok"]
    cols = config_columns(df)
    keys = [k for _, k in COLUMNS]
    t = summary_ci(ok, cols, keys)

    def steady_of(values: tuple) -> str:
        if "steady_state" not in ok.columns:
            return "-"
        mask = np.ones(len(ok), dtype=bool)
        for c, v in zip(cols, values, strict=True):
            same = ok[c].isna() if pd.isna(v) else (ok[c] == v).fillna(False)
            mask &= same.to_numpy(dtype=bool)
        return steady_cell(ok.loc[mask, "steady_state"])

    multi = df["variant"].nunique() > 1
    header = ["configuration", "n", *[h for h, _ in COLUMNS], "steady"]
    named = label_axes(df)
    rows = []
    for _, r in t.iterrows():
        label = _label(cols, tuple(r[c] for c in cols), multi, named)
        cells = [label, str(int(r["n"]))]
        for k in keys:
            m, h = r[k], r[f"{k}_ci"]
            cells.append(fmt_value(m) if h is None or math.isnan(h) else f"{fmt_value(m)} ± {fmt_value(h)}")
        cells.append(steady_of(tuple(r[c] for c in cols)))
        rows.append(cells)
    return header, rows


def _fig():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    return plt, fig, ax


def _png(plt, fig) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


#: Fewest replications for a 95 % band: with 2 the t quantile is 12.7 and the band covers
#: most of the figure, hiding the curves; below this only the mean is drawn.
MIN_BAND_N = 3
#: Opacity of a band (thin, so that overlapping bands leave the lines visible).
BAND_ALPHA = 0.15


def short_label(label: str, keep_variant: bool = False) -> str:
    """A configuration label for a legend: each `key.path=value` as its last key
    (`variant[codel].queue.target=2ms` → `target=2ms`), and the variant left out when an axis
    names it (`variant[codel]. …`) unless `keep_variant`."""
    parts = label.split(", ")
    axes = [p for p in parts if "=" in p]
    named = [p for p in parts if "=" not in p]
    variant_named = any(a.startswith(f"variant[{v}].") for a in axes for v in named)
    short = [a.split("=", 1)[0].rsplit(".", 1)[-1] + "=" + a.split("=", 1)[1] for a in axes]
    drop = variant_named and short and not keep_variant
    return ", ".join(([] if drop else named) + short) or label


def legend_labels(gs: list[Group]) -> list[str]:
    """The legend labels of `gs`: the shortest of `short_label`, `short_label` with the
    variant, and the full label that keeps them distinct; the replication count `(n=…)` only
    when it differs between configurations (the figure's title gives it otherwise)."""
    labels = [g.label for g in gs]
    for keep in (False, True):
        short = [short_label(g.label, keep) for g in gs]
        if len(set(short)) == len(short):
            labels = short
            break
    if len({len(g.samples) for g in gs}) > 1:
        labels = [f"{lab} (n={len(g.samples)})" for lab, g in zip(labels, gs, strict=True)]
    return labels


def _n_text(gs: list[Group]) -> str:
    """ "n = 2 each, lines only" etc.: the replications behind the figure's curves."""
    ns = sorted({len(g.samples) for g in gs})
    n = f"n = {ns[0]} each" if len(ns) == 1 else f"n = {ns[0]}-{ns[-1]}"
    if ns[-1] < MIN_BAND_N:
        return f"{n}, mean only"
    return f"{n}, 95 % band" + ("" if ns[0] >= MIN_BAND_N else f" where n ≥ {MIN_BAND_N}")


def draw_cdf(ax, gs: list[Group], xmax: float) -> None:
    """The mean CDF of each configuration, with its 95 % band when it has `MIN_BAND_N`
    replications or more."""
    x = np.linspace(0.0, xmax, 801)
    for g, label in zip(gs, legend_labels(gs), strict=True):
        mean, lo, hi = cdf_band(g.samples, x)
        (line,) = ax.plot(x, mean, drawstyle="steps-post", label=label, linewidth=1.2)
        if len(g.samples) >= MIN_BAND_N:
            ax.fill_between(x, lo, hi, step="post", alpha=BAND_ALPHA, color=line.get_color(), linewidth=0)
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1)
    ax.set_xlabel("response time (s)")
    ax.set_ylabel("cumulative fraction of responses")
    ax.set_title(f"Response-time CDF: mean of replications ({_n_text(gs)})")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=7)


def fig_cdf(gs: list[Group], xmax: float) -> bytes:
    plt, fig, ax = _fig()
    draw_cdf(ax, gs, xmax)
    return _png(plt, fig)


def draw_ccdf(ax, gs: list[Group]) -> None:
    """As `draw_cdf`, 1 − CDF on log-log axes."""
    top = max((float(s.max()) for g in gs for s in g.samples if len(s)), default=1.0)
    x = np.logspace(-2, math.log10(max(top, 0.02)), 400)
    for g, label in zip(gs, legend_labels(gs), strict=True):
        mean, lo, hi = cdf_band(g.samples, x)
        (line,) = ax.plot(x, 1.0 - mean, label=label, linewidth=1.2)
        if len(g.samples) >= MIN_BAND_N:
            ax.fill_between(x, 1.0 - hi, 1.0 - lo, alpha=BAND_ALPHA, color=line.get_color(), linewidth=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("response time (s)")
    ax.set_ylabel("fraction of responses slower (1 − CDF)")
    ax.set_title(f"Response-time CCDF: mean of replications ({_n_text(gs)})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower left", fontsize=7)


def fig_ccdf(gs: list[Group]) -> bytes:
    plt, fig, ax = _fig()
    draw_ccdf(ax, gs)
    return _png(plt, fig)


def fig_queue(gs: list[Group]) -> bytes:
    plt, fig, ax = _fig()
    for g, label in zip(gs, legend_labels(gs), strict=True):
        q = read_table(g.dirs[0], "queue", ["link", "t_ns", "mean_qlen"])
        q = q[q["link"] == FWD_LINK]
        ax.plot(q["t_ns"].to_numpy() / 1e9, q["mean_qlen"].to_numpy(), linewidth=0.7, label=label)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("queue length (packets, 100 ms mean)")
    ax.set_title("Forward bottleneck queue over time (first replication)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=7)
    return _png(plt, fig)


def fig_rt_by_size(gs: list[Group]) -> bytes:
    plt, fig, ax = _fig()
    for g, label in zip(gs, legend_labels(gs), strict=True):
        pooled = []
        for d in g.dirs:
            warm = warmup_ns_of(read_info(d), read_summary(d))
            r = read_table(d, "requests", ["kind", "start_ns", "end_ns", "completed", "response_bytes"])
            pooled.append(r[r["start_ns"] >= warm])
        b = rt_by_size(pd.concat(pooled), 0)  # medians over the pooled responses of each bin
        if b.empty:
            continue
        mid = np.sqrt(np.maximum(b["lo_bytes"], 500.0) * np.minimum(b["hi_bytes"], 2e6))
        ax.plot(mid, b["median_rt_s"], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("response size (bytes, bin centre)")
    ax.set_ylabel("median response time (s)")
    ax.set_title("Response time by response size (pooled replications)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=7)
    return _png(plt, fig)


def fig_vs_load(df: pd.DataFrame, load_axis: str, column: str, ylabel: str) -> bytes:
    ok = df[(df["status"] == "ok") & df[load_axis].notna()]  # not: runs the load does not apply to
    # One line per variant and non-derived axis other than the load (derived values such as a
    # rate computed from the load change along the line).
    cols = ["variant", *[a for a in label_axes(df) if a != load_axis]]
    t = summary_ci(ok, [*cols, load_axis], [column])
    plt, fig, ax = _fig()
    multi = df["variant"].nunique() > 1
    for key, g in t.groupby(cols, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values(load_axis)
        err = g[f"{column}_ci"].fillna(0.0).to_numpy()
        ax.errorbar(g[load_axis], g[column], yerr=err, marker="o", capsize=3, label=_label(cols, key, multi))
    ax.set_xlabel(load_axis)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{ylabel} vs {load_axis} (mean, 95 % CI)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return _png(plt, fig)


#: Columns of the crossover table.
CROSSOVER_HEADER = [
    "A", "B", "crossings where the 95 % bands separate (s)", "sign changes of the pooled CDFs",
]  # fmt: skip
#: The report's definition of the crossover table (also in docs/commands.md).
CROSSOVER_NOTE = (
    "A crossing is listed only where the replications' bands separate on both sides: the 95 % "
    "pointwise bands of the two CDFs (Student t over the replications' CDFs, as in the figure) do "
    "not overlap just before it, with one configuration above, nor just after it, with the other "
    "above. Each is given as x [lo, hi]: the mean CDFs cross at x (after the last point where the "
    "first was above); at lo the first's band is wholly above the other's, at hi wholly below; "
    "between them the bands overlap. Sign changes of the mean CDFs where the bands overlap are "
    "noise at this number of replications; the last column counts all sign changes of the pooled "
    "CDFs. With one replication there are no bands and no crossing is claimed."
)


def _crossing_text(c, a: str, b: str) -> str:
    first, then = (a, b) if c.before > 0 else (b, a)
    return f"{c.x:.3f} [{c.lo:.3f}, {c.hi:.3f}]: {first} above, then {then}"


def crossover_rows(gs: list[Group]) -> list[list[str]]:
    """One row per pair of configurations (none above MAX_PAIRS_GROUPS): the crossings where the
    bands separate (stats.band_crossovers) and the number of raw sign changes."""
    if len(gs) > MAX_PAIRS_GROUPS:
        return []
    rows = []
    for a, b in itertools.combinations(gs, 2):
        cs = band_crossovers(a.samples, b.samples)
        if cs is None:
            cell = "no bands (one replication)"
        else:
            cell = "; ".join(_crossing_text(c, "A", "B") for c in cs) or "none"
        raw = len(crossovers(np.concatenate(a.samples), np.concatenate(b.samples)))
        rows.append([a.label, b.label, cell, str(raw)])
    return rows


#: The repository checkout this module belongs to (scenario paths inside it are shown relative).
_REPO = Path(__file__).resolve().parents[3]


def _shown_path(scenario: str | None, fallback: str) -> str:
    """A sweep's scenario as a report shows it: relative to the repository when inside it,
    else its file name — never the absolute path of the machine that ran it."""
    if not scenario:
        return fallback
    p = Path(scenario)
    try:
        return p.resolve().relative_to(_REPO).as_posix()
    except ValueError:
        return p.name


#: Said in place of the response-time figures when no run of the sweep timed a response.
NO_RESPONSES_NOTE = "No run of this sweep timed an HTTP response (long flows only): no response-time figures."


def write_sweep_report(sweep_dir: str | os.PathLike, xmax: float = 2.0) -> tuple[Path, Path]:
    """Write `report.html` and `report.md` (+ `report/*.png`) into `sweep_dir`; returns the two
    paths. Raises FileNotFoundError for a directory that is not a sweep or has no finished run."""
    d = Path(sweep_dir)
    df = load_sweep(d)
    info = df.attrs["sweep"]
    samples = readable_runs(df, d)
    gs = groups(df, d)
    if not gs:
        raise FileNotFoundError(f"{d}: no finished run in the sweep (nothing to report)")
    for g in gs:
        g.samples = [samples[x] for x in g.dirs]

    sections: list[tuple] = []  # ("table", name, header, rows), ("figure", name, png), ("text", text)
    header, rows = ci_table(df)
    sections.append(("table", "Summary (seed 000's columns; mean ± 95 % CI over replications)", header, rows))
    failed = df[df["status"] != "ok"]
    if len(failed):
        frows = [
            [r["run"], str(r["variant"]), r["status"], str(r["error"] or "")] for _, r in failed.iterrows()
        ]
        sections.append(("table", "Runs not finished", ["run", "variant", "status", "error"], frows))
    load_axis = info.get("load_axis")
    cols = config_columns(df)
    split = (
        len(gs) > MAX_FIG_GROUPS
        and load_axis in cols
        and df.loc[df["status"] == "ok", load_axis].nunique() > 1
    )
    if not split:
        sets = [("", gs)]
    else:
        # One set of figures per load value, labels without the load.
        li = cols.index(load_axis)

        # keys hold NaN/NA where an axis does not apply: compare them as None (NaN != NaN)
        def norm(key: tuple) -> tuple:
            return tuple(None if _missing(k) else k for k in key)

        by_key = {norm(g.key): g for g in gs}
        sets = []
        # A configuration the load axis does not apply to is the same at every load: in each set.
        for v in sorted({g.key[li] for g in gs if not _missing(g.key[li])}):
            sub = [g for g in groups(df, d, drop=load_axis) if _missing(g.key[li]) or g.key[li] == v]
            for g in sub:
                g.samples = by_key[norm(g.key)].samples
            sets.append((f" at {load_axis} = {_fmt_axis(v)}", sub))
    # Runs of long flows alone (bulk workloads) time no response: no response-time figures.
    has_rt = any(len(s) for g in gs for s in g.samples)
    if not has_rt:
        sections.append(("text", NO_RESPONSES_NOTE))
    for i, (suffix, gset) in enumerate(sets):
        if has_rt:
            sections.append(("figure", f"Response-time CDF{suffix}", fig_cdf(gset, xmax)))
            sections.append(("figure", f"Response-time CCDF{suffix}", fig_ccdf(gset)))
            cross = crossover_rows(gset)
            if cross:
                sections.append(("table", f"CDF crossover points (s){suffix}", CROSSOVER_HEADER, cross))
                sections.append(("text", CROSSOVER_NOTE))
        # Split by load: the queue and size figures at the highest load only (they vary least
        # in kind between loads, and the report stays readable).
        if i == len(sets) - 1:
            sections.append(("figure", f"Queue length over time{suffix}", fig_queue(gset)))
            if has_rt:
                sections.append(("figure", f"Response time by response size{suffix}", fig_rt_by_size(gset)))
    if load_axis and load_axis in df.columns and pd.api.types.is_numeric_dtype(df[load_axis]):
        sections.append(
            ("figure", "Utilization vs load", fig_vs_load(df, load_axis, "utilization", "utilization"))
        )
        sections.append(("figure", "Loss vs load", fig_vs_load(df, load_axis, "drops_pct", "drops (%)")))

    title = f"Sweep report: {_shown_path(info.get('scenario'), d.name)}"
    n_ok = int((df["status"] == "ok").sum())
    axes = ", ".join(info.get("axes", [])) or "none"
    intro = (
        f"{len(df)} runs ({n_ok} finished), {len(gs)} configurations, "
        f"{info.get('replications', 1)} replication(s) each; axes: {axes}."
    )
    return write_sections(d, title, intro, sections)


def write_sections(d: Path, title: str, intro: str, sections: list[tuple]) -> tuple[Path, Path]:
    """Write `d/report.html` (self-contained) and `d/report.md` (figures in `d/report/`) from
    `sections`: ("table", name, header, rows), ("figure", name, png bytes) or ("text", text)."""
    fig_dir = d / "report"
    fig_dir.mkdir(exist_ok=True)
    md = [f"# {title}", "", intro, ""]
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(intro)}</p>"]
    n_fig = 0
    for s in sections:
        if s[0] == "text":
            md += [s[1], ""]
            body += [f"<p>{html.escape(s[1])}</p>"]
        elif s[0] == "table":
            _, name, h, r = s
            md += [f"## {name}", "", md_table(h, r), ""]
            body += [f"<h2>{html.escape(name)}</h2>", html_table(h, r)]
        else:
            _, name, png = s
            n_fig += 1
            fname = f"fig{n_fig}.png"
            write_atomic(fig_dir / fname, png)
            md += [f"## {name}", "", f"![{name}](report/{fname})", ""]
            body += html_figure(name, png)
    page = html_page(title, body)
    html_path, md_path = d / "report.html", d / "report.md"
    write_atomic(html_path, page.encode("utf-8"))
    write_atomic(md_path, ("\n".join(md) + "\n").encode("utf-8"))
    return html_path, md_path
