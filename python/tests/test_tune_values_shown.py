"""Tuned values as a reader sees them (issue 30, item 7): a searched duration (written in whole
µs, "32650us") is a numeric slice axis in ms, in increasing numeric order (not sorted as text:
11663us < 12306us < 32650us < 3335us), with "(ms)" in the axis label and tick labels that do
not overlap; the tables print it as "32.65 ms"; the console line of each finalist names its
values."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

import aqmlab
from aqmlab.tuning.param_values import fmt_param, numeric_column
from aqmlab.tuning.report import draw_slice

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# Text order of these is 11663us, 12306us, 32650us, 3335us, 480us, 9000us.
TARGETS = ["32650us", "3335us", "11663us", "480us", "12306us", "9000us"]
MS = [32.65, 3.335, 11.663, 0.48, 12.306, 9.0]


def _trials() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "number": range(len(TARGETS)),
            "state": ["COMPLETE"] * len(TARGETS),
            "median_rt_ms": [300.0, 280.0, 260.0, 320.0, 250.0, 270.0],
            "variant[codel].queue.target": TARGETS,
            "kind": ["red", "pie", "red", "codel", "pie", "red"],
        }
    )


def test_fmt_param_shows_durations_in_ms_and_numbers_to_four_digits():
    assert [fmt_param(v) for v in ["12306us", "480us", 0.002, 0.123456, 7, "red", None, float("nan")]] == [
        "12.31 ms", "0.48 ms", "0.002", "0.1235", "7", "red", "", "",
    ]  # fmt: skip
    assert numeric_column(pd.Series(TARGETS)).tolist() == MS


@pytest.mark.parametrize("log", [False, True])
def test_a_duration_slice_axis_is_numeric_in_ms_with_separate_tick_labels(log):
    df = _trials()
    fig, ax = plt.subplots(figsize=(3.2, 3.2), dpi=110)
    draw_slice(ax, df, "variant[codel].queue.target", "median_rt_ms", log)
    xs = ax.collections[0].get_offsets()[:, 0].tolist()
    assert xs == pytest.approx(MS)  # each point at its value in ms, whatever the text order
    assert ax.get_xscale() == ("log" if log else "linear")
    assert ax.get_xlabel() == "variant[codel].queue.target (ms)"
    lo, hi = ax.get_xlim()
    assert lo <= 0.48 and hi >= 32.65
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [
        t.get_window_extent(r)
        for tick, t in zip(ax.xaxis.get_major_ticks(), ax.get_xticklabels(), strict=True)
        if lo <= tick.get_loc() <= hi and t.get_text()
    ]
    assert len(boxes) >= 2
    assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:], strict=False)), [(b.x0, b.x1) for b in boxes]
    plt.close(fig)


def test_a_choice_slice_axis_has_one_column_per_value():
    fig, ax = plt.subplots()
    draw_slice(ax, _trials(), "kind", "median_rt_ms", False)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["codel", "pie", "red"]
    assert ax.collections[0].get_offsets()[:, 0].tolist() == [2, 1, 2, 0, 1, 2]
    assert ax.get_xlabel() == "kind"
    plt.close(fig)


SYNTH = """
[tune]
variant = "red"
objectives = ["min median_rt_ms"]
trials = 8
replications = 1
final_replications = 2
finalists = 1
batch = 4

[tune.params]
"var.x" = { float = [-10, 10] }
"var.t" = { duration = ["1ms", "50ms"] }
"""


def _bowl(values: dict, seed: int) -> dict:
    x = values.get("var.x", 0.0)
    t = float(values.get("var.t", "0us")[:-2]) / 1000
    return {"median_rt_ms": (x - 3) ** 2 + (t - 20) ** 2 + seed, "utilization": 0.5}


def test_the_report_table_and_the_console_show_the_values_in_ms(tmp_path, capsys):
    from aqmlab.tuning.search import print_summary

    text = (ROOT / "scenarios" / "quickstart_tune.toml").read_text(encoding="utf-8")
    f = tmp_path / "synth.toml"
    f.write_text(text[: text.index("[tune]")] + SYNTH, encoding="utf-8")
    out = tmp_path / "out"
    df = aqmlab.tune(f, out, evaluate=_bowl, report=True)
    best = df.attrs["final"]["config"].iloc[0]
    row = df[df["number"] == int(best.removeprefix("trial "))].iloc[0]
    assert re.fullmatch(r"\d+us", row["var.t"])
    ms = int(row["var.t"][:-2]) / 1000
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"| {ms:.4g} ms |" in md and "us |" not in md
    print_summary(df, out)
    lines = capsys.readouterr().out.splitlines()
    line = next(ln for ln in lines if ln.startswith(f"  {best} "))
    assert line.endswith(f"var.x = {row['var.x']:.4g}, var.t = {ms:.4g} ms")
    base = next(ln for ln in lines if ln.startswith("  baseline"))
    assert "var." not in base
