"""Scenario documents as the core reads them: TOML parsed once, in file order, with `extends`
resolved (`_core.scenario_document`, crates/scenario/src/extends.rs). Python reads a scenario
file only through these; a rejected file raises `ScenarioError` (`FILE: KEY: reason`, a syntax
error keyed `line L, column C`). `uses_python_keys` says whether a document holds what Python
resolves before the core runs it: `load = …` in a base [[workload]] (aqmlab.engine.calibrate) and the
[calibration], [tune] and [sweep] tables (`aqmlab run` runs a sweep's or a tune's base).

Validation: python/tests/test_scenario_document.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aqmlab import _core

#: Tables of a scenario that Python reads and the core does not (`aqmlab run` leaves them out).
PYTHON_TABLES = ("calibration", "tune", "sweep")


class TableError(ValueError):
    """A rejected table of a scenario ([sweep], [tune]): message `file: key: reason`, attributes
    `file`, `key`, `reason`."""

    def __init__(self, file: str, key: str, reason: str):
        super().__init__(f"{file}: {key}: {reason}")
        self.file, self.key, self.reason = file, key, reason

    @classmethod
    @contextmanager
    def from_core(cls) -> Iterator[None]:
        """Raise a `ScenarioError` of the core in the block as this class."""
        try:
            yield
        except _core.ScenarioError as e:
            raise cls(e.file, e.key, e.reason) from None


def dumps_toml(doc: dict) -> str:
    """TOML text of the document `doc`, as the core reads it back (one writer for every file
    aqmlab writes; crates/scenario/src/write.rs)."""
    return _core.toml_text(doc)


def text_document(text: str, label: str, base_dir: str | os.PathLike) -> dict:
    """The document of scenario `text` (named `label` in errors; `extends` resolves against
    `base_dir`)."""
    return _core.scenario_document(text, label, os.fspath(base_dir))


def read_document(path: str | os.PathLike) -> tuple[dict, str]:
    """(document, base directory) of the scenario file `path` (`-`: standard input), read once,
    at most 64 MiB, by the core."""
    label = os.fspath(path)
    text, base_dir = _core.read_scenario(label)
    return text_document(text, label, base_dir), base_dir


def file_dir(label: str) -> str:
    """The directory a scenario named `label` resolves `extends` and data files against."""
    return str(Path(label).parent) or "."


def uses_python_keys(doc: dict) -> bool:
    """Whether the document `doc` has a Python-only table or a base [[workload]] with a `load`
    key (a variant's workloads do not count: `load` is resolved only in the base)."""
    return any(k in doc for k in PYTHON_TABLES) or _core.has_load(doc)
