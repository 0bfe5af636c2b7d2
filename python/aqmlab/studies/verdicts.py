"""A study's verdicts evaluated on any results dict, and the report's verdict table (issue 34;
docs/verdicts.md).

The same rule (aqmlab.studies.Verdict.check, built from aqmlab.studies.compare) runs on three
results dicts of one shape (table id → DataFrame with `row`, `<metric>`, `<metric>_ci`,
`<metric>_n`): aqmlab's (aqmlab.studies.paper_tables.table_results), ns-2.35's (the same grid run in
ns-2.35), and the paper's own numbers (`paper_results`: paper.csv, means only, no interval).

The verdict table has the columns `claim`, `aqmlab`, `ns-2.35`, `paper`, `cause`, `evidence`.
`cause` is filled for a conclusion that aqmlab does not show to hold, the first that applies of:
ns-2.35 fails it too on the stated setup (or at its nearest setting, when the stated one is not in
ns-2.35 and the grid ran with `--ns2-nearest`); the paper's own numbers fail it; within noise;
the study's documented cause (Study.causes); else "open: no cause traced".
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from aqmlab.studies import Reading, Study
from aqmlab.studies.compare import Check, Outcome

NS2_FAILS = "ns-2.35 fails it too on the stated setup"
#: Prefix of an ns-2.35 verdict's evidence when it rests on points run at ns-2.35's nearest
#: setting (`aqmlab reproduce STUDY --ns2 --ns2-nearest`; aqmlab.ns2grid.grid.explain).
NEAREST_MARK = "at ns-2.35's nearest setting"
NS2_FAILS_NEAREST = "ns-2.35 fails it too at its nearest setting (the stated one is not in ns-2.35)"
PAPER_FAILS = "the paper's own numbers fail it"
WITHIN_NOISE = "within noise"
OPEN = "open: no cause traced"
#: Cell texts for a result dict that was not given (ns-2.35) or has no numbers (paper).
NOT_RUN, NO_NUMBERS = "not run", "no numbers"
#: The ns-2.35 cell of a verdict whose rows ns-2.35 cannot run (the grid refused their setting,
#: aqmlab.ns2grid: e.g. PISA, which ns-2.35 does not have); the note under the table says why.
NOT_IN_NS2 = "not in ns-2.35"
HEADER = ("claim", "aqmlab", "ns-2.35", "paper", "cause", "evidence")


@dataclass(frozen=True)
class VerdictResult:
    """One verdict as evaluated on one results dict: `outcome` and `evidence` (the intervals it
    rests on, or why it was not evaluated)."""

    id: str
    claim: str
    outcome: Outcome
    evidence: str


def evaluate(study: Study, results: dict[str, pd.DataFrame]) -> list[VerdictResult]:
    """Every verdict of `study` on `results`; a check that raises (a table, row or metric that
    the results lack) is `not evaluated` with the reason."""
    out = []
    for v in study.verdicts:
        try:
            c = v.check(results)
            if not isinstance(c, Check):
                raise TypeError(f"check returned {type(c).__name__}, not a Check")
            out.append(VerdictResult(v.id, v.claim, c.outcome, c.evidence))
        except Exception as e:  # noqa: BLE001 - a check on missing rows is reported, not raised
            out.append(VerdictResult(v.id, v.claim, Outcome.NOT_EVALUATED, f"{type(e).__name__}: {e}"))
    return out


def paper_results(paper: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The paper's numbers (aqmlab.studies.paper_tables.read_paper's table, row, metric, value) as a
    results dict: per table, one row per paper row with one column per metric (no `_ci`, no
    `n`: the paper gives no interval)."""
    out = {}
    for t, g in paper.groupby("table", sort=False):
        wide = g.pivot_table(index="row", columns="metric", values="value", sort=False, aggfunc="first")
        out[str(t)] = wide.reset_index().rename_axis(None, axis=1)
    return out


def cause(
    aqmlab: VerdictResult, ns2: VerdictResult | None, paper: VerdictResult, documented: str | None
) -> str:
    """The `cause` cell (module doc); empty when aqmlab shows the verdict to hold or could not
    evaluate it (its evidence gives the reason)."""
    if aqmlab.outcome in (Outcome.HOLDS, Outcome.NOT_EVALUATED):
        return ""
    if ns2 is not None and ns2.outcome == Outcome.FAILS:
        return NS2_FAILS_NEAREST if ns2.evidence.startswith(NEAREST_MARK) else NS2_FAILS
    if paper.outcome == Outcome.FAILS:
        return PAPER_FAILS
    if aqmlab.outcome == Outcome.NOISE:
        return WITHIN_NOISE
    return documented or OPEN


@dataclass(frozen=True)
class VerdictRow:
    """One line of the verdict table, with the quote and the other columns' evidence for the
    notes under it."""

    id: str
    claim: str
    quote: str
    aqmlab: VerdictResult
    ns2: VerdictResult | None
    paper: VerdictResult
    cause: str

    def cells(self) -> list[str]:
        """The table's cells in HEADER order."""
        ns2 = NOT_RUN if self.ns2 is None else self.ns2.outcome.value
        if (
            self.ns2 is not None
            and self.ns2.outcome == Outcome.NOT_EVALUATED
            and ": refused: " in self.ns2.evidence
        ):
            ns2 = NOT_IN_NS2
        elif self.ns2 is not None and self.ns2.evidence.startswith(NEAREST_MARK):
            ns2 += " (nearest)"
        paper = NO_NUMBERS if self.paper.outcome == Outcome.NOT_EVALUATED else self.paper.outcome.value
        return [
            f"{self.claim} [{self.id}]",
            self.aqmlab.outcome.value,
            ns2,
            paper,
            self.cause,
            self.aqmlab.evidence,
        ]

    def notes(self) -> list[str]:
        """The lines under the table for this verdict: the quote, then the paper's and
        ns-2.35's evidence."""
        out = [f"quote: {self.quote}"]
        if self.paper.outcome == Outcome.NOT_EVALUATED:
            out.append(f"paper: no numbers ({self.paper.evidence})")
        else:
            out.append(f"paper ({self.paper.outcome.value}): {self.paper.evidence}")
        if self.ns2 is not None:
            out.append(f"ns-2.35 ({self.ns2.outcome.value}): {self.ns2.evidence}")
        return out


def verdict_table(
    study: Study,
    aqmlab: list[VerdictResult],
    paper: list[VerdictResult],
    ns2: list[VerdictResult] | None = None,
    reading: Reading | None = None,
) -> list[VerdictRow]:
    """The verdict table of `study` from the three evaluations (`ns2` None: not run), with the
    causes of `reading` (if any) over the study's."""
    causes = {**study.causes, **(reading.causes if reading is not None else {})}
    rows = []
    for i, v in enumerate(study.verdicts):
        n = ns2[i] if ns2 is not None else None
        rows.append(
            VerdictRow(
                v.id,
                v.claim,
                v.quote,
                aqmlab[i],
                n,
                paper[i],
                cause(aqmlab[i], n, paper[i], causes.get(v.id)),
            )
        )
    return rows


def tally(rows: list[VerdictRow]) -> str:
    """One line: how many verdicts hold, fail, are within noise, not evaluated (aqmlab)."""
    counts = {o: sum(r.aqmlab.outcome == o for r in rows) for o in Outcome}
    return ", ".join(f"{counts[o]} {o.value}" for o in Outcome if counts[o] or o == Outcome.HOLDS)
