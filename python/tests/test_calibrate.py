"""Load calibration (crates/scenario/src/load/ through aqmlab.engine.calibrate): the fit against a
hand-computed offered load, the cache, `load = …` resolution checked in closed loop, and the
errors for bad input. The line fit, rate strings, messages and the content hash by hand:
crates/scenario/src/load/ and crates/scenario/tests/load_calibration.rs.

The scenario (SMALL): HTTP/1.0 Poisson connections, 300 B requests and responses uniform on
[2000 B, 2900 B], MSS 1460 B, IW 2, no delayed ACK. Every response is 2 segments
(1461…2920 B), so the forward (server → client) wire bytes per connection, by hand, are
  SYN-ACK 40 + response 2450 (mean of the uniform) + 2 × 40 headers (the FIN rides on the last
  data segment, the ACK of the request on the first: crates/sim/src/world.rs `service`)
  + the ACK of the client's FIN 40 = 2610 B = 20,880 bit
per connection, so the slope is 20,880 bit/s per connection/s and the intercept 0.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

import pytest

import aqmlab
from aqmlab import _core
from aqmlab.cli import main
from aqmlab.engine.calibrate import calibrate, load_resolver
from aqmlab.engine.document import read_document

SLOPE_BY_HAND = 20_880.0  # bit/s per connection/s (module doc)
POINTS = [100, 200, 300, 400]  # connections/s; 8.4 % of the 100 Mbps calibration link at most

SMALL = """\
[run]
seed = 3
warmup = "10s"
duration = "60s"

[topology]
kind = "{kind}"
clients = 10
servers = 10
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[topology.delaybox]
rtt = {{ dist = "uniform", min = "0ms", max = "100ms" }}

[queue]
kind = "droptail"
limit = 120

[[workload]]
kind = "http10"
arrival = "poisson"
{size_key}
request_size = {{ dist = "constant", value = "300B" }}
response_size = {{ dist = "uniform", min = "2000B", max = "2900B" }}

[calibration]
points = [100, 200, 300, 400]
warmup = "2s"
duration = "60s"

