"""The output of one seed001.tcl run → the summary columns aqmlab's runs have (same names, same
definitions: crates/metrics/src/summary.rs) and the weigle2006 per-run columns
(aqmlab.studies.weigle2006).

What seed001.tcl writes (its header says more): stdout `link dir=fwd|rev arrivals=…
departures=… drops=… early_drops=… bytes=… marks=… mean_q=… max_q=…` over the measured window
(counters are differences from the warm-up; the queue = packets waiting, sampled every 3 ms),
then `run sim_s=… wall_s=…`; `rt_fwd.dat`/`rt_rev.dat` (PackMime's outfile: per response
completed, the time its last byte arrived, request bytes, response bytes, response time in ms,
…); `req_fwd.dat`/`req_rev.dat` (every connection's start time, request and response bytes);
`conns.dat` (per connection started after the warm-up: fid, direction, start, closed, the
client's and the server's retransmitted packets and timeouts).

Definitions, as aqmlab's summary (forward = the bottleneck direction that carries workload 0's
responses):
- utilization = forward bytes sent × 8 / measured s / bottleneck bit/s; kb_per_s = bytes /
  1000 / measured s.
- drops_pct = 100 · forward drops / forward arrivals; unforced_pct = early / drops.
- mean_qlen = the forward queue's time average (3 ms samples; aqmlab averages its 100 ms means
  of the same samples: equal intervals, the same mean).
- response times: the responses of both directions whose connection started (first SYN) at or
  after the warm-up and that completed before the end; quantiles by nearest rank (rank ⌈q·n⌉);
  pct_le_1s … pct_gt_3s the shares ≤ 1 s, (1, 2], (2, 3], > 3 s.
- pct_flows_with_drops: 100 · connections started after the warm-up with a retransmitted packet
  by either end (Full-TCP's nrexmitpack_) / those connections.
- large_*: the responses > 50,000 B started after the warm-up and at least 20 s before the end
  (from req_*.dat); those not completed count as slower than all completed ones.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from aqmlab.studies.weigle2006 import censored_quantile

DIRS = ("fwd", "rev")
QUANTILES = {"p10_rt_ms": 0.10, "p25_rt_ms": 0.25, "median_rt_ms": 0.50, "p75_rt_ms": 0.75,
             "p90_rt_ms": 0.90, "p95_rt_ms": 0.95, "p99_rt_ms": 0.99}  # fmt: skip
#: Fig. 18's large responses (aqmlab.studies.weigle2006: LARGE_B, LARGE_HORIZON_NS).
LARGE_B, LARGE_HORIZON_S = 50_000, 20.0
#: ns-2 prints times to the µs; a start computed as end − response time may fall this short.
_START_TOL_S = 5e-7


class ParseError(RuntimeError):
    """An ns-2 run whose output is missing or malformed (the message names the file)."""


def nearest_rank(sorted_values: np.ndarray, q: float) -> float:
    """The q-quantile by nearest rank ⌈q·n⌉ (aqmlab's summary rule); NaN when empty."""
    n = len(sorted_values)
    if n == 0:
        return math.nan
    return float(sorted_values[min(max(math.ceil(q * n), 1), n) - 1])


def _columns(path: Path, ncols: int) -> np.ndarray:
    """The first `ncols` whitespace columns of a numeric file ('#' lines skipped)."""
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, start=1):
                if not line.strip() or line.startswith("#"):
                    continue
                parts = line.split()
                if len(parts) < ncols:
                    raise ParseError(f"{path}: line {i}: want {ncols} columns, got {len(parts)}")
                try:
                    rows.append([float(v) for v in parts[:ncols]])
                except ValueError:
                    raise ParseError(f"{path}: line {i}: not numbers: {line.strip()!r}") from None
    except OSError as e:
        raise ParseError(f"{path}: cannot read: {e.strerror}") from None
    return np.array(rows, dtype=np.float64).reshape(-1, ncols)


