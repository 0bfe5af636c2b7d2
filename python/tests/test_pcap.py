"""`[monitor] pcap` through the `aqmlab run` command (marker `engine`): the run directory gets
`bottleneck_fwd.pcap` and `bottleneck_rev.pcap` (LINKTYPE_RAW, nanosecond times, headers only),
the first record is connection 0's SYN at its hand-computed time, two runs write the same bytes,
and an unknown link name stops before anything runs with file, key and reason. The files are
read with `struct` here (tcpdump is not needed)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.engine

SCENARIO = """\
[run]
seed = 3
warmup = "0s"
duration = "2s"

[topology]
kind = "dumbbell"
clients = 2
servers = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "droptail"
limit = 30

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 20.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "200KB" }

[monitor]
pcap = [%s]
"""


def aqmlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args], capture_output=True, text=True, timeout=300
    )


def read_pcap(path: Path) -> tuple[int, list[tuple[int, int, bytes]]]:
    """(link type, [(time ns, orig_len, captured bytes)]) of a little-endian nanosecond pcap."""
    b = path.read_bytes()
    magic, major, minor, _, _, snaplen, linktype = struct.unpack_from("<IHHiIII", b, 0)
    assert (magic, major, minor, snaplen) == (0xA1B23C4D, 2, 4, 65535)
    recs, off = [], 24
    while off < len(b):
        sec, nsec, incl, orig = struct.unpack_from("<IIII", b, off)
        recs.append((sec * 10**9 + nsec, orig, b[off + 16 : off + 16 + incl]))
        off += 16 + incl
    assert off == len(b)
    return linktype, recs


def run(tmp_path: Path, links: str, out: str) -> tuple[subprocess.CompletedProcess, Path]:
    scen = tmp_path / "pcap.toml"
    scen.write_text(SCENARIO % links)
    return aqmlab("run", str(scen), "--out", str(tmp_path / out)), scen


def test_aqmlab_run_writes_one_pcap_per_direction(tmp_path):
    p, _ = run(tmp_path, '"bottleneck"', "a")
    assert p.returncode == 0, p.stderr
    d = tmp_path / "a" / "pcap"
    assert sorted(x.name for x in d.glob("*.pcap")) == ["bottleneck_fwd.pcap", "bottleneck_rev.pcap"]
    linktype, rev = read_pcap(d / "bottleneck_rev.pcap")
    assert linktype == 101  # LINKTYPE_RAW, as the testbed router writes
    _, fwd = read_pcap(d / "bottleneck_fwd.pcap")
    assert len(rev) > 50 and len(fwd) > 50
    # Connection 0's SYN leaves bottleneck_rev 3.2 µs + 1 ms (client uplink) + 32 µs + 10 ms
    # after the request started; 40 bytes, client 10.1.0.x port 1024 to server 10.2.0.y port 80.
    req = pd.read_parquet(d / "requests.parquet")
    first = req[req.conn_id == 0].iloc[0]
    t, orig, h = rev[0]
    assert t == first.start_ns + 11_035_200
    assert orig == len(h) == 40
    assert h[0] == 0x45 and h[9] == 6 and h[33] == 0x02
    assert h[12:16] == bytes([10, 1, 0, 10 + int(first.client)])
    assert h[16:20] == bytes([10, 2, 0, 10 + int(first.server)])
    assert struct.unpack_from(">HH", h, 20) == (1024, 80)
    # Headers only; orig_len is the IPv4 total length; time order.
    for recs in (rev, fwd):
        assert all(len(h) == 20 + (h[32] >> 4) * 4 for _, _, h in recs)
        assert all(o == struct.unpack_from(">H", h, 2)[0] for _, o, h in recs)
        assert all(a[0] <= b[0] for a, b in zip(recs, recs[1:], strict=False))
    # Same scenario and seed: the same bytes.
    p2, _ = run(tmp_path, '"bottleneck"', "b")
    assert p2.returncode == 0, p2.stderr
    for name in ("bottleneck_fwd.pcap", "bottleneck_rev.pcap"):
        assert (d / name).read_bytes() == (tmp_path / "b" / "pcap" / name).read_bytes()


def test_unknown_link_is_refused_before_anything_runs(tmp_path):
    p, scen = run(tmp_path, '"bottleneck", "client5"', "c")
    assert p.returncode == 2
    lines = p.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f'aqmlab: error: {scen}: monitor.pcap[1]: no link named "client5": expected a link name'
    )
    assert not (tmp_path / "c").exists()
