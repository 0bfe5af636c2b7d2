"""aqmlab.reports.stats against hand computations: Student-t intervals, CDF bands, CDF crossovers and
response time by response size."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_requests

from aqmlab.reports.stats import (
    BandCrossover,
    band_crossovers,
    cdf_band,
    crossovers,
    ecdf_at,
    rt_by_size,
    summary_ci,
    t_ci,
    t_quantile,
)


def test_t_quantiles_match_the_printed_table():
    # Two-sided 95 % Student t quantiles from the standard table: df 1, 2, 3, 4, 9, 29.
    for n, t in [(2, 12.706), (3, 4.303), (4, 3.182), (5, 2.776), (10, 2.262), (30, 2.045)]:
        assert t_quantile(0.95, n) == pytest.approx(t, abs=5e-4)
    assert math.isnan(t_quantile(0.95, 1))


def test_t_ci_by_hand():
    # 1..5: mean 3, s = sqrt(10 / 4) = 1.58114, half = 2.776445 * 1.58114 / sqrt(5) = 1.96324.
    ci = t_ci([1, 2, 3, 4, 5])
    assert ci.mean == 3.0 and ci.n == 5
    assert ci.half == pytest.approx(1.96324, abs=1e-5)
    assert (ci.lo, ci.hi) == pytest.approx((1.03676, 4.96324), abs=1e-5)
    # Two values 10, 12: s = sqrt(2), half = 12.706205 * sqrt(2) / sqrt(2) = 12.706205.
    assert t_ci([10.0, 12.0]).half == pytest.approx(12.706205, abs=1e-5)
    # NaNs (a failed replication) are left out; one value has no interval.
    one = t_ci([4.0, math.nan])
    assert one.mean == 4.0 and one.n == 1 and math.isnan(one.half)


def test_t_ci_of_an_unfinished_quantile_is_infinite_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value in subtract" reached users' consoles
        ci = t_ci([1200.0, math.inf, 900.0])
    assert ci.mean == math.inf and ci.n == 3 and math.isnan(ci.half)


def test_summary_ci_groups_in_order_of_appearance():
    df = pd.DataFrame(
        {
            "variant": ["red", "red", "red", "dt", "dt"],
            "kb_per_s": [1100.0, 1130.0, 1160.0, 1000.0, 1000.0],
        }
    )
    t = summary_ci(df, ["variant"], ["kb_per_s"])
    assert t["variant"].tolist() == ["red", "dt"] and t["n"].tolist() == [3, 2]
    # red: mean 1130, s = 30, half = 4.302653 * 30 / sqrt(3) = 74.524; dt: s = 0 → half 0.
    assert t["kb_per_s"].tolist() == [1130.0, 1000.0]
    assert t["kb_per_s_ci"].tolist() == pytest.approx([74.524, 0.0], abs=1e-3)


def test_ecdf_and_band_by_hand():
    assert ecdf_at(np.array([3.0, 1.0, 2.0, 2.0]), np.array([0.5, 1.0, 2.0, 2.5, 3.0])).tolist() == [
        0.0, 0.25, 0.75, 0.75, 1.0,
    ]  # fmt: skip
    # Four replications whose CDFs at x = 2.5 are 0.25, 0.5, 0.5, 0.75: mean 0.5,
    # s = sqrt(0.125 / 3) = 0.204124, half = 3.182446 * 0.204124 / 2 = 0.324808.
    reps = [np.array(s) for s in ([1, 3, 4, 5], [1, 2, 3, 4], [2, 2, 3, 3], [1, 2, 2, 3])]
    mean, lo, hi = cdf_band(reps, np.array([0.5, 2.5, 10.0]))
    assert mean.tolist() == [0.0, 0.5, 1.0]
    assert lo[1] == pytest.approx(0.5 - 0.324808, abs=1e-6) and hi[1] == pytest.approx(0.824808, abs=1e-6)
    assert lo[0] == 0.0 and hi[2] == 1.0  # zero spread at the ends


def test_crossovers_of_two_step_cdfs_by_hand():
    # F_a − F_b at 0.5, 1, 2, 2.5, 2.6, 2.7, 3, 4: −.25, 0, +.25, 0, −.25, −.5, −.25, 0.
    # It leaves "negative" at 1 (curves meet) and becomes positive; leaves "positive" at 2.5.
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([0.5, 2.5, 2.6, 2.7])
    assert crossovers(a, b) == [1.0, 2.5]
    assert crossovers(b, a) == [1.0, 2.5]
    # Touching without changing sides is not a crossing; identical samples never cross.
    assert crossovers(np.array([1.0, 2.0]), np.array([1.0, 3.0])) == []
    assert crossovers(a, a.copy()) == []


def test_crossover_of_uniform_and_exponential_samples():
    # F_u(x) = x / 2 on [0, 2] and F_e(x) = 1 − exp(−x) cross where 1 − exp(−x) = x / 2,
    # x* = 1.59362 (solved by hand with Newton's method). Samples at the quantiles (i − 0.5) / n;
    # with n = 20000 the ECDF step is 5e-5 and |F_u' − F_e'| = 0.297 at x*, so x* is found to
    # within about 2e-4.
    n = 20_000
    q = (np.arange(n) + 0.5) / n
    uniform = 2.0 * q
    expo = -np.log1p(-q)
    xs = crossovers(uniform, expo)
    assert len(xs) == 1
    assert xs[0] == pytest.approx(1.59362, abs=1e-3)


def test_rt_by_size_medians_by_hand():
    # conftest.synthetic_requests: measured completed HTTP responses (warm-up 1 s) are
    # 2000 B/0.5 s, 3000 B/1.0 s, 4000 B/1.0 s, 5000 B/2.0 s. Bins [2000, 5000) and [5000, 1e4).
    t = rt_by_size(synthetic_requests(), 1_000_000_000, edges=[0, 2000, 5000, 10_000])
    assert t.to_dict("list") == {
        "lo_bytes": [2000.0, 5000.0],
        "hi_bytes": [5000.0, 10_000.0],
        "n": [3, 1],
        "median_rt_s": [1.0, 2.0],
    }


def test_band_crossover_by_hand_with_zero_width_bands():
    # Identical replications: the bands are the CDFs themselves. On x = 1..5, F_a = .5, .75,
    # .75, .75, 1 and F_b = 0, .25, .75, 1, 1: a above at 1 and 2, equal at 3, b above at 4.
    # The order reverses between lo = 2 and hi = 4; the means stop having a above at 3.
    a = [np.array([1.0, 1.0, 2.0, 5.0])] * 2
    b = [np.array([2.0, 3.0, 3.0, 4.0])] * 2
    x = np.arange(1.0, 6.0)
    assert band_crossovers(a, b, x=x) == [BandCrossover(3.0, 2.0, 4.0, 1)]
    assert band_crossovers(b, a, x=x) == [BandCrossover(3.0, 2.0, 4.0, -1)]


def test_band_crossover_needs_separate_bands_on_both_sides():
    # a is above at x = 1 (b's band is [0, 0] there); at x = 2 the means change order (F_a .25,
    # F_b .5) but b's two replications (CDF 0 and 1) give a band covering [0, 1]: the bands
    # overlap, so the sign change is not a crossing. One replication: no bands, no claim.
    a = [np.array([1.0, 3.0, 9.0, 9.0])] * 2
    b = [np.full(4, 5.0), np.full(4, 2.0)]
    x = np.array([1.0, 2.0, 3.0])
    assert crossovers(np.concatenate(a), np.concatenate(b)) != []
    assert band_crossovers(a, b, x=x) == []
    assert band_crossovers(a[:1], b) is None and band_crossovers(a, b[:1]) is None


def test_noise_crossings_of_one_distribution_are_not_band_crossings():
    # Five replications of 2000 exponential responses each for both sides (the same law): the
    # pooled CDFs change sign many times, the bands never separate in both orders.
    rng = np.random.default_rng(15)
    a = [rng.exponential(0.3, 2000) for _ in range(5)]
    b = [rng.exponential(0.3, 2000) for _ in range(5)]
    assert len(crossovers(np.concatenate(a), np.concatenate(b))) > 10
    assert band_crossovers(a, b) == []


def test_band_crossover_of_uniform_and_exponential_replications():
    # As test_crossover_of_uniform_and_exponential_samples, three replications each, scaled by
    # 0.99, 1 and 1.01: one crossing near x* = 1.59362; below it the exponential (b) is above.
    n = 20_000
    q = (np.arange(n) + 0.5) / n
    a = [2.0 * q * f for f in (0.99, 1.0, 1.01)]
    b = [-np.log1p(-q) * f for f in (0.99, 1.0, 1.01)]
    cs = band_crossovers(a, b)
    assert len(cs) == 1
    c = cs[0]
    assert c.before == -1 and c.lo < c.x <= c.hi
    assert c.x == pytest.approx(1.59362, abs=0.02) and c.hi - c.lo < 0.2
