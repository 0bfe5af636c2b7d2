"""`load = …` means one rate whatever runs the file (issue 31): `aqmlab run`, `aqmlab sweep`,
`aqmlab tune`, `aqmlab.run()` (of a path, of TOML text, of a dict). The calibration is put in the
cache by hand (slope 20,880 bit/s per connection/s, intercept 0: the hand count of
python/tests/test_calibrate.py's SMALL), so by hand load 0.9 of the 10 Mbps bottleneck is
9e6 / 20,880 = 431.0345 conn/s, kept to 6 significant digits: rate = 431.034. The engine is
checked to receive exactly that rate in every run (a calibration run instead of the cached one
would have measured a slope other than exactly 20,880, hence another rate)."""

from __future__ import annotations

import json
import tomllib

import pytest

import aqmlab
from aqmlab import _core
from aqmlab.cli import main
from aqmlab.engine.document import read_document

RATE_BY_HAND = 431.034  # 0.9 × 10e6 / 20,880, 6 significant digits
SCHEMA = 2  # of a cached calibration (crates/scenario/src/load/mod.rs)

BASE = """\
[run]
seed = 3
warmup = "1s"
duration = "2s"

[topology]
kind = "dumbbell"
clients = 4
servers = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "droptail"
limit = 120

[[workload]]
kind = "http10"
arrival = "poisson"
load = 0.9
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "uniform", min = "2000B", max = "2900B" }

[[variant]]
name = "dt"
queue = { kind = "droptail", limit = 120 }

[[variant]]
name = "red"
queue = { kind = "red", min_th = 5, max_th = 15, w_q = "1/512", max_p = 0.1, limit = 120 }
"""

SWEEP = """
[sweep]
variants = ["red"]
[sweep.grid]
"variant[red].queue.min_th" = [5, 10]
"""

TUNE = """
[tune]
variant = "red"
baselines = ["red"]
objectives = ["min median_rt_ms"]
trials = 1
replications = 1
final_replications = 1
finalists = 1
[tune.params]
"queue.min_th" = { int = [5, 10] }
"""


@pytest.fixture
def world(tmp_path, monkeypatch):
    """The file (with [sweep] and [tune]), its calibration in a cache, and the rates the engine
    was given (run by run)."""
    f = tmp_path / "loaded.toml"
    f.write_text(BASE + SWEEP + TUNE, encoding="utf-8")
    doc, base_dir = read_document(f)
    h = _core.calibration_hash(doc, str(f), base_dir)
    cache = tmp_path / "cache"
    (cache / "calibration").mkdir(parents=True)
    stored = {
        "hash": h, "scenario": str(f), "workload": 0, "kind": "http10", "parameter": "rate",
        "direction": "forward", "settings": {}, "points": [], "slope": 20_880.0, "intercept": 0.0,
        "r2": 1.0, "max_rel_residual": 0.0, "date": "2026-11-29T00:00:00+00:00", "pilot": None,
        "schema": SCHEMA,
    }  # fmt: skip
    (cache / "calibration" / f"{h}.json").write_text(json.dumps(stored), encoding="utf-8")
    monkeypatch.setenv("AQMLAB_CACHE", str(cache))
    rates: list[float] = []
    real = _core.run_scenario_text

    def recorded(text, *a, **k):
        wl = tomllib.loads(text)["workload"][0]
        assert "load" not in wl
        rates.append(wl["rate"])
        return real(text, *a, **k)

    monkeypatch.setattr(_core, "run_scenario_text", recorded)
    return f, rates