[[variant]]
name = "dt"
queue = {{ kind = "droptail", limit = 120 }}
"""


def write_small(d: Path, size_key: str = "load = 0.5", kind: str = "dumbbell", name="small.toml") -> Path:
    p = d / name
    p.write_text(textwrap.dedent(SMALL).format(size_key=size_key, kind=kind))
    return p


def content_hash(path: Path, direction: str = "forward", link: str | None = None) -> str:
    """The calibration cache key of the scenario file `path`, as the core computes it."""
    doc, base_dir = read_document(path)
    return _core.calibration_hash(doc, str(path), base_dir, direction, link)


def link_bps(result, name: str) -> float:
    """Wire bit/s of link `name` after the warm-up of a run: its `links` rows that end after
    the warm-up, over the time they cover."""
    links = result.links
    rows = links[(links["link"] == name) & (links["t_ns"] > result.warmup_ns)]
    span_s = (int(rows["t_ns"].max()) - result.warmup_ns) / 1e9
    return float(rows["bytes"].sum()) * 8.0 / span_s


class CountingCore:
    """Counts calls of the engine entry points `_core.run_variant` (a file) and
    `_core.run_scenario_text` (a resolved text: `aqmlab run`); calibration runs happen inside
    the core and are counted by the calibration itself (`runs`)."""

    def __init__(self, mp: pytest.MonkeyPatch):
        self.calls = 0
        for name in ("run_variant", "run_scenario_text"):
            real = getattr(_core, name)

            def counted(*a, _real=real, **k):
                self.calls += 1
                return _real(*a, **k)

            mp.setattr(_core, name, counted)


# ----- no engine --------------------------------------------------------------------------------


def test_hash_ignores_load_variants_and_run_length_but_not_the_workload(tmp_path):
    h = content_hash(write_small(tmp_path, "load = 0.5", name="a.toml"))
    other_load = write_small(tmp_path, "load = 0.9", name="b.toml")
    assert content_hash(other_load) == h
    as_rate = write_small(tmp_path, "rate = 240.0", name="c.toml")
    assert content_hash(as_rate) == h
    text = (tmp_path / "a.toml").read_text()
    (tmp_path / "d.toml").write_text(text.replace('max = "2900B"', 'max = "2800B"'))
    assert content_hash(tmp_path / "d.toml") != h
    assert content_hash(tmp_path / "a.toml", "both") != h


@pytest.mark.parametrize(
    "size_key, kind, key, reason",
    [
        ("load = 0", "dumbbell", "workload[0].load", "must be a number greater than 0"),
        ("load = -0.5", "dumbbell", "workload[0].load", "must be a number greater than 0"),
        ('load = "98%"', "dumbbell", "workload[0].load", "must be a number greater than 0"),
        ("load = 0.5\nrate = 100.0", "dumbbell", "workload[0].load", "conflicts with rate"),
        ("load = 0.5", "star", "topology.kind", 'calibration needs kind = "dumbbell" or "parking_lot"'),
    ],
)
def test_bad_load_is_one_line_naming_file_and_key(tmp_path, capsys, monkeypatch, size_key, kind, key, reason):
    monkeypatch.chdir(tmp_path)
    scen = write_small(tmp_path, size_key, kind)
    core = CountingCore(monkeypatch)
    assert main(["run", str(scen), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"aqmlab: error: {scen}: {key}: {reason}"), err
    assert core.calls == 0  # nothing ran
    assert not (tmp_path / ".aqmlab-cache").exists() and not (tmp_path / "out").exists()


def test_load_on_a_kind_without_a_size_parameter(tmp_path, capsys):
    scen = tmp_path / "bulk.toml"
    text = write_small(tmp_path).read_text()
    start = text.index("[[workload]]")
    end = text.index("[calibration]")
    scen.write_text(
        text[:start] + '[[workload]]\nkind = "bulk"\nload = 0.5\n'
        'flows = [{ start = "1s", client = 0, server = 0 }]\n\n' + text[end:]
    )
    assert main(["calibrate", str(scen), "--cache", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"aqmlab: error: {scen}: workload[0].load: not supported for kind = 'bulk'"), err


def test_a_bad_calibration_run_is_named_before_anything_runs(tmp_path, capsys):
    # The calibration run's own document (the scenario at the calibration settings) is checked
    # by the scenario parser before the first run; its errors name it.
    scen = write_small(tmp_path)
    scen.write_text(scen.read_text().replace('warmup = "2s"', 'warmup = "2 parsecs"'))
    cache = tmp_path / "c"
    assert main(["calibrate", str(scen), "--cache", str(cache)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"aqmlab: error: {scen} (calibration run): run.warmup: "), err
    assert err.count("\n") == 1 and not cache.exists()


# ----- through the engine -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """SMALL calibrated once (two runs at a time), then again."""
    d = tmp_path_factory.mktemp("calib")
    scen = write_small(d)
    cache = d / "cache"
    first = calibrate(scen, cache=cache, jobs=2)
    second = calibrate(scen, cache=cache, jobs=1)
    return d, scen, cache, first, first.runs, second, second.runs


@pytest.mark.engine
def test_slope_matches_the_hand_computed_offered_load(calibrated):
    _, _, _, c, *_ = calibrated
    assert [p["x"] for p in c.points] == POINTS
    assert c.scenario == str(calibrated[1])
    # Tolerance 3 %: each point is a Poisson sum over 60 s (6,000-24,000 connections, relative
    # s.d. ≈ 1/√(λT) ≈ 0.6-1.3 %), which puts about 0.9 % of s.d. on the fitted slope.
    assert c.slope == pytest.approx(SLOPE_BY_HAND, rel=0.03)
    # The intercept is 0 by hand; allow 2 % of the top point's load (≈ 3 s.d. of the intercept).
    assert abs(c.intercept) < 0.02 * SLOPE_BY_HAND * POINTS[-1]
    assert c.r2 > 0.99
    assert c.max_rel_residual < 0.03
    assert c.parameter == "rate" and c.direction == "forward" and c.workload == 0
    # The reverse direction carries SYN, request (300 + 40), ACKs and FIN: less than forward.
    assert all(0 < p["reverse_bps"] < p["forward_bps"] for p in c.points)


@pytest.mark.engine
def test_cache_file_and_second_call_runs_nothing(calibrated):
    _, scen, cache, first, first_calls, second, second_calls = calibrated
    assert first_calls == len(POINTS) and not first.cached
    assert second_calls == 0 and second.cached
    assert (second.slope, second.intercept, second.points) == (first.slope, first.intercept, first.points)
    stored = json.loads((cache / "calibration" / f"{first.hash}.json").read_text())
    assert stored["hash"] == content_hash(scen)
    assert stored["schema"] == 2 and stored["settings"]["points"] == POINTS
    assert {"points", "slope", "intercept", "r2", "max_rel_residual", "date"} <= set(stored)
    assert [p["x"] for p in stored["points"]] == POINTS


@pytest.mark.engine
def test_points_run_in_parallel_give_the_same_bytes_as_one_at_a_time(calibrated):
    # The fixture ran two points at a time; one at a time (forced), each point is the same
    # seeded run, so every measured load is the same float and the cached file is rewritten.
    _, scen, cache, first, *_ = calibrated
    again = calibrate(scen, cache=cache / "serial", jobs=1, force=True)
    assert again.runs == len(POINTS) and not again.cached
    assert again.points == first.points and again.slope == first.slope


@pytest.mark.engine
def test_ctrl_c_stops_the_calibration_runs_at_once(tmp_path):
    # Points of 10,000 s each (minutes of engine time): Ctrl-C once the runs have started must
    # end `aqmlab calibrate` within seconds with status 130 and leave no calibration behind.
    scen = write_small(tmp_path)
    scen.write_text(
        scen.read_text().replace('duration = "60s"\n\n[[variant]]', 'duration = "10000s"\n\n[[variant]]')
    )
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "calibrate", str(scen), "--cache", str(cache), "--jobs", "2"],
        stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    err = ""
    while "calibration: 4 runs" not in err:
        line = p.stderr.readline()
        assert line, err
        err += line
    time.sleep(1.0)  # the runs are under way
    p.send_signal(signal.SIGINT)
    start = time.monotonic()
    rest = p.communicate(timeout=60)[1]
    assert time.monotonic() - start < 5.0
    assert p.returncode == 130, err + rest
    assert "aqmlab: interrupted" in rest
    assert not list((cache / "calibration").glob("*.json"))


@pytest.mark.engine
def test_load_half_resolves_to_the_right_rate_and_gives_half_load(calibrated, capsys, monkeypatch):
    d, _, cache, c, *_ = calibrated
    # Another file with the same content hash: the cached calibration must be reused.
    scen = write_small(d, "load = 0.5", name="half.toml")
    monkeypatch.setenv("AQMLAB_CACHE", str(cache))
    core = CountingCore(monkeypatch)
    assert main(["run", str(scen), "--out", str(d / "out"), "--quiet"]) == 0
    assert core.calls == 1  # the run itself
    err = capsys.readouterr().err
    assert f"calibration: using {cache / 'calibration' / c.hash}.json" in err  # no calibration runs
    expect = float(f"{(0.5 * 10e6 - c.intercept) / c.slope:.6g}")
    assert f"workload[0].load = 0.5 of 10 Mbps → rate = {expect:g} conn/s" in err
    # By hand: 5 Mbit/s / 20,880 bit per connection = 239.46 conn/s (3 %, as the slope).
    assert expect == pytest.approx(5e6 / SLOPE_BY_HAND, rel=0.03)
    # Closed loop on the real 10 Mbps bottleneck: the measured utilization is the load asked for
    # (±0.02: the fit's ≈1 % plus the 60 s run's ≈1 % Poisson noise, nothing dropped at 50 %).
    run = aqmlab.load_run(d / "out" / "dt")
    assert run.summary["utilization"] == pytest.approx(0.5, abs=0.02)
    assert run.summary["drops"] == 0
    assert json.loads((d / "out" / "dt" / "run.json").read_text())["scenario"] == str(scen)


@pytest.mark.engine
def test_variant_with_its_own_bottleneck_gets_its_own_rate(calibrated):
    d, _, cache, c, *_ = calibrated
    text = write_small(d, "load = 0.5", name="two.toml").read_text()
    scen = d / "two.toml"
    scen.write_text(text + '\n[[variant]]\nname = "fast"\ntopology = { bottleneck_rate = "20Mbps" }\n')
    base = tomllib.loads(scen.read_text())
    doc = load_resolver(base, scen, d, cache=cache).resolve(base)  # cached: no runs
    want10 = float(f"{(0.5 * 10e6 - c.intercept) / c.slope:.6g}")
    want20 = float(f"{(0.5 * 20e6 - c.intercept) / c.slope:.6g}")
    assert doc["workload"][0]["rate"] == want10 and "load" not in doc["workload"][0]
    assert "workload" not in doc["variant"][0]
    assert doc["variant"][1]["workload"][0]["rate"] == want20
    assert "calibration" not in doc


# ----- parking lot ------------------------------------------------------------------------------

#: SMALL's workload on a 3-router parking lot: servers at r0, clients at r2 (responses cross
#: r0_r1 and r1_r2), plus 1 Mbit/s of CBR cross traffic from r1 to r2. On the measured link r1_r2
#: the slope is SMALL's 20,880 bit/s per connection/s and the intercept the CBR's 1 Mbit/s.
PARKING = """\
[run]
seed = 3
warmup = "10s"
duration = "60s"

