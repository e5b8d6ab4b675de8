"""NVIDIA GPUs from NVML and the CUDA driver, merged into one list with notes on what failed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.hardware.cuda_driver import CudaDeviceRecord
from app.core.hardware.nvml_reader import NvmlGpuRecord
from app.core.hardware.sources import ProbeSources
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

# NVIDIA parts whose GPU shares (or coherently addresses) the CPU's memory.
UNIFIED_NAME_PATTERN = re.compile(
    r"\b(gb10|gh200|gb200|gb300|thor|orin|xavier|tegra|jetson)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class NvidiaGpu:
    """One NVIDIA GPU with what NVML and CUDA said about it."""

    name: str
    memory_total_bytes: int | None = None
    memory_free_bytes: int | None = None
    memory_not_supported: bool = False
    memory_error: str | None = None
    integrated: bool | None = None
    compute_capability: str | None = None
    driver: str | None = None

    @property
    def has_unified_name(self) -> bool:
        return UNIFIED_NAME_PATTERN.search(self.name) is not None


@dataclass(frozen=True)
class NvidiaFindings:
    """All NVIDIA GPUs found, and why a source gave nothing (``notes``)."""

    gpus: tuple[NvidiaGpu, ...] = ()
    notes: tuple[str, ...] = ()
    cuda_reached: bool = False


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _read_nvml(sources: ProbeSources) -> tuple[tuple[NvmlGpuRecord, ...], str | None]:
    try:
        return sources.read_nvml(), None
    except Exception as error:  # any NVML failure means "no NVML answer", never a crash
        return (), Text("MachineEvidence", QT_TRANSLATE_NOOP("MachineEvidence", "NVML not available: {0}"),
                        (_one_line(error),))


def _read_cuda(sources: ProbeSources) -> tuple[tuple[CudaDeviceRecord, ...] | None, str | None]:
    try:
        return sources.read_cuda(), None
    except Exception as error:
        return None, Text("MachineEvidence", QT_TRANSLATE_NOOP("MachineEvidence", "CUDA driver not reachable: {0}"),
                          (_one_line(error),))


def _merge(nvml: tuple[NvmlGpuRecord, ...], cuda: tuple[CudaDeviceRecord, ...]) -> tuple[NvidiaGpu, ...]:
    """Pair NVML and CUDA devices by name (their index orders may differ); keep unmatched CUDA ones."""
    unmatched = list(cuda)
    gpus: list[NvidiaGpu] = []
    for record in nvml:
        partner = next((device for device in unmatched if device.name == record.name), None)
        if partner is not None:
            unmatched.remove(partner)
        gpus.append(
            NvidiaGpu(
                name=record.name,
                memory_total_bytes=record.memory_total_bytes,
                memory_free_bytes=record.memory_free_bytes,
                memory_not_supported=record.memory_not_supported,
                memory_error=record.memory_error,
                integrated=partner.integrated if partner is not None else None,
                compute_capability=record.compute_capability
                or (partner.compute_capability if partner is not None else None),
                driver=record.driver,
            )
        )
    gpus.extend(
        NvidiaGpu(
            name=device.name, integrated=device.integrated, compute_capability=device.compute_capability
        )
        for device in unmatched
    )
    return tuple(gpus)


def read_nvidia(sources: ProbeSources) -> NvidiaFindings:
    """Ask NVML and the CUDA driver; macOS has neither, so it is not asked."""
    if sources.system == "Darwin":
        return NvidiaFindings()
    nvml, nvml_note = _read_nvml(sources)
    cuda, cuda_note = _read_cuda(sources)
    notes = tuple(note for note in (nvml_note, cuda_note) if note is not None)
    return NvidiaFindings(gpus=_merge(nvml, cuda or ()), notes=notes, cuda_reached=cuda is not None)
