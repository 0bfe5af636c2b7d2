"""Whether a scenario file uses keys only the Python side knows: `load = …` in a [[workload]]
(aqmlab.calibrate resolves it), the [calibration], [tune] and [sweep] tables (the core does not
know them; `aqmlab run` runs a sweep's or a tune's base scenario). `aqmlab run` asks before
anything else, of the text it read once through the core
(`_core.read_scenario`: bounded, `-` is standard input); a text that cannot hold such a key is
answered without importing or running a TOML parser (start-up time, issue 14).

A key or table named `load`, `calibration`, `tune`, `sweep` (or an `extends`, whose base may
hold them) shows in the text as that word (bare or
quoted) outside whole-line comments, unless a quoted key spells it with escapes (a backslash);
so a file whose other lines have neither the word nor a backslash has no such key. Otherwise (the
word in a value or a trailing comment, say) the file is parsed to know.

Validation: python/tests/test_python_keys.py."""

from __future__ import annotations

import os
import re

#: Tables of a scenario file that Python reads and the core does not (`aqmlab run` drops them).
PYTHON_TABLES = ("calibration", "tune", "sweep")

_WORD = re.compile(r"\b(load|calibration|tune|sweep|extends)\b")


def _may_hold(text: str) -> bool:
    """Whether `text` may hold a Python-only key (see the module doc)."""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        if "\\" in line or _WORD.search(line):
            return True
    return False


def doc_uses_python_keys(doc: dict) -> bool:
    """Whether the parsed scenario `doc` has a Python-only table or a base [[workload]] with a
    `load` key."""
    wls = doc.get("workload")
    has_load = isinstance(wls, list) and any(isinstance(w, dict) and "load" in w for w in wls)
    return has_load or any(k in doc for k in PYTHON_TABLES)


def text_uses_python_keys(text: str, label: str = "<text>", base_dir: str = ".") -> bool:
    """Whether scenario `text` uses a key only Python knows, in itself or in a file it extends
    (False for a text the core rejects: it reports that itself)."""
    if not _may_hold(text):
        return False
    from aqmlab import _core
    from aqmlab.document import text_document

    try:
        doc = text_document(text, label, base_dir)
    except _core.ScenarioError:
        return False
    return doc_uses_python_keys(doc)


def uses_python_keys(scenario: str | os.PathLike) -> bool:
    """Whether the scenario file uses a key only Python knows (False for unreadable or invalid
    files: the core reports those). Read through the core, with its size bound."""
    from aqmlab import _core

    try:
        text, base = _core.read_scenario(os.fspath(scenario))
    except (OSError, ValueError):
        return False
    return text_uses_python_keys(text, os.fspath(scenario), base)
