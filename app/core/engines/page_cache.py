"""Drops a loaded model's files from the OS page cache, so the copy the engine no longer reads stops crowding memory.

After an engine has copied the weights into its own memory (vLLM, llama.cpp with every layer on the
GPU), the file's pages in the page cache are a second copy. The kernel would reclaim them under
pressure, but on unified memory CUDA counts them as used (its free figure leaves the cache out), so
they can make vLLM refuse to start or size its KV cache too small. ``POSIX_FADV_DONTNEED`` asks the
kernel to drop the clean, unmapped pages now; pages still mapped (llama.cpp's mmap on the CPU) stay.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf")


def model_files(model_path: Path) -> list[Path]:
    """The weight files of a model: the file itself, or the weight files in a model folder."""
    if model_path.is_file():
        return [model_path]
    if model_path.is_dir():
        return sorted(path for path in model_path.iterdir() if path.is_file() and path.suffix in WEIGHT_SUFFIXES)
    return []


def drop_file_pages(paths: Iterable[Path]) -> int:
    """Advise the kernel to drop ``paths`` from the page cache; the bytes advised (0 where unsupported).

    Never raises: a file that cannot be opened, or a system without ``posix_fadvise``, is skipped.
    """
    advise = getattr(os, "posix_fadvise", None)
    dont_need = getattr(os, "POSIX_FADV_DONTNEED", None)
    if advise is None or dont_need is None:
        return 0
    advised = 0
    for path in paths:
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError as error:
            log.debug("page cache: cannot open %s: %s", path, error)
            continue
        try:
            advise(descriptor, 0, 0, dont_need)
            advised += os.fstat(descriptor).st_size
        except OSError as error:
            log.debug("page cache: fadvise failed on %s: %s", path, error)
        finally:
            os.close(descriptor)
    return advised


def drop_model_pages(model_path: Path) -> int:
    """Drop the weight files of ``model_path`` from the page cache (see the module docstring); bytes advised."""
    advised = drop_file_pages(model_files(model_path))
    if advised:
        log.info("asked the OS to drop %.1f GiB of %s from the page cache", advised / 1024**3, model_path.name)
    return advised
