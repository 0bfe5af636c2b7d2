"""Comparisons of intervals for the studies' verdict rules (issue 34; docs/verdicts.md).

A value is an `Est`: a mean with the half-width of its 95 % Student-t interval over replications
(aqmlab.stats.summary_ci). A rule compares intervals, not means, and comes out three-valued:

- `holds`: the relation holds over the whole 95 % interval of what the rule compares (e.g. A < B:
  the interval of B − A lies above 0);
- `fails`: it fails over the whole interval (B − A ≤ 0 everywhere);
- `within noise`: the interval straddles the line the rule draws.

The interval of a sum or difference combines the half-widths in quadrature, √(h_A² + h_B²), as
for independent means (the replications of two variants share their seeds, so they are if
anything positively correlated and this is on the wide side); k · A scales it; the best of
several values is the one with the highest mean, with its own interval. A value without an
interval (one replication, or a number of the paper) counts as a point; the check then says so
("n=1, no interval") instead of inventing a width.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import pandas as pd

from aqmlab.summary_table import fmt_value

N1 = "n=1, no interval"
NO_INTERVAL = "no interval"


def fmt(v: float) -> str:
    """Three significant digits (aqmlab.summary_table.fmt_value; below 1 as 0.0140, not 0.01)."""
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
class Est:
    """A mean and the half-width `half` of its 95 % interval (0: a point); `notes` say why a
    value has no interval (N1, NO_INTERVAL)."""

    mean: float
    half: float = 0.0
    notes: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, mean: float, ci: float = math.nan, n: int | None = None) -> Est:
        """From a mean and a 95 % CI half-width (NaN: none; then `n` = 1 says "n=1")."""
        if ci is not None and math.isfinite(float(ci)):
            return cls(float(mean), abs(float(ci)))
        return cls(float(mean), 0.0, frozenset({N1 if n == 1 else NO_INTERVAL}))

    @classmethod
    def point(cls, v: float) -> Est:
        """A number of the rule itself (a bound, a tolerance): exact, no note."""
        return cls(float(v))

    @staticmethod
    def _lift(other: Est | float) -> Est:
        return other if isinstance(other, Est) else Est.point(other)

    @property
    def lo(self) -> float:
        return self.mean - self.half

    @property
    def hi(self) -> float:
        return self.mean + self.half

    def __add__(self, other: Est | float) -> Est:
        o = self._lift(other)
        return Est(self.mean + o.mean, math.hypot(self.half, o.half), self.notes | o.notes)

    __radd__ = __add__

    def __neg__(self) -> Est:
        return Est(-self.mean, self.half, self.notes)

    def __sub__(self, other: Est | float) -> Est:
        return self + (-self._lift(other))

    def __rsub__(self, other: float) -> Est:
        return Est.point(other) - self

    def __mul__(self, k: float) -> Est:
        return Est(self.mean * k, self.half * abs(k), self.notes)

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
    return Check(out, f"{label}{a} {op} {b}{_MARK[out]}", a.notes | b.notes)


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
    return Est.of(mean, ci, n)


def rows(results: dict[str, pd.DataFrame], table: str, prefix: str = "") -> list[str]:
    """The row labels of `table` that start with `prefix` (in table order)."""
    df = results.get(table)
    if df is None:
        raise KeyError(f"no results for table {table}")
    return [r for r in df["row"] if str(r).startswith(prefix)]
