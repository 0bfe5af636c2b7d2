"""Python reads scenarios only through the core (`_core.scenario_document`, aqmlab.engine.document):
the same document as a TOML parser gives, in file order and with the same types, for every
shipped scenario, sweep and study file; every shipped sweep expands in the core (crates/scenario/
src/sweep/) to exactly the runs (ids and resolved documents) that Python's own expansion gave
before it was deleted; `extends` (crates/scenario/src/extends.rs) as a user sees it; and the two
Christiansen study files rewritten with `extends` expand to exactly the runs they expanded to
before."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import aqmlab
from aqmlab import _core
from aqmlab.engine.document import read_document
from aqmlab.sweeps import run as sweep

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    p
    for top in ("scenarios", "studies", "validation")
    for p in (ROOT / top).rglob("*.toml")
    if "target" not in p.parts
)
#: Files written with `extends` (their document is not their own text's).
EXTENDING = {p for p in SHIPPED if "extends" in tomllib.loads(p.read_text(encoding="utf-8"))}


def same(a, b, where: str = "") -> None:
    """`a` and `b` are equal with the same types (1 is not 1.0) and the same key order."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def test_every_shipped_file_reads_as_toml_says():
    assert len(SHIPPED) > 40
    for p in SHIPPED:
        if p in EXTENDING:
            continue
        same(read_document(p)[0], tomllib.loads(p.read_text(encoding="utf-8")), str(p))


SWEEPS = [p for p in SHIPPED if "[sweep]" in p.read_text(encoding="utf-8")]

#: Per shipped sweep file: (runs, first 16 hex digits of the SHA-256 of every run's id and
#: resolved document as canonical JSON, "ID\nJSON\n" concatenated in run order). The runs are
#: those python/aqmlab/sweepspec.py (Python's own expansion, deleted when the core took it over)
#: gave: the core gave the same ids, texts, values and applied keys for every run of every file
#: when both were there, and these digests were taken when the ids and tomli-w texts still matched
#: the digests pinned then (the core's TOML writer formats floats differently, not the documents).
EXPANDED = {
    "studies/christiansen/red_bad_90.toml": (12, "9cbe119c908cbb05"),
    "studies/christiansen/red_bad_98.toml": (15, "758ee9c7bc5f4594"),
    "studies/christiansen/red_good.toml": (45, "3d66b0c063208272"),
    "studies/christiansen/red_min_max.toml": (126, "714bc690a42f13f8"),
    "studies/christiansen/red_qlen.toml": (27, "adc8ac8f58230c51"),
    "studies/christiansen/red_retx.toml": (6, "d133a7920a3bf531"),
    "studies/christiansen/red_thresholds.toml": (90, "16166e99ca06fe46"),
    "studies/christiansen/red_vs_taildrop.toml": (36, "a2633ab17983c6e8"),
    "studies/christiansen/red_wq_maxp.toml": (81, "f16a5a1c1a09acd1"),
    "studies/christiansen/taildrop_qlen.toml": (90, "d5e20f79fe6081a5"),
    "studies/pisa/bw5.toml": (15, "9f6c184991c65fa1"),
    "studies/pisa/ftp50.toml": (20, "7370139666205db2"),
    "studies/pisa/rtt_ftp200.toml": (15, "273e7a729682cf07"),
    "studies/pisa/rtt_ftp2000.toml": (15, "a2ba31cc988cd8e5"),
    "studies/pisa/standard.toml": (20, "d03dacd70e2335b1"),
    "studies/weigle-multi/table1_1cl.toml": (12, "30cc8c61a4ee7502"),
    "studies/weigle-multi/table1_2cl.toml": (30, "45e08109f8e5a62e"),
    "studies/weigle-multi/table1_3cl.toml": (66, "d3f094346ac50d10"),
    "studies/weigle2006/calibration_equal_rates.toml": (12, "2370fcb7acafef35"),
    "studies/weigle2006/load.toml": (162, "2833aee24ba1ee08"),
    "studies/weigle2006/red_vs_ared.toml": (24, "8b16ecf680e11b40"),
    "studies/weigle2006/reno_sack.toml": (36, "504f3a03e19eda95"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPANDED))
def test_every_sweep_python_expanded_expands_to_the_runs_python_gave(name):
    runs = sweep.expand(ROOT / name).runs
    digest = hashlib.sha256("".join(f"{r.id}\n{_core.canonical_json(r.doc)}\n" for r in runs).encode())
    digest = digest.hexdigest()[:16]
    assert (len(runs), digest) == EXPANDED[name]


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_sweep_gives_each_run_the_id_of_its_document(path):
    runs = sweep.expand(path).runs
    assert runs and len({r.id for r in runs}) == len(runs)
    assert all(r.id == _core.run_id(r.doc) and tomllib.loads(r.text) == r.doc for r in runs)


def test_every_sweep_python_expanded_still_ships():
    # Sweep files added after the core took expansion over (studies/modern/, pisa's candidates)
    # have no Python expansion to compare with; the files Python expanded must all still ship.
    assert set(EXPANDED) <= {str(p.relative_to(ROOT)) for p in SWEEPS}
    assert sum(n for n, _ in EXPANDED.values()) == 955


