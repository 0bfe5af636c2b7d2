"""Statistics over sweeps: confidence intervals over replications, response-time CDFs with
bands, the crossover points of two CDFs, and response time by response size.

- Confidence interval of a mean over n independent replications (Student t): mean ± t(1 − α/2,
  n − 1) · s / √n, with s the sample standard deviation (n − 1 in the denominator) and
  α = 1 − level (level 0.95 by default). The replications differ only in their seed, so they
  are independent runs of the same model; this is the usual "independent replications"
  interval (e.g. Law & Kelton, Simulation Modeling and Analysis, §9.4.1). n < 2 gives no
  interval (NaN half width).
- A CDF band is that interval taken pointwise on the empirical CDFs of the replications
  (evaluated on a common grid), clipped to [0, 1].
- Crossovers (seed 001 discusses where two response-time CDFs cross): the points where
  F_a − F_b changes sign (see `crossovers`); with replications, only the crossings where the
  two CDF bands separate on both sides (see `band_crossovers`): the rest is noise.
- Response time by response size (seed 000 Figure 6.4, seed 001 Figure 18): medians in size
  bins.

Validation: python/tests/test_stats.py (hand-computed intervals, synthetic CDFs).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from aqmlab.reports.run_report import measured_responses

# Response-size bin edges (bytes) of `rt_by_size`: 1-2-5 steps from 1 KB to 1 MB (1 KB = 1000 B).
SIZE_EDGES: tuple[float, ...] = (0, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, math.inf)


class Interval:
    """The bounds `lo`, `hi` of `mean ± half`, for the dataclasses with those two fields."""

    @property
    def lo(self) -> float:
        return self.mean - self.half

    @property
    def hi(self) -> float:
        return self.mean + self.half


@dataclass(frozen=True)
class CI(Interval):
    """mean ± half: a confidence interval of a mean from n values."""

    mean: float
    half: float
    n: int


def t_quantile(level: float, n: int) -> float:
    """Two-sided Student t quantile t(1 − (1 − level)/2, n − 1); NaN for n < 2."""
    if n < 2:
        return math.nan
    return float(_st.t.ppf(0.5 + level / 2.0, n - 1))


def t_ci(values: Sequence[float] | np.ndarray, level: float = 0.95) -> CI:
    """Student-t confidence interval of the mean of `values` (NaNs ignored; an infinite value,
    e.g. a quantile that fell on an unfinished response, gives an infinite mean and no width)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    n = len(v)
    if n == 0:
        return CI(math.nan, math.nan, 0)
    mean = float(v.mean())
    if n < 2 or not np.isfinite(v).all():
        return CI(mean, math.nan, n)
    return CI(mean, t_quantile(level, n) * float(v.std(ddof=1)) / math.sqrt(n), n)


def summary_ci(
    df: pd.DataFrame, by: Sequence[str], columns: Sequence[str], level: float = 0.95
) -> pd.DataFrame:
    """One row per group of `by` (groups in order of first appearance): `n` (replications), and
    for each of `columns` the mean (`col`) and the CI half width (`col_ci`)."""
    rows = []
    for key, g in df.groupby(list(by), sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key, strict=True))
        row["n"] = len(g)
        for c in columns:
            ci = t_ci(g[c].to_numpy(dtype=np.float64), level)
            row[c] = ci.mean
            row[f"{c}_ci"] = ci.half
        rows.append(row)
    return pd.DataFrame(rows)


def ecdf_at(samples: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Empirical CDF of `samples` at the points `x`: share of samples ≤ x (right-continuous)."""
    s = np.sort(np.asarray(samples, dtype=np.float64))
    if len(s) == 0:
        return np.full(len(x), np.nan)
    return np.searchsorted(s, x, side="right") / len(s)


def cdf_band(
    samples: Sequence[np.ndarray], x: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean of the replications' empirical CDFs at `x`, and the pointwise t interval (lo, hi)
    clipped to [0, 1]; with one replication lo = hi = its CDF."""
    f = np.vstack([ecdf_at(s, x) for s in samples])
    mean = f.mean(axis=0)
    n = f.shape[0]
    if n < 2:
        return mean, mean.copy(), mean.copy()
    half = t_quantile(level, n) * f.std(axis=0, ddof=1) / math.sqrt(n)
    return mean, np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0)


