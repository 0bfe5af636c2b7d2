"""aqmlab.engine.document.uses_python_keys: a scenario's Python-only keys (`load`, [calibration],
[tune], [sweep]) decided on the document the core read (`extends` included); `aqmlab run`
imports neither a TOML parser nor aqmlab.engine.calibrate for a plain scenario."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aqmlab import _core
from aqmlab.engine.document import read_document
from aqmlab.engine.document import uses_python_keys as doc_uses


def uses_python_keys(path: Path) -> bool:
    return doc_uses(read_document(path)[0])


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
        ("\n[sweep]\nreplications = 2\n", True),
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


def test_unreadable_or_invalid_files_are_the_cores_errors(tmp_path):
    with pytest.raises(_core.ScenarioError) as e:
        uses_python_keys(tmp_path / "missing.toml")
    assert e.value.key == "(file)"
    p = tmp_path / "s.toml"
    p.write_text(BASE + "load = \n")
    with pytest.raises(_core.ScenarioError) as e:
        uses_python_keys(p)
    # BASE is 8 lines (the first empty); the value is missing at column 8 of line 9.
    assert e.value.key == "line 9, column 8" and e.value.reason.startswith("TOML syntax error")


def test_a_load_in_the_file_extended_counts(tmp_path):
    (tmp_path / "base.toml").write_text(BASE.replace("rate = 5.0", "load = 0.5"))
    (tmp_path / "s.toml").write_text('extends = "base.toml"\n[run]\nseed = 2\n')
    assert uses_python_keys(tmp_path / "s.toml") is True


def test_both_kinds_are_shipped():
    files = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("studies/**/*.toml"))
    assert len(files) > 50
    assert {uses_python_keys(f) for f in files} == {False, True}


def test_plain_scenario_is_answered_without_a_toml_parser_or_calibrate():
    code = (
        "import sys\n"
        "import aqmlab.cli\n"
        "from aqmlab.engine.document import read_document, uses_python_keys\n"
        f"print(uses_python_keys(read_document({str(ROOT / 'scenarios/quickstart.toml')!r})[0]))\n"
        "print(sorted(m for m in ('tomllib', 'aqmlab.engine.calibrate', 'hashlib', 'tempfile')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "[]"]
