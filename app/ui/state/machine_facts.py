"""MachineFacts: the hardware probe run once (on a worker), plus free memory read fresh for each plan."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable

from app.core.hardware import HardwareReport

AvailableMemoryReader = Callable[[], int | None]


def read_available_memory() -> int | None:
    """MemAvailable (or the platform's equivalent) now, in bytes; None when it cannot be read."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # a failed reading falls back to the probe's figure
        return None


class MachineFacts:
    """What the probe found, shared by the window (summary, planner) and the engine manager.

    ``report()`` never blocks (None until the probe finished); ``probe()`` runs the probe on the
    first call and returns the cached report afterwards (call it from a worker). ``current()``
    is that report with the RAM available now, which is what a plan made now must budget from.
    """

    def __init__(
        self,
        probe: Callable[[], HardwareReport],
        available_memory: AvailableMemoryReader = read_available_memory,
    ) -> None:
        self._probe = probe
        self._available_memory = available_memory
        self._lock = threading.Lock()
        self._report: HardwareReport | None = None

    def report(self) -> HardwareReport | None:
        """The probe's report, or None while it has not finished."""
        return self._report

    def probe(self) -> HardwareReport:
        """Run the probe once (later calls return its report); blocks while it runs."""
        with self._lock:
            if self._report is None:
                self._report = self._probe()
            return self._report

    def current(self, extra_available_bytes: int = 0) -> HardwareReport:
        """The probed report with RAM available read now, plus ``extra_available_bytes``.

        ``extra_available_bytes`` counts memory that would be freed first (the loaded model's
        caches when planning a reload).
        """
        report = self.probe()
        available = self._available_memory()
        if available is None:
            available = report.ram_available_bytes
        available = min(report.ram_total_bytes, available + max(0, extra_available_bytes))
        return dataclasses.replace(report, ram_available_bytes=available)
