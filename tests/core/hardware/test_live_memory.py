"""Live memory views: /proc/meminfo parsed (and its fallbacks), the GPU's view added, the biggest processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.hardware.live_memory import LiveMemoryReader, MemoryView, read_system_view, view_from_meminfo
from app.core.hardware.memory_users import ProcessMemory, top_processes_by_rss
from app.core.hardware.nvml_reader import GpuMemory

KIB = 1024
GIB = 1024**3


def test_meminfo_gives_available_and_the_file_page_cache() -> None:
    view = view_from_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 600 kB\nCached: 450 kB\n"
                             "Shmem: 50 kB\nActive(file): 300 kB\nInactive(file): 100 kB\n")
    assert view == MemoryView(1000 * KIB, 600 * KIB, 400 * KIB)


def test_old_kernels_without_memavailable_or_file_lists_are_estimated() -> None:
    view = view_from_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 20 kB\nCached: 300 kB\nShmem: 60 kB\n")
    assert view.available_bytes == 420 * KIB  # MemFree + Buffers + Cached
    assert view.page_cache_bytes == 240 * KIB  # Cached less shared memory, which is not reclaimable


@pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="Linux reads /proc/meminfo")
def test_the_reader_adds_the_gpus_view_to_the_systems(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 4194304 kB\nMemAvailable: 2097152 kB\nActive(file): 1048576 kB\n", encoding="ascii")
    card = GpuMemory("NVIDIA GeForce RTX 4090", GIB // 2, 4 * GIB)
    reader = LiveMemoryReader(system=lambda: read_system_view(meminfo), gpu=lambda: card)
    assert reader() == MemoryView(4 * GIB, 2 * GIB, GIB, card)
    assert LiveMemoryReader(system=lambda: read_system_view(meminfo), gpu=lambda: None)().gpu is None
    real = read_system_view()
    assert 0 < real.available_bytes <= real.total_bytes and real.page_cache_bytes >= 0


def test_the_biggest_processes_include_this_one_with_its_memory() -> None:
    ballast = bytearray(256 * 1024 * 1024)  # make this process large enough to be among the biggest
    ballast[::4096] = b"x" * len(ballast[::4096])
    found = top_processes_by_rss(count=1000)
    assert [usage.rss_bytes for usage in found] == sorted((usage.rss_bytes for usage in found), reverse=True)
    mine = next(usage for usage in found if usage.pid == os.getpid())
    assert mine.rss_bytes >= len(ballast)
    assert ProcessMemory(7, "firefox", 3 * GIB + GIB // 5).describe() == "firefox (pid 7): 3.2 GiB"
    assert ProcessMemory(8, "bash", 5 * 1024 * 1024).describe() == "bash (pid 8): 5 MiB"
