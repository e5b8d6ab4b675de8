"""Reads NVIDIA GPUs through NVML (nvidia-ml-py) into plain records; pynvml is imported only when called."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


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
