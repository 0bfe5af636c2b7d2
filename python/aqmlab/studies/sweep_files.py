"""A study's sweep files as `aqmlab reproduce` and the ns-2.35 grid run them: the study's quick
overrides and a reading applied to each file, written out resolved (aqmlab.studies.reproduce, step 1).

Overrides are key paths as in sweeps, with one addition: under `sweep.grid.`, `sweep.zip.` and
`sweep.derive.` the rest of the path is one key (`"sweep.grid.var.load" = [90, 98]` replaces the
grid list of `var.load`), applied only to files that already have that key.

Validation: python/tests/test_reproduce.py.
"""

from __future__ import annotations

import copy
from pathlib import Path

from aqmlab import _core
from aqmlab.engine.document import dumps_toml, read_document
from aqmlab.reports.page_text import write_atomic
from aqmlab.studies import Reading

#: The repository root (studies/, docs/reproductions/ and runs/ are under it).
REPO_ROOT = Path(__file__).resolve().parents[3]
_SWEEP_LIST_PREFIXES = ("sweep.grid.", "sweep.zip.", "sweep.derive.")


class ReproduceError(ValueError):
    """A study that cannot be reproduced as defined: `file: key: reason`."""


def apply_overrides(doc: dict, overrides: dict[str, object], file: str) -> dict:
    """A copy of the sweep document `doc` with `overrides` (key path → value) applied; under
    `sweep.grid.`, `sweep.zip.` and `sweep.derive.` the rest of the path is one key, applied
    only where the file already has it. Raises
    ReproduceError naming `file` and the key for a path that does not resolve."""
    out = copy.deepcopy(doc)
    for path, value in overrides.items():
        prefix = next((p for p in _SWEEP_LIST_PREFIXES if path.startswith(p)), None)
        if prefix is not None:
            section = prefix.split(".")[1]
            key = path[len(prefix) :]
            table = out.get("sweep", {}).get(section, {})
            if isinstance(table, dict) and key in table:
                table[key] = copy.deepcopy(value)
            continue
        try:
            out = _core.set_key(out, path, value)
        except ValueError as e:
            raise ReproduceError(f"{file}: quick_overrides[{path!r}]: {e}") from None
    return out


def apply_reading(doc: dict, reading: Reading, file: str) -> dict:
    """A copy of the sweep document `doc` with `reading.queue_options` set in every queue table
    (`queue`, `reverse_queue`, each `topology.link_queue.<link>`, and the same in each
    `[[variant]]`) whose kind is in `reading.kinds` (an option whose value is None is removed
    from the table, so its default applies).
    Raises ReproduceError if no table of the file matched (the reading would change nothing)."""
    out = copy.deepcopy(doc)
    tables = [out] + [v for v in out.get("variant", []) if isinstance(v, dict)]
    hits = 0
    for t in tables:
        queues = [t.get("queue"), t.get("reverse_queue")]
        topo = t.get("topology")
        links = topo.get("link_queue") if isinstance(topo, dict) else None
        if isinstance(links, dict):
            queues += list(links.values())
        for q in queues:
            if isinstance(q, dict) and q.get("kind") in reading.kinds:
                for k, v in reading.queue_options.items():
                    if v is None:
                        q.pop(k, None)
                    else:
                        q[k] = copy.deepcopy(v)
                hits += 1
    if hits == 0:
        raise ReproduceError(
            f"{file}: reading {reading.name!r}: no queue table of kind {', '.join(reading.kinds)}"
        )
    return out


def resolved_sweep_file(
    src: Path, overrides: dict[str, object], dest_dir: Path, reading: Reading | None = None
) -> Path:
    """Write `src` with `overrides` (and `reading`, if any) applied to `dest_dir/<src name>`
    (atomically); returns it."""
    doc = read_document(src)[0]  # `extends` resolved: the copy stands alone
    doc = apply_overrides(doc, overrides, str(src))
    if reading is not None:
        doc = apply_overrides(doc, reading.overrides, str(src))
        if reading.queue_options:
            doc = apply_reading(doc, reading, str(src))
    # The copy runs from dest_dir: its data files stay where the original's are.
    doc.setdefault("sweep", {})["data_dir"] = str(src.parent.resolve())
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / src.name
    what = ["the quick-mode overrides of `aqmlab reproduce --quick`"] if overrides else []
    if reading is not None:
        what.append(f"the reading {reading.name!r}")
    header = f"# {src} with {' and '.join(what) or 'nothing'} applied.\n"
    write_atomic(dest, (header + dumps_toml(doc)).encode("utf-8"))
    return dest


def default_out(name: str, quick: bool, root: Path = REPO_ROOT, reading: str | None = None) -> Path:
    """runs/reproduce/NAME[-READING][-quick]."""
    stem = name + (f"-{reading}" if reading else "")
    return root / "runs" / "reproduce" / (f"{stem}-quick" if quick else stem)
