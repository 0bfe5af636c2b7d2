"""What `aqmlab report` is given: a run directory, a parent of run directories, a sweep
directory or a tuning directory, told apart by their files alone.

Only the standard library is imported here, so that `aqmlab report` with a wrong path answers
before pandas and matplotlib are loaded (1-3 s).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from aqmlab.storage.run_dir import is_run_dir

#: A sweep directory's table and description (aqmlab.sweeps.run).
SWEEP_TABLE = "sweep.parquet"
SWEEP_INFO = "sweep.json"
#: A tuning directory's description and trials (aqmlab.tuning.search).
TUNE_INFO = "tune.json"
TRIALS_TABLE = "trials.parquet"


def is_sweep_dir(path: str | os.PathLike) -> bool:
    """`path` holds a sweep (sweep.parquet and sweep.json)."""
    p = Path(path)
    return (p / SWEEP_TABLE).is_file() and (p / SWEEP_INFO).is_file()


def is_tune_dir(path: str | os.PathLike) -> bool:
    """`path` holds a tuning study (tune.json and trials.parquet)."""
    p = Path(path)
    return (p / TUNE_INFO).is_file() and (p / TRIALS_TABLE).is_file()


def _not_a_dir(d: Path) -> str:
    """Why the file `d` is not what `aqmlab report` reads, and what to do instead."""
    try:
        from aqmlab.engine.document import read_document

        doc = read_document(d)[0]  # the core's reading (a ScenarioError is a ValueError)
    except (OSError, ValueError):
        doc = None
    if isinstance(doc, dict) and ("run" in doc or "sweep" in doc or "variant" in doc):
        cmd = "aqmlab sweep" if "sweep" in doc else "aqmlab run"
        return (
            f"{d}: is a scenario file, not a run directory; run it first "
            f"({cmd} {d} --out DIR), then report DIR"
        )
    if d.suffix == ".parquet" or d.name == "summary.json":
        return f"{d}: is a file of a run; give its directory ({d.parent})"
    return f"{d}: is a file, not a run directory"


def find_run_dirs(dirs: Sequence[str | os.PathLike]) -> list[Path]:
    """Each DIR is a run directory (has summary.json) or a parent of run directories (its
    complete run subdirectories, sorted by name). Raises FileNotFoundError naming the DIR and
    what it is instead (missing, a scenario file, a sweep directory among others, empty)."""
    found: list[Path] = []
    for d in map(Path, dirs):
        if is_run_dir(d):
            found.append(d)
            continue
        if d.is_file():
            raise FileNotFoundError(_not_a_dir(d))
        if not d.is_dir():
            raise FileNotFoundError(f"{d}: no such directory")
        children = sorted(c for c in d.iterdir() if is_run_dir(c))
        if not children:
            if is_sweep_dir(d):
                raise FileNotFoundError(f"{d}: is a sweep directory; report it alone (aqmlab report {d})")
            raise FileNotFoundError(f"{d}: not a run directory and contains none (no summary.json)")
        found.extend(children)
    return found
