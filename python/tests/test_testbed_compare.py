"""The testbed-against-simulator comparison (aqmlab.testbed.compare, issue 33 item 3) on run
directories made by hand, and the scenario files of that comparison (scenarios/testbed/): the
seed-001 twin files, which restate the twin's [tcp] keys, run exactly as `[tcp] profile =
"linux"` with their variant and nothing else. No root needed for these.

As root (skipped otherwise, but required under CI, as tests/test_testbed.py): one Linux BBR
flow on the testbed against the simulator's (scenarios/bbr_long_flow.toml), utilisation
within the comparison's bound."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from aqmlab import _core
from aqmlab.engine import api
from aqmlab.testbed import run as testbed
from aqmlab.testbed.compare import Bounds, compare, main

REPO = Path(__file__).resolve().parents[2]
S = 1_000_000_000


def write_run(d: Path, rts_s: list[float], *, warmup_s: int, utilization: float, drops_pct: float) -> Path:
    """A run directory with one completed HTTP record per response time, started after the
    warm-up, plus one record started in the warm-up and one not completed (neither counts)."""
    d.mkdir(parents=True)
    starts = [warmup_s * S + i * S for i in range(len(rts_s))]
    rows = [("http", t, t + round(rt * S), True) for t, rt in zip(starts, rts_s, strict=True)]
    rows.append(("http", 0, 100 * S, True))  # started in the warm-up: 100 s, not counted
    rows.append(("http", warmup_s * S, 200 * S, False))  # not completed: not counted
    df = pd.DataFrame(rows, columns=["kind", "start_ns", "end_ns", "completed"])
    df.to_parquet(d / "requests.parquet")
    (d / "run.json").write_text(json.dumps({"warmup_ns": warmup_s * S}))
    summary = {"measured_s": 60.0, "utilization": utilization, "drops_pct": drops_pct, "arrivals": 1000}
    (d / "summary.json").write_text(json.dumps(summary))
    return d


def test_figures_and_bounds_of_a_hand_made_pair(tmp_path):
    # testbed {1, 2, 3, 4} s, simulator {2, 3, 4, 5} s: medians 2.5 and 3.5 s (−28.6 %); the
    # CDFs differ by 1/4 on [1, 2), [2, 3), … : KS 0.25. Utilisation 0.90 / 0.88 = +2.27 %.
    tb = write_run(tmp_path / "tb", [1, 2, 3, 4], warmup_s=10, utilization=0.90, drops_pct=4.0)
    sim = write_run(tmp_path / "sim", [2, 3, 4, 5], warmup_s=10, utilization=0.88, drops_pct=2.0)
    c = compare(tb, sim)
    assert c.testbed.median_ms == pytest.approx(2500.0)
    assert c.sim.median_ms == pytest.approx(3500.0)
    assert c.testbed.responses == 4  # the warm-up record and the incomplete one left out
    assert c.median_rel == pytest.approx(2.5 / 3.5 - 1)
    # numpy's linear quantile: position 0.9 × 3 = 2.7 between the 3rd and 4th values
    assert c.testbed.p90_ms == pytest.approx(3700.0)
    assert c.ks == pytest.approx(0.25)
    assert c.util_rel == pytest.approx(0.90 / 0.88 - 1)
    assert c.beyond_bounds() == ["median", "ks", "utilization"]
    row = "| x | 2500 / 3500 (-28.6 %) | 3700 / 4700 | 0.250 | 0.900 / 0.880 (+2.3 %) | 4.00 / 2.00 |"
    assert c.row("x") == row


def test_a_pair_within_the_bounds(tmp_path):
    # 20 values each, one in twenty moved by 5 %: KS 1/20 = 0.05 (the bound itself), medians
    # equal, utilisation 0.895 / 0.903 = −0.89 %.
    base = [0.1 * (i + 1) for i in range(20)]
    moved = base[:19] + [base[19] * 1.05]
    tb = write_run(tmp_path / "tb", moved, warmup_s=1, utilization=0.895, drops_pct=1.0)
    sim = write_run(tmp_path / "sim", base, warmup_s=1, utilization=0.903, drops_pct=1.0)
    c = compare(tb, sim, Bounds())
    assert c.ks == pytest.approx(0.05)
    assert c.median_rel == pytest.approx(0.0)
    assert c.beyond_bounds() == []
    assert compare(tb, sim, Bounds(ks=0.049)).beyond_bounds() == ["ks"]


def test_cli_prints_the_row_and_a_one_line_error(tmp_path, capsys):
    tb = write_run(tmp_path / "tb", [1, 2, 3, 4], warmup_s=10, utilization=0.90, drops_pct=4.0)
    sim = write_run(tmp_path / "sim", [1, 2, 3, 4], warmup_s=10, utilization=0.90, drops_pct=4.0)
    assert main([str(tb), str(sim)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "beyond the bounds: none"
    assert main([str(tb), str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing" in err


@pytest.mark.parametrize("queue", ["dt", "ared"])
@pytest.mark.parametrize("variant,cc", [("cubic", "cubic_sack"), ("bbr", "bbr")])
def test_twin_linux_files_run_as_the_bare_linux_profile(queue, variant, cc):
    """scenarios/testbed/seed001_{queue}_80_linux_{variant}.toml against the twin with its whole
    [tcp] table replaced by `profile = "linux"` + variant: the same simulation, byte for byte
    (20 s warm-up + 20 s)."""
    name = f"seed001_{queue}_80_linux_{variant}"
    path = REPO / "scenarios" / "testbed" / f"{name}.toml"
    text, base_dir = _core.read_scenario(str(path))
    linux_file = _core.scenario_document(text, str(path), base_dir)
    twin = REPO / "scenarios" / "ns2-twin" / f"seed001_{queue}_80.toml"
    text, base_dir = _core.read_scenario(str(twin))
    bare = _core.scenario_document(text, str(twin), base_dir)
    assert bare["tcp"]["variant"] == "reno"  # the twin's own TCP, replaced wholesale below
    bare["tcp"] = {"profile": "linux", "variant": cc}
    for doc in (linux_file, bare):
        doc["run"] = {**doc["run"], "warmup": "20s", "duration": "20s"}
    a = next(iter(api.run(linux_file).values()))
    b = next(iter(api.run(bare).values()))
    assert a.summary_json == b.summary_json
    assert a.requests.equals(b.requests)
    assert a.engine["packets_created"] == b.engine["packets_created"] > 0


def host_has_bbr() -> bool:
    try:
        text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    except OSError:
        return False
    return "bbr" in text.split()


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 and not os.environ.get("CI"), reason="the testbed needs root (network namespaces)"
)


@needs_root
@pytest.mark.skipif(not host_has_bbr(), reason="the host's kernel has no tcp_bbr")
def test_one_bbr_flow_keeps_the_link_as_busy_as_the_simulators(tmp_path):
    """scenarios/bbr_long_flow.toml, drop-tail 1000 packets, 5 s warm-up + 10 s: a Linux BBR flow
    through the router and the simulator's BBR flow both keep the 10 Mbps bottleneck ≥ 95 %
    busy with no drop, and their utilisations agree within the comparison's 2 % (docs/testbed.md,
    "One BBR flow": 0.9773 / 0.9771 over 30 s)."""
    scen = REPO / "scenarios" / "bbr_long_flow.toml"
    out = tmp_path / "tb"
    r = subprocess.run(
        [str(testbed.find_binary()), str(scen), "--out", str(out), "--variant", "droptail"]
        + ["--duration", "10s", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    text, base_dir = _core.read_scenario(str(scen))
    doc = _core.scenario_document(text, str(scen), base_dir)
    doc["run"] = {**doc["run"], "duration": "10s"}
    api.run(doc, variant="droptail", out=tmp_path / "sim")
    tb = json.loads((out / "droptail" / "summary.json").read_text())
    sim = json.loads((tmp_path / "sim" / "droptail" / "summary.json").read_text())
    assert tb["drops"] == sim["drops"] == 0
    assert tb["utilization"] >= 0.95 and sim["utilization"] >= 0.95
    assert abs(tb["utilization"] / sim["utilization"] - 1) <= Bounds().util_rel
