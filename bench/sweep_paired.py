"""Wall time and peak memory of a small `aqmlab sweep`, two builds paired (issue 14). Not a test:
it prints the figures for the benchmark rounds (bench/HISTORY.md).

    python bench/sweep_paired.py BEFORE_PYTHON_DIR AFTER_PYTHON_DIR [--pairs 3] [--replications 3]

Each of the two directories holds an `aqmlab` package with its compiled `_core` (a checkout's
`python/`). The sweep is the quickstart (both variants) with `[sweep] replications = N`, run as a
whole `python -m aqmlab sweep … --jobs 1 --quiet` process (so every run is in that one process)
with PYTHONPATH set to the directory, alternating before and after (A B A B …) into fresh
temporary directories. Prints each run's wall time and peak resident memory (the kernel's maximum
RSS of the process, from wait4; this script imports nothing large), the medians and the after /
before ratios, and checks that the two sweep tables hold the same summary values.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sweep_file(dir: Path, replications: int) -> Path:
    p = dir / "quickstart_sweep.toml"
    text = (ROOT / "scenarios" / "quickstart.toml").read_text()
    p.write_text(f"{text}\n[sweep]\nreplications = {replications}\n")
    return p


def measure(python_dir: Path, scenario: Path, out: Path) -> tuple[float, float]:
    """(wall s, peak RSS MiB) of one sweep process."""
    env = {**os.environ, "PYTHONPATH": str(python_dir)}
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(scenario), "--out", str(out)]
    cmd += ["--jobs", "1", "--quiet"]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{python_dir}: the sweep failed ({status})")
    return wall, usage.ru_maxrss / 1024.0


def summary_values(out: Path) -> list:
    """The sweep table's rows without the run id (it hashes the resolved scenario only)."""
    code = (
        "import sys, aqmlab; t = aqmlab.load_sweep(sys.argv[1]);"
        "print(t.drop(columns=['run']).to_json(orient='records', double_precision=15))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{out}: cannot read the sweep table: {p.stderr[-500:]}")
    return p.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--replications", type=int, default=3)
    args = ap.parse_args()
    figures: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="aqmlab-sweep-bench-") as td:
        scenario = sweep_file(Path(td), args.replications)
        tables = {}
        for i in range(args.pairs):
            for name, d in (("before", args.before), ("after", args.after)):
                out = Path(td) / f"{name}-{i}"
                wall, mib = measure(d.resolve(), scenario, out)
                figures[name].append((wall, mib))
                print(f"pair {i + 1} {name:6}: {wall:6.2f} s wall, {mib:6.1f} MiB peak", flush=True)
                tables.setdefault(name, summary_values(out))
        same = tables["before"] == tables["after"]
    med = {}
    for k, v in figures.items():
        walls, mibs = [w for w, _ in v], [m for _, m in v]
        med[k] = (statistics.median(walls), statistics.median(mibs))
        print(f"{k:6} median {med[k][0]:6.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f}), "
              f"{med[k][1]:6.1f} MiB peak (min {min(mibs):.1f}, max {max(mibs):.1f})")  # fmt: skip
    wall, mem = med["after"][0] / med["before"][0], med["after"][1] / med["before"][1]
    print(f"after / before: wall {wall:.3f}, memory {mem:.3f}")
    print(f"sweep tables (every summary value): {'the same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
