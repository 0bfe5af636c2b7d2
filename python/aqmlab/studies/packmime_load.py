"""Offered load of two-way PackMime HTTP/1.0 from the model's expectation (issue 34, item 4).

The seed 001 rule (§5.4) sets the connection rate x of both clouds so that each direction of an
uncongested bottleneck carries L · capacity. With both clouds at x, each direction carries one
whole connection's bytes (both directions of it) per connection of one cloud, so the rate per
unit of load is capacity / (8 · W), W the expected wire bytes of one connection:

    W(x) = E[payload](x) + H · (c + 2 · E[segments](x)),

- E[payload] and E[segments] = E[⌈request/MSS⌉ + ⌈response/MSS⌉]: quadrature of PackMime's
  inverse CDFs in the core (`aqmlab._core.packmime_expectation`,
  `traffic::packmime::expectation`); both depend on x only through the share of
  cache-validation responses;
- H = 40 B of IPv4 + TCP header per packet (no options: the presets run without timestamps);
- 2 per data segment: the segment and its ACK (the presets have no delayed ACKs);
- c: the other packets of a connection (handshake, FINs and their ACKs, pure ACKs of the
  requests' data), measured per run from uncongested runs (`control_packets`) with a 95 %
  interval over runs. It is light-tailed, unlike the payload: a finite run measures it well.

A run's own bytes per connection are not a calibration: responses have tail index ≈ 1.2, so the
mean of a run's draws has infinite variance and is skewed low (most runs never draw the sizes
that carry the mean's top ~15 %). `typical_sample_payload` gives the expectation over the sizes
a sample of n downloads reaches, which is where finite runs sit.

Validation: python/tests/test_packmime_load.py (hand-computed per-run counts, the fixed point,
the quadrature against the core's Rust tests).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.reports.stats import CI, t_ci

#: Bytes of IPv4 + TCP header per packet without TCP options (RFC 791, RFC 9293).
HEADER_BYTES = 40
#: A run whose unfinished connections hold more than this share of its payload is left out of
#: `control_packets`: their unsent segments would be counted as sent.
UNFINISHED_MAX_SHARE = 0.01
#: Size cap (bytes) of the light-tailed check: min(size, 1 MB) has a finite variance, so a run's
#: mean of it has a standard error (validation/ns2/packmime/README.md uses the same cap).
CAP_BYTES = 1_000_000


def run_counts(run, mss: float) -> dict[str, float]:
    """Per run (an aqmlab RunResult or loaded run) after its warm-up, from `links` (bottleneck
    links, both directions) and `requests` (connections whose first SYN is at or after the
    warm-up): `connections`, `payload_bytes`, `data_segments` (Σ ⌈request/mss⌉ +
    ⌈response/mss⌉), `wire_bytes`, `packets`, `unfinished_share` (payload share of the
    connections not completed), and per connection: `control_packets` = (packets − 2 · data
    segments) / connections, `overhead_bytes` = (wire − payload) / connections, `wire_per_conn`
    = wire / connections and `capped_payload_per_conn` (sizes capped at CAP_BYTES)."""
    links = run.links[(run.links["t_ns"] > run.warmup_ns) & run.links["link"].str.startswith("bottleneck_")]
    req = run.requests[run.requests["start_ns"] >= run.warmup_ns]
    size = req["request_bytes"].to_numpy(np.float64), req["response_bytes"].to_numpy(np.float64)
    payload = float(size[0].sum() + size[1].sum())
    segs = float(np.ceil(size[0] / mss).sum() + np.ceil(size[1] / mss).sum())
    left = ~req["completed"].astype(bool).to_numpy()
    n = len(req)
    wire, packets = float(links["bytes"].sum()), float(links["packets"].sum())
    return {
        "connections": n,
        "payload_bytes": payload,
        "data_segments": segs,
        "wire_bytes": wire,
        "packets": packets,
        "unfinished_share": float(size[0][left].sum() + size[1][left].sum()) / payload,
        "control_packets": (packets - 2 * segs) / n,
        "overhead_bytes": (wire - payload) / n,
        "wire_per_conn": wire / n,
        "capped_payload_per_conn": float(sum(np.minimum(v, CAP_BYTES).sum() for v in size)) / n,
    }


def sweep_counts(sweep_dir: str | Path, mss: float) -> pd.DataFrame:
    """`run_counts` of every ok run of a finished sweep (e.g. studies/weigle2006/
    calibration_equal_rates.toml), with its `seed`, its axes (`var.*`) and `measured_s`."""
    from aqmlab.storage.run_dir import load_run
    from aqmlab.sweeps.run import load_sweep

    d = Path(sweep_dir)
    table = load_sweep(d)
    rows = []
    for _, r in table[table["status"] == "ok"].iterrows():
        axes = {k: r[k] for k in table.columns if k.startswith("var.")}
        c = run_counts(load_run(d / "runs" / r["run"]), mss)
        rows.append({**axes, "seed": int(r["seed"]), "measured_s": float(r["measured_s"]), **c})
    return pd.DataFrame(rows)


def control_packets(counts: pd.DataFrame) -> tuple[CI, pd.DataFrame]:
    """Mean and 95 % interval over runs of the control packets per connection, over the runs
    of `counts` (`sweep_counts`) whose unfinished share is at most UNFINISHED_MAX_SHARE; and
    those runs."""
    kept = counts[counts["unfinished_share"] <= UNFINISHED_MAX_SHARE]
    if kept.empty:
        raise ValueError(f"no run with unfinished share <= {UNFINISHED_MAX_SHARE}")
    return t_ci(kept["control_packets"].to_numpy()), kept


def expected_wire_bytes(
    rate: float, mss: float, control: float, cap: float | None = None
) -> dict[str, float]:
    """W(rate) and its parts (bytes per connection, both directions): `payload`, `segments`
    (data segments), `overhead` = HEADER_BYTES · (control + 2 · segments), `wire`. `cap`: sizes
    capped at `cap` bytes (a light-tailed check)."""
    from aqmlab import _core

    e = _core.packmime_expectation(rate, mss, cap=cap)
    overhead = HEADER_BYTES * (control + 2 * e["data_segments"])
    return {
        "payload": e["payload_bytes"],
        "segments": e["data_segments"],
        "overhead": overhead,
        "wire": e["payload_bytes"] + overhead,
    }


def rate_per_unit_load(capacity_bps: float, mss: float, control: float) -> float:
    """Connections per second per unit of load, each cloud (two-way, equal rates): the fixed
    point x = capacity / (8 · W(x)) (W depends on x only through the cache-validation share:
    three steps from x = 100 settle it to < 1e-6)."""
    x = 100.0
    for _ in range(3):
        x = capacity_bps / (8 * expected_wire_bytes(x, mss, control)["wire"])
    return x


def typical_sample_payload(rate: float, mss: float, downloads: float) -> float:
    """Expected payload bytes per connection over the response sizes a sample of `downloads`
    download-state draws reaches (tail probabilities ≥ 1/downloads): the level about which
    finite runs' means sit (see the module doc)."""
    from aqmlab import _core

    if not (math.isfinite(downloads) and downloads > 1):
        raise ValueError(f"downloads: {downloads} must be a finite number > 1")
    return _core.packmime_expectation(rate, mss, tail_floor=1.0 / downloads)["payload_bytes"]