#: Run ids of the two files before they were written with `extends` (the Python expansion of
#: the files as of commit d76f2b4, each a full copy of scenarios/christiansen2000/lab_constrained.toml
#: with ALTQ's backlog gate; the ids of the 2026-11-29 christiansen reproduction).
IDS_BEFORE = {
    "red_qlen.toml": [
        "951fd3a92435d155", "733cf6c7b6e3517e", "48707d9b560face3", "b105a21e0cf95f93",
        "258de0499b29b7cf", "a9e58e8ed5302e4c", "67467a5058cc3bc6", "f2f718d91f7110b1",
        "52aa518360460dba", "d52b245b1edef8ff", "cb3ae8fe39bc022c", "c45895f7d7a424f3",
        "38d8a141f5417917", "2e53b5dfe602a668", "6c753c6d8a4ff5b9", "d55a3bf085f54ed0",
        "d512dae71c15c4f4", "469dcc24bde75e7b", "3978b865516cafe1", "3d1321d899f79223",
        "3795c5a2bcce0625", "344816b0025e60b4", "0819e7e6a93be145", "b666deb47324855c",
        "3b7f56cd3fc6a436", "4a0d2b98463f0a6d", "cd57ea44a4385a12",
    ],
    "red_retx.toml": [
        "4dca151a8319368c", "4f765693f30e687f", "50f0d58d9a89896e", "bb85b7d0bd02fe74",
        "9475f6ab2e32d39b", "8582816f0c16fb13",
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(IDS_BEFORE))
def test_study_files_written_with_extends_expand_to_the_runs_they_did(name):
    path = ROOT / "studies/christiansen" / name
    assert path in EXTENDING and "extends" in path.read_text(encoding="utf-8")
    assert [r.id for r in sweep.expand(path).runs] == IDS_BEFORE[name]


BASE = """\
[run]
seed = 1
warmup = "1s"
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
limit = 60

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 20.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "constant", value = "3000B" }
"""


def test_a_file_extending_another_runs_as_the_merged_file(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "net.toml").write_text(BASE, encoding="utf-8")
    (tmp_path / "red.toml").write_text(
        'extends = "base/net.toml"\n[run]\nseed = 2\n[queue]\nkind = "red"\nmin_th = 5\nmax_th = 15\n'
        "w_q = 0.002\nmax_p = 0.1\nlimit = 60\n",
        encoding="utf-8",
    )
    full = BASE.replace("seed = 1", "seed = 2").replace(
        'kind = "droptail"\nlimit = 60',
        'kind = "red"\nmin_th = 5\nmax_th = 15\nw_q = 0.002\nmax_p = 0.1\nlimit = 60',
    )
    (tmp_path / "full.toml").write_text(full, encoding="utf-8")
    a = aqmlab.run(tmp_path / "red.toml")["red"]
    b = aqmlab.run(tmp_path / "full.toml")["full"]
    assert a.summary_json == b.summary_json  # the same experiment: the same bytes


def test_a_cycle_is_one_line_naming_the_chain(tmp_path):
    (tmp_path / "a.toml").write_text('extends = "b.toml"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n', encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "run", str(tmp_path / "a.toml"), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
    )
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    assert r.returncode == 2 and not (tmp_path / "o").exists()
    assert r.stderr.splitlines() == [
        f"aqmlab: error: {b}: extends: a cycle: {a} → {b} → {a} (a file cannot extend itself)"
    ]
    with pytest.raises(ValueError, match=r": extends: a cycle: "):
        sweep.expand(a)


def test_the_variant_merge_comes_from_the_core():
    # The rule of crates/scenario/src/merge.rs, by hand: a table of the same kind merges key by
    # key, another kind replaces the base table, an array replaces, and rtt/matrix/matrix_file
    # exclude each other.
    doc = {
        "queue": {"kind": "droptail", "limit": 120},
        "topology": {"kind": "dumbbell", "delaybox": {"rtt": "10ms"}},
        "workload": [{"kind": "http10", "rate": 1.0}, {"kind": "mah", "users": 3}],
        "variant": [
            {"name": "dt60", "queue": {"limit": 60}},
            {
                "name": "red",
                "queue": {"kind": "red", "min_th": 5},
                "topology": {"delaybox": {"matrix_file": "m.csv"}},
                "workload": [{"kind": "mah", "users": 7}],
            },
        ],
    }
    (n1, dt60), (n2, red) = _core.variant_documents(doc, "f.toml")
    assert (n1, n2) == ("dt60", "red")
    assert dt60 == {
        **{k: v for k, v in doc.items() if k != "variant"},
        "queue": {"kind": "droptail", "limit": 60},
    }
    assert red["queue"] == {"kind": "red", "min_th": 5}
    assert red["topology"] == {"kind": "dumbbell", "delaybox": {"matrix_file": "m.csv"}}
    assert red["workload"] == [{"kind": "mah", "users": 7}]
    assert _core.variant_documents({"run": {"seed": 1}}, "dir/plain.toml") == [
        ("plain", {"run": {"seed": 1}})
    ]
    with pytest.raises(_core.ScenarioError, match=r'^f.toml: variant\[1\].name: duplicate variant name "a"'):
        _core.variant_documents({"variant": [{"name": "a"}, {"name": "a"}]}, "f.toml")
    with pytest.raises(TypeError, match=r"^queue.limit: not a TOML value"):
        _core.variant_documents({"queue": {"limit": None}}, "f.toml")