def test_aqmlab_run_resolves_load_and_runs_the_base_of_a_sweep_file(world, tmp_path, capsys):
    f, rates = world
    assert main(["run", str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert rates == [RATE_BY_HAND, RATE_BY_HAND]  # variants dt and red
    err = capsys.readouterr().err
    assert f"workload[0].load = 0.9 of 10 Mbps → rate = {RATE_BY_HAND:g} conn/s" in err
    assert f"{f}: [sweep]: running the base scenario only" in err
    assert f"aqmlab sweep {f} --out DIR" in err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["dt", "red"]


def test_aqmlab_sweep_resolves_the_same_rate(world, tmp_path):
    f, rates = world
    assert main(["sweep", str(f), "--out", str(tmp_path / "s"), "--jobs", "1", "--quiet"]) == 0
    assert rates == [RATE_BY_HAND, RATE_BY_HAND]  # min_th 5 and 10 of red
    for d in (tmp_path / "s" / "runs").iterdir():  # the resolved scenario stored with the run
        doc = tomllib.loads((d / "scenario.toml").read_text(encoding="utf-8"))
        assert doc["workload"][0]["rate"] == RATE_BY_HAND and "load" not in doc["workload"][0]


def test_aqmlab_tune_resolves_the_same_rate(world, tmp_path):
    f, rates = world
    assert main(["tune", str(f), "--out", str(tmp_path / "t"), "--jobs", "1", "--quiet"]) == 0
    assert rates and set(rates) == {RATE_BY_HAND}  # the trial, the finalist and the baseline


@pytest.mark.parametrize("form", ["path", "text", "dict"])
def test_aqmlab_run_of_a_path_text_or_dict_resolves_the_same_rate(world, form):
    f, rates = world
    text = f.read_text(encoding="utf-8")
    scenario = {"path": f, "text": text, "dict": tomllib.loads(text)}[form]
    results = aqmlab.run(scenario, variant="dt")
    assert list(results) == ["dt"] and rates == [RATE_BY_HAND]
    # The run is the scenario asked for: ~431 conn/s of 2,610 B forward offer ~0.9 of 10 Mbps.
    assert results["dt"].summary["utilization"] == pytest.approx(0.9, abs=0.15)


def test_aqmlab_run_of_text_and_dict_without_variants_names_the_run_base(tmp_path):
    doc = tomllib.loads(BASE.replace("load = 0.9", "rate = 50.0").split("[[variant]]")[0])
    text = BASE.replace("load = 0.9", "rate = 50.0").split("[[variant]]")[0]
    a = aqmlab.run(doc)
    b = aqmlab.run(text)
    assert list(a) == ["base"] and list(b) == ["base"]
    assert a["base"].summary_json == b["base"].summary_json  # one scenario, one seed: same bytes


def test_errors_in_text_and_dict_are_named_by_their_form():
    text = BASE.replace("load = 0.9", "rate = 50.0").replace("clients = 4", "clients = 0")
    with pytest.raises(_core.ScenarioError, match=r"^<dict>: topology.clients: "):
        aqmlab.run(tomllib.loads(text))
    with pytest.raises(_core.ScenarioError, match=r"^<text>: topology.clients: "):
        aqmlab.run(text)
    with pytest.raises(TypeError, match="scenario: expected a path, TOML text or a dict"):
        aqmlab.run(42)


@pytest.mark.parametrize("form", ["path", "text", "dict"])
def test_variants_of_a_path_text_or_dict(world, form):
    f, _ = world
    text = f.read_text(encoding="utf-8")
    scenario = {"path": f, "text": text, "dict": tomllib.loads(text)}[form]
    assert aqmlab.variants(scenario) == ["dt", "red"]  # BASE's two [[variant]]s, in file order


def test_aqmlab_reproduce_resolves_the_same_rate(world, tmp_path):
    from aqmlab.studies import Study, Table
    from aqmlab.studies.reproduce import reproduce

    f, rates = world
    (tmp_path / "studies" / "loaded").mkdir(parents=True)
    (tmp_path / "studies" / "loaded" / "sw.toml").write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "studies" / "loaded" / "paper.csv").write_text("table,row,metric,value\n", encoding="utf-8")
    study = Study(
        "loaded", "a study at load 0.9", (Table("T1", "t", "sw.toml", ("kb_per_s",), lambda r: None),)
    )
    reproduce(study, tmp_path / "out", jobs=1, studies_dir=tmp_path / "studies", progress=False)
    assert rates == [RATE_BY_HAND, RATE_BY_HAND]  # the sweep's two runs (min_th 5 and 10)
