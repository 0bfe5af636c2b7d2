"""Which compiled engine made a run: `engine_build()` is 16 hex digits identifying the loaded core
extension (`aqmlab._core`). Every run records it in run.json (`engine.build`); a sweep or
reproduction resumes only runs made by the same build and recomputes the others, so a rebuilt
engine never mixes its results with an older engine's in one table. Driver and Dask workers must
therefore run the same build.

The id is the linker's GNU build ID (the ELF note `NT_GNU_BUILD_ID`, a SHA-1 of the linked
file's contents that the linker writes into it), read from the file's program headers in well
under a millisecond; a core without one (not ELF, or linked without `--build-id`) falls back to
the SHA-256 of the whole file (about 40 ms for the 30 MB core), as before.

Validation: python/tests/test_sweep_run.py (a run made by another build is recomputed),
python/tests/test_build_id.py (the note is found in a hand-made ELF file and in the core)."""

from __future__ import annotations

import functools
import struct
from pathlib import Path

_PT_NOTE = 4
_NT_GNU_BUILD_ID = 3


def elf_build_id(path: str | Path) -> str | None:
    """The GNU build ID of the 64-bit little-endian ELF file `path` in hex, or None if it is not
    such a file or has no build-ID note."""
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return None
        phoff, phentsize, phnum = struct.unpack_from("<Q", head, 32)[0], *struct.unpack_from("<HH", head, 54)
        if phentsize < 56:
            return None
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _flags, p_offset, _vaddr, _paddr, p_filesz = struct.unpack("<IIQQQQ", f.read(40))
            if p_type != _PT_NOTE:
                continue
            f.seek(p_offset)
            notes, at = f.read(p_filesz), 0
            while at + 12 <= len(notes):
                namesz, descsz, kind = struct.unpack_from("<III", notes, at)
                name_at = at + 12
                desc_at = name_at + (namesz + 3) // 4 * 4
                if kind == _NT_GNU_BUILD_ID and notes[name_at : name_at + namesz] == b"GNU\x00" and descsz:
                    return notes[desc_at : desc_at + descsz].hex()
                at = desc_at + (descsz + 3) // 4 * 4
    return None


@functools.lru_cache(maxsize=1)
def engine_build() -> str:
    """The loaded core's build id: 16 hex digits of its GNU build ID, else of its SHA-256."""
    from aqmlab import _core

    path = Path(_core.__file__)
    build_id = elf_build_id(path)
    if build_id is not None:
        return build_id[:16]
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]
