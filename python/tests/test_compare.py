"""The verdict comparisons (aqmlab.studies.compare) on hand-computed 95 % intervals: holds, fails
and within noise at the edges, interval arithmetic, one replication (no interval), and reading a
results dict (aqmlab's, ns-2.35's or the paper's)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from aqmlab.studies.compare import (
    N1,
    Est,
    Outcome,
    all_of,
    any_of,
    best,
    ge,
    get,
    gt,
    le,
    lowest,
    lt,
    mean_of,
    within,
)

H, F, N = Outcome.HOLDS, Outcome.FAILS, Outcome.NOISE


def e(mean: float, ci: float) -> Est:
    return Est.of(mean, ci, 3)


def test_a_below_b_at_the_edges():
    a = e(10, 1)  # [9, 11]
    assert lt(a, e(12.5, 1)).outcome == H  # [11.5, 13.5]: wholly above
    # [11, 13] touches a's upper bound 11: "<" needs a gap, "≤" holds.
    assert lt(a, e(12, 1)).outcome == N
    assert le(a, e(12, 1)).outcome == H
    assert lt(a, e(11.9, 1)).outcome == N  # overlap
    # [7, 9] touches a's lower bound 9: "<" fails (B − A ≤ 0 everywhere), "≤" is still noise.
    assert lt(a, e(8, 1)).outcome == F
    assert le(a, e(8, 1)).outcome == N
    assert le(a, e(7.9, 1)).outcome == F
    # Means alone would say 10 < 10.5 holds; the intervals overlap.
    assert lt(a, e(10.5, 1)).outcome == N


def test_bound_beyond_noise():
    assert ge(e(21, 1), 20).outcome == H  # [20, 22] ≥ 20 at every point
    assert gt(e(21, 1), 20).outcome == N
    assert ge(e(20.5, 1), 20).outcome == N  # [19.5, 21.5]
    assert ge(e(18.9, 1), 20).outcome == F  # [17.9, 19.9]
    assert gt(e(19, 1), 20).outcome == F  # [18, 20]: ≤ 20 everywhere
    c = ge(e(18.9, 1), 20, "share %")
    assert c.text == "share %: 18.9 ± 1.00 ≥ 20.0 ✗" and c.evidence == c.text


def test_within_a_tolerance():
    # a − b = 2.6 ± 2.5 = [0.1, 5.1]
    assert within(e(95.6, 1), e(93, 1.5), 5.0).outcome == N
    assert within(e(95.6, 1), e(93, 1.5), 5.1).outcome == H
    assert within(e(100, 1), e(93, 1.5), 5.0).outcome == N  # [4.5, 9.5]
    assert within(e(101, 1), e(93, 1.5), 5.0).outcome == F  # [5.5, 10.5]
    assert within(e(85, 1), e(93, 1.5), 5.0).outcome == F  # [−10.5, −5.5]


def test_interval_arithmetic():
    b = 1.1 * e(100, 10)  # [99, 121]
    assert (b.lo, b.hi, b.mean) == pytest.approx((99, 121, 110))
    assert le(e(98, 1), b).outcome == H  # [97, 99] ≤ [99, 121]
    d = e(10, 1) - e(4, 2)  # [9 − 6, 11 − 2]
    assert (d.lo, d.hi, d.mean) == (3, 9, 6)
    m = mean_of([e(10, 1), e(20, 3)])
    assert (m.mean, m.lo, m.hi) == (15, 13, 17)
    hi = best([e(10, 1), e(10.5, 3)])
    assert (hi.mean, hi.lo, hi.hi) == (10.5, 9, 13.5)
    assert str(hi) == "10.5 [9.00, 13.5]"
    lo = lowest([e(10, 1), e(10.5, 3)])
    assert (lo.mean, lo.lo, lo.hi) == (10, 7.5, 11)


def test_one_replication_has_no_interval():
    a, b = Est.of(10, math.nan, 1), Est.of(12, math.nan, 1)
    assert not a.has_interval and str(a) == "10.0"
    c = lt(a, b, "x")
    assert c.outcome == H
    assert c.evidence == f"x: 10.0 < 12.0 ({N1}: decided on the means)"
    assert lt(b, a).outcome == F  # no interval: the means decide, never "within noise"
    paper = Est.of(27580.0)  # a paper's number: no n, no interval
    assert ge(paper, Est.of(27597.0)).outcome == F


def test_combinations():
    h, f, n = lt(e(1, 0.1), 2), lt(e(3, 0.1), 2), lt(e(2, 0.5), 2.1)
    assert (h.outcome, f.outcome, n.outcome) == (H, F, N)
    assert all_of([h, n]).outcome == N and all_of([h, f, n]).outcome == F and all_of([h, h]).outcome == H
    assert any_of([f, n]).outcome == N and any_of([f, h]).outcome == H and any_of([f, f]).outcome == F
    assert all_of([h, f], prefix="p: ").text == "p: 1.00 ± 0.1 < 2.00; 3.00 ± 0.1 < 2.00 ✗"


def test_infinite_values():
    inf = Est.of(math.inf)
    assert lt(e(500, 10), inf).outcome == H and ge(e(500, 10), inf).outcome == F
    with pytest.raises(ValueError, match="cannot be compared"):
        le(inf, inf)


def test_get_reads_any_results_dict():
    res = {"T": pd.DataFrame({"row": ["a", "b"], "x": [1.0, math.nan], "x_ci": [0.5, 0.1], "x_n": [3, 3]})}
    v = get(res, "T", "a", "x")
    assert (v.lo, v.hi, v.notes) == (0.5, 1.5, frozenset())
    one = {"T": pd.DataFrame({"row": ["a"], "n": [1], "x": [2.0], "x_ci": [math.nan]})}
    assert get(one, "T", "a", "x").notes == {N1}
    paper = {"T": pd.DataFrame({"row": ["a"], "x": [2.0]})}
    assert not get(paper, "T", "a", "x").has_interval
    with pytest.raises(KeyError, match="no row 'c'"):
        get(res, "T", "c", "x")
    with pytest.raises(KeyError, match="x is NaN"):
        get(res, "T", "b", "x")
    with pytest.raises(KeyError, match="no results for table U"):
        get(res, "U", "a", "x")
    with pytest.raises(KeyError, match="no y"):
        get(res, "T", "a", "y")
