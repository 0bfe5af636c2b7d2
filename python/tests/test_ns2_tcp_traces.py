"""ns-2.35 itself still prints the packet sequences that crates/tcp/tests/ns2_fulltcp_persistent.rs
holds aqmlab to (the fixture crates/tcp/tests/data/ns2_fulltcp_persistent.txt, written by
validation/ns2/tcp_fulltcp_persistent.sh): two HTTP/1.1-style exchanges on one Full-TCP
connection. Skips only without `ns` (in CI, test.sh installs it and a missing `ns` fails)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import needs_ns2

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "crates" / "tcp" / "tests" / "data" / "ns2_fulltcp_persistent.txt"
SCRIPT = ROOT / "validation" / "ns2" / "tcp_fulltcp_persistent.sh"


@needs_ns2
def test_ns2_prints_the_fixture():
    out = subprocess.run([str(SCRIPT)], capture_output=True, text=True, check=True, timeout=120).stdout
    assert out == FIXTURE.read_text()
    # a sequence that could be wrong: three cases, and in the first the server's three
    # segments at 170 ms (ns-2's window counts segments)
    cases = out.split("case ")[1:]
    assert len(cases) == 3
    assert sum(1 for line in cases[0].splitlines() if line.startswith("170 S ")) == 3
