"""Peak memory of `aqmlab run` for a short run and a 60× longer run of one scenario (issue 14:
memory bounded by the open connections, not by the run's length). Not a test: it prints the
figures for the benchmark rounds (bench/HISTORY.md).

    python bench/memory_flat.py [SCENARIO] [--variant NAME] [--factor 60]

Runs the scenario's variant (default: scenarios/quickstart.toml, droptail) twice as a whole
`aqmlab run … --quiet` process: once as written and once with its measured `duration` times
FACTOR (the warm-up unchanged), into a temporary directory, and prints each run's peak resident
memory (the kernel's maximum RSS of the process, from wait4; Linux counts in it the memory of
this script at the fork, so the script imports nothing large), wall time, simulated seconds and
request rows, and the ratio of the two peaks (flat: within 10 %).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from aqmlab.engine.document import dumps_toml

ROOT = Path(__file__).resolve().parent.parent
UNITS_S = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def seconds(text: str) -> float:
    """A duration string of the scenario format ("600s", "10min") in seconds."""
    for unit in sorted(UNITS_S, key=len, reverse=True):
        if text.endswith(unit) and text[: -len(unit)].replace(".", "", 1).isdigit():
            return float(text[: -len(unit)]) * UNITS_S[unit]
    raise ValueError(f"duration: cannot read {text!r}")


def measure(scenario: Path, variant: str, out: Path) -> dict:
    """One `aqmlab run` of `scenario`: peak RSS (MiB), wall seconds, request rows."""
    aqmlab = Path(sys.executable).with_name("aqmlab")
    # A file without variants runs once, under its own (file) name.
    variant = variant if variant else scenario.stem
    pick = ["--variant", variant] if variant != scenario.stem else []
    cmd = [str(aqmlab), "run", str(scenario), *pick, "--out", str(out), "--quiet"]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode() if p.stderr else ""
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    # Counted in another process: a child's peak RSS counts the parent's memory at the fork,
    # so this process must stay small (no pyarrow here).
    count = "import sys, pyarrow.parquet as pq; print(pq.ParquetFile(sys.argv[1]).metadata.num_rows)"
    rows = subprocess.run(
        [sys.executable, "-c", count, str(out / variant / "requests.parquet")],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return {"peak_mib": usage.ru_maxrss / 1024, "wall_s": wall, "rows": int(rows)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios" / "quickstart.toml"))
    ap.add_argument("--variant", default="droptail", help="'' for a file without variants")
    ap.add_argument("--factor", type=float, default=60.0)
    a = ap.parse_args()
    src = Path(a.scenario).resolve()
    doc = tomllib.loads(src.read_text())
    dur = seconds(doc["run"]["duration"])
    results = []
    with tempfile.TemporaryDirectory(prefix="aqmlab-memflat-") as td:
        for factor in (1.0, a.factor):
            doc["run"]["duration"] = f"{dur * factor:g}s"
            scen = src.with_name(f".memflat-{os.getpid()}-{factor:g}.toml")  # data files resolve
            scen.write_text(dumps_toml(doc))
            try:
                r = measure(scen, a.variant, Path(td) / f"x{factor:g}")
            finally:
                scen.unlink()
            r["duration_s"] = dur * factor
            results.append(r)
            print(f"duration {dur * factor:>8g} s: peak {r['peak_mib']:6.1f} MiB, "
                  f"wall {r['wall_s']:6.1f} s, {r['rows']} request rows", flush=True)  # fmt: skip
    short, long = results
    print(f"peak ratio long/short: {long['peak_mib'] / short['peak_mib']:.3f} "
          f"(requests ×{long['rows'] / short['rows']:.1f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
