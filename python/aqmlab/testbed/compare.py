"""A testbed run against the simulator's run of the same scenario and seed (issue 33 item 3):
median and p90 response time, the KS distance of the response-time distributions, utilisation
and loss, and whether they meet the issue's bounds (median within 10 %, KS ≤ 0.05,
utilisation within 2 %).

Response times are those `aqmlab report` counts (`report.response_time_cdf`: completed HTTP
responses started at or after the warm-up); the KS distance is the two-sample statistic,
sup |F_testbed − F_sim| (scipy.stats.ks_2samp). Utilisation, drops and arrivals are each
run's summary.json (the forward bottleneck).

    python -m aqmlab.testbed.compare TESTBED_DIR SIM_DIR   # one variant directory each
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import ks_2samp

from aqmlab.reports.run_report import CDF_COLUMNS, response_time_cdf
from aqmlab.storage.run_dir import RUN_INFO, SUMMARY, read_table, warmup_ns_of


@dataclass(frozen=True)
class Bounds:
    """Issue 33's agreement bounds: |median_tb / median_sim − 1| ≤ `median_rel`, KS ≤ `ks`,
    |util_tb / util_sim − 1| ≤ `util_rel` (fractions)."""

    median_rel: float = 0.10
    ks: float = 0.05
    util_rel: float = 0.02


@dataclass(frozen=True)
class Side:
    """One run's figures: response-time quantiles (ms), utilisation (fraction of the forward
    bottleneck), % drops and packet arrivals at the forward queue, responses counted."""

    median_ms: float
    p90_ms: float
    utilization: float
    drops_pct: float
    arrivals: int
    responses: int


@dataclass(frozen=True)
class Comparison:
    """A testbed run beside a simulator run: both sides, the KS distance, and the bounds
    each figure was checked against."""

    testbed: Side
    sim: Side
    ks: float
    bounds: Bounds

    @property
    def median_rel(self) -> float:
        """Testbed median / simulator median − 1 (fraction)."""
        return self.testbed.median_ms / self.sim.median_ms - 1.0

    @property
    def util_rel(self) -> float:
        """Testbed utilisation / simulator utilisation − 1 (fraction)."""
        return self.testbed.utilization / self.sim.utilization - 1.0

    def beyond_bounds(self) -> list[str]:
        """Names of the figures outside the bounds: `median`, `ks`, `utilization`."""
        out = []
        if abs(self.median_rel) > self.bounds.median_rel:
            out.append("median")
        if self.ks > self.bounds.ks:
            out.append("ks")
        if abs(self.util_rel) > self.bounds.util_rel:
            out.append("utilization")
        return out

    def row(self, label: str) -> str:
        """A markdown table row: label, median tb / sim (diff), p90 tb / sim, KS, utilisation
        tb / sim (diff), % drops tb / sim."""
        t, s = self.testbed, self.sim
        return (
            f"| {label} | {t.median_ms:.0f} / {s.median_ms:.0f} ({100 * self.median_rel:+.1f} %) "
            f"| {t.p90_ms:.0f} / {s.p90_ms:.0f} | {self.ks:.3f} "
            f"| {t.utilization:.3f} / {s.utilization:.3f} ({100 * self.util_rel:+.1f} %) "
            f"| {t.drops_pct:.2f} / {s.drops_pct:.2f} |"
        )


def response_times_s(run_dir: Path) -> np.ndarray:
    """Sorted response times (s) that the run's summary counts."""
    run_dir = Path(run_dir)
    summary = json.loads((run_dir / SUMMARY).read_text())
    info = json.loads((run_dir / RUN_INFO).read_text())
    x, _ = response_time_cdf(read_table(run_dir, "requests", CDF_COLUMNS), warmup_ns_of(info, summary))
    return x


def side(run_dir: Path, rt_s: np.ndarray) -> Side:
    """A run's figures from its summary.json and its response times `rt_s` (s)."""
    s = json.loads((Path(run_dir) / SUMMARY).read_text())
    if len(rt_s) == 0:
        raise ValueError(f"{run_dir}: no completed response after the warm-up")
    return Side(
        median_ms=float(np.median(rt_s)) * 1e3,
        p90_ms=float(np.quantile(rt_s, 0.9)) * 1e3,
        utilization=float(s["utilization"]),
        drops_pct=float(s["drops_pct"]),
        arrivals=int(s["arrivals"]),
        responses=len(rt_s),
    )


def compare(testbed_dir: Path, sim_dir: Path, bounds: Bounds = Bounds()) -> Comparison:
    """The testbed run `testbed_dir` against the simulator run `sim_dir` (variant dirs)."""
    x_tb, x_sim = response_times_s(testbed_dir), response_times_s(sim_dir)
    tb, sim = side(testbed_dir, x_tb), side(sim_dir, x_sim)
    return Comparison(tb, sim, float(ks_2samp(x_tb, x_sim).statistic), bounds)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m aqmlab.testbed.compare TESTBED_DIR SIM_DIR", file=sys.stderr)
        return 2
    try:
        c = compare(Path(argv[0]), Path(argv[1]))
    except (OSError, ValueError, KeyError) as e:
        print(f"aqmlab.testbed.compare: {e}", file=sys.stderr)
        return 2
    print(c.row(Path(argv[0]).name))
    beyond = c.beyond_bounds()
    print("beyond the bounds: " + (", ".join(beyond) if beyond else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
