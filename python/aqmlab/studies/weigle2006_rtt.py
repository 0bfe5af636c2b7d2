"""The PackMime RTT distribution of seed 001 as an empirical CDF file for the DelayBox.

Seed 001 §5.1: "DelayBox uses an empirical delay distribution from the PackMime model. This
results in RTTs ranging from 1 ms to 3.5 s. The median RTT is 54 ms, the mean is 74 ms, and
the 90th percentile is 117 ms." Of the two PackMime RTT tables of ns-2.35
(`docs/reference/packmime/`, MODEL.md §3.8) the server-side one (type 1,
`long_rtt_invcdf.csv`) has median 57.96 ms, mean 80.97 ms and 90th percentile 114.05 ms
(MODEL.md's computed quantiles) — the seed's numbers within 10 %; the client-side table (median
1.47 ms) and the sum of both (mean 108 ms) do not fit. So the scenario draws each connection's
whole extra RTT from the server-side table.

The table gives y(x) at knots, x = −log10(1 − p), RTT_ms = y^3, piecewise linear in x (no
clamping, MODEL.md §2.1). The CDF file samples it on a grid fine enough that aqmlab's linear
interpolation between (RTT, p) points follows the curve: x every 0.01 on [0, x_last], p every
0.001, and every knot; the last knot (p = 0.9999, 5.11 s) gets cdf 1 — the same grid and tail
treatment as `traffic::packmime::rtt_cdf_s` in the Rust core.

Regenerate (from the repository root, with the reference folder beside it):

    python -m aqmlab.studies.weigle2006_rtt docs/reference/packmime/long_rtt_invcdf.csv \
        3 studies/weigle2006/packmime_rtt_server.csv

Validation: python/tests/test_study_weigle2006.py (knot values by hand, median and mean
against MODEL.md, the seed's three statistics within 10 %).
"""

from __future__ import annotations

import csv
import math
import os
import sys
from pathlib import Path


def read_knots(path: str | os.PathLike) -> list[tuple[float, float]]:
    """(x, y) knots of a PackMime RTT table (columns i, x, y; one header row)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return [(float(r[1]), float(r[2])) for r in rows[1:] if r]


def interp(knots: list[tuple[float, float]], x: float) -> float:
    """Piecewise-linear y(x) through `knots`, end segments extended (MODEL.md §2.1)."""
    i = 1
    while i < len(knots) - 1 and x > knots[i][0]:
        i += 1
    (x0, y0), (x1, y1) = knots[i - 1], knots[i]
    return y0 + (x - x0) / (x1 - x0) * (y1 - y0)


def rtt_ms(knots: list[tuple[float, float]], power: int, p: float) -> float:
    """RTT in ms at cumulative probability p (0 ≤ p < 1): y(−log10(1 − p))^power."""
    return interp(knots, -math.log10(1.0 - p)) ** power


def cdf_points(knots: list[tuple[float, float]], power: int) -> list[tuple[float, float]]:
    """(RTT seconds, cdf) points on the grid of the module doc; the last point has cdf 1."""
    last = knots[-1][0]
    xs = [i * 0.01 for i in range(int(last / 0.01) + 1) if i * 0.01 < last]
    xs += [-math.log10(1.0 - i / 1000) for i in range(1, 1000)]
    xs += [x for x, _ in knots]
    xs = sorted(x for x in xs if x <= last)
    pts: list[float] = []
    for x in xs:
        if not pts or x - pts[-1] > 1e-9:
            pts.append(x)
    out = [(interp(knots, x) ** power / 1000.0, 1.0 - 10.0 ** (-x)) for x in pts]
    out[-1] = (out[-1][0], 1.0)
    return out


def write_cdf(points: list[tuple[float, float]], path: str | os.PathLike, source: str) -> None:
    """Write `value,cdf` rows (seconds) with a comment header, under a temporary name."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"# PackMime RTT (seconds) from {source}; see aqmlab/studies/weigle2006_rtt.py\n")
        f.write("value,cdf\n")
        for v, c in points:
            f.write(f"{v:.9g},{c:.9g}\n")
    os.replace(tmp, p)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m aqmlab.studies.weigle2006_rtt TABLE.csv POWER OUT.csv", file=sys.stderr)
        return 2
    table, power, out = argv
    write_cdf(cdf_points(read_knots(table), int(power)), out, Path(table).name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
