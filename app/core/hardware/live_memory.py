"""Live memory views read a few times a second: the OS's (``/proc/meminfo``) and, where it has one, the GPU's.

On unified memory (GB10, Jetson) the GPU allocates from the same RAM as the OS, and the two views
disagree: ``MemAvailable`` counts the page cache as free (the kernel reclaims it on demand), the GPU
driver's free figure may not. On a discrete card (or GH200's HBM) the GPU's figure is a pool of its own.
A :class:`MemoryView` keeps both so callers can tell a page cache that will give way from memory that
is really gone. The GPU's figure comes from NVML (``nvml_reader.NvmlMemoryWatch``), never from a CUDA
context in the app's process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.hardware.cpu_memory import parse_meminfo
from app.core.hardware.nvml_reader import GpuMemory

MEMINFO_PATH = Path("/proc/meminfo")


GpuMemoryReader = Callable[[], "GpuMemory | None"]
"""Returns the GPU's view, or ``None`` where the GPU has no view of its own to give (NVML absent or silent)."""


@dataclass(frozen=True)
class MemoryView:
    """Memory as the OS (and optionally the GPU) sees it at one moment, in bytes.

    ``available_bytes`` is ``MemAvailable`` (free + what the kernel can reclaim); ``page_cache_bytes``
    is the file-backed page cache (Active(file) + Inactive(file)): reclaimable, already counted in
    ``available_bytes``; ``gpu`` is what the GPU's driver reports (None when not read).
    """

    total_bytes: int
    available_bytes: int
    page_cache_bytes: int = 0
    gpu: GpuMemory | None = None

    def with_gpu(self, reading: GpuMemory | None) -> MemoryView:
        """This view with the GPU's reading added (unchanged for ``None``)."""
        if reading is None:
            return self
        return MemoryView(self.total_bytes, self.available_bytes, self.page_cache_bytes, reading)


def view_from_meminfo(text: str) -> MemoryView:
    """A view from the text of ``/proc/meminfo`` (MemAvailable; MemFree + Buffers + Cached on old kernels)."""
    values = parse_meminfo(text)
    total = values.get("MemTotal", 0)
    if "MemAvailable" in values:
        available = values["MemAvailable"]
    else:
        available = sum(values.get(key, 0) for key in ("MemFree", "Buffers", "Cached"))
    if "Active(file)" in values or "Inactive(file)" in values:
        page_cache = values.get("Active(file)", 0) + values.get("Inactive(file)", 0)
    else:
        page_cache = max(0, values.get("Cached", 0) - values.get("Shmem", 0))
    return MemoryView(total, min(available, total) if total else available, page_cache)


def read_system_view(meminfo_path: Path = MEMINFO_PATH) -> MemoryView:
    """The OS's view now: ``/proc/meminfo`` on Linux, psutil elsewhere (page cache unknown there: 0)."""
    if sys.platform.startswith("linux"):
        try:
            return view_from_meminfo(meminfo_path.read_text(encoding="ascii", errors="replace"))
        except OSError:
            pass
    import psutil

    memory = psutil.virtual_memory()
    return MemoryView(int(memory.total), int(memory.available), int(getattr(memory, "cached", 0) or 0))


@dataclass(frozen=True)
class LiveMemoryReader:
    """Reads a :class:`MemoryView` on each call: the OS's view, plus the GPU's where ``gpu`` gives one."""

    system: Callable[[], MemoryView] = read_system_view
    gpu: GpuMemoryReader | None = None

    def __call__(self) -> MemoryView:
        view = self.system()
        return view.with_gpu(self.gpu()) if self.gpu is not None else view
