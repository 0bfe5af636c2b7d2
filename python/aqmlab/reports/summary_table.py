"""The run summaries side by side as a text table, in the format of seed 000's tables (Tables
4.2/4.4: KB/s, % drops, % unforced, % forced, mean queue, median response time and the shares
of responses in [0,1], (1,2], (2,3], (3,∞) s), plus the share of drops the AQM made, the share
of responses completed and the 90th/99th percentiles; under the table, a note for every run
that did not settle or left responses unfinished (docs/summary.md). Plain Python: `aqmlab run`
prints it without loading numpy or pandas."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

# (header, summary key) in seed 000's column order.
COLUMNS: list[tuple[str, str]] = [
    ("KB/s", "kb_per_s"),
    ("% drops", "drops_pct"),
    ("% AQM", "aqm_drops_pct"),
    ("% unforced", "unforced_pct"),
    ("% forced", "forced_pct"),
    ("mean qlen", "mean_qlen"),
    ("% done", "pct_completed"),
    ("median rt (ms)", "median_rt_ms"),
    ("≤1s", "pct_le_1s"),
    ("1-2s", "pct_1_2s"),
    ("2-3s", "pct_2_3s"),
    (">3s", "pct_gt_3s"),
    ("p90 (ms)", "p90_rt_ms"),
    ("p99 (ms)", "p99_rt_ms"),
]

#: Below this share of completed responses (%) a run gets a note under the table.
NOTE_BELOW_COMPLETED_PCT = 99.0


def fmt_value(v: float | int | None) -> str:
    """Three significant digits as in seed 000's tables (1142, 11.2, 9.56, 0.40), integers in
    full from 100 up; "-" for a missing value (e.g. the median of no responses, seed 000's
    forced share of a CoDel queue); "∞" for a quantile that falls on unfinished responses."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def run_notes(label: str, s: dict) -> list[str]:
    """The warnings of one run's summary: not in steady state, responses left unfinished."""
    notes = []
    if s.get("steady_state") is False:
        notes.append(
            f"! {label}: not in steady state: responses in progress "
            f"{s.get('in_progress_first_tenth', 0):,} → {s.get('in_progress_last_tenth', 0):,} and "
            f"forced drops {s.get('forced_drops_first_tenth', 0):,} → "
            f"{s.get('forced_drops_last_tenth', 0):,} from the first to the last tenth of the "
            "measured window, growing through it: its figures describe a transient"
        )
    done = s.get("pct_completed")
    if isinstance(done, float | int) and not math.isnan(done) and done < NOTE_BELOW_COMPLETED_PCT:
        unfinished = (s.get("responses_started") or 0) - (s.get("responses_completed") or 0)
        notes.append(
            f"! {label}: {unfinished:,} of {s.get('responses_started', 0):,} responses "
            f"({100 - done:.1f} %) did not finish; the response-time columns count them as slower "
            "than any bound"
        )
    return notes


def steady_cell(flags: Iterable) -> str:
    """The "steady" cell of one configuration from its replications' `steady_state` (bool, or
    1.0/0.0 in a sweep table; None/NaN not judged): "yes", "no (k/n)" with k of the n judged
    replications not in steady state, or "-" where none was judged."""
    judged = [bool(v) for v in flags if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not judged:
        return "-"
    bad = judged.count(False)
    return "yes" if bad == 0 else f"no ({bad}/{len(judged)})"


def summary_table(summaries: Sequence[tuple[str, dict]]) -> str:
    """One row per run (label, summary dict), seed 000's columns; a text table, with the runs'
    notes and the meaning of "∞" under it when they apply."""
    header = ["run"] + [h for h, _ in COLUMNS]
    rows = [[label] + [fmt_value(s.get(key)) for _, key in COLUMNS] for label, s in summaries]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [line(header), rule, *(line(r) for r in rows)]
    notes = [n for label, s in summaries for n in run_notes(label, s)]
    if any("∞" in c for r in rows for c in r):
        notes.append("∞: the quantile falls on responses that had not finished when the run ended")
    return "\n".join(out + notes)