def crossovers(a: np.ndarray, b: np.ndarray) -> list[float]:
    """Where the empirical CDFs of samples `a` and `b` cross. d(x) = F_a(x) − F_b(x) is
    evaluated at every sample value (the CDFs only change there); a crossing is recorded each
    time d takes the sign opposite to its last non-zero sign, at the first point x where d
    stopped having that last sign (where the curves met or passed each other). Touching
    (d → 0 → same sign) is not a crossing. Returns the crossing points in increasing order."""
    xs = np.unique(np.concatenate([np.asarray(a, np.float64), np.asarray(b, np.float64)]))
    if len(xs) == 0 or len(a) == 0 or len(b) == 0:
        return []
    d = ecdf_at(a, xs) - ecdf_at(b, xs)
    out: list[float] = []
    last_sign = 0
    left_at: float | None = None  # first x after the last point with sign == last_sign
    for x, v in zip(xs, d, strict=True):
        s = 0 if abs(v) < 1e-12 else (1 if v > 0 else -1)
        if s == 0:
            if left_at is None:
                left_at = float(x)
            continue
        if last_sign != 0 and s != last_sign:
            out.append(left_at if left_at is not None else float(x))
        last_sign = s
        left_at = None
    return out


#: Probabilities at which `band_crossovers` evaluates the CDFs by default (pooled quantiles).
BAND_GRID_POINTS = 4001


@dataclass(frozen=True)
class BandCrossover:
    """A crossing of two CDFs whose bands separate on both sides: the band of the CDF that is
    above (`before`: +1 = a, −1 = b) lies wholly above the other's at `lo`, wholly below it at
    `hi`, and they overlap between; `x` is where the mean CDFs last stopped having the old
    order before `hi` (where they met or passed each other)."""

    x: float
    lo: float
    hi: float
    before: int


def band_grid(samples: Sequence[np.ndarray], points: int = BAND_GRID_POINTS) -> np.ndarray:
    """The distinct quantiles of the pooled `samples` at `points` evenly spaced probabilities:
    a grid as fine where the responses are as the data allow, whatever their number."""
    pooled = np.concatenate([np.asarray(s, np.float64) for s in samples])
    if len(pooled) == 0:
        return pooled
    return np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, points), method="inverted_cdf"))


def band_crossovers(
    a: Sequence[np.ndarray], b: Sequence[np.ndarray], level: float = 0.95, x: np.ndarray | None = None
) -> list[BandCrossover] | None:
    """The crossings of two CDFs that their replications' bands make significant. `a`, `b`: the
    samples of each replication; the bands are `cdf_band`'s pointwise `level` intervals, on `x`
    (default `band_grid` of both). At each x the bands are separate with a above when
    lo_a(x) > hi_b(x), with b above when lo_b(x) > hi_a(x), else they overlap. A crossing is
    recorded when the order of separate bands reverses: from the last point `lo` where one is
    above to the first point `hi` where the other is; sign changes of the mean CDFs between two
    separations in the same order, or with overlapping bands on one side, are not crossings.
    None when either side has fewer than two replications (no bands)."""
    if len(a) < 2 or len(b) < 2:
        return None
    if x is None:
        x = band_grid([*a, *b])
    if len(x) == 0:
        return []
    mean_a, lo_a, hi_a = cdf_band(a, x, level)
    mean_b, lo_b, hi_b = cdf_band(b, x, level)
    state = np.where(lo_a > hi_b, 1, np.where(lo_b > hi_a, -1, 0))
    d = mean_a - mean_b
    out: list[BandCrossover] = []
    last, last_i = 0, -1
    for j, s in enumerate(state):
        if s == 0:
            continue
        if last != 0 and s != last:
            # The means leave the old order after the last point of that order before j.
            old = np.nonzero(np.sign(d[last_i:j]) == last)[0]
            k = last_i + int(old[-1]) + 1
            out.append(BandCrossover(float(x[k]), float(x[last_i]), float(x[j]), int(last)))
        last, last_i = int(s), j
    return out


def rt_by_size(requests: pd.DataFrame, warmup_ns: int, edges: Sequence[float] = SIZE_EDGES) -> pd.DataFrame:
    """Median response time (s) of the measured completed HTTP responses by response size:
    one row per bin [lo, hi) bytes that holds responses: `lo_bytes`, `hi_bytes`, `n`,
    `median_rt_s`. The same responses as the summary and the CDF (aqmlab.reports.run_report)."""
    r = measured_responses(requests, warmup_ns)
    size = r["response_bytes"].to_numpy(dtype=np.float64)
    rt = (r["end_ns"].to_numpy(dtype=np.int64) - r["start_ns"].to_numpy(dtype=np.int64)) / 1e9
    e = np.asarray(edges, dtype=np.float64)
    idx = np.searchsorted(e, size, side="right") - 1
    rows = []
    for i in range(len(e) - 1):
        sel = rt[idx == i]
        if len(sel):
            rows.append(
                {"lo_bytes": e[i], "hi_bytes": e[i + 1], "n": len(sel), "median_rt_s": float(np.median(sel))}
            )
    return pd.DataFrame(rows, columns=["lo_bytes", "hi_bytes", "n", "median_rt_s"])
