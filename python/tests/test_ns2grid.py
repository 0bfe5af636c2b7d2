"""aqmlab.ns2grid: a study's sweep points as ns-2.35 runs (issue 34).

- The seed001.tcl options generated for weigle2006's own quick-mode sweep points, against the
  values read by hand from studies/weigle2006/*.toml and the study's quick overrides (queue kind,
  limit, thresholds, w_q, max_p, ECN, TCP variant, rate = 135.0 conn/s × load, seed, window).
- Points ns-2.35 cannot express are refused with the key and the reason.
- The parser on a hand-made seed001.tcl output, every number computed by hand.
- The runner does not redo a finished run (a stand-in `ns` counts its calls).
- One short real ns-2.35 run of a weigle2006 point (needs `ns`; required in CI), whose metrics
  are recomputed here from ns-2's raw files with independent code.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import needs_ns2

from aqmlab.ns2grid import parse, runner
from aqmlab.ns2grid.command import NEAREST_GENTLE_DROP, Ns2Point, Refused, ns2_point, rtt_cdf_text
from aqmlab.ns2grid.grid import study_points
from aqmlab.studies import load

ROOT = Path(__file__).resolve().parents[2]


def _opts(args) -> dict[str, str]:
    a = list(args)
    assert len(a) % 2 == 0
    return dict(zip(a[0::2], a[1::2], strict=True))


@pytest.fixture(scope="module")
def quick_points(tmp_path_factory):
    return study_points(load("weigle2006"), True, tmp_path_factory.mktemp("ns2grid"))


@pytest.fixture(scope="module")
def bytes_points(tmp_path_factory):
    return study_points(load("weigle2006"), True, tmp_path_factory.mktemp("ns2grid-b"), "ns2.35-bytes")


def _point(points, table_prefix: str, variant: str, load_: float, tcp: str | None = None):
    hits = [p for p in points if p.table.startswith(table_prefix) and p.run.name == variant
            and p.run.values.get("var.load") == load_
            and (tcp is None or p.run.values.get("tcp.variant") == tcp)]  # fmt: skip
    assert len(hits) == 1, (table_prefix, variant, load_, tcp, len(hits))
    return hits[0]


# --- the generated commands, by hand ----------------------------------------------------------

# Common to every weigle2006 point (load.toml, red_vs_ared.toml, reno_sack.toml; quick mode):
# 10 / 20 Mbps, no link delay, access queue 1000 (+1: ns-2 holds limit_ − 1), MSS 1420, IW 2,
# receive window 105080 B = 74 segments, tick 10 ms, min RTO 1 s, initial RTO 6 s, maximum RTO
# aqmlab's default 60 s, seed 1 (one replication), warm-up 60 s + 600 s (quick_overrides).
COMMON = {"-bottleneck": "10000000", "-access": "20000000", "-delay": "0", "-access_limit": "1001",
          "-mss": "1420", "-iw": "2", "-window": "74", "-tick": "0.01", "-minrto": "1", "-rto0": "6",
          "-maxrto": "60", "-seed": "1", "-warmup": "60", "-duration": "600"}  # fmt: skip


def test_droptail_point_options_by_hand(quick_points):
    o = _opts(_point(quick_points, "4-10", "DT-111q", 0.7).ns2.args)
    # DT-111q: limit 111 with ns2_off_by_one (holds 110, as ns-2's limit_ 111); 0.7 × 135 = 94.5
    assert o == {**COMMON, "-queue": "droptail", "-limit": "111", "-tcp": "reno", "-ecn": "0",
                 "-rate": "94.5", "-rtt_file": o["-rtt_file"]}  # fmt: skip
    assert o["-rtt_file"].startswith("rtt_") and o["-rtt_file"].endswith(".cdf")
    sack = _opts(_point(quick_points, "16-18", "DT-148q", 1.05, "sack").ns2.args)
    assert (sack["-tcp"], sack["-limit"], sack["-rate"]) == ("sack", "148", "141.75")


def test_ared_and_red_point_options_by_hand(quick_points):
    # ARED-5ms as stated: packet mode, 1250 B, forced drop on the average (use_mark_p_ 0),
    # bottom 0.01; 80 % → 108 conn/s.
    o = _opts(_point(quick_points, "4-10", "ARED-5ms", 0.8).ns2.args)
    assert o == {**COMMON, "-queue": "ared", "-limit": "370", "-targetdelay": "0.005",
                 "-units": "packets", "-mean_pktsize": "1250", "-use_mark_p": "0", "-bottom": "0.01",
                 "-tcp": "reno", "-ecn": "0", "-rate": "108", "-rtt_file": o["-rtt_file"]}  # fmt: skip
    # RED-5-15: thresholds 5 / 15, w_q 1/512, max_p 0.1, not gentle; 90 % → 121.5 conn/s.
    r = _opts(_point(quick_points, "11-12", "RED-5-15", 0.9).ns2.args)
    assert {k: r[k] for k in ("-queue", "-thresh", "-maxthresh", "-q_weight", "-max_p", "-gentle",
                              "-use_mark_p", "-units", "-mean_pktsize", "-rate")} == {
        "-queue": "red", "-thresh": "5", "-maxthresh": "15", "-q_weight": "0.001953125",
        "-max_p": "0.1", "-gentle": "0", "-use_mark_p": "0", "-units": "packets",
        "-mean_pktsize": "1250", "-rate": "121.5"}  # fmt: skip
    assert "-targetdelay" not in r and "-bottom" not in r


def test_ns235_bytes_reading_gives_ns235s_ecn_rule(bytes_points):
    # The reading removes forced_drop_on_avg, bottom and ecn_rule (the ns2 profile's defaults:
    # no forced drop, automatic bottom, ECN marks while p_b < 0.1) and sets byte mode, 500 B.
    o = _opts(_point(bytes_points, "4-10", "ARED-ECN-60ms", 1.05).ns2.args)
    assert {k: o[k] for k in ("-queue", "-targetdelay", "-units", "-mean_pktsize", "-use_mark_p",
                              "-mark_p", "-ecn", "-rate")} == {
        "-queue": "ared", "-targetdelay": "0.06", "-units": "bytes", "-mean_pktsize": "500",
        "-use_mark_p": "1", "-mark_p": "0.1", "-ecn": "1", "-rate": "141.75"}  # fmt: skip
    assert "-bottom" not in o


def test_rtt_file_is_half_the_rtt_in_ms():
    text = "# comment\nvalue,cdf\n0.1,0\n0.25,0.5\n0.4,1\n"
    assert rtt_cdf_text(text, "f.csv") == "50 0 0\n125 0 0.5\n200 0 1\n"
    with pytest.raises(Refused, match=r"f.csv: not a `value,cdf` line"):
        rtt_cdf_text("value,cdf\n0.1,0\nx,y\n", "f.csv")


# --- refusals ---------------------------------------------------------------------------------


def test_stated_ecn_rule_is_refused_with_the_reason(quick_points):
    p = _point(quick_points, "4-10", "ARED-ECN-5ms", 0.8)
    assert p.ns2 is None
    assert p.refused.startswith("refused: load.toml: queue.ecn_rule = 'gentle_drop' with "
                                "forced_drop_on_avg = true: ns-2.35's Queue/RED has one switch")  # fmt: skip
    assert sum(q.ns2 is not None for q in quick_points) == 34  # 50 points, 16 of them ECN
    assert len({q.ns2.key() for q in quick_points if q.ns2}) == 27  # shared points run once


def test_nearest_runs_the_stated_ecn_rule_as_use_mark_p_false(quick_points, tmp_path):
    near = study_points(load("weigle2006"), True, tmp_path, nearest=True)
    p = _point(near, "4-10", "ARED-ECN-5ms", 0.8)
    # ns-2.1b9's gentle_drop + forced drop → ns-2.35's use_mark_p_ 0 (forced drop from the
    # average, every early selection of an ECT packet marked), ECN on in queue and TCP.
    o = _opts(p.ns2.args)
    assert {k: o[k] for k in ("-queue", "-targetdelay", "-units", "-use_mark_p", "-bottom", "-ecn",
                              "-rate")} == {
        "-queue": "ared", "-targetdelay": "0.005", "-units": "packets", "-use_mark_p": "0",
        "-bottom": "0.01", "-ecn": "1", "-rate": "108"}  # fmt: skip
    assert "-mark_p" not in o and p.ns2.nearest == (NEAREST_GENTLE_DROP,)
    # Every point is run now; the exact points keep their options, key and an empty note.
    assert all(q.ns2 is not None for q in near) and len(near) == 50
    exact = {(q.table, q.run.id): q.ns2 for q in quick_points if q.ns2}
    for q in near:
        if (q.table, q.run.id) in exact:
            assert q.ns2 == exact[(q.table, q.run.id)] and q.ns2.nearest == ()
        else:
            assert q.ns2.nearest == (NEAREST_GENTLE_DROP,)


def test_nearest_is_refused_where_it_has_no_meaning(tmp_path):
    from aqmlab.studies.sweep_files import ReproduceError

    with pytest.raises(ReproduceError, match="--ns2-nearest: pisa's ns-2 script has no nearest"):
        study_points(load("pisa"), True, tmp_path, nearest=True)


def _doc(points):
    import copy

    return copy.deepcopy(_point(points, "4-10", "DT-148q", 0.8).run.doc)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["variant"][0]["queue"].update(kind="codel"),
         "queue.kind = 'codel': seed001.tcl runs droptail, ared or red only"),
        (lambda d: d["workload"][1].update(rate=50.0),
         "workload: rates 108 and 50; seed001.tcl runs both at one -rate"),
        (lambda d: d["tcp"].update(delayed_ack=True),
         "tcp.delayed_ack = true: seed001.tcl runs Full-TCP without it"),
        (lambda d: d["tcp"].update(receive_window="100000B"),
         "tcp.receive_window: 100000 B is not a whole number of 1420-byte segments"),
        (lambda d: d["tcp"].update(variant="cubic"),
         "tcp.variant = 'cubic': ns-2's PackMime runs Full-TCP Reno or SACK here"),
        (lambda d: d["run"].update(warmup="60.5s"),
         "run.warmup = '60.5s': PackMime's warm-up is whole seconds"),
        (lambda d: d.update(reverse_queue={"kind": "droptail", "limit": 50}),
         "reverse_queue: seed001.tcl runs the same queue in both directions"),
    ],
)  # fmt: skip
def test_inexpressible_points_are_refused(quick_points, edit, message):
    d = _doc(quick_points)
    edit(d)
    with pytest.raises(Refused) as e:
        ns2_point(d, ROOT / "studies" / "weigle2006")
    assert str(e.value) == message


# --- the parser on a hand-made output ---------------------------------------------------------


def _write(d: Path, name: str, lines: list[str]) -> None:
    (d / name).write_text("\n".join(lines) + "\n")


def test_parser_on_hand_made_output(tmp_path):
    # Warm-up 10 s, measured 100 s (end 110 s), 10 Mb/s.
    stdout = (
        "link dir=fwd arrivals=1000 departures=980 drops=20 early_drops=5 bytes=12500000 marks=3 "
        "mean_q=4.5000 max_q=30\n"
        "link dir=rev arrivals=10 departures=10 drops=0 early_drops=0 bytes=1 marks=0 mean_q=0 max_q=1\n"
        "run sim_s=110 wall_s=1.00\n"
    )
    # rt: end_s req rsp rt_ms. Starts (end − rt): fwd 9.5 (before the warm-up: out), 12, 20
    # (60 kB), 50; rev 30, 95 (60 kB, start 95 > 110 − 20: not a Fig. 18 response).
    _write(
        tmp_path,
        "rt_fwd.dat",
        [
            "10.0 300 1000 500.000 1.0 1",
            "12.2 300 1000 200.000 1.0 1",
            "23.0 300 60000 3000.000 1.0 1",
            "51.5 300 2000 1500.000 1.0 1",
        ],
    )
    _write(tmp_path, "rt_rev.dat", ["31.0 300 1000 1000.000 1.0 1", "97.5 300 60000 2500.000 1.0 1"])
    # req: start req rsp. Fig. 18 responses started in [10, 90]: fwd 20 s (done), 40 s (70 kB,
    # never completed); rev 95 s is past 90 s.
    _write(
        tmp_path,
        "req_fwd.dat",
        [
            "9.5 300 1000 1.0",
            "12.0 300 1000 1.0",
            "20.0 300 60000 1.0",
            "40.0 300 70000 1.0",
            "50.0 300 2000 1.0",
        ],
    )
    _write(tmp_path, "req_rev.dat", ["30.0 300 1000 1.0", "95.0 300 60000 1.0"])
    # conns: fid dir start closed crx srx cto sto; the one at 9.5 s is before the warm-up.
    _write(tmp_path, "conns.dat", ["# header", "2 0 9.5 1 3 0 1 0", "4 0 12.0 1 0 0 0 0",
                                   "6 0 20.0 1 0 2 0 0", "8 0 40.0 0 0 0 0 0", "3 1 30.0 1 0 0 0 0",
                                   "5 1 95.0 1 1 0 0 0", "10 0 50.0 1 0 0 0 0"])  # fmt: skip
    m = parse.metrics(tmp_path, stdout, 10.0, 100.0, 10_000_000)
    assert m["utilization"] == pytest.approx(12_500_000 * 8 / 100 / 10_000_000)  # 0.1
    assert m["kb_per_s"] == pytest.approx(125.0)
    assert (m["drops_pct"], m["unforced_pct"], m["forced_pct"]) == (2.0, 25.0, 75.0)
    assert (m["mean_qlen"], m["max_qlen"], m["marks"]) == (4.5, 30.0, 3.0)
    # Measured response times (ms), sorted: 200, 1000, 1500, 2500, 3000 (n = 5).
    assert m["responses_completed"] == 5
    assert m["p10_rt_ms"] == 200.0  # rank ⌈0.5⌉ = 1
    assert m["p25_rt_ms"] == 1000.0  # rank ⌈1.25⌉ = 2
    assert m["median_rt_ms"] == 1500.0  # rank ⌈2.5⌉ = 3
    assert m["p75_rt_ms"] == 2500.0  # rank ⌈3.75⌉ = 4
    assert m["p90_rt_ms"] == m["p99_rt_ms"] == 3000.0
    assert m["mean_rt_ms"] == pytest.approx(8200 / 5)
    # ≤ 1 s: 200, 1000 (the boundary counts); (1, 2]: 1500; (2, 3]: 2500, 3000.
    assert (m["pct_le_1s"], m["pct_1_2s"], m["pct_2_3s"], m["pct_gt_3s"]) == (40.0, 20.0, 40.0, 0.0)
    # 6 connections after the warm-up, retransmissions at 20 s (server) and 95 s (client).
    assert m["responses_started"] == 6
    assert m["pct_flows_with_drops"] == pytest.approx(100 * 2 / 6)
    # Fig. 18: two large responses, 3000 ms done and one unfinished: median rank 1, p90 rank 2.
    assert m["large_n"] == 2
    assert m["large_median_rt_ms"] == 3000.0
    assert m["large_p90_rt_ms"] == math.inf


def test_parser_names_a_missing_or_bad_file(tmp_path):
    with pytest.raises(parse.ParseError, match=r"stdout.txt: no link line for each of fwd and rev"):
        parse.metrics(tmp_path, "run sim_s=1 wall_s=1\n", 0.0, 1.0, 10)
    stdout = "link dir=fwd arrivals=1 departures=1 drops=0 early_drops=0 bytes=1 marks=0 mean_q=0 max_q=0\n"
    stdout += stdout.replace("fwd", "rev")
    _write(tmp_path, "rt_fwd.dat", ["1.0 300 x 5.0"])
    with pytest.raises(parse.ParseError, match=r"rt_fwd.dat: line 1: not numbers"):
        parse.metrics(tmp_path, stdout, 0.0, 1.0, 10)


# --- the runner resumes -----------------------------------------------------------------------


def test_runner_does_not_redo_a_finished_run(tmp_path):
    # A stand-in ns: counts its calls, writes what seed001.tcl's stdout ends with.
    fake = tmp_path / "fake-ns"
    calls = tmp_path / "calls"
    fake.write_text(f'#!/bin/sh\necho x >> {calls}\necho "run sim_s=1 wall_s=0.01"\n')
    fake.chmod(0o755)
    runs = tmp_path / "runs"
    pts = [Ns2Point(("-rate", str(r)), (("in.cdf", "1 0 1\n"),), 0.0, 1.0, 10, None) for r in (1, 2)]
    assert runner.run_all(runs, [*pts, pts[0]], jobs=2, ns=str(fake)) == {p.key(): None for p in pts}
    assert len(calls.read_text().split()) == 2  # the repeated point ran once
    assert (runs / "in.cdf").read_text() == "1 0 1\n"
    assert json.loads((runs / pts[0].key() / "cmd.json").read_text())["cmd"][-2:] == ["-out", pts[0].key()]
    runner.run_all(runs, pts, jobs=2, ns=str(fake))
    assert len(calls.read_text().split()) == 2  # both finished: nothing ran again
    (runs / pts[1].key() / "stdout.txt").write_text("interrupted\n")  # not finished any more
    runner.run_all(runs, pts, jobs=2, ns=str(fake))
    assert len(calls.read_text().split()) == 3


# --- one real ns-2.35 run ---------------------------------------------------------------------


@needs_ns2
def test_short_ns2_run_of_a_weigle2006_point(quick_points, tmp_path):
    import dataclasses

    # DT-148q at 50 % load (67.5 conn/s each way), cut to 5 s warm-up + 10 s.
    p = _point(quick_points, "4-10", "DT-148q", 0.5).ns2
    a = list(p.args)
    a[a.index("-warmup") + 1], a[a.index("-duration") + 1] = "5", "10"
    p = dataclasses.replace(p, args=tuple(a), warmup_s=5.0, measured_s=10.0)
    runs = tmp_path / "runs"
    assert runner.run_all(runs, [p], jobs=1) == {p.key(): None}
    d = runs / p.key()
    m = parse.metrics(d, runner.stdout_of(runs, p), 5.0, 10.0, 10_000_000)
    # Recomputed from ns-2's raw files, independently of the parser.
    fwd = next(ln for ln in runner.stdout_of(runs, p).splitlines() if ln.startswith("link dir=fwd"))
    kv = dict(x.split("=") for x in fwd.split()[1:])
    assert m["utilization"] == pytest.approx(int(kv["bytes"]) * 8 / 10 / 1e7)
    assert m["drops_pct"] == pytest.approx(100 * int(kv["drops"]) / int(kv["arrivals"]))
    rt = np.concatenate([np.loadtxt(d / f"rt_{x}.dat", usecols=(0, 3), ndmin=2) for x in ("fwd", "rev")])
    ms = rt[rt[:, 0] - rt[:, 1] / 1000 >= 5 - 5e-7, 1]
    assert m["responses_completed"] == len(ms) > 500  # ≈ 2 × 67.5 × 10 started
    for key, q in (("median_rt_ms", 0.5), ("p90_rt_ms", 0.9)):
        assert m[key] == float(np.percentile(ms, 100 * q, method="inverted_cdf"))
    assert m["pct_le_1s"] == pytest.approx(100 * float(np.mean(ms <= 1000)))
    assert 0.2 < m["utilization"] < 0.8  # 50 % offered, 10 s of a heavy-tailed load


@needs_ns2
def test_ns2_delaybox_draws_half_the_rtt_once_per_connection(quick_points, tmp_path):
    import subprocess

    # The point's command at 20 conn/s for 10 s, logging the DelayBoxes' per-flow delays.
    p = _point(quick_points, "4-10", "DT-148q", 0.5).ns2
    a = list(p.args)
    a[a.index("-warmup") + 1], a[a.index("-duration") + 1], a[a.index("-rate") + 1] = "0", "10", "20"
    for name, text in p.files:
        (tmp_path / name).write_text(text)
    cmd = ["ns", str(runner.TCL), *a, "-out", "o", "-log_inputs", "1"]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    # "src dst fid delay ms" per flow entry (one per direction). Every connection of both
    # generators is held at L only, by one draw: a second box would double its RTT.
    assert (tmp_path / "o" / "delay_R.dat").read_text() == ""
    rows = np.loadtxt(tmp_path / "o" / "delay_L.dat", usecols=(2, 3), ndmin=2)
    per_fid = {}
    for fid, ms in rows:
        per_fid.setdefault(int(fid), set()).add(ms)
    assert all(len(v) == 1 for v in per_fid.values())
    started = np.loadtxt(tmp_path / "o" / "starts.dat", usecols=0, ndmin=1).astype(int)
    assert set(started) <= set(per_fid) and {f % 2 for f in per_fid} == {0, 1}
    delays = np.array([next(iter(v)) for v in per_fid.values()])
    assert len(delays) > 300  # ≈ 2 × 20 × 10 connections
    # The file's median RTT, interpolated as ns-2 and aqmlab do, is 2 × the delay's median.
    v, c = np.loadtxt(ROOT / "studies" / "weigle2006" / "packmime_rtt_server.csv", delimiter=",",
                      skiprows=2, unpack=True)  # fmt: skip
    median_rtt_ms = 1000 * float(np.interp(0.5, c, v))
    assert 50 < median_rtt_ms < 65  # the README's 58 ms
    assert float(np.median(delays)) == pytest.approx(median_rtt_ms / 2, rel=0.15)


def test_a_verdict_without_its_rows_names_the_refusal(quick_points, tmp_path):
    import pandas as pd

    from aqmlab.ns2grid.grid import explain, point_frame, table_results
    from aqmlab.studies.verdicts import evaluate

    # Nothing has run: every runnable point is pending, the ECN points are refused.
    frame = point_frame(quick_points, tmp_path, {})
    assert set(frame["status"]) == {"pending", "refused"}
    study = load("weigle2006")
    results = {t.id: table_results(frame, t) for t in study.tables}
    assert all(isinstance(r, pd.DataFrame) and r.empty for r in results.values())
    verdicts = explain(evaluate(study, results), frame)

    def v(start: str):
        return next(x for x in verdicts if x.claim.startswith(start))

    ecn = v("At 80 % load ARED+ECN-5ms beats DT-148q")
    assert ecn.outcome == "not evaluated"
    # the rule reads DT-148q's row first: the first missing row named is the pending one
    assert ecn.evidence == "not run in ns-2.35 (DT-148q): its ns-2 run has not finished"
    ecn105 = v("At 105 % load ARED+ECN-5ms")
    assert ecn105.outcome == "not evaluated"
    dt = v("DT-111q and DT-148q differ little")
    assert dt.evidence == "not run in ns-2.35 (DT-111q): its ns-2 run has not finished"


def test_published_results_read_back_as_the_results_dict(tmp_path):
    from aqmlab.ns2grid.grid import read_results, results_long

    nan2 = [math.nan, math.nan]
    res = {"T1": pd.DataFrame({"row": ["load=80,queue=A", "load=80,queue=B"], "n": [1, 1],
                               "median_rt_ms": [250.5, 301.0], "median_rt_ms_ci": nan2,
                               "pct_le_1s": [88.25, 80.0], "pct_le_1s_ci": nan2})}  # fmt: skip
    text = "# t: ns-2.35 grid results\n# date: 2026-11-29; command: x\n" + results_long(res).to_csv(
        index=False
    )
    (tmp_path / "results.csv").write_text(text, encoding="utf-8")
    back, about = read_results(tmp_path / "results.csv")
    assert about == "date: 2026-11-29; command: x"
    got = back["T1"].set_index("row")
    assert got.loc["load=80,queue=B", "median_rt_ms"] == 301.0
    assert got.loc["load=80,queue=A", "pct_le_1s"] == 88.25 and got.loc["load=80,queue=A", "n"] == 1
    assert math.isnan(got.loc["load=80,queue=A", "pct_le_1s_ci"])


def test_results_with_the_steady_flag_read_back(tmp_path):
    from aqmlab.ns2grid.grid import read_results, results_long

    # aqmlab.studies.reproduce.table_results adds `steady` ("yes", "no (k/n)", "-"): a flag, not a metric
    res = {"5.1": pd.DataFrame({"row": ["PI"], "n": [2], "drops_per_s": [3.25],
                                "drops_per_s_ci": [0.5], "steady": ["-"]})}  # fmt: skip
    long = results_long(res)
    assert list(long["metric"]) == ["drops_per_s"]
    (tmp_path / "results.csv").write_text("# date: d\n" + long.to_csv(index=False), encoding="utf-8")
    back, _ = read_results(tmp_path / "results.csv")
    assert back["5.1"].iloc[0]["drops_per_s"] == 3.25 and "steady" not in back["5.1"]


def test_verdict_resting_on_nearest_points_is_marked():
    from aqmlab.ns2grid.grid import explain
    from aqmlab.studies import Study, Table, Verdict
    from aqmlab.studies.compare import get, lt
    from aqmlab.studies.verdicts import NEAREST_MARK, evaluate

    table = Table("T", "t", "x.toml", ("m",), row_label=lambda r: r["variant"])
    uses_b = Verdict(
        "uses-b", "A below B", '§1: "a"', lambda r: lt(get(r, "T", "A", "m"), get(r, "T", "B", "m"))
    )
    only_a = Verdict("only-a", "A below 5", '§1: "b"', lambda r: lt(get(r, "T", "A", "m"), 5.0))
    study = Study("s", "p", (table,), verdicts=(uses_b, only_a))
    results = {"T": pd.DataFrame({"row": ["A", "B"], "n": [1, 1], "m": [1.0, 2.0], "m_ci": [0.0, 0.0]})}
    # B ran at ns-2.35's nearest setting, A as stated.
    frame = pd.DataFrame({"table": ["T", "T"], "variant": ["A", "B"], "status": ["ok", "ok"],
                          "error": [None, None], "nearest": ["", "why"]})  # fmt: skip
    out = explain(evaluate(study, results), frame, study, results)
    assert (
        out[0].evidence.startswith(f"{NEAREST_MARK} (why): ")
        and out[0].outcome == evaluate(study, results)[0].outcome
    )
    assert not out[1].evidence.startswith(NEAREST_MARK)  # decided on A alone
    # Without the results (or with every point as stated) nothing is marked.
    assert explain(evaluate(study, results), frame, study)[0].evidence == evaluate(study, results)[0].evidence
