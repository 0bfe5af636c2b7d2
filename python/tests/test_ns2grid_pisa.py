"""aqmlab.ns2grid.pisa: seed 003's sweep points as runs of the seed 003 twin's ns-2 script
(validation/ns2/pisa_twin/standard.tcl), issue 34.

- The options generated for the study's own quick-mode points, against values read by hand from
  studies/pisa/*.toml (hosts, rates, delays, buffers as ns-2 limit_ values, PI's constants, TCP,
  the three workloads) and the per-client delays of the RTT-group sweep (half the extra RTT of
  rtt_ftp200.csv each way).
- PISA and PIMC rows, and settings the script has no option for, are refused with the key and
  the reason; the script itself rejects an unknown option.
- A short real ns-2.35 run of a point (needs `ns`), whose columns are recomputed here from the
  script's raw output with independent code.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_ns2

from aqmlab.ns2grid import runner
from aqmlab.ns2grid.command import Refused
from aqmlab.ns2grid.grid import study_points
from aqmlab.ns2grid.pisa import SCRIPT, pisa_metrics, pisa_point
from aqmlab.studies import load

ROOT = Path(__file__).resolve().parents[2]
STUDY_DIR = ROOT / "studies" / "pisa"


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    return study_points(load("pisa"), True, tmp_path_factory.mktemp("ns2grid-pisa"))


def _point(points, table: str, variant: str, replication: int = 0):
    hits = [p for p in points if p.table == table and p.run.name == variant
            and p.run.replication == replication]  # fmt: skip
    assert len(hits) == 1, (table, variant, replication, len(hits))
    return hits[0]


def _opts(args) -> tuple[list[str], dict[str, str]]:
    """The five positional arguments, then the -NAME VALUE options."""
    a = list(args)
    pos, rest = a[:5], a[5:]
    assert len(rest) % 2 == 0
    return pos, dict(zip(rest[0::2], rest[1::2], strict=True))


# Every standard.toml point (read by hand): 111 hosts per side, 35 / 30 Mbps access, 45 ms
# access and 10 ms bottleneck delay, 10 Mbps; access queues 1000 waiting → limit_ 1001, reverse
# drop-tail 800 → 801; NewReno mss 1000 B, IW 1, aqmlab's defaults for the rest (65535 B = 65
# segments, RTO 1 / 3 / 60 s, 10 ms tick, 3 dupACKs); 10 FTP flows on hosts 100-109 (10 GB:
# more than the script's 2e9, so 2e9), 100 web flows with the §4.7 Pareto (1.2, 10 KB, 1 KB,
# 2 MB, 0.5 s off), a 1 Mbps CBR of 1000 B packets on host 110.
STANDARD = {"-hosts": "111", "-client_access_bps": "35000000", "-server_access_bps": "30000000",
            "-access_delay": "0.045", "-bottleneck_bps": "10000000", "-bottleneck_delay": "0.01",
            "-access_limit": "1001", "-reverse_limit": "801", "-mss": "1000", "-iw": "1",
            "-window": "65", "-min_rto": "1", "-initial_rto": "3", "-max_rto": "60", "-tick": "0.01",
            "-dupack_threshold": "3", "-ftp_flows": "10", "-ftp_first_host": "100",
            "-ftp_bytes": "2000000000", "-web_flows": "100", "-web_shape": "1.2",
            "-web_mean": "10000", "-web_min": "1000", "-web_max": "2000000", "-web_off": "0.5",
            "-cbr_host": "110", "-cbr_bps": "1000000", "-cbr_size": "1000"}  # fmt: skip
PI = {"-pi_a": "1.822e-05", "-pi_b": "1.816e-05", "-pi_w": "170", "-pi_qref": "200", "-pi_limit": "800"}


def test_standard_pi_and_droptail_options_by_hand(points):
    pos, o = _opts(_point(points, "5.2", "pi", 1).ns2.args)
    # quick mode: 2 replications (seeds 1, 2), the thesis's 500 s from t = 0
    assert pos == ["2", "500", "pi", "{out}", "0"]
    assert o == {**STANDARD, **PI}
    pos, o = _opts(_point(points, "5.1", "droptail").ns2.args)
    assert pos == ["1", "500", "droptail", "{out}", "0"]
    assert o == {**STANDARD, "-droptail_limit": "801"}  # 800 waiting: ns-2's limit_ 801


def test_other_tables_options_by_hand(points):
    _, o = _opts(_point(points, "5.8", "pi").ns2.args)  # bw5.toml: 5 Mbps, q_ref 80, 320 packets
    assert o == {**STANDARD, **PI, "-bottleneck_bps": "5000000", "-pi_qref": "80", "-pi_limit": "320"}
    _, o = _opts(_point(points, "5.6", "droptail").ns2.args)  # ftp50: 151 hosts, 50 FTP, CBR on 150
    assert o == {**STANDARD, "-hosts": "151", "-ftp_flows": "50", "-cbr_host": "150",
                 "-droptail_limit": "801"}  # fmt: skip


def test_rtt_groups_become_per_client_delays(points):
    p = _point(points, "5.10", "pi").ns2
    _, o = _opts(p.args)
    files = dict(p.files)
    assert o == {**STANDARD, **PI, "-client_delays": o["-client_delays"]}
    delays = [float(x) for x in files[o["-client_delays"]].split()]
    # §5.7 groups: web flow f has an extra RTT of 200 · (f // 10) ms, half of it each way;
    # FTP hosts (FTP RTT 200 ms) and the CBR host none.
    assert len(delays) == 111
    assert delays[0] == delays[9] == 0 and delays[10] == 0.1 and delays[99] == 0.9
    assert delays[100:] == [0.0] * 11
    rtt = dict(p.facts)["web_base_rtt_ms"]  # 2 × (45 + 10 + 45) ms + the extra
    assert (rtt[0], rtt[10], rtt[55], rtt[99]) == (200, 400, 1200, 2000)
    p2000 = _point(points, "5.11", "pi").ns2
    d2000 = [float(x) for x in dict(p2000.files)[_opts(p2000.args)[1]["-client_delays"]].split()]
    assert d2000[100:110] == [0.9] * 10 and d2000[110] == 0  # FTP RTT 2000 ms: extra 1800 ms


def test_pisa_and_pimc_are_refused_with_the_reason(points):
    p = _point(points, "5.4", "pisa")
    assert p.ns2 is None
    assert p.refused == ("refused: standard.toml: queue.kind = 'pisa': PISA is seed 003's own queue "
                         "(Kim 2004 §3); ns-2.35 has Queue/PI but no PISA or PIMC, so this row has "
                         "no ns-2.35 run")  # fmt: skip
    assert _point(points, "5.9", "pimc").refused.startswith("refused: bw5.toml: queue.kind = 'pimc'")
    # 14 distinct runs: standard and ftp50 pi + droptail, bw5 / rtt200 / rtt2000 pi; 2 seeds each
    assert len({q.ns2.key() for q in points if q.ns2}) == 14


def _doc(points, table="5.2", variant="pi"):
    return copy.deepcopy(_point(points, table, variant).run.doc)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["queue"].update(ecn=True),
         "queue.ecn = True: no counterpart in standard.tcl's Queue/PI (packet mode, drops, no ECN)"),
        (lambda d: d["tcp"].update(variant="sack"),
         "tcp.variant = 'sack': standard.tcl runs Full-TCP NewReno"),
        (lambda d: d["tcp"].update(delayed_ack="100ms"),
         "tcp.delayed_ack = '100ms': standard.tcl ACKs every segment"),
        (lambda d: d["workload"][0]["flows"][3].update(start="5s"),
         "workload[0].flows[3].start = '5s': standard.tcl opens every FTP flow at t = 0"),
        (lambda d: d["workload"][1].update(clients=50),
         "workload[1].clients: standard.tcl runs web flow f on client f and server f"),
        (lambda d: d["queue"].update(kind="red"),
         "queue.kind = 'red': standard.tcl runs pi or droptail on the forward link"),
    ],
)  # fmt: skip
def test_inexpressible_points_are_refused(points, edit, message):
    d = _doc(points)
    edit(d)
    with pytest.raises(Refused) as e:
        pisa_point(d, STUDY_DIR)
    assert str(e.value) == message


def test_a_matrix_that_is_not_per_client_is_refused(points, tmp_path):
    d = _doc(points, "5.10")
    rows = [[0] * 111 for _ in range(111)]
    rows[5][7] = 200  # one pair only: a per-pair delay, not a per-client one
    (tmp_path / "m.csv").write_text("\n".join(",".join(map(str, r)) for r in rows) + "\n")
    d["topology"]["delaybox"] = {"matrix_file": "m.csv"}
    with pytest.raises(Refused, match=r"m.csv row 5 is not 111 equal delays ≥ 0: standard.tcl adds one"):
        pisa_point(d, tmp_path)


@needs_ns2
def test_script_rejects_an_unknown_option(tmp_path):
    p = subprocess.run(["ns", str(SCRIPT), "1", "5", "pi", "o", "0", "-no_such", "1"], cwd=tmp_path,
                       capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 2
    assert 'unknown option "-no_such"' in p.stderr


# --- one real ns-2.35 run, its columns recomputed here -----------------------------------------


@needs_ns2
def test_short_ns2_run_of_an_rtt_group_point(points, tmp_path):
    # Table 5.10's PI point cut to 5 s of warm-up + 25 s.
    p = _point(points, "5.10", "pi").ns2
    a = list(p.args)
    a[1], a[4] = "25", "5"
    p = dataclasses.replace(p, args=tuple(a), warmup_s=5.0, measured_s=25.0)
    runs = tmp_path / "runs"
    assert runner.run_all(runs, [p], jobs=1) == {p.key(): None}
    d = runs / p.key()
    out = runner.stdout_of(runs, p)
    m = pisa_metrics(d, out, p)
    kv = {ln.split()[0] + ("_" + ln.split()[1] if ln.startswith("link") else ""):
          dict(x.split("=") for x in ln.split()[1:]) for ln in out.splitlines()}  # fmt: skip
    fwd = kv["link_dir=fwd"]
    assert m["drops_per_s"] == pytest.approx(int(fwd["drops"]) / 25)
    assert m["mean_qlen"] == pytest.approx(float(fwd["mean_q"]))
    assert m["utilization"] == pytest.approx(int(fwd["bytes"]) * 8 / 25 / 1e7)
    assert m["ftp_drops_per_s"] == pytest.approx(int(kv["ftp"]["retx_bytes"]) / 1000 / 25)
    assert math.isnan(m["http_drops_per_s"])
    objs = np.loadtxt(d / "objects.dat", ndmin=2)  # flow start end bytes
    assert m["responses_completed"] == len(objs) == int(kv["http"]["completed"]) > 100
    assert (objs[:, 1] >= 5).all() and (objs[:, 2] <= 30).all()
    # util_http: ⌈bytes / 1000⌉ packets of 1040 B on the wire per completed object
    wire = sum(math.ceil(b / 1000) * 1040 for b in objs[:, 3])
    assert m["util_http"] == pytest.approx(wire * 8 / (1e7 * 25))
    assert m["util_ftp"] == pytest.approx(m["utilization"] - m["util_http"])
    # RTT groups: flow f is in group 200 · (f // 10 + 1) ms
    groups = (objs[:, 0].astype(int) // 10 + 1) * 200
    for r in (200, 1000, 2000):
        assert m[f"objects_rtt{r}"] == int((groups == r).sum())
        assert m[f"pct_rtt{r}"] == pytest.approx(100 * (groups == r).sum() / len(objs))
    assert m["objects_rtt200"] > m["objects_rtt2000"]  # 200-ms flows finish objects faster


def test_a_verdict_needing_pisa_says_it_is_not_in_ns2(points, tmp_path):
    import pandas as pd

    from aqmlab.ns2grid.grid import explain_published, point_frame
    from aqmlab.studies.verdicts import NOT_IN_NS2, evaluate, verdict_table

    study = load("pisa")
    frame = point_frame(points, tmp_path, {})  # nothing run: PI / drop-tail pending, PISA refused
    (tmp_path / "ns2").mkdir()
    frame.to_csv(tmp_path / "ns2" / "points.csv", index=False)
    # Table 5.4 with the PI row only, as ns-2.35's grid gives it
    res = {"5.4": pd.DataFrame({"row": ["PI"], "n": [2], "responses_completed": [27000.0],
                                "responses_completed_ci": [100.0]})}  # fmt: skip
    ns2 = explain_published(study, evaluate(study, res), tmp_path / "ns2")
    gain = next(v for v in ns2 if v.id == "pisa-gain-std")
    assert gain.evidence.startswith("not run in ns-2.35 (pisa): refused: standard.toml: queue.kind = "
                                    "'pisa': PISA is seed 003's own queue")  # fmt: skip
    rows = verdict_table(study, ns2, ns2, ns2)
    cells = {r.id: r.cells()[2] for r in rows}
    assert cells["pisa-gain-std"] == NOT_IN_NS2
    # the drop-tail verdict's rows are pending, not refused: no claim that ns-2.35 lacks them
    assert cells["pisa-droptail-few-drops"] == "not evaluated"
