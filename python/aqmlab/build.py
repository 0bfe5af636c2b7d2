"""Which compiled engine made a run: `engine_build()` is the first 16 hex digits of the SHA-256 of
the loaded core extension (`aqmlab._core`). Every run records it in run.json (`engine.build`);
a sweep or reproduction resumes only runs made by the same build and recomputes the others, so a
rebuilt engine never mixes its results with an older engine's in one table. Driver and Dask
workers must therefore run the same build.

Validation: python/tests/test_sweep_run.py (a run made by another build is recomputed)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path


@functools.lru_cache(maxsize=1)
def engine_build() -> str:
    """The loaded core's build id (16 hex digits of its file's SHA-256)."""
    from aqmlab import _core

    h = hashlib.sha256()
    with open(Path(_core.__file__), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]
