"""The real-TCP testbed (`aqmlab testbed`, crates/testbed, issue 12) end to end, as root: a short
web workload plus one bulk flow through the router between two network namespaces; a run killed
with SIGKILL and the next start removing its namespaces; Ctrl-C (SIGINT) stopping a run cleanly.
Also, without root: bad input and the CLI wiring.

The root tests are skipped when not root, except under CI (CI set), where they must run
(CI runs ./test.sh as root). They use target/release/aqmlab-testbed (setup.sh builds it) or
$AQMLAB_TESTBED."""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aqmlab.testbed import run as testbed

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(
    not ROOT and not os.environ.get("CI"), reason="the testbed needs root (network namespaces)"
)

# 10 Mbps / 10 ms bottleneck, 1 ms access links: propagation RTT 2 × (1 + 10 + 1) ms = 24 ms.
PROP_RTT_S = 0.024
RATE_BPS = 10_000_000
SCENARIO = """\
[run]
seed = 7
warmup = "2s"
duration = "10s"

[topology]
kind = "dumbbell"
clients = 4
servers = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[topology.delaybox]
rtt = { dist = "uniform", min = "0ms", max = "100ms" }

[queue]
kind = "droptail"
limit = 60

[tcp]
profile = "linux"

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 20.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "200KB" }

[[workload]]
kind = "bulk"
flows = [{ start = "0s", client = 3, server = 3 }]
"""


def binary() -> Path:
    return testbed.find_binary()


def aqmlab_netns() -> set[str]:
    try:
        return {n for n in os.listdir("/run/netns") if n.startswith("aqmlab-")}
    except FileNotFoundError:
        return set()


def pcap_lengths(path: Path) -> list[int]:
    """Original length of each record of a pcap file (classic format, either byte order)."""
    data = path.read_bytes()
    order = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        incl, orig = struct.unpack(order + "II", data[off + 8 : off + 16])
        off += 16 + incl
        out.append(orig)
    return out


def write_scenario(tmp_path: Path, text: str = SCENARIO) -> Path:
    p = tmp_path / "tb.toml"
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


