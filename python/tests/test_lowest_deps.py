"""Installing aqmlab into a user's own environment (issue 15): pyproject.toml gives the direct
dependencies as version ranges (exact pins only in requirements.txt, the app's lock file that
setup.sh installs), and the lower bounds work: the wheel installed into a fresh venv with every
direct dependency at its lower bound (a pip constraints file made from pyproject.toml) runs the
quickstart with the same results as the pinned environment, and a sweep with its report.

The install test is marked `slow` (about 2 minutes: building the wheel, downloading the old
versions from the package index; pip's cache makes a second run faster); ./test.sh and CI run it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def direct_dependencies() -> list[Requirement]:
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [Requirement(r) for r in doc["project"]["dependencies"]]


def lower_bound(req: Requirement) -> Version:
    lows = [Version(s.version) for s in req.specifier if s.operator == ">="]
    assert len(lows) == 1, f"{req}: one lower bound (>=) wanted"
    return lows[0]


def pins() -> dict[str, Version]:
    out = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            out[re.sub(r"[-_.]+", "-", name).lower()] = Version(version)
    return out


def test_pyproject_gives_ranges_and_the_lock_file_lies_inside_them():
    reqs = direct_dependencies()
    names = {r.name for r in reqs}
    # Every package python/aqmlab imports (numpy directly, too) is a direct dependency.
    wanted = {"numpy", "pandas", "pyarrow", "matplotlib", "scipy", "tqdm", "distributed", "optuna"}
    assert wanted <= names
    locked = pins()
    for r in reqs:
        assert not any(s.operator in ("==", "===", "~=") for s in r.specifier), f"{r}: an exact pin"
        low = lower_bound(r)
        pinned = locked[r.name.lower()]
        assert pinned in r.specifier and pinned >= low, (str(r), str(pinned))


def _short_quickstart(d: Path) -> Path:
    text = (ROOT / "scenarios" / "quickstart.toml").read_text(encoding="utf-8")
    text = text.replace('warmup = "60s"', 'warmup = "5s"').replace('duration = "10min"', 'duration = "20s"')
    assert 'duration = "20s"' in text and 'warmup = "5s"' in text
    p = d / "qs.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _run(cmd: list[str], cwd: Path, timeout: float = 300) -> str:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
    return p.stdout


@pytest.mark.slow
def test_wheel_with_the_lowest_allowed_versions_runs_the_quickstart_and_a_sweep(tmp_path):
    # The wheel, as a user would install it.
    wheels = tmp_path / "wheel"
    _run([sys.executable, "-m", "maturin", "build", "--release", "--out", str(wheels)], ROOT, timeout=900)
    (wheel,) = wheels.glob("aqmlab-*.whl")
    # A fresh venv with every direct dependency at its lower bound.
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    py = venv / "bin" / "python"
    lows = {r.name: lower_bound(r) for r in direct_dependencies()}
    constraints = tmp_path / "lowest.txt"
    constraints.write_text("".join(f"{n}=={v}\n" for n, v in lows.items()))
    _run(
        [str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", "--only-binary=:all:",
         "-c", str(constraints), str(wheel)],
        tmp_path, timeout=900,
    )  # fmt: skip
    got = json.loads(
        _run([str(py), "-c", "import json, importlib.metadata as m, sys; "
              "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))", *lows], tmp_path)
    )  # fmt: skip
    assert {n: Version(v) for n, v in got.items()} == lows

    # The quickstart (shortened): the same summaries as with the pinned environment.
    scenario = _short_quickstart(tmp_path)
    aqmlab = str(venv / "bin" / "aqmlab")
    _run([aqmlab, "run", str(scenario), "--out", "low", "--quiet"], tmp_path)
    _run([sys.executable, "-m", "aqmlab", "run", str(scenario), "--out", "pinned", "--quiet"], tmp_path)
    for variant in ("droptail", "red"):
        low = json.loads((tmp_path / "low" / variant / "summary.json").read_text())
        pinned = json.loads((tmp_path / "pinned" / variant / "summary.json").read_text())
        assert low == pinned and low["responses_completed"] > 1000
    _run([aqmlab, "report", "low/droptail", "low/red", "--out", "low/cdf.png"], tmp_path)
    assert (tmp_path / "low" / "cdf.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # A sweep and its report (pandas grouping, Parquet, scipy's t quantiles, matplotlib).
    sweep = tmp_path / "sw.toml"
    sweep.write_text(
        scenario.read_text()
        + '\n[sweep]\nreplications = 2\n[sweep.grid]\n"variant[red].queue.min_th" = [10, 30]\n'
    )
    _run([aqmlab, "sweep", str(sweep), "--out", "swout", "--quiet", "--jobs", "2"], tmp_path)
    _run([aqmlab, "report", "swout"], tmp_path)
    md = (tmp_path / "swout" / "report.md").read_text()
    rows = re.findall(r"^\| (droptail|red, [^|]*) \| (\d) \|", md, flags=re.M)
    assert rows == [
        ("droptail", "2"),
        ("red, variant[red].queue.min_th=10", "2"),
        ("red, variant[red].queue.min_th=30", "2"),
    ]

    # A small tuning study and its report (Optuna at its lower bound: TPE, SQLite storage,
    # PED-ANOVA importances).
    tune_text = (ROOT / "scenarios" / "quickstart_tune.toml").read_text(encoding="utf-8")
    tune_text = tune_text.replace('warmup = "10s"', 'warmup = "1s"')
    tune_text = tune_text.replace('duration = "150s"', 'duration = "4s"')
    tune_file = tmp_path / "tune.toml"
    tune_file.write_text(tune_text, encoding="utf-8")
    _run([aqmlab, "tune", str(tune_file), "--out", "tuneout", "--trials", "8", "--quiet", "--jobs", "2"],
         tmp_path)  # fmt: skip
    md = (tmp_path / "tuneout" / "report.md").read_text()
    assert "## Final comparison" in md and "| baseline droptail | 6 |" in md
