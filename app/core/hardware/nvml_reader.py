"""Reads NVIDIA GPUs through NVML (nvidia-ml-py) into plain records, and watches their free memory; pynvml is
imported only when called. NVML asks the driver and creates no CUDA context in this process."""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.core.hardware.memory_users import ProcessMemory

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NvmlGpuRecord:
    """One GPU as NVML reports it. Memory is ``None`` when NVML cannot say."""

    index: int
    name: str
    memory_total_bytes: int | None = None
    memory_free_bytes: int | None = None
    memory_not_supported: bool = False
    memory_error: str | None = None
    compute_capability: str | None = None
    driver: str | None = None


@dataclass(frozen=True)
class GpuMemory:
    """One GPU's memory as its driver reports it, in bytes (the GPU with the least free, where there are several)."""

    name: str
    free_bytes: int
    total_bytes: int


class NvmlUnavailable(Exception):
    """NVML is not installed, not loadable, or could not start."""


def _as_text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _optional(call: Callable[[], Any]) -> Any:
    """Return ``call()``, or ``None`` when NVML fails (older drivers lack some queries)."""
    try:
        return call()
    except Exception:
        return None


def _read_device(pynvml: Any, index: int, driver: str | None) -> NvmlGpuRecord:
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    name = _as_text(pynvml.nvmlDeviceGetName(handle))
    total: int | None = None
    free: int | None = None
    not_supported = False
    memory_error: str | None = None
    try:
        memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
        total, free = int(memory.total), int(memory.free)
    except pynvml.NVMLError_NotSupported:
        not_supported = True
    except pynvml.NVMLError as error:
        memory_error = str(error)
    capability = _optional(lambda: pynvml.nvmlDeviceGetCudaComputeCapability(handle))
    return NvmlGpuRecord(
        index=index,
        name=name,
        memory_total_bytes=total,
        memory_free_bytes=free,
        memory_not_supported=not_supported,
        memory_error=memory_error,
        compute_capability=f"{capability[0]}.{capability[1]}" if capability else None,
        driver=driver,
    )


def read_nvml_gpus() -> tuple[NvmlGpuRecord, ...]:
    """Default NVML reader: every GPU NVML sees. Raises :class:`NvmlUnavailable` when NVML is absent."""
    try:
        import pynvml
    except ImportError as error:
        raise NvmlUnavailable("nvidia-ml-py (pynvml) is not installed") from error
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as error:
        raise NvmlUnavailable(f"NVML could not start ({error})") from error
    try:
        driver_raw = _optional(pynvml.nvmlSystemGetDriverVersion)
        driver = _as_text(driver_raw) if driver_raw is not None else None
        return tuple(_read_device(pynvml, index, driver) for index in range(pynvml.nvmlDeviceGetCount()))
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _process_name(pid: int) -> str:
    try:
        import psutil

        return str(psutil.Process(pid).name())
    except Exception:  # gone, or not ours to see
        return "?"


class NvmlMemoryWatch:
    """The GPU's own view of its free memory, read through one NVML session (never a CUDA context here).

    NVML is opened on the first call (on the caller's thread) and kept open until :meth:`close`, so a
    reading is one cheap driver query per GPU. Each call returns the GPU with the least free memory
    among those NVML reports; a GPU that answers "not supported" (unified parts such as GB10) is left
    out for good, and with none left, or no NVML at all, the call returns None (no GPU view).
    ``pynvml`` is the module to use (tests pass a stand-in); by default the installed nvidia-ml-py.
    """

    def __init__(self, pynvml: Any | None = None) -> None:
        self._pynvml = pynvml
        self._devices: list[tuple[Any, str]] | None = None
        self._lowest: Any | None = None
        self._lock = threading.Lock()

    def _open(self) -> list[tuple[Any, str]]:
        if self._devices is None:
            self._devices = []
            try:
                if self._pynvml is None:
                    self._pynvml = importlib.import_module("pynvml")
                self._pynvml.nvmlInit()
                count = int(self._pynvml.nvmlDeviceGetCount())
                for index in range(count):
                    handle = self._pynvml.nvmlDeviceGetHandleByIndex(index)
                    self._devices.append((handle, _as_text(self._pynvml.nvmlDeviceGetName(handle))))
            except Exception as error:  # not installed, no driver: no GPU view
                log.info("no GPU memory view: NVML is not available (%s)", error)
                self._devices = []
        return self._devices

    def __call__(self) -> GpuMemory | None:
        with self._lock:
            devices = self._open()
            pynvml: Any = self._pynvml
            not_supported = getattr(pynvml, "NVMLError_NotSupported", ())
            readings: list[tuple[GpuMemory, Any]] = []
            for device in list(devices):
                handle, name = device
                try:
                    memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
                except not_supported:
                    devices.remove(device)  # unified memory: NVML never has a figure for it
                    continue
                except Exception:  # a transient driver error: skip this reading
                    continue
                readings.append((GpuMemory(name, int(memory.free), int(memory.total)), handle))
            if not readings:
                return None
            lowest, self._lowest = min(readings, key=lambda reading: reading[0].free_bytes)
            return lowest

    def gpu_processes(self, count: int = 5) -> tuple[ProcessMemory, ...]:
        """The ``count`` processes holding the most memory on the GPU last read as the lowest (empty if unknown)."""
        with self._lock:
            handle, pynvml = self._lowest, self._pynvml
        if handle is None or pynvml is None:
            return ()
        used: dict[int, int] = {}
        for query in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
            listing: Callable[[Any], Any] = getattr(pynvml, query)
            for process in _optional(functools.partial(listing, handle)) or ():
                memory = getattr(process, "usedGpuMemory", None)
                if isinstance(memory, int):
                    used[int(process.pid)] = max(used.get(int(process.pid), 0), memory)
        ranked = sorted(used.items(), key=lambda item: item[1], reverse=True)[:count]
        return tuple(ProcessMemory(pid, _process_name(pid), memory) for pid, memory in ranked)

    def close(self) -> None:
        """End the NVML session (a later call opens a new one)."""
        with self._lock:
            if self._devices is not None and self._pynvml is not None:
                with contextlib.suppress(Exception):
                    self._pynvml.nvmlShutdown()
            self._devices, self._lowest = None, None
