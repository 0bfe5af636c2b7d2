"""aqmlab.python_keys: a scenario's Python-only keys decided from its text when it cannot hold
them, parsed otherwise; `aqmlab run` imports neither a TOML parser nor aqmlab.calibrate for a
plain scenario."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from aqmlab.python_keys import doc_uses_python_keys, uses_python_keys

ROOT = Path(__file__).resolve().parents[2]

BASE = """
[run]
seed = 1
duration = "10s"

[[workload]]
kind = "http10"
rate = 5.0
"""


@pytest.mark.parametrize(
    ("extra", "want"),
    [
        ("", False),
        ("load = 0.8\n", True),
        ('"load" = 0.8\n', True),
        ('"lo\\u0061d" = 0.8\n', True),  # a quoted key spelled with an escape
        ("\n[calibration]\npoints = [1, 2]\n", True),
        ("\n[tune]\ntrials = 3\n", True),
        ("\n[tune.search]\nx = 1\n", True),
        ("# offered load: tune it\n", False),  # whole-line comment: not parsed
        ('name = "high load"  # light load, no tuning\n', False),  # parsed: no such key
        ("workload_load = 1\n", False),
        ("load = \n", False),  # invalid TOML: the core reports it
    ],
)
def test_python_only_keys(tmp_path, extra, want):
    p = tmp_path / "s.toml"
    p.write_text(BASE + extra)
    assert uses_python_keys(p) is want


def test_a_variant_load_alone_is_not_a_base_workload_load(tmp_path):
    p = tmp_path / "s.toml"
    variant = '\n[[variant]]\nname = "a"\nworkload = [{ kind = "http10", rate = 1.0, load = 0.5 }]\n'
    p.write_text(BASE + variant)
    assert uses_python_keys(p) is False


def test_unreadable_file_is_false(tmp_path):
    assert uses_python_keys(tmp_path / "missing.toml") is False


def test_every_shipped_scenario_gets_the_parsed_answer():
    files = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("studies/**/*.toml"))
    assert len(files) > 50
    answers = set()
    for f in files:
        doc = tomllib.loads(f.read_text(encoding="utf-8"))
        want = doc_uses_python_keys(doc)
        assert uses_python_keys(f) is want, f
        answers.add(want)
    assert answers == {False, True}  # both kinds are shipped


def test_plain_scenario_is_answered_without_a_toml_parser_or_calibrate():
    code = (
        "import sys\n"
        "import aqmlab.cli\n"
        "from aqmlab.python_keys import uses_python_keys\n"
        f"print(uses_python_keys({str(ROOT / 'scenarios/quickstart.toml')!r}))\n"
        "print(sorted(m for m in ('tomllib', 'aqmlab.calibrate', 'hashlib', 'tempfile') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "[]"]
