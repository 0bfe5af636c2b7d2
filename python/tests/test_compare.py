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
    # Half-widths 3 and 4 combine to 5 (√(3² + 4²)): B − A spans (b − 10) ± 5.
    a = e(10, 3)
    assert lt(a, e(15.1, 4)).outcome == H  # [0.1, 10.1] above 0
    # [0, 10] touches 0: "<" needs B − A > 0 everywhere, "≤" holds.
    assert lt(a, e(15, 4)).outcome == N
    assert le(a, e(15, 4)).outcome == H
    assert lt(a, e(14.9, 4)).outcome == N
    # [−10, 0]: "<" fails (B − A ≤ 0 everywhere), "≤" is still within noise.
    assert lt(a, e(5, 4)).outcome == F
    assert le(a, e(5, 4)).outcome == N
    assert le(a, e(4.9, 4)).outcome == F
    # Means alone would say 10 < 10.5 holds; the interval of the difference straddles 0.
    assert lt(a, e(10.5, 4)).outcome == N
    # The examples of issue 34: 465 ± 46 vs 452 ± 20 ms, 24449 ± 280 vs 24615 ± 284 objects.
    assert lt(e(465, 46), e(452, 20)).outcome == N
    assert ge(e(24449, 280), e(24615, 284)).outcome == N


def test_bound_beyond_noise():
    assert ge(e(21, 1), 20).outcome == H  # [20, 22] ≥ 20 at every point
    assert gt(e(21, 1), 20).outcome == N
    assert ge(e(20.5, 1), 20).outcome == N  # [19.5, 21.5]
    assert ge(e(18.9, 1), 20).outcome == F  # [17.9, 19.9]
    assert gt(e(19, 1), 20).outcome == F  # [18, 20]: ≤ 20 everywhere
    c = ge(e(18.9, 1), 20, "share %")
    assert c.text == "share %: 18.9 ± 1.00 ≥ 20.0 ✗" and c.evidence == c.text


def test_within_a_tolerance():
    # a − b = (a − 93) ± 5
    assert within(e(95, 3), e(93, 4), 5.0).outcome == N  # [−3, 7]
    assert within(e(95, 3), e(93, 4), 7.0).outcome == H  # [−3, 7] inside ± 7
    assert within(e(101, 3), e(93, 4), 5.0).outcome == N  # [3, 13]
    assert within(e(103.1, 3), e(93, 4), 5.0).outcome == F  # [5.1, 15.1]
    assert within(e(83, 3), e(93, 4), 5.0).outcome == N  # [−15, −5] touches −5
    assert within(e(82.9, 3), e(93, 4), 5.0).outcome == F


def test_interval_arithmetic():
    b = 1.1 * e(100, 10)
    assert (b.lo, b.hi, b.mean) == pytest.approx((99, 121, 110))
    d = e(10, 3) - e(4, 4)  # 6 ± 5
    assert (d.mean, d.half) == (6, 5)
    m = mean_of([e(10, 3), e(20, 4), e(30, 0)])  # (60 ± 5) / 3
    assert (m.mean, m.half) == pytest.approx((20, 5 / 3))
    hi = best([e(10, 1), e(10.5, 3)])
    assert (hi.mean, hi.half) == (10.5, 3) and str(hi) == "10.5 ± 3.00"
    lo = lowest([e(10, 1), e(10.5, 3)])
    assert (lo.mean, lo.half) == (10, 1)
    assert str(e(0.014, 0.0021)) == "0.014 ± 0.0021"


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


def _s(*pairs: tuple[int, float]) -> Est:
    """An aqmlab value from per-seed values, with the interval table_results would give it."""
    from aqmlab.reports.stats import t_ci

    ci = t_ci([v for _, v in pairs])
    return Est.of(ci.mean, ci.half, len(pairs), tuple(pairs))


def test_paired_by_seed_by_hand():
    # A = 10, 12, 14 and B = 11, 13, 15 on seeds 1-3: each alone is 12 ± 4.968 (s = 2,
    # t(0.975, 2) = 4.302653, 4.302653 · 2 / √3), so unpaired B − A = 1 ± 7.03: within noise.
    # Seed by seed B − A = 1, 1, 1 (s = 0): the paired interval is 1 ± 0, so B > A holds.
    a = _s((1, 10.0), (2, 12.0), (3, 14.0))
    b = _s((1, 11.0), (2, 13.0), (3, 15.0))
    assert a.half == pytest.approx(4.968, abs=1e-3)
    c = gt(b, a, "x")
    assert c.outcome == H
    assert "paired over 3 seeds: 1.00" in c.text
    unpaired = gt(Est.of(b.mean, b.half, 3), Est.of(a.mean, a.half, 3))
    assert unpaired.outcome == N and "paired" not in unpaired.text
    # Differences 1, 2, 6: mean 3, s = 2.6458, half 4.302653 · 2.6458 / √3 = 6.5725.
    d = _s((1, 11.0), (2, 14.0), (3, 20.0)) - a
    assert d.paired == 3 and d.mean == pytest.approx(3.0) and d.half == pytest.approx(6.5725, abs=1e-3)


def test_pairing_needs_the_same_seeds():
    # Seeds 1-3 against 2-4: no pairing, the half-widths combine in quadrature (4.968 · √2).
    a = _s((1, 10.0), (2, 12.0), (3, 14.0))
    b = _s((2, 11.0), (3, 13.0), (4, 15.0))
    d = b - a
    assert d.paired == 0 and d.half == pytest.approx(4.968 * math.sqrt(2), abs=1e-3)


def test_paired_arithmetic_with_exact_numbers():
    # k · A and A + c keep the per-seed values: (B − 0.5 · A) − 4 per seed: 11 − 5 − 4 = 2,
    # 13 − 6 − 4 = 3, 15 − 7 − 4 = 4 → mean 3, s = 1, half 4.302653 / √3 = 2.4842.
    a = _s((1, 10.0), (2, 12.0), (3, 14.0))
    b = _s((1, 11.0), (2, 13.0), (3, 15.0))
    d = (b - 0.5 * a) - 4
    assert d.paired == 3 and d.mean == pytest.approx(3.0) and d.half == pytest.approx(2.4842, abs=1e-3)
    # An ns-2.35 or paper value (no samples) falls back to quadrature.
    q = b - Est.of(12.0, 1.0, 3)
    assert q.paired == 0 and q.half == pytest.approx(math.hypot(4.968, 1.0), abs=1e-3)


def test_get_reads_per_seed_values():
    df = pd.DataFrame(
        {
            "row": ["r"],
            "n": [3],
            "m": [12.0],
            "m_ci": [4.968],
            "m_by_seed": [((1, 10.0), (2, 12.0), (3, 14.0))],
        }
    )
    v = get({"T": df}, "T", "r", "m")
    assert v.samples == ((1, 10.0), (2, 12.0), (3, 14.0))
    inf = pd.DataFrame(
        {
            "row": ["r"],
            "n": [2],
            "m": [math.inf],
            "m_ci": [math.nan],
            "m_by_seed": [((1, 1.0), (2, math.inf))],
        }
    )
    assert get({"T": inf}, "T", "r", "m").samples is None  # an unfinished quantile: no pairing