@needs_root
def test_web_and_bulk_through_the_router(tmp_path):
    import pandas as pd

    scen = write_scenario(tmp_path)
    out = tmp_path / "out"
    before = aqmlab_netns()
    r = subprocess.run(
        [str(binary()), str(scen), "--out", str(out), "--quiet", "--pcap"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    d = out / "tb"
    files = ("summary.json", "run.json", "requests.parquet", "queue.parquet", "links.parquet", "delaybox.csv")
    for f in files:
        assert (d / f).is_file(), f
    assert aqmlab_netns() == before, "the run's namespaces were not removed"
    summary = json.loads((d / "summary.json").read_text())
    info = json.loads((d / "run.json").read_text())
    assert summary["engine"] == "testbed-linux"
    assert info["engine"]["kind"] == "testbed-linux" and info["engine"]["path"] == "router"
    assert info["engine"]["congestion_control"] == "cubic"  # [tcp] profile = "linux"
    router = info["engine"]["router"]
    # Conservation in both directions: in = out + dropped + queued + in flight.
    assert router["fwd"]["conservation"] == "ok"
    assert router["rev"]["conservation"] == "ok"
    assert router["write_errors"] == 0
    # --pcap: one record per packet that left the emulated path, in each direction.
    # No offload super-packets on the path: every packet at most the MTU (1448 + 52 B).
    for direction in ("fwd", "rev"):
        lengths = pcap_lengths(d / f"bottleneck_{direction}.pcap")
        assert len(lengths) == router[direction]["out_packets"]
        assert max(lengths) <= 1500, max(lengths)
    # The bulk flow fills the bottleneck: at most its rate (1 % for the measurement edges), at
    # least 80 % of it.
    assert 0.80 <= summary["utilization"] <= 1.01, summary["utilization"]
    assert router["fwd_pacing"]["configured_bps"] == RATE_BPS
    assert abs(router["fwd_pacing"]["rate_error"]) < 0.01, router["fwd_pacing"]

    req = pd.read_parquet(d / "requests.parquet")
    http = req[(req["kind"] == "http") & req["completed"]]
    assert len(http) >= 100  # 20/s for 12 s ≈ 240 offered
    rt = (http["end_ns"] - http["start_ns"]) / 1e9
    base = http["base_rtt_ns"] / 1e9
    # Base RTT = propagation + the DelayBox RTT the router applied to the connection (its draw
    # log, delaybox.csv, joined on the 4-tuple): between 24 and 124 ms, and every response
    # (SYN, SYN-ACK, request, response) takes at least two of its connection's base RTTs.
    assert base.min() >= PROP_RTT_S and base.max() <= PROP_RTT_S + 0.100
    assert base.std() > 0.02  # drawn, not constant (uniform 0-100 ms: 29 ms)
    assert (rt >= 2 * base).all(), (rt - 2 * base).min()
    log = pd.read_csv(d / "delaybox.csv", dtype={"conn_id": "Int64"})
    join = info["engine"]["delaybox_join"]
    assert len(log) == join["draws"] == router["delaybox_draws"]
    assert join["joined"] + join["unjoined"] == len(req) == info["engine"]["connections"]
    assert join["joined"] == log["conn_id"].notna().sum()
    assert join["draws_unclaimed"] == log["conn_id"].isna().sum() == 0
    assert log["conn_id"].dropna().is_unique
    # Every completed record: its connection's draw, from its own client host to its own server
    # host at port 80, after it started; base RTT = propagation + 2 x the one-way delay applied.
    claimed = log.dropna(subset=["conn_id"]).astype({"conn_id": "int64"}).set_index("conn_id")
    done = req[req["completed"]].astype({"conn_id": "int64"}).set_index("conn_id")
    assert done.index.isin(claimed.index).all()
    mine = claimed.loc[done.index]
    assert (mine["client"] == [f"10.1.0.{10 + c}" for c in done["client"]]).all()
    assert (mine["server"] == [f"10.2.0.{10 + s}" for s in done["server"]]).all()
    assert (mine["server_port"] == 80).all()
    assert (mine["at_ns"] >= done["start_ns"]).all()
    prop_ns = round(PROP_RTT_S * 1e9)
    assert (done["base_rtt_ns"] == prop_ns + 2 * mine["one_way_ns"]).all()
    # SYNs out of opening order, recounted from the log: a claimed draw whose connection was
    # opened before the connection of an earlier draw.
    ids = log["conn_id"].dropna().to_numpy()
    prev_max = pd.Series(ids).cummax().shift(1)
    assert join["syn_out_of_order"] == int((ids < prev_max).sum())
    assert (req[req["kind"] == "bulk"]["client"] == 3).all() and (req["kind"] == "bulk").sum() == 1

    # Columns the testbed cannot measure: nulls in every row (NaN in pandas, never 0), listed in
    # run.json and the Parquet footer; summary.json's fin_retx (their sum) is null; the measured
    # counters are numbers (the bulk flow through a 60-packet queue retransmits).
    import pyarrow.parquet as pq

    from aqmlab.storage.run_dir import TESTBED_NOT_MEASURED
    from aqmlab.storage.tables import NOT_MEASURED_KEY

    assert info["engine"]["not_measured"] == list(TESTBED_NOT_MEASURED)
    meta = pq.read_metadata(d / "requests.parquet")
    assert json.loads(meta.metadata[NOT_MEASURED_KEY.encode()]) == list(TESTBED_NOT_MEASURED)
    table = pq.read_table(d / "requests.parquet")
    for col in TESTBED_NOT_MEASURED:
        assert table[col].null_count == len(table), col
        assert req[col].isna().all(), col
    for col in ("syn_retx", "data_retx", "timeouts", "server_syn_retx", "server_data_retx"):
        assert table[col].null_count == 0, col
    assert req["data_retx"].sum() > 0
    assert summary["fin_retx"] is None
    assert isinstance(summary["data_retx"], int) and summary["data_retx"] >= 0

    # Same connections as the simulator: the Poisson workload's sizes in the same order, each
    # opened within 50 ms of the simulator's start time.
    from aqmlab.engine.api import run_one

    sim = run_one(scen, "tb").requests
    sim_http = sim[sim["kind"] == "http"].sort_values("id").reset_index(drop=True)
    tb_http = req[req["kind"] == "http"].sort_values("id").reset_index(drop=True)
    n = min(len(sim_http), len(tb_http)) - 5
    assert n >= 100
    for col in ("request_bytes", "response_bytes", "client", "server"):
        assert (tb_http[col][:n].to_numpy() == sim_http[col][:n].to_numpy()).all(), col
    late = (tb_http["start_ns"][:n].to_numpy() - sim_http["start_ns"][:n].to_numpy()) / 1e9
    assert late.min() >= -0.001 and late.max() < 0.050, (late.min(), late.max())


@needs_root
def test_killed_run_leaves_namespaces_that_the_next_start_removes(tmp_path):
    scen = write_scenario(tmp_path)
    p = subprocess.Popen(
        [str(binary()), str(scen), "--out", str(tmp_path / "a"), "--quiet", "--duration", "60s"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    mine = {f"aqmlab-{p.pid}-"}
    deadline = time.time() + 30
    stale: set[str] = set()
    while time.time() < deadline and len(stale) < 2:
        stale = {n for n in aqmlab_netns() if any(n.startswith(m) for m in mine)}
        time.sleep(0.1)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert len(stale) == 2, "the run's two namespaces did not appear"
    assert stale <= aqmlab_netns(), "SIGKILL cannot clean up: the namespaces must still be there"
    assert (tmp_path / "a" / f"tb.tmp-{p.pid}").is_dir(), "the killed run's scratch directory"
    r = subprocess.run(
        [str(binary()), str(scen), "--out", str(tmp_path / "a"), "--duration", "1s", "--warmup", "0s"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert not (stale & aqmlab_netns()), "stale namespaces left behind"
    for n in sorted(stale):
        assert f"removed namespace {n}" in r.stderr
    # The killed run's half-written directory is gone too; the new run is complete.
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["tb"]
    assert (tmp_path / "a" / "tb" / "summary.json").is_file()


@needs_root
def test_ctrl_c_stops_cleanly_and_writes_what_was_measured(tmp_path):
    scen = write_scenario(tmp_path)
    before = aqmlab_netns()
    p = subprocess.Popen(
        [str(binary()), str(scen), "--out", str(tmp_path / "o"), "--quiet", "--duration", "60s"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert aqmlab_netns() == before
    # Kept under a name that says so, never as the complete run `tb`.
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["tb.interrupted"]
    info = json.loads((tmp_path / "o" / "tb.interrupted" / "run.json").read_text())
    assert info["engine"]["interrupted"] is True
    assert 3e9 < info["engine"]["end_ns"] < 10e9
    assert err.endswith(
        f"{tmp_path / 'o' / 'tb.interrupted'} holds what was measured until then, not a complete run\n"
    )
    # `aqmlab report` does not show it as a run.
    from aqmlab import cli

    assert cli.main(["report", str(tmp_path / "o")]) == 2


def test_unexpressible_tcp_is_rejected_before_anything_runs(tmp_path):
    text = SCENARIO.replace('profile = "linux"', 'profile = "freebsd"')
    scen = write_scenario(tmp_path, text)
    r = subprocess.run(
        [str(binary()), str(scen), "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert lines[0] == (
        f"aqmlab testbed: error: {scen}: tcp.variant: cannot be expressed on Linux: Linux has no RFC 5681 "
        'Reno recovery (without SACK it always recovers as NewReno, RFC 6582): use variant = "newreno"'
    )
    assert [ln.split(": ")[3] for ln in lines] == [
        "tcp.variant",
        "tcp.initial_rto",
        "tcp.clock_granularity",
        "tcp.rto",
    ]
    assert not (tmp_path / "o").exists()


def test_parking_lot_and_datagrams_are_refused(tmp_path):
    scen = Path(__file__).resolve().parents[2] / "scenarios" / "weigle_multi" / "parking_lot_1congested.toml"
    r = subprocess.run(
        [str(binary()), str(scen), "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    assert r.stderr.startswith(
        f"aqmlab testbed: error: {scen}: topology.kind: the testbed runs a dumbbell only"
    )
    text = SCENARIO.replace(
        '[[workload]]\nkind = "bulk"',
        '[[workload]]\nkind = "cbr"\nrate = "1Mbps"\nclient = 0\nserver = 0\n\n[[workload]]\nkind = "bulk"',
    )
    r = subprocess.run(
        [str(binary()), str(write_scenario(tmp_path, text)), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2
    assert "workload[1].kind: datagram workloads (cbr, onoff) are not supported" in r.stderr, r.stderr


def test_cli_builds_the_binary_command_line(monkeypatch, tmp_path):
    from aqmlab import cli

    calls = []
    monkeypatch.setattr(os, "execv", lambda path, argv: calls.append((path, argv)))
    fake = tmp_path / "aqmlab-testbed"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("AQMLAB_TESTBED", str(fake))
    rc = cli.main(["testbed", "s.toml", "--out", "o", "--duration", "60s", "--pcap"])
    assert rc == 0
    assert calls == [
        (fake, [str(fake), "s.toml", "--out", "o", "--path", "router", "--duration", "60s", "--pcap"])
    ]
    calls.clear()
    assert cli.main(["testbed", "s.toml", "--out", "o", "--closest-linux"]) == 0
    assert calls[0][1][-1] == "--closest-linux"
    # The subcommand's module is imported only when used.
    code = (
        "import sys; from aqmlab import cli; cli._parser('run'); print('aqmlab.testbed.run' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False"


WORKLOADS = """\
[run]
seed = 3
warmup = "1s"
duration = "5s"

[topology]
kind = "dumbbell"
clients = 20
servers = 20
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "red"
min_th = 30
max_th = 90
limit = 480

[tcp]
profile = "linux"

[[workload]]
kind = "mah"
users = 300

[[workload]]
kind = "packmime"
rate = 30.0

[[workload]]
kind = "pareto_web"
flows = 20
"""


@needs_root
def test_mah_packmime_and_pareto_web_run(tmp_path):
    import pandas as pd

    from aqmlab.engine.api import run_one

    scen = write_scenario(tmp_path, WORKLOADS)
    r = subprocess.run(
        [str(binary()), str(scen), "--out", str(tmp_path / "o"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    req = pd.read_parquet(tmp_path / "o" / "tb" / "requests.parquet")
    done = req[req["completed"]].groupby("workload").size()
    assert list(done.index) == [0, 1, 2] and (done >= 20).all(), done
    assert (req[req["workload"] == 0]["page"] > 0).all()  # Mah: every request belongs to a page
    # PackMime is open loop: the same connections as the simulator, server delays included.
    sim = run_one(scen, "tb").requests
    a = req[req["workload"] == 1].sort_values("start_ns").reset_index(drop=True)
    b = sim[sim["workload"] == 1].sort_values("start_ns").reset_index(drop=True)
    n = min(len(a), len(b)) - 5
    assert n >= 100
    for col in ("request_bytes", "response_bytes", "server_delay_ns", "client", "server"):
        assert (a[col][:n].to_numpy() == b[col][:n].to_numpy()).all(), col


# Seed 001's twin in small: two PackMime clouds, the second reverse (its servers on the client
# side) and persistent HTTP/1.1, each with PackMime's client and server DelayBoxes.
TWO_WAY = """\
[run]
seed = 3
warmup = "1s"
duration = "10s"

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
limit = 100

[tcp]
profile = "linux"

[[workload]]
kind = "packmime"
rate = 15.0
delaybox = { client = "packmime", server = "packmime" }

[[workload]]
kind = "packmime"
rate = 15.0
http = "1.1"
direction = "reverse"
delaybox = { client = "packmime", server = "packmime" }
"""


@needs_root
def test_reverse_http11_cloud_and_workload_delayboxes(tmp_path):
    import pandas as pd

    from aqmlab.engine.api import run_one

    scen = write_scenario(tmp_path, TWO_WAY)
    r = subprocess.run(
        [str(binary()), str(scen), "--out", str(tmp_path / "o"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert r.returncode == 0, r.stderr
    d = tmp_path / "o" / "tb"
    req = pd.read_parquet(d / "requests.parquet")
    log = pd.read_csv(d / "delaybox.csv", dtype={"conn_id": "Int64", "workload": "Int64"})
    done = req[req["completed"]]
    assert (done.groupby("workload").size() >= 50).all(), done.groupby("workload").size()
    # Persistent connections: later exchanges (exchange > 0) on the reverse cloud only, ids
    # unique over exchanges, and exchange k + 1 of a connection starting after k ended.
    assert (req[req["workload"] == 0]["exchange"] == 0).all()
    later = req[req["exchange"] > 0]
    assert len(later) > 0 and (later["workload"] == 1).all()
    assert req["id"].is_unique
    for _, g in later.groupby("conn_id"):
        g = req[req["conn_id"] == g["conn_id"].iloc[0]].sort_values("exchange")
        assert list(g["exchange"]) == list(range(len(g)))
        assert (g["start_ns"].to_numpy()[1:] >= g["end_ns"].to_numpy()[:-1]).all()
    # The router's draws: workload from the server port (80 + w), the reverse cloud's SYNs
    # from server-side hosts to client-side hosts; one-way = client box + server box (no
    # dumbbell box), both > 0; every record's base RTT = propagation + 2 x its connection's
    assert set(log["workload"].dropna()) == {0, 1} and log["workload"].notna().all()
    info = json.loads((d / "run.json").read_text())
    assert info["engine"]["router"]["delaybox_unknown_workload"] == 0
    assert info["engine"]["router"]["delaybox_draws"] == len(log)
    for w, client_net, server_net in ((0, "10.1.", "10.2."), (1, "10.2.", "10.1.")):
        lw = log[log["workload"] == w]
        assert (lw["server_port"] == 80 + w).all()
        assert lw["client"].str.startswith(client_net).all() and lw["server"].str.startswith(server_net).all()
    assert (log["topology_ns"] == 0).all()
    assert (log["client_box_ns"] > 0).all() and (log["server_box_ns"] > 0).all()
    assert (log["one_way_ns"] == log["client_box_ns"] + log["server_box_ns"]).all()
    # (a persistent connection's later exchanges: their connection's).
    claimed = log.dropna(subset=["conn_id"]).astype({"conn_id": "int64"}).set_index("conn_id")
    prop_ns = round(PROP_RTT_S * 1e9)
    assert done["conn_id"].isin(claimed.index).all()
    want = prop_ns + 2 * claimed.loc[done["conn_id"], "one_way_ns"].to_numpy()
    assert (done["base_rtt_ns"].to_numpy() == want).all()
    # PackMime's boxes: median added RTT ≈ 65 ms (seed 002 §III-B; 100 000 draws in the router's
    # unit test), here from a few hundred connections.
    assert 40e6 < 2 * log["one_way_ns"].median() < 95e6
    # Open loop: the same connections as the simulator (first exchanges), reverse cloud included.
    sim = run_one(scen, "tb").requests
    for w in (0, 1):
        a, b = (
            x[(x["workload"] == w) & (x["exchange"] == 0)].sort_values("start_ns").reset_index(drop=True)
            for x in (req, sim)
        )
        n = min(len(a), len(b)) - 5
        assert n >= 50
        for col in ("request_bytes", "response_bytes", "server_delay_ns", "client", "server"):
            assert (a[col][:n].to_numpy() == b[col][:n].to_numpy()).all(), (w, col)


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux) to drop capabilities")
def test_without_privileges_it_stops_at_once(tmp_path):
    # Root with an empty capability bounding set has no effective capabilities after exec; a
    # normal user has none either: both must get the same one-line message and no output.
    scen = write_scenario(tmp_path)
    cmd = [str(binary()), str(scen), "--out", str(tmp_path / "o")]
    if ROOT:
        cmd = ["setpriv", "--bounding-set", "-all", "--", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr == (
        "aqmlab testbed: error: the testbed needs root (it creates network namespaces, TUN devices and "
        "routes); this process lacks CAP_NET_ADMIN and CAP_SYS_ADMIN: run it as root, e.g. with sudo\n"
    )
    assert not (tmp_path / "o").exists()
