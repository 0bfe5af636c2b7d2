"""The run summaries side by side as a text table, in the format of seed 000's tables (Tables
4.2/4.4: KB/s, % drops, % unforced, % forced, mean queue, median response time and the shares
of responses in [0,1], (1,2], (2,3], (3,∞) s), plus the 90th/99th percentiles. Plain Python:
`aqmlab run` prints it without loading numpy or pandas."""

from __future__ import annotations

import math
from collections.abc import Sequence

# (header, summary key) in seed 000's column order.
COLUMNS: list[tuple[str, str]] = [
    ("KB/s", "kb_per_s"),
    ("% drops", "drops_pct"),
    ("% unforced", "unforced_pct"),
    ("% forced", "forced_pct"),
    ("mean qlen", "mean_qlen"),
    ("median rt (ms)", "median_rt_ms"),
    ("≤1s", "pct_le_1s"),
    ("1-2s", "pct_1_2s"),
    ("2-3s", "pct_2_3s"),
    (">3s", "pct_gt_3s"),
    ("p90 (ms)", "p90_rt_ms"),
    ("p99 (ms)", "p99_rt_ms"),
]


def fmt_value(v: float | int | None) -> str:
    """Three significant digits as in seed 000's tables (1142, 11.2, 9.56, 0.40), integers in
    full from 100 up; "-" for a missing value (e.g. the median of no responses)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def summary_table(summaries: Sequence[tuple[str, dict]]) -> str:
    """One row per run (label, summary dict), seed 000's columns; a text table."""
    header = ["run"] + [h for h, _ in COLUMNS]
    rows = [[label] + [fmt_value(s.get(key)) for _, key in COLUMNS] for label, s in summaries]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])
