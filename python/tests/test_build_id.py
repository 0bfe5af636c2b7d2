"""The engine build id comes from the core's GNU build-ID note (python/aqmlab/engine/build.py)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess

import pytest

from aqmlab import _core
from aqmlab.engine.build import elf_build_id, engine_build


def _elf(notes: bytes, with_note: bool = True) -> bytes:
    """A minimal 64-bit little-endian ELF file: header, one program header, then `notes`."""
    phoff, phentsize = 64, 56
    data_at = phoff + phentsize
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 32, phoff)
    struct.pack_into("<HH", header, 54, phentsize, 1)
    p_type = 4 if with_note else 1  # PT_NOTE, else PT_LOAD
    ph = struct.pack("<IIQQQQQQ", p_type, 4, data_at, 0, 0, len(notes), len(notes), 4)
    return bytes(header) + ph + notes


def _note(name: bytes, kind: int, desc: bytes) -> bytes:
    pad = lambda b: b + b"\x00" * (-len(b) % 4)  # noqa: E731
    return struct.pack("<III", len(name), len(desc), kind) + pad(name) + pad(desc)


def test_build_id_is_read_from_the_gnu_note(tmp_path):
    desc = bytes(range(0xA0, 0xB4))  # 20 bytes, as a SHA-1 build ID
    # A foreign note first (an ABI tag, type 1), then the build ID: the reader must step over it.
    notes = _note(b"GNU\x00", 1, b"\x00" * 16) + _note(b"GNU\x00", 3, desc)
    p = tmp_path / "a.so"
    p.write_bytes(_elf(notes))
    assert elf_build_id(p) == desc.hex()


def test_no_build_id_gives_none(tmp_path):
    no_note = tmp_path / "b.so"
    no_note.write_bytes(_elf(_note(b"GNU\x00", 3, b"\x01" * 20), with_note=False))
    other_owner = tmp_path / "c.so"
    other_owner.write_bytes(_elf(_note(b"XYZ\x00", 3, b"\x01" * 20)))
    not_elf = tmp_path / "d.so"
    not_elf.write_bytes(b"#!/bin/sh\n" + b"\x00" * 100)
    assert elf_build_id(no_note) is None
    assert elf_build_id(other_owner) is None
    assert elf_build_id(not_elf) is None


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) not installed")
def test_engine_build_is_the_cores_build_id_as_readelf_prints_it():
    out = subprocess.run(["readelf", "-n", _core.__file__], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    assert m, out
    assert engine_build() == m.group(1)[:16]
