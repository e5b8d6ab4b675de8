"""GaugeSampler: a few times a second, reads a GaugeSnapshot on a worker and hands it to the GUI."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.engines.manager import ManagerState
from app.core.engines.metrics import RequestMetrics
from app.core.hardware import HardwareReport
from app.core.services.gauge_readings import (
    GaugeSnapshot,
    GpuMemoryReader,
    SpeedTracker,
    build_gauge_snapshot,
    engine_child_rss,
    read_memory,
    read_nvml_memory,
)
from app.ui.bridge import Bridge
from app.ui.state.gui_services import GuiServices

SAMPLE_INTERVAL_MS = 333  # 3 Hz


def gpu_reader_for(hardware: HardwareReport | None) -> GpuMemoryReader | None:
    """NVML for machines with a discrete NVIDIA GPU; nothing elsewhere (unified memory reads MemAvailable)."""
    if hardware is None or not hardware.has_discrete_gpu:
        return None
    if not any(gpu.vendor == "nvidia" for gpu in hardware.gpus):
        return None
    return read_nvml_memory


class GaugeSampler(QObject):
    """Pulls snapshots at ~3 Hz while started; ``snapshot_ready(GaugeSnapshot)`` arrives on the GUI thread.

    Readings run on a private one-thread pool; a tick is skipped while the previous one still runs,
    so a slow reading never piles up work.
    """

    snapshot_ready = Signal(object)

    def __init__(self, services: GuiServices, parent: QObject | None = None,
                 interval_ms: int = SAMPLE_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._services = services
        self._bridge = Bridge(self, serial=True)
        self._tracker = SpeedTracker()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.sample_now)
        self.latest: GaugeSnapshot | None = None

    def start(self) -> None:
        if not self._timer.isActive():
            self._timer.start()
            self.sample_now()

    def stop(self) -> None:
        self._timer.stop()

    def is_running(self) -> bool:
        return self._timer.isActive()

    def record_answer(self, metrics: RequestMetrics) -> None:
        """A finished answer's own figures for the speed gauge; shown by the next reading."""
        self._tracker.record_answer(metrics)

    def reset_speed(self) -> None:
        """Forget the last answer's speeds (a new model was loaded); applied by the next reading."""
        self._tracker = SpeedTracker()

    def sample_now(self) -> None:
        """Start one reading unless one is still running."""
        if self._bridge.busy():
            return
        manager, machine, tracker = self._services.engine_manager, self._services.machine, self._tracker

        def read() -> GaugeSnapshot:
            status = manager.status()
            ready = status.state is ManagerState.READY
            metrics = manager.metrics() if ready else None
            hardware = machine.report()
            readings = read_memory(engine_child_rss(metrics), gpu_reader=gpu_reader_for(hardware))
            return build_gauge_snapshot(readings, status.plan if ready else None, metrics, hardware, tracker)

        self._bridge.run_in_background(read, self._deliver)

    def _deliver(self, snapshot: GaugeSnapshot) -> None:
        self.latest = snapshot
        self.snapshot_ready.emit(snapshot)

    def wait(self, timeout_ms: int = 3000) -> bool:
        return self._bridge.wait_for_all(timeout_ms)
