"""Whether progress frames may be drawn: only on a terminal. A bar redraws its line with `\\r`
frames, which in a pipe or a log file are noise; the rule is the core's own bar's
(crates/py/src/progress_bar.rs, indicatif's default, as cargo and pip do): stderr is a terminal
and `TERM` is set and not `dumb`."""

from __future__ import annotations

import os
import sys


def draws_progress() -> bool:
    """stderr is a terminal that draws (module doc)."""
    term = os.environ.get("TERM", "")
    return bool(term) and term != "dumb" and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()


def progress_bar(total: int, desc: str, unit: str):
    """A tqdm bar on stderr when it may be drawn (`draws_progress`), else None."""
    if not draws_progress():
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)
