"""aqmlab.ns2grid.parkinglot: seed 002's sweep points (studies/weigle-multi) as runs of the seed
002 twin's ns-2 script (validation/ns2/parkinglot_twin/parkinglot.tcl), issue 34.

- The parameter file generated for the study's own quick-mode points, against values read by
  hand from studies/weigle-multi/table1_2cl.toml (router links 200 packets → limit_ 201, the
  AQM on the variant's links only, PI's byte mode and ECN, the six PackMime workloads and the two
  long-lived ones, window 43800 B / 1460 B = 30 segments) and REM under the ns2-rem-markpkts
  reading.
- ARED and REM as stated are refused with the reason, as are PI links with different
  parameters (ns-2 sets them per class).
- A short real ns-2.35 run of PI-DT (needs `ns`): PI sits on r1_r2 (its ECN marks; drop-tail
  never marks), and the parser's columns recomputed here from the script's raw output.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_ns2

from aqmlab.ns2grid import runner
from aqmlab.ns2grid.command import OUT, Refused
from aqmlab.ns2grid.grid import study_points
from aqmlab.ns2grid.parkinglot import parkinglot_metrics, parkinglot_point
from aqmlab.studies import load

ROOT = Path(__file__).resolve().parents[2]
STUDY_DIR = ROOT / "studies" / "weigle-multi"


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    return study_points(load("weigle-multi"), True, tmp_path_factory.mktemp("ns2grid-wm"))


@pytest.fixture(scope="module")
def markpkts_points(tmp_path_factory):
    out = tmp_path_factory.mktemp("ns2grid-wm-m")
    return study_points(load("weigle-multi"), True, out, "ns2-rem-markpkts")


def _point(points, variant: str):
    hits = [p for p in points if p.run.name == variant]
    assert len(hits) == 1, (variant, len(hits))
    return hits[0]


def _params(p) -> dict[str, str]:
    ((name, text),) = p.ns2.files
    assert p.ns2.args[-1] == name
    return dict(re.findall(r"^set P\((\w+)\) (.*)$", text, re.M))


def test_pi_dt_parameters_by_hand(points):
    p = _point(points, "PI-DT")
    # quick mode: seed 1, the 60 s warm-up kept, 150 s measured
    assert p.ns2.args[:5] == ("mix", "1", "60", "150", OUT)
    P = _params(p)
    assert P["link_queues"] == "{{r1_r2 pi} {r2_r1 pi}}"  # R1-R2 both ways; R3-R4 drop-tail
    assert (P["routers"], P["link_bps"], P["congested"]) == ("9", "10000000", "r1_r2")
    assert P["link_delay"] == "0.001"
    assert (P["router_limit"], P["access_limit"]) == ("201", "1001")  # 200 and 1000 waiting
    assert (P["mss"], P["iw"], P["window"], P["ecn"]) == ("1460", "2", "30", "1")
    assert {k: P[k] for k in ("pi_qref", "pi_limit", "pi_mean_pktsize", "pi_bytes",
                              "pi_queue_in_bytes", "pi_setbit", "pi_a", "pi_b", "pi_w")} == {
        "pi_qref": "20", "pi_limit": "200", "pi_mean_pktsize": "615", "pi_bytes": "true",
        "pi_queue_in_bytes": "true", "pi_setbit": "true", "pi_a": "1.822e-05", "pi_b": "1.816e-05",
        "pi_w": "170"}  # fmt: skip
    # workload index, client cloud, server cloud, rate: e2e both ways, cross traffic at R1 and R3
    assert P["http"] == ("{{0 http_right http_left 50} {1 http_left http_right 50} "
                         "{4 cross1_out cross1_in 50} {5 cross1_in cross1_out 50} "
                         "{6 cross3_out cross3_in 50} {7 cross3_in cross3_out 50}}")  # fmt: skip
    ten = " ".join(["{0 0} {1 1}"] * 5)
    assert P["bulk"] == f"{{{{2 bulk_right bulk_left 50 {{{ten}}}}} {{3 bulk_left bulk_right 50 {{{ten}}}}}}}"
    assert "{cross3_out 4 2 4000000 0.001}" in P["clouds"]


def test_rem_runs_with_markpkts_under_the_reading(markpkts_points, points):
    P = _params(_point(markpkts_points, "DT-REM"))
    assert P["link_queues"] == "{{r3_r4 rem} {r4_r3 rem}}"
    assert (P["rem_pbo"], P["rem_limit"], P["rem_mean_pktsize"], P["rem_qib"], P["rem_markpkts"]) == (
        "20", "200", "615", "true", "true")  # fmt: skip
    # DT-DT is the same run in both readings (nothing REM in it)
    assert _point(markpkts_points, "DT-DT").ns2.key() == _point(points, "DT-DT").ns2.key()
    # as stated: 14 DT/PI mixes run; with the reading the 11 REM mixes too
    assert sum(p.ns2 is not None for p in points) == 14
    assert sum(p.ns2 is not None for p in markpkts_points) == 25


def test_ared_and_stated_rem_are_refused_with_the_reason(points):
    a = _point(points, "DT-ARED")
    assert a.refused.startswith("refused: table1_2cl.toml: topology.link_queue.r3_r4.kind = 'ared': "
                                "parkinglot.tcl has no RED queue, and the study's ARED+ECN rule")  # fmt: skip
    r = _point(points, "REM-DT")
    assert r.refused.startswith("refused: table1_2cl.toml: topology.link_queue.r1_r2.ecn = true: ecn = "
                                "true is RFC 3168 REM")  # fmt: skip


def test_pi_links_with_different_parameters_are_refused(points):
    d = copy.deepcopy(_point(points, "PI-PI").run.doc)
    d["variant"][0]["topology"]["link_queue"]["r3_r4"]["q_ref"] = 40
    with pytest.raises(Refused, match=r"r3_r4: its PI parameters differ from another link's; ns-2 sets "
                                      r"qref_ for the whole Queue/PI class"):  # fmt: skip
        parkinglot_point(d, STUDY_DIR)


def test_a_long_lived_flow_not_at_the_warmup_is_refused(points):
    d = copy.deepcopy(_point(points, "DT-DT").run.doc)
    d["workload"][2]["flows"][0]["start"] = "70s"
    with pytest.raises(Refused) as e:
        parkinglot_point(d, STUDY_DIR)
    assert str(e.value) == ("workload[2].flows[0].start = '70s': parkinglot.tcl starts long-lived flows "
                            "at the warm-up")  # fmt: skip


@needs_ns2
def test_short_ns2_run_of_pi_dt(points, tmp_path):
    # PI-DT (2CL) cut to 5 s of warm-up + 10 s
    p = _point(points, "PI-DT").ns2
    a = list(p.args)
    a[2], a[3] = "5", "10"
    # (the script starts the long-lived flows at its warm-up argument)
    p = dataclasses.replace(p, args=tuple(a), warmup_s=5.0, measured_s=10.0)
    runs = tmp_path / "runs"
    assert runner.run_all(runs, [p], jobs=1) == {p.key(): None}
    out = runner.stdout_of(runs, p)
    m = parkinglot_metrics(runs / p.key(), out, p)
    kv = {}
    for ln in out.splitlines():
        f = ln.split()
        d = dict(x.split("=") for x in f[1:])
        kv[f[0] + d.get("dir", "") + d.get("wl", "")] = d
    assert int(kv["linkfwd"]["marks"]) > 0  # PI with ECN on r1_r2 marks; drop-tail never does
    assert int(kv["linkrev"]["marks"]) > 0  # and on r2_r1
    n = (int(kv["ll"]["bytes"]) - 40 * int(kv["ll"]["packets"])) / 1460  # data segments on r7 → r8
    assert m["ll_goodput_kbps"] == pytest.approx(n * 1460 * 8 / 10 / 1000)
    assert m["ll_goodput_kbps"] > 100  # 10 flows behind 1 Mb/s access links
    retx = int(kv["bulk2"]["retx_bytes"]) / 1460
    assert m["ll_loss_pct"] == pytest.approx(100 * retx / (n + retx))
    rt = np.loadtxt(runs / p.key() / "rt.dat", usecols=(0, 3), ndmin=2)
    ms = rt[rt[:, 0] - rt[:, 1] / 1000 >= 5 - 1e-6, 1]
    assert m["e2e_responses"] == len(ms) > 50  # ≈ 50 exchanges/s for 10 s
    assert m["e2e_median_rt_ms"] == pytest.approx(float(np.median(ms)))
    assert m["e2e_pct_le_1s"] == pytest.approx(100 * float(np.mean(ms <= 1000)))
    assert math.isnan(m["http_loss_pct"])
