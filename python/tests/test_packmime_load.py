"""aqmlab.studies.packmime_load: per-run counts by hand, the control-packet interval, the
expected wire bytes from the core's quadrature, the fixed point of the load rule."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from aqmlab import _core
from aqmlab.studies import packmime_load as pl

S = 10**9


def _run() -> SimpleNamespace:
    # Warm-up 10 s. Link intervals end at t_ns; those ending at or before the warm-up and the
    # access links are not counted.
    links = pd.DataFrame(
        [
            ("bottleneck_fwd", 10 * S, 999_999, 999),  # the warm-up interval
            ("bottleneck_fwd", 11 * S, 12_000, 20),
            ("bottleneck_rev", 11 * S, 3_000, 15),
            ("access_c0", 11 * S, 50_000, 50),
        ],
        columns=["link", "t_ns", "bytes", "packets"],
    )
    requests = pd.DataFrame(
        [
            # 300 B request (1 segment), 2841 B response (3 segments of 1420 B)
            dict(start_ns=10 * S, request_bytes=300, response_bytes=2841, completed=True),
            # 1 B request, 1420 B response: 1 + 1 segments
            dict(start_ns=10 * S + 5, request_bytes=1, response_bytes=1420, completed=True),
            # not finished: 100 B + 5000 B, 1 + 4 segments
            dict(start_ns=10 * S + 9, request_bytes=100, response_bytes=5000, completed=False),
            # before the warm-up: not counted
            dict(start_ns=9 * S, request_bytes=7, response_bytes=7, completed=True),
        ]
    )
    return SimpleNamespace(links=links, requests=requests, warmup_ns=10 * S)


def test_run_counts_by_hand():
    c = pl.run_counts(_run(), 1420.0)
    payload = 300 + 2841 + 1 + 1420 + 100 + 5000  # 9662
    segs = 4 + 2 + 5  # 11
    assert c["connections"] == 3 and c["payload_bytes"] == payload and c["data_segments"] == segs
    assert c["wire_bytes"] == 15_000 and c["packets"] == 35
    assert c["unfinished_share"] == pytest.approx(5100 / payload)
    assert c["control_packets"] == pytest.approx((35 - 2 * 11) / 3)
    assert c["overhead_bytes"] == pytest.approx((15_000 - payload) / 3)
    assert c["wire_per_conn"] == pytest.approx(5000.0)
    assert c["capped_payload_per_conn"] == pytest.approx(payload / 3)  # nothing above 1 MB


def test_control_packets_interval_leaves_out_runs_with_unsent_data():
    counts = pd.DataFrame(
        {"control_packets": [5.0, 5.1, 5.2, 2.0], "unfinished_share": [0.0, 0.005, 0.01, 0.2]}
    )
    ci, kept = pl.control_packets(counts)
    # mean 5.1, sd 0.1, t(0.975, 2) = 4.302653: half width 4.302653 · 0.1 / √3
    assert ci.n == 3 and ci.mean == pytest.approx(5.1)
    assert ci.half == pytest.approx(4.302653 * 0.1 / math.sqrt(3), rel=1e-6)
    assert list(kept.index) == [0, 1, 2]
    with pytest.raises(ValueError, match="no run with unfinished share"):
        pl.control_packets(counts.iloc[[3]])


def test_expected_wire_bytes_from_the_quadrature():
    # The payload at rate 101 is the Rust test's quadrature (validation/ns2/packmime/README.md:
    # 583.8 request + 8630.3 response = 9214.1 B with aqmlab's uniforms).
    e = _core.packmime_expectation(101.0, 1420.0)
    assert e["request_bytes"] == pytest.approx(583.8, abs=0.05)
    assert e["response_bytes"] == pytest.approx(8630.3, abs=0.05)
    w = pl.expected_wire_bytes(101.0, 1420.0, 5.0)
    assert w["payload"] == pytest.approx(9214.1, abs=0.05)
    assert w["overhead"] == pytest.approx(40 * (5.0 + 2 * e["data_segments"]))
    assert w["wire"] == pytest.approx(w["payload"] + w["overhead"])
    # More segments than ⌈mean size / MSS⌉ would give, fewer than one per 1000 B (Jensen, ceiling).
    assert math.ceil(9214.1 / 1420) - 1 < e["data_segments"] < 9214.1 / 1000 + 2
    # Capped at 1 MB: the ns-2 measurement's capped mean (6968.8 ± 13.2 at rate 101, 30 runs)
    # is a response mean: within 4 standard errors.
    capped = _core.packmime_expectation(101.0, 1420.0, cap=1e6)
    assert capped["response_bytes"] == pytest.approx(6968.8, abs=4 * 13.2)
    with pytest.raises(ValueError, match="rate 0"):
        _core.packmime_expectation(0.0, 1420.0)
    with pytest.raises(ValueError, match="tail_floor"):
        _core.packmime_expectation(100.0, 1420.0, tail_floor=1.0)


def test_rate_per_unit_load_is_the_fixed_point():
    x = pl.rate_per_unit_load(10e6, 1420.0, 5.075)
    w = pl.expected_wire_bytes(x, 1420.0, 5.075)["wire"]
    assert x * 8 * w == pytest.approx(10e6, rel=1e-6)
    # twice the capacity, twice the rate (W depends on x only through the cache share)
    assert pl.rate_per_unit_load(20e6, 1420.0, 5.075) == pytest.approx(2 * x, rel=1e-3)


def test_typical_sample_payload_cuts_the_tail():
    full = _core.packmime_expectation(120.0, 1420.0)["payload_bytes"]
    # 2⁵³ downloads reach aqmlab's own cut: the full expectation
    assert pl.typical_sample_payload(120.0, 1420.0, 2.0**53) == pytest.approx(full, rel=1e-12)
    few, many = (pl.typical_sample_payload(120.0, 1420.0, n) for n in (1e4, 1e6))
    assert few < many < full
    with pytest.raises(ValueError, match="downloads"):
        pl.typical_sample_payload(120.0, 1420.0, 1.0)
