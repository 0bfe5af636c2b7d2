"""Per-flow throughput of the modern study's long-lived flows (issue 33 item 4), from pcaps.

A run's tables have no per-flow byte counts for a bulk flow that never ends, so the study's
coexistence and RTT-fairness files give each long flow its own server and write a pcap of each
server's access link (`[monitor] pcap = ["server0_up", "server1_up"]`, docs/scenarios.md,
"pcaps"): every record is a packet the link sent, `orig_len` its wire size in bytes, stamped in
nanoseconds when it reaches the link's far end. A flow's wire rate over the measured window is
the sum of `orig_len` of the records stamped in [warm-up, end) divided by the window.

- `wire_bytes(pcap, start_ns, end_ns)`: that sum (bytes);
- `jain(rates)`: Jain's fairness index (Σx)² / (n·Σx²), 1 = equal shares, 1/n = one flow has all
  (Jain, Chiu & Hawe 1984, DEC-TR-301, eq. 1);
- `flow_columns(run_dir, links)`: the per-run columns `flow0_mbps`, `flow1_mbps` (Mbit/s, 10⁶),
  `ratio` (flow 0 / flow 1) and `jain`.

Validation: python/tests/test_study_modern.py (hand-made pcaps, hand-computed indices).
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Sequence
from pathlib import Path

#: Magic numbers of a pcap file with nanosecond (0xa1b23c4d) or microsecond (0xa1b2c3d4)
#: timestamps, as the first four bytes read in the file's own byte order.
_NS_MAGIC, _US_MAGIC = 0xA1B23C4D, 0xA1B2C3D4
_GLOBAL_HEADER = 24
_RECORD = struct.Struct("IIII")  # ts_sec, ts_frac, incl_len, orig_len
#: Per-run columns of `flow_columns`.
FLOW_COLUMNS = ("flow0_mbps", "flow1_mbps", "ratio", "jain")


class PcapError(ValueError):
    """A file that is not a pcap this module reads: `FILE: reason`."""


def wire_bytes(pcap: str | os.PathLike, start_ns: int, end_ns: int) -> int:
    """Sum of `orig_len` (bytes) over the records of `pcap` stamped in [start_ns, end_ns)."""
    data = Path(pcap).read_bytes()
    if len(data) < _GLOBAL_HEADER:
        raise PcapError(f"{pcap}: shorter than a pcap header")
    order = next((o for o in "<>" if struct.unpack_from(f"{o}I", data, 0)[0] in (_NS_MAGIC, _US_MAGIC)), None)
    if order is None:
        raise PcapError(f"{pcap}: not a pcap file (magic {data[:4].hex()})")
    frac_ns = 1 if struct.unpack_from(f"{order}I", data, 0)[0] == _NS_MAGIC else 1000
    rec = struct.Struct(order + _RECORD.format)
    total, off = 0, _GLOBAL_HEADER
    while off < len(data):
        if off + rec.size > len(data):
            raise PcapError(f"{pcap}: truncated record header at byte {off}")
        sec, frac, incl, orig = rec.unpack_from(data, off)
        t = sec * 1_000_000_000 + frac * frac_ns
        if start_ns <= t < end_ns:
            total += orig
        off += rec.size + incl
    if off != len(data):
        raise PcapError(f"{pcap}: truncated record at the end")
    return total


def jain(rates: Sequence[float]) -> float:
    """Jain's fairness index of `rates`: (Σx)² / (n·Σx²); NaN if all are 0 or there are none."""
    s, s2 = sum(rates), sum(x * x for x in rates)
    return math.nan if not rates or s2 == 0 else s * s / (len(rates) * s2)


def flow_columns(run_dir: str | os.PathLike, links: Sequence[str] = ("server0_up", "server1_up")) -> dict:
    """FLOW_COLUMNS of one run directory: each flow's wire rate over the measured window (from
    run.json's `warmup_ns` to its engine `end_ns`) from `<link>.pcap` of `links` (flow 0, flow 1),
    their ratio (NaN if flow 1 sent nothing) and Jain index."""
    d = Path(run_dir)
    run = json.loads((d / "run.json").read_text(encoding="utf-8"))
    start, end = int(run["warmup_ns"]), int(run["engine"]["end_ns"])
    secs = (end - start) / 1e9
    mbps = [wire_bytes(d / f"{link}.pcap", start, end) * 8 / secs / 1e6 for link in links]
    return {
        "flow0_mbps": mbps[0],
        "flow1_mbps": mbps[1],
        "ratio": mbps[0] / mbps[1] if mbps[1] > 0 else math.nan,
        "jain": jain(mbps),
    }