def links(stdout: str, where: str) -> dict[str, dict[str, float]]:
    """The `link dir=…` lines of the script's stdout, by direction."""
    out: dict[str, dict[str, float]] = {}
    for line in stdout.splitlines():
        if line.startswith("link "):
            try:
                kv = dict(p.split("=", 1) for p in line.split()[1:])
                d = kv.pop("dir")
                out[d] = {k: float(v) for k, v in kv.items()}
            except ValueError:
                raise ParseError(f"{where}: bad link line {line!r}") from None
    if set(out) != set(DIRS):
        raise ParseError(f"{where}: no link line for each of fwd and rev")
    return out


def metrics(run_dir: Path, stdout: str, warmup_s: float, measured_s: float,
            bottleneck_bps: int) -> dict[str, float]:  # fmt: skip
    """Every column of one run (names as aqmlab's summary and weigle2006's run columns)."""
    lk = links(stdout, f"{run_dir}/stdout.txt")["fwd"]
    end_s = warmup_s + measured_s
    rts, large_done = [], []
    large_started = 0
    for d in DIRS:
        rt = _columns(run_dir / f"rt_{d}.dat", 4)  # end_s, request B, response B, rt ms
        start = rt[:, 0] - rt[:, 3] / 1000.0
        rt = rt[start >= warmup_s - _START_TOL_S]
        start = start[start >= warmup_s - _START_TOL_S]
        rts.append(rt[:, 3])
        horizon = start <= end_s - LARGE_HORIZON_S
        large_done.append(rt[(rt[:, 2] > LARGE_B) & horizon, 3])
        rq = _columns(run_dir / f"req_{d}.dat", 3)  # start_s, request B, response B
        in_window = (rq[:, 0] >= warmup_s) & (rq[:, 0] <= end_s - LARGE_HORIZON_S)
        large_started += int(((rq[:, 2] > LARGE_B) & in_window).sum())
    rt_ms = np.sort(np.concatenate(rts))
    n = len(rt_ms)
    conns = _columns(run_dir / "conns.dat", 8)  # fid dir start closed crx srx cto sto
    conns = conns[conns[:, 2] >= warmup_s]
    drops = lk["drops"]
    out = {
        "measured_s": measured_s,
        "kb_per_s": lk["bytes"] / 1000.0 / measured_s,
        "utilization": lk["bytes"] * 8.0 / measured_s / bottleneck_bps,
        "arrivals": lk["arrivals"],
        "drops": drops,
        "drops_pct": 100.0 * drops / lk["arrivals"] if lk["arrivals"] else 0.0,
        "unforced_pct": 100.0 * lk["early_drops"] / drops if drops else 0.0,
        "forced_pct": 100.0 * (drops - lk["early_drops"]) / drops if drops else 0.0,
        "marks": lk["marks"],
        "mean_qlen": lk["mean_q"],
        "max_qlen": lk["max_q"],
        "responses_started": float(len(conns)),
        "responses_completed": float(n),
        "mean_rt_ms": float(rt_ms.mean()) if n else math.nan,
        **{k: nearest_rank(rt_ms, q) for k, q in QUANTILES.items()},
        "pct_le_1s": 100.0 * float((rt_ms <= 1000.0).sum()) / n if n else 0.0,
        "pct_1_2s": 100.0 * float(((rt_ms > 1000.0) & (rt_ms <= 2000.0)).sum()) / n if n else 0.0,
        "pct_2_3s": 100.0 * float(((rt_ms > 2000.0) & (rt_ms <= 3000.0)).sum()) / n if n else 0.0,
        "pct_gt_3s": 100.0 * float((rt_ms > 3000.0).sum()) / n if n else 0.0,
        "pct_flows_with_drops": (
            100.0 * float(((conns[:, 4] + conns[:, 5]) > 0).mean()) if len(conns) else math.nan
        ),
    }
    done = np.sort(np.concatenate(large_done))
    left = max(large_started - len(done), 0)
    out["large_n"] = float(large_started)
    out["large_median_rt_ms"] = censored_quantile(done, left, 0.5)
    out["large_p90_rt_ms"] = censored_quantile(done, left, 0.9)
    return out