[topology]
kind = "parking_lot"
routers = 3
link_rate = "10Mbps"
link_delay = "5ms"
bottleneck = "r0_r1"

[topology.clouds.srv]
router = 0
hosts = 10
access_rate = "100Mbps"
access_delay = "1ms"

[topology.clouds.cli]
router = 2
hosts = 10
access_rate = "100Mbps"
access_delay = "1ms"

[topology.clouds.x]
router = 1
hosts = 1
access_rate = "100Mbps"
access_delay = "1ms"

[queue]
kind = "droptail"
limit = 120

[[workload]]
kind = "http10"
arrival = "poisson"
load = 0.5
server_cloud = "srv"
client_cloud = "cli"
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "uniform", min = "2000B", max = "2900B" }

[[workload]]
kind = "cbr"
rate = "1Mbps"
packet_size = "1000B"
server_cloud = "x"
client_cloud = "cli"

[calibration]
points = [100, 200, 300, 400]
warmup = "2s"
duration = "60s"
link = "r1_r2"
"""


@pytest.mark.engine
def test_parking_lot_calibration_measures_the_named_link_and_resolves_load(tmp_path, capsys, monkeypatch):
    scen = tmp_path / "lot.toml"
    scen.write_text(PARKING)
    cache = tmp_path / "cache"
    c = calibrate(scen, cache=cache, jobs=1)
    assert [p["x"] for p in c.points] == POINTS
    # Slope and its tolerance as test_slope_matches_the_hand_computed_offered_load; the
    # intercept is the CBR's 1 Mbit/s (± the same 2 % of the top point's load).
    assert c.slope == pytest.approx(SLOPE_BY_HAND, rel=0.03)
    assert c.intercept == pytest.approx(1e6, abs=0.02 * SLOPE_BY_HAND * POINTS[-1])
    assert c.r2 > 0.99
    # Reverse (r2_r1) carries requests and ACKs only: no CBR, less than forward.
    assert all(0 < p["reverse_bps"] < p["forward_bps"] - 1e6 for p in c.points)
    # Another link is another calibration (the hash covers it): r0_r1 has no CBR.
    assert content_hash(scen, "forward", "r0_r1") != c.hash
    # `load = 0.5` of the real 10 Mbps links: x = (5 − 1) Mbit/s / slope ≈ 191.6 conn/s, and in
    # closed loop r1_r2 runs at half its rate.
    monkeypatch.setenv("AQMLAB_CACHE", str(cache))
    assert main(["run", str(scen), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    err = capsys.readouterr().err
    expect = float(f"{(0.5 * 10e6 - c.intercept) / c.slope:.6g}")
    assert f"workload[0].load = 0.5 of 10 Mbps → rate = {expect:g} conn/s" in err
    assert expect == pytest.approx(4e6 / SLOPE_BY_HAND, rel=0.05)
    run = aqmlab.load_run(tmp_path / "out" / "lot")
    assert link_bps(run, "r1_r2") == pytest.approx(5e6, rel=0.04)


def test_parking_lot_link_mistakes_are_named(tmp_path, capsys):
    scen = tmp_path / "lot.toml"
    scen.write_text(PARKING.replace('link = "r1_r2"', 'link = "r1_r3"'))
    assert main(["calibrate", str(scen), "--cache", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"aqmlab: error: {scen}: calibration.link: must name a router-router link"), err
    scen.write_text(PARKING)
    assert main(["calibrate", str(scen), "--link", "r2_r3", "--cache", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "calibration.link: must name a router-router link r{i}_r{i±1} of routers 0…2" in err
    dumb = write_small(tmp_path)
    assert main(["calibrate", str(dumb), "--link", "r1_r2", "--cache", str(tmp_path / "c")]) == 2
    assert "calibration.link: only a parking lot" in capsys.readouterr().err


@pytest.mark.engine
def test_automatic_points_allow_for_the_traffic_that_does_not_scale(tmp_path):
    # PARKING without points: the pilots (10 and 20 conn/s) see 1 Mbit/s of CBR plus 20,880 bit
    # per connection, so the points land where the loads are 25 … 125 % of the 10 Mbit/s links:
    # x = (f · 10 Mbit/s − 1 Mbit/s) / 20,880 ≈ 72, 192, 311, 431, 551 conn/s. A pilot that
    # took y₀/x₀ as the load per unit would have put them at about a third of that.
    scen = tmp_path / "auto.toml"
    scen.write_text(PARKING.replace("points = [100, 200, 300, 400]\n", ""))
    c = calibrate(scen, cache=tmp_path / "cache", jobs=1)
    assert [p[0] for p in c.pilot["points"]] == [10.0, 20.0]
    want = [(f * 10e6 - 1e6) / SLOPE_BY_HAND for f in (0.25, 0.5, 0.75, 1.0, 1.25)]
    # The pilots' Poisson noise places the points within 5 % (seed 3: 2.52, 5.04, 7.54, 10.01,
    # 12.51 Mbit/s); the fit itself is as precise
    # as with given points.
    assert [p["x"] for p in c.points] == pytest.approx(want, rel=0.05)
    for p, f in zip(c.points, (0.25, 0.5, 0.75, 1.0, 1.25), strict=True):
        assert p["load_bps"] == pytest.approx(f * 10e6, rel=0.05)
    assert c.slope == pytest.approx(SLOPE_BY_HAND, rel=0.03)
