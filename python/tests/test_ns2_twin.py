"""The seed 001 ns-2 twins (validation/ns2/twin/): the checked-in scenarios are exactly what the
generator writes from twins.toml, the generator's two outputs by hand, its errors, the
comparison's statistics by hand, and a reduced comparison against ns-2.35 (DT-148q at 80 %, and
ARED-5ms with ns-2's defaults once aqmlab parses `profile = "ns2"`), which skips only if `ns`
is not installed (test.sh installs the Debian package ns2 in CI)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_ns2

ROOT = Path(__file__).resolve().parents[2]
TWIN_DIR = ROOT / "validation" / "ns2" / "twin"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, TWIN_DIR / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


tw = _load("twins")
cmp = _load("compare")
DEFN = tw.load_definition()
SIX = [f"seed001_{q}_{ld}" for q in ("dt", "ared", "aredecn") for ld in (80, 105)]


# --- one definition, two simulators ---------------------------------------------------------


def test_checked_in_scenarios_are_what_the_generator_writes():
    assert set(SIX) <= set(DEFN.twins)
    for name in DEFN.twins:
        path = tw.scenario_path(name)
        assert path.read_text() == tw.aqmlab_scenario(DEFN, name), f"{path} is stale: twins.py --write"
    assert tw.stale_scenarios(DEFN) == []
    assert sorted(p.stem for p in tw.SCENARIO_DIR.glob("*.toml")) == sorted(DEFN.twins)


def test_definition_has_the_issue_setup():
    # 101 and 133 new connections/s each way = 80 and 105 %; seeds 1-3; 120 s + 300 s.
    assert {t.load: t.rate for t in DEFN.twins.values()} == {80: 101.0, 105: 133.0}
    assert DEFN.seeds == (1, 2, 3)
    assert (DEFN.setup["warmup"], DEFN.setup["duration"]) == ("120s", "300s")
    assert DEFN.twin("seed001_aredpkt_80").queue.units == "packets"
    assert DEFN.twin("seed001_sack_dt_80").tcp == "sack"


def _toml(text: str) -> dict:
    import tomllib

    return tomllib.loads(text)


def test_aqmlab_scenarios_by_hand():
    dt = _toml(tw.aqmlab_scenario(DEFN, "seed001_dt_80"))
    assert dt["run"] == {"seed": 1, "warmup": "120s", "duration": "300s"}
    assert dt["queue"] == {"kind": "droptail", "limit": 148, "ns2_off_by_one": True}
    assert "reverse_queue" not in dt  # both directions alike
    assert dt["topology"]["access_rate"] == "20Mbps" and dt["topology"]["bottleneck_rate"] == "10Mbps"
    assert dt["topology"]["access_delay"] == dt["topology"]["bottleneck_delay"] == "0ms"
    # Table 2: 74 segments of 1420 B = 105,080 B window.
    assert dt["tcp"] == {
        "variant": "reno", "ecn": False, "mss": "1420B", "initial_window": 2,
        "receive_window": "105080B", "timestamps": False, "clock_granularity": "10ms",
        "min_rto": "1s", "initial_rto": "6s", "max_rto": "60s", "delayed_ack": False,
        # aqmlab side only: ns-2.35 Full-TCP's packet sequence and loss response (twins.toml)
        "ns2_fulltcp": True, "ssthresh": "ns2", "backoff_reset": "ack", "slow_start": "ns2",
    }  # fmt: skip
    box = {"client": "packmime", "server": "packmime"}
    assert dt["workload"] == [
        {"kind": "packmime", "rate": 101.0, "delaybox": box},
        {"kind": "packmime", "rate": 101.0, "direction": "reverse", "delaybox": box},
    ]
    ecn = _toml(tw.aqmlab_scenario(DEFN, "seed001_aredecn_105", seed=3, warmup="30s", duration="60s"))
    assert ecn["run"] == {"seed": 3, "warmup": "30s", "duration": "60s"}
    assert ecn["queue"] == {
        "kind": "ared", "profile": "ns2", "target_delay": "5ms", "limit": 370, "byte_mode": True,
        "queue_in_bytes": True, "mean_pktsize": "500B", "ecn": True,
    }  # fmt: skip
    assert ecn["tcp"]["ecn"] is True and ecn["workload"][1]["rate"] == 133.0
    pkt = _toml(tw.aqmlab_scenario(DEFN, "seed001_aredpkt_80"))["queue"]
    assert (pkt["byte_mode"], pkt["queue_in_bytes"], pkt["mean_pktsize"]) == (False, False, "1250B")
    assert _toml(tw.aqmlab_scenario(DEFN, "seed001_sack_ared_80"))["tcp"]["variant"] == "sack"


def _opts(args: list[str]) -> dict[str, str]:
    assert len(args) % 2 == 0 and all(a.startswith("-") for a in args[::2])
    return dict(zip((a[1:] for a in args[::2]), args[1::2], strict=True))


def test_ns2_arguments_by_hand():
    dt = _opts(tw.ns2_args(DEFN, "seed001_dt_105", 2, "/tmp/o"))
    assert dt == {
        "bottleneck": "10000000", "access": "20000000", "delay": "0", "access_limit": "1001",
        "queue": "droptail", "limit": "148", "tcp": "reno", "ecn": "0", "mss": "1420", "iw": "2",
        "window": "74", "tick": "0.01", "minrto": "1", "rto0": "6", "maxrto": "60", "rate": "133",
        "seed": "2", "warmup": "120", "duration": "300", "out": "/tmp/o",
    }  # fmt: skip
    ared = _opts(tw.ns2_args(DEFN, "seed001_aredecn_80", warmup="30s", duration="1min"))
    assert (ared["queue"], ared["limit"], ared["targetdelay"], ared["units"], ared["mean_pktsize"]) == (
        "ared",
        "370",
        "0.005",
        "bytes",
        "500",
    )
    assert (ared["ecn"], ared["seed"], ared["warmup"], ared["duration"]) == ("1", "1", "30", "60")
    assert "out" not in ared
    pkt = _opts(tw.ns2_args(DEFN, "seed001_aredpkt_105"))
    assert (pkt["units"], pkt["mean_pktsize"], pkt["ecn"]) == ("packets", "1250", "0")
    assert _opts(tw.ns2_args(DEFN, "seed001_sack_dt_80"))["tcp"] == "sack"


DEF_TEXT = (TWIN_DIR / "twins.toml").read_text()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('units = "packets"', 'units = "bits"', 'twins.toml: queues.aredpkt.units: must be "bytes" or'),
        ("\nlimit = 148", "\nlimit = 0", "twins.toml: queues.dt.limit: must be at least 1"),
        ("\nlimit = 148", '\nlimit = "148"', "twins.toml: queues.dt.limit: expected int"),
        ('tcp = "sack"', 'tcp = "vegas"', "twins.toml: twin[8].tcp: must be one of reno, sack"),
        ("load = 105\ntcp", "load = 90\ntcp", "twins.toml: twin[1].load: no load 90 in [loads]"),
        ('queue = "aredpkt"', 'queue = "red"', "twins.toml: twin[6].queue: no queue 'red' in [queues]"),
        ('warmup = "120s"', 'warmup = "2 minutes"', "twins.toml: setup.warmup: expected a duration"),
        ("mss = 1420", "mss = 1420\nsegsize = 1420", "twins.toml: tcp.segsize: unknown key"),
        ("delayed_ack = false", "delayed_ack = true", "twins.toml: tcp.delayed_ack: only false"),
        ('ssthresh = "ns2"', 'ssthresh = "cwnd"', "twins.toml: tcp.ssthresh: expected one of rfc5681, ns2"),
        ('backoff_reset = "ack"', "backoff_reset = 1", "twins.toml: tcp.backoff_reset: expected one of"),
        ("seeds = [1, 2, 3]", "seeds = [0]", "twins.toml: setup.seeds: expected a non-empty list"),
        ('label = "DT-148q"', 'label = "DT-148q"\necn = true', "twins.toml: queues.dt.ecn: not a droptail"),
    ],
)
def test_definition_errors_name_the_file_and_key(tmp_path, old, new, message):
    assert old in DEF_TEXT
    p = tmp_path / "twins.toml"
    p.write_text(DEF_TEXT.replace(old, new, 1))
    with pytest.raises(tw.TwinError) as e:
        tw.load_definition(p)
    assert str(e.value).startswith(message), str(e.value)


def test_generator_request_errors():
    with pytest.raises(tw.TwinError, match="no twin named 'seed001_dt_90'"):
        tw.aqmlab_scenario(DEFN, "seed001_dt_90")
    with pytest.raises(tw.TwinError, match="seed: expected an integer ≥ 1"):
        tw.ns2_args(DEFN, "seed001_dt_80", seed=0)
    with pytest.raises(tw.TwinError, match="duration: must be positive"):
        tw.aqmlab_scenario(DEFN, "seed001_dt_80", duration="0s")


# --- statistics -----------------------------------------------------------------------------


def test_ks_distance_and_quantiles_by_hand():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([3.0, 4.0, 5.0, 6.0])
    # F_a(2) = 0.5, F_b(2) = 0; F_a(4) = 1, F_b(4) = 0.5: sup = 0.5.
    assert cmp.ks_distance(a, b) == 0.5
    assert cmp.ks_distance(a, a) == 0.0
    assert cmp.ks_distance(a, a + 10) == 1.0
    assert np.isnan(cmp.ks_distance(a, np.array([])))
    # Unequal sizes: F_c steps by 1/2: at x = 1, |1/4 − 1/2| = 0.25; at x = 2: |1/2 − 1/2|; at 3: 1/4.
    assert cmp.ks_distance(a, np.array([1.0, 10.0])) == 0.5  # at x = 4: |1 − 1/2|
    # Nearest rank: rank ⌈q·n⌉ of 1..10 → p10 = 1, p25 = 3, p50 = 5, p99 = 10.
    x = np.arange(10, 0, -1, dtype=float)
    assert [cmp.quantile(x, q) for q in (0.10, 0.25, 0.50, 0.99)] == [1.0, 3.0, 5.0, 10.0]


def test_ns2_output_parsing(tmp_path):
    # Two responses each way, one started before the 10 s warm-up; 3 connections, one with a
    # retransmission by its server.
    (tmp_path / "rt_fwd.dat").write_text("10.500000   300 2000 400.000 1.2 5\n10.1 300 2000 200.000 1.2 5\n")
    (tmp_path / "rt_rev.dat").write_text("12.000000   300 1000 1000.000 0.2 5\n13.0 300 1 999.999 0.2 5\n")
    (tmp_path / "req_fwd.dat").write_text("9.9 300 2000 1.2\n10.1 300 3000 1.2\n")
    (tmp_path / "req_rev.dat").write_text("11.0 300 1000 0.2\n12.001 300 1 0.2\n")
    conns = ["# fid dir start ...", "4 0 10.1 1 0 1 0 0", "5 1 11.0 1 0 0 0 0", "6 0 9.0 1 3 0 1 0",
             "7 1 12.0 0 0 0 0 0"]  # fmt: skip
    (tmp_path / "conns.dat").write_text("\n".join(conns) + "\n")
    out = "\n".join(
        f"link dir={d} arrivals=110 departures=100 drops={k} early_drops=0 bytes=1250000 marks=0 "
        f"mean_q=3.5 max_q=9" for d, k in (("fwd", 10), ("rev", 0))
    )  # fmt: skip
    m = cmp.parse_ns2(tmp_path, out + "\nrun sim_s=20 wall_s=1\n", 1, 10.0, 10.0, 1.0)
    # fwd: 10.1 − 0.2 = 9.9 < 10 left out; rev: 13 − 0.999999 = 12.000001 kept.
    assert sorted(m.rt_ms.tolist()) == [400.0, 999.999, 1000.0]
    assert (m.started, m.conns_with_retx) == (3, 1)
    assert m.offered_bytes == {"fwd": 3000.0, "rev": 1001.0}
    assert m.loss_pct("fwd") == pytest.approx(100 * 10 / 110) and m.loss_pct("rev") == 0.0
    assert m.utilization("fwd", 10_000_000) == pytest.approx(0.1)  # 1.25 MB in 10 s of 10 Mb/s


# --- the reduced comparison against ns-2.35 -------------------------------------------------

NS = shutil.which("ns")
needs_ns = needs_ns2

#: The reduced comparison: 30 s warm-up + 60 s measured, seed 1 (about 15 s of ns-2 per twin).
SHORT = ("30s", "60s")
#: Bounds, from the same comparison over seeds 1-5 (2026-11-25; validation/ns2/README.md, "Seed
#: 001 twins"): two runs of the *same* simulator with different seeds differ by this much at
#: this length, so a correct twin may differ by as much from the other simulator.
#: - ks: the largest seed-to-seed KS distance of either simulator over the 10 pairs of seeds
#:   (DT-148q: ns-2 0.127, aqmlab 0.123; ARED: ns-2 0.034, aqmlab 0.044), rounded up.
#: - loss_pp: the largest seed-to-seed spread of either simulator's loss averaged over both
#:   directions (DT: ns-2 0.54-1.91 %, aqmlab 0.60-1.60 %; ARED: ns-2 1.44-1.78 %, aqmlab
#:   1.16-1.97 %), rounded up.
#: - backlog_rel (ARED only): ARED steers the average backlog in bytes (queue_in_bytes), so
#:   mean queue × mean packet size must agree whatever the packet mix; seeds 1-5 spread it over
#:   4990-6394 B (ns-2) and 4836-6197 B (aqmlab), ±12 % around 5800 B: bound 25 %.
BOUNDS = {
    "seed001_dt_80": {"ks": 0.13, "loss_pp": 1.4},
    "seed001_ared_80": {"ks": 0.045, "loss_pp": 0.85, "backlog_rel": 0.25},
}


@needs_ns
@pytest.mark.engine
@pytest.mark.parametrize("name", list(BOUNDS))
def test_reduced_comparison_against_ns2(tmp_path, name):
    b = BOUNDS[name]
    res = cmp.compare_twin(DEFN, name, [1], tmp_path, *SHORT, log=lambda m: None, ns=NS)
    n2, aq = res["ns-2"], res["aqmlab"]
    msg = "\n" + cmp.table(res)
    # Both ran the whole window with the workload's volume (101 conn/s each way, 60 s: about
    # 12,000 responses; seeds 1-5 gave 11,407-13,097).
    for s in (n2, aq):
        assert 10_500 <= s["responses"]["mean"] <= 14_000, msg
    assert res["ks_pooled"] <= b["ks"], msg

    def both_loss(s):
        return (s["loss_pct_fwd"]["mean"] + s["loss_pct_rev"]["mean"]) / 2

    assert both_loss(n2) > 0 and both_loss(aq) > 0, msg
    assert abs(both_loss(aq) - both_loss(n2)) <= b["loss_pp"], msg
    if "backlog_rel" in b:
        for d in cmp.DIRS:

            def backlog(s, d=d):
                return s[f"mean_q_{d}"]["mean"] * s[f"mean_pkt_bytes_{d}"]["mean"]

            assert abs(backlog(aq) / backlog(n2) - 1) <= b["backlog_rel"], msg
            assert n2[f"early_drops_{d}"]["mean"] > 0 and aq[f"early_drops_{d}"]["mean"] > 0, msg
