"""Dropping a model's files from the page cache: real files, residency read back with mincore(2)."""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import sys
from pathlib import Path

import pytest

from app.core.engines.page_cache import drop_file_pages, drop_model_pages, model_files

FILE_BYTES = 8 * 1024 * 1024

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mincore and fadvise are Linux's")


def resident_fraction(path: Path) -> float:
    """The fraction of ``path``'s pages in the page cache: mincore(2) on a fresh read-only mapping of it."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    descriptor = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, descriptor, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed")
        try:
            vector = (ctypes.c_ubyte * pages)()
            if libc.mincore(address, size, vector) != 0:
                raise OSError(ctypes.get_errno(), "mincore failed")
        finally:
            libc.munmap(address, size)
    finally:
        os.close(descriptor)
    return sum(byte & 1 for byte in vector) / pages


@linux_only
def test_dropping_a_read_file_empties_its_page_cache(tmp_path: Path) -> None:
    weights = tmp_path / "model.gguf"
    weights.write_bytes(os.urandom(FILE_BYTES))
    os.sync()
    weights.read_bytes()  # now cached
    assert resident_fraction(weights) > 0.9
    assert drop_file_pages([weights]) == FILE_BYTES
    assert resident_fraction(weights) < 0.1


def test_model_files_are_the_file_or_the_weights_in_a_folder(tmp_path: Path) -> None:
    single = tmp_path / "one.gguf"
    single.write_bytes(b"x")
    folder = tmp_path / "hf"
    folder.mkdir()
    for name in ("model-00001.safetensors", "model-00002.safetensors", "config.json", "tokenizer.json"):
        (folder / name).write_bytes(b"x")
    assert model_files(single) == [single]
    assert [path.name for path in model_files(folder)] == ["model-00001.safetensors", "model-00002.safetensors"]
    assert model_files(tmp_path / "missing") == []


def test_missing_files_are_skipped_without_an_error(tmp_path: Path) -> None:
    present = tmp_path / "a.safetensors"
    present.write_bytes(b"12345")
    assert drop_file_pages([tmp_path / "gone.safetensors", present]) == (5 if hasattr(os, "posix_fadvise") else 0)
    assert drop_model_pages(tmp_path / "nothing-here") == 0
