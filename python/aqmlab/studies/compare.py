"""Comparisons of intervals for the studies' verdict rules (issue 34; docs/verdicts.md).

A value is an `Est`: a mean with the half-width of its 95 % Student-t interval over replications
(aqmlab.reports.stats.summary_ci). A rule compares intervals, not means, and comes out three-valued:

- `holds`: the relation holds over the whole 95 % interval of what the rule compares (e.g. A < B:
  the interval of B − A lies above 0);
- `fails`: it fails over the whole interval (B − A ≤ 0 everywhere);
- `within noise`: the interval straddles the line the rule draws.

The interval of a sum or difference of two of aqmlab's values is **paired by seed** when both
carry their per-seed values over the same seeds (≥ 2): the runs of two rows with one seed share
the workload's random draws (common random numbers), so the difference is formed seed by seed
and its 95 % Student-t interval taken over the seeds — the paired t interval, valid because
seeds are independent replications (the evidence then shows "paired over n seeds"). Otherwise
(ns-2.35's or the paper's numbers, rows with other seeds) the half-widths combine in
quadrature, √(h_A² + h_B²), as for independent means. k · A scales both; an exact number shifts
the per-seed values; the best of several values is the one with the highest mean, with its own
interval. A value without an interval (one replication, or a number of the paper) counts as a
point; the check then says so ("n=1, no interval") instead of inventing a width.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd

from aqmlab.reports.stats import Interval, t_ci
from aqmlab.reports.summary_table import fmt_value

N1 = "n=1, no interval"
NO_INTERVAL = "no interval"
#: Suffix of a results column holding a row's per-seed values ((seed, value), …) of a metric
#: (aqmlab.studies.paper_tables.table_results).
SAMPLES = "_by_seed"

Samples = tuple[tuple[int, float], ...]


def fmt(v: float) -> str:
    """Three significant digits (aqmlab.reports.summary_table.fmt_value; below 1 as 0.0140, not 0.01)."""
    if math.isfinite(v) and 0 < abs(v) < 1:
        return f"{v:.3g}"
    return fmt_value(v)


class Outcome(StrEnum):
    """The result of a verdict rule."""

    HOLDS = "holds"
    FAILS = "fails"
    NOISE = "within noise"
    NOT_EVALUATED = "not evaluated"


@dataclass(frozen=True)
class Est(Interval):
    """A mean and the half-width `half` of its 95 % interval (0: a point); `notes` say why a
    value has no interval (N1, NO_INTERVAL); `samples` the per-seed values ((seed, value), …,
    sorted by seed, ≥ 2) it was computed from, if known; `paired` the number of seeds a paired
    difference was formed over (0: not paired)."""

    mean: float
    half: float = 0.0
    notes: frozenset[str] = field(default_factory=frozenset)
    samples: Samples | None = None
    paired: int = 0

    @classmethod
    def of(
        cls, mean: float, ci: float = math.nan, n: int | None = None, samples: Samples | None = None
    ) -> Est:
        """From a mean and a 95 % CI half-width (NaN: none; then `n` = 1 says "n=1"), and the
        per-seed values if known (kept only if there are ≥ 2 and all are finite)."""
        if samples is not None and (len(samples) < 2 or not all(math.isfinite(v) for _, v in samples)):
            samples = None
        if ci is not None and math.isfinite(float(ci)):
            return cls(float(mean), abs(float(ci)), samples=samples)
        return cls(float(mean), 0.0, frozenset({N1 if n == 1 else NO_INTERVAL}))

    @classmethod
    def from_samples(cls, samples: Samples, notes: frozenset[str] = frozenset(), paired: int = 0) -> Est:
        """The mean of per-seed values and its 95 % Student-t interval over the seeds."""
        ci = t_ci(np.array([v for _, v in samples], dtype=np.float64))
        return cls(ci.mean, ci.half, notes, samples, paired)

    @classmethod
    def point(cls, v: float) -> Est:
        """A number of the rule itself (a bound, a tolerance): exact, no note."""
        return cls(float(v))

    @staticmethod
    def _lift(other: Est | float) -> Est:
        return other if isinstance(other, Est) else Est.point(other)

    @property
    def is_exact(self) -> bool:
        """A number of the rule itself: no interval, no note, no samples."""
        return self.half == 0 and not self.notes and self.samples is None

    def __add__(self, other: Est | float) -> Est:
        o = self._lift(other)
        a, b = self.samples, o.samples
        if a is not None and b is not None and [s for s, _ in a] == [s for s, _ in b]:
            both = tuple((s, x + y) for (s, x), (_, y) in zip(a, b, strict=True))
            return Est.from_samples(both, self.notes | o.notes, paired=len(both))
        if a is not None and o.is_exact:
            return Est.from_samples(tuple((s, x + o.mean) for s, x in a), self.notes, self.paired)
        if b is not None and self.is_exact:
            return o + self
        return Est(self.mean + o.mean, math.hypot(self.half, o.half), self.notes | o.notes)

    __radd__ = __add__

    def __neg__(self) -> Est:
        neg = None if self.samples is None else tuple((s, -x) for s, x in self.samples)
        return Est(-self.mean, self.half, self.notes, neg, self.paired)

    def __sub__(self, other: Est | float) -> Est:
        return self + (-self._lift(other))

    def __rsub__(self, other: float) -> Est:
        return Est.point(other) - self

    def __mul__(self, k: float) -> Est:
        scaled = None if self.samples is None else tuple((s, x * k) for s, x in self.samples)
        return Est(self.mean * k, self.half * abs(k), self.notes, scaled, self.paired)

    __rmul__ = __mul__

    def __truediv__(self, k: float) -> Est:
        return self * (1.0 / k)

    @property
    def has_interval(self) -> bool:
        return self.half > 0

    def __str__(self) -> str:
        m = fmt(self.mean)
        if not self.has_interval or math.isinf(self.mean):
            return m
        return f"{m} ± {fmt(self.half)}"


def best(values: Iterable[Est]) -> Est:
    """The value with the highest mean, with its own interval."""
    v = list(values)
    if not v:
        raise KeyError("no values to take the largest of")
    return max(v, key=lambda x: x.mean)


def lowest(values: Iterable[Est]) -> Est:
    """The value with the lowest mean, with its own interval."""
    v = list(values)
    if not v:
        raise KeyError("no values to take the smallest of")
    return min(v, key=lambda x: x.mean)


def mean_of(values: Sequence[Est]) -> Est:
    """The mean of several values (their sum's interval, divided by their number)."""
    if not values:
        raise KeyError("no values to average")
    return sum(values, Est.point(0.0)) / len(values)


@dataclass(frozen=True)
class Check:
    """One rule's (or one part of a rule's) outcome and the text of the values it rests on."""

    outcome: Outcome
    text: str
    notes: frozenset[str] = field(default_factory=frozenset)

    @property
    def evidence(self) -> str:
        """`text`, plus why some value had no interval (the rule then decided on means)."""
        if not self.notes:
            return self.text
        return f"{self.text} ({'; '.join(sorted(self.notes))}: decided on the means)"


_MARK = {Outcome.HOLDS: "", Outcome.FAILS: " ✗", Outcome.NOISE: " (within noise)"}


def _decide(what: str, a: Est, op: str, b: Est, d: Est, holds: bool, fails: bool) -> Check:
    if any(math.isnan(x) for x in (d.lo, d.hi)):
        raise ValueError(f"{what or 'values'}: {a} and {b} cannot be compared")
    out = Outcome.HOLDS if holds else Outcome.FAILS if fails else Outcome.NOISE
    label = f"{what}: " if what else ""
    pair = f" [paired over {d.paired} seeds: {d}]" if d.paired else ""
    return Check(out, f"{label}{a} {op} {b}{pair}{_MARK[out]}", a.notes | b.notes)


def le(a: Est, b: Est | float, what: str = "") -> Check:
    """Rule a ≤ b: holds if b − a ≥ 0 over the whole interval, fails if b − a < 0 over it."""
    b = a._lift(b)
    d = b - a
    return _decide(what, a, "≤", b, d, d.lo >= 0, d.hi < 0)


def lt(a: Est, b: Est | float, what: str = "") -> Check:
    """Rule a < b: holds if b − a > 0 over the whole interval, fails if b − a ≤ 0 over it."""
    b = a._lift(b)
    d = b - a
    return _decide(what, a, "<", b, d, d.lo > 0, d.hi <= 0)


def ge(a: Est, b: Est | float, what: str = "") -> Check:
    """Rule a ≥ b (see `le`)."""
    b = a._lift(b)
    d = a - b
    return _decide(what, a, "≥", b, d, d.lo >= 0, d.hi < 0)


def gt(a: Est, b: Est | float, what: str = "") -> Check:
    """Rule a > b (see `lt`)."""
    b = a._lift(b)
    d = a - b
    return _decide(what, a, ">", b, d, d.lo > 0, d.hi <= 0)


def within(a: Est, b: Est, tol: float, what: str = "") -> Check:
    """Rule |a − b| ≤ tol: holds if the whole interval of a − b lies in [−tol, tol], fails if
    it lies wholly outside."""
    d = a - b
    holds = d.lo >= -tol and d.hi <= tol
    fails = d.lo > tol or d.hi < -tol
    return _decide(what, a, f"≈ (±{fmt(tol)})", b, d, holds, fails)


def all_of(checks: Iterable[Check], sep: str = "; ", prefix: str = "") -> Check:
    """Every part must hold: fails if one fails, within noise if none fails and one is."""
    cs = list(checks)
    if not cs:
        raise KeyError("no parts to check")
    outs = {c.outcome for c in cs}
    out = (
        Outcome.FAILS if Outcome.FAILS in outs else Outcome.NOISE if Outcome.NOISE in outs else Outcome.HOLDS
    )
    return Check(out, prefix + sep.join(c.text for c in cs), frozenset().union(*(c.notes for c in cs)))


def any_of(checks: Iterable[Check], sep: str = " or ", prefix: str = "") -> Check:
    """One part must hold: holds if one holds, within noise if none holds and one is."""
    cs = list(checks)
    if not cs:
        raise KeyError("no parts to check")
    outs = {c.outcome for c in cs}
    out = (
        Outcome.HOLDS if Outcome.HOLDS in outs else Outcome.NOISE if Outcome.NOISE in outs else Outcome.FAILS
    )
    return Check(out, prefix + sep.join(c.text for c in cs), frozenset().union(*(c.notes for c in cs)))


def note(check: Check, text: str) -> Check:
    """`check` with `text` added to its evidence (e.g. the rule in words)."""
    return Check(check.outcome, f"{check.text} {text}", check.notes)


def get(results: dict[str, pd.DataFrame], table: str, row: str, metric: str) -> Est:
    """The value of `metric` at paper row `row` of `table` in a results dict (table id →
    DataFrame with `row`, `<metric>`, optional `<metric>_ci` and `<metric>_n` or `n`): aqmlab's,
    ns-2.35's or the paper's own (means only). KeyError naming what is missing."""
    df = results.get(table)
    if df is None:
        raise KeyError(f"no results for table {table}")
    hit = df[df["row"] == row]
    if hit.empty:
        raise KeyError(f"table {table}: no row {row!r}")
    r = hit.iloc[0]
    if metric not in r.index:
        raise KeyError(f"table {table}: no {metric}")
    mean = float(r[metric])
    if math.isnan(mean):
        raise KeyError(f"table {table}: row {row!r}: {metric} is NaN")
    ci = float(r[f"{metric}_ci"]) if f"{metric}_ci" in r.index else math.nan
    n_raw = r[f"{metric}_n"] if f"{metric}_n" in r.index else r["n"] if "n" in r.index else None
    n = int(n_raw) if n_raw is not None and not pd.isna(n_raw) else None
    samples = r[f"{metric}{SAMPLES}"] if f"{metric}{SAMPLES}" in r.index else None
    return Est.of(mean, ci, n, samples if isinstance(samples, tuple) else None)


def rows(results: dict[str, pd.DataFrame], table: str, prefix: str = "") -> list[str]:
    """The row labels of `table` that start with `prefix` (in table order)."""
    df = results.get(table)
    if df is None:
        raise KeyError(f"no results for table {table}")
    return [r for r in df["row"] if str(r).startswith(prefix)]
