"""Run seed001.tcl for a set of sweep points, at most `jobs` at once, resumably.

Each run goes to RUNS/<key>/ (key = aqmlab.ns2grid.command.Ns2Point.key: the hash of its
options and input files), with `cmd.json` (the command) and `stdout.txt` (its stdout, written
last, under a temporary name renamed into place): a directory with both, and the same command,
is a finished run and is never redone; anything else is cleared and run again. The input files
of the points (the RTT CDFs) are written to RUNS/ itself, where ns-2 runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from aqmlab.ns2grid.command import OUT, TCL, Ns2Point  # noqa: F401 (TCL: runner.TCL)

STDOUT, CMD = "stdout.txt", "cmd.json"
DONE_MARK = "run sim_s="


class Ns2RunError(RuntimeError):
    """ns-2 exited with an error; the message has the command and its last output."""


def command(point: Ns2Point, ns: str = "ns") -> list[str]:
    """The ns-2 command of `point`, run from RUNS/ (its output directory is RUNS/<key>)."""
    k = point.key()
    if OUT in point.args:
        return [ns, str(point.script), *(k if a == OUT else a for a in point.args)]
    return [ns, str(point.script), *point.args, "-out", k]


def finished(runs: Path, point: Ns2Point, ns: str = "ns") -> bool:
    """Whether RUNS/<key> holds a finished run of exactly this command."""
    d = runs / point.key()
    try:
        kept = json.loads((d / CMD).read_text(encoding="utf-8"))
        return kept.get("cmd") == command(point, ns) and DONE_MARK in (d / STDOUT).read_text()
    except (OSError, ValueError):
        return False


def stdout_of(runs: Path, point: Ns2Point) -> str:
    return (runs / point.key() / STDOUT).read_text(encoding="utf-8")


def wall_of(runs: Path, point: Ns2Point) -> float:
    """The wall time (s) the finished run took, as its cmd.json records it."""
    return float(json.loads((runs / point.key() / CMD).read_text(encoding="utf-8"))["wall_s"])


def run_one(runs: Path, point: Ns2Point, ns: str = "ns") -> float:
    """Run `point` into RUNS/<key> (clearing a partial run); returns its wall seconds."""
    d = runs / point.key()
    if d.exists():
        shutil.rmtree(d)
    for name, text in point.files:
        f = runs / name
        if not f.exists() or f.read_text(encoding="utf-8") != text:
            # the jobs are threads of one process: the temporary name is the thread's own
            tmp = f.with_name(f"{name}.tmp-{os.getpid()}-{threading.get_ident()}")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, f)
    cmd = command(point, ns)
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=runs, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0 or DONE_MARK not in p.stdout:
        tail = (p.stderr + p.stdout)[-2000:]
        raise Ns2RunError(f"ns-2 failed ({p.returncode}) in {runs}: {' '.join(cmd)}\n{tail}")
    d.mkdir(parents=True, exist_ok=True)  # seed001.tcl makes it; a run that wrote nothing has none
    (d / CMD).write_text(json.dumps({"cmd": cmd, "wall_s": wall}) + "\n", encoding="utf-8")
    tmp = d / f"{STDOUT}.tmp"
    tmp.write_text(p.stdout, encoding="utf-8")
    os.replace(tmp, d / STDOUT)
    return wall


def run_all(
    runs: Path,
    points: list[Ns2Point],
    jobs: int = 2,
    ns: str = "ns",
    log: Callable[[str], None] | None = None,
) -> dict[str, str | None]:
    """Run every point not finished yet (distinct keys once), `jobs` at a time; returns key →
    None (finished) or the error message of a failed run."""
    runs.mkdir(parents=True, exist_ok=True)
    todo: dict[str, Ns2Point] = {}
    status: dict[str, str | None] = {}
    for p in points:
        k = p.key()
        if k in status or k in todo:
            continue
        if finished(runs, p, ns):
            status[k] = None
        else:
            todo[k] = p
    if log:
        log(f"ns-2: {len(status)} runs finished before, {len(todo)} to run, {jobs} at a time")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(run_one, runs, p, ns): k for k, p in todo.items()}
        for i, f in enumerate(as_completed(futs), start=1):
            k = futs[f]
            try:
                wall = f.result()
                status[k] = None
                if log:
                    log(f"ns-2 run {k} done in {wall:.0f} s ({i}/{len(todo)})")
            except Ns2RunError as e:
                status[k] = str(e)
                if log:
                    log(f"ns-2 run {k} failed ({i}/{len(todo)}): {str(e).splitlines()[0]}")
    return status
