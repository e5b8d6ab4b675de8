"""Which processes take the most memory (resident set size), for telling the user what to close."""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class ProcessMemory:
    """One process and its resident memory in bytes."""

    pid: int
    name: str
    rss_bytes: int

    def describe(self) -> str:
        """``"firefox (pid 812): 3.2 GiB"``."""
        size = f"{self.rss_bytes / GIB:.1f} GiB" if self.rss_bytes >= GIB else f"{self.rss_bytes / MIB:.0f} MiB"
        return f"{self.name} (pid {self.pid}): {size}"


def top_processes_by_rss(count: int = 5) -> tuple[ProcessMemory, ...]:
    """The ``count`` processes with the largest RSS now (psutil; processes that vanish are skipped)."""
    import psutil

    found: list[ProcessMemory] = []
    for process in psutil.process_iter(["pid", "name", "memory_info"]):
        info = process.info
        memory = info.get("memory_info")
        if memory is None:
            continue
        found.append(ProcessMemory(int(info["pid"]), str(info.get("name") or "?"), int(memory.rss)))
    found.sort(key=lambda usage: usage.rss_bytes, reverse=True)
    return tuple(found[:count])
