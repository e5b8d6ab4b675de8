"""The hardware probe: gathers CPU, RAM, GPUs, unified-memory verdict, bandwidth and backend in one report."""

from __future__ import annotations

import dataclasses

from app.core.hardware.amd import AmdGpu, read_amd_gpus
from app.core.hardware.apple import detect_apple_silicon
from app.core.hardware.backend import recommend_backend
from app.core.hardware.bandwidth import BandwidthCandidate, estimate_bandwidth
from app.core.hardware.cpu_memory import CpuMemoryFacts, read_cpu_memory
from app.core.hardware.nvidia import NvidiaFindings, read_nvidia
from app.core.hardware.report import GpuInfo, HardwareReport
from app.core.hardware.soc import SocFacts, read_soc_facts
from app.core.hardware.sources import ProbeSources
from app.core.hardware.unified import decide_unified


def _gpu_list(
    apple: GpuInfo | None, soc: SocFacts, nvidia: NvidiaFindings, amd: tuple[AmdGpu, ...]
) -> list[GpuInfo]:
    """Every GPU with the memory its driver reported (before the unified rule removes it)."""
    gpus = [
        GpuInfo(
            vendor="nvidia",
            name=gpu.name,
            memory_total_bytes=gpu.memory_total_bytes,
            memory_free_bytes=gpu.memory_free_bytes,
            integrated=gpu.integrated,
            compute_capability=gpu.compute_capability,
            driver=gpu.driver,
        )
        for gpu in nvidia.gpus
    ]
    if soc.is_jetson and not gpus:  # NVML and CUDA both silent: the device tree still names the module
        gpus.append(GpuInfo(vendor="nvidia", name=soc.jetson_model or "NVIDIA Jetson GPU", integrated=True))
    gpus.extend(
        GpuInfo(
            vendor="amd",
            name=gpu.name,
            memory_total_bytes=gpu.vram_total_bytes,
            memory_free_bytes=gpu.vram_free_bytes,
            integrated=gpu.is_apu,
        )
        for gpu in amd
    )
    if apple is not None:
        gpus.append(apple)
    return gpus


def _bandwidth_candidates(
    soc: SocFacts, gpus: list[GpuInfo], cpu: CpuMemoryFacts
) -> list[BandwidthCandidate]:
    """Names to look up, the device that runs decode first: Jetson module, GPUs, then the CPU."""
    candidates: list[BandwidthCandidate] = []
    if soc.jetson_model:
        candidates.append(BandwidthCandidate(soc.jetson_model))
    ordered = sorted(gpus, key=lambda gpu: gpu.vendor != "nvidia")  # NVIDIA runs decode when present
    candidates.extend(BandwidthCandidate(gpu.name, gpu.memory_total_bytes) for gpu in ordered)
    if cpu.cpu_model not in {candidate.name for candidate in candidates}:
        candidates.append(BandwidthCandidate(cpu.cpu_model))
    return candidates


def probe_hardware(sources: ProbeSources | None = None, *, measure_bandwidth: bool = True) -> HardwareReport:
    """Describe this machine (or the one ``sources`` fakes). Never raises for a missing file or driver.

    On unified memory the pool is counted once: the report's RAM figures are the pool and the GPUs'
    ``memory_*`` fields are ``None``. ``measure_bandwidth`` runs a short (< 1 s) copy benchmark when
    the device is not in the bandwidth table and decode reads system RAM.
    """
    sources = sources if sources is not None else ProbeSources()
    cpu = read_cpu_memory(sources)
    soc = read_soc_facts(sources, cpu)
    apple = detect_apple_silicon(sources, cpu.cpu_model)
    nvidia = read_nvidia(sources)
    amd = read_amd_gpus(sources)
    verdict = decide_unified(apple=apple, soc=soc, nvidia=nvidia, amd=amd, probe_notes=cpu.notes)
    gpus = _gpu_list(apple, soc, nvidia, amd)
    bandwidth = estimate_bandwidth(
        _bandwidth_candidates(soc, gpus, cpu),
        cpu_cores=cpu.cores_physical,
        decode_reads_system_ram=verdict.is_unified or not gpus,
        measure=measure_bandwidth,
    )
    if verdict.is_unified:
        gpus = [dataclasses.replace(gpu, memory_total_bytes=None, memory_free_bytes=None) for gpu in gpus]
    backend = recommend_backend(
        system=sources.system,
        is_unified=verdict.is_unified,
        has_gpu=bool(gpus),
        vllm_importable=sources.vllm_importable,
    )
    return HardwareReport(
        os_name=sources.system,
        os_release=sources.release,
        arch=sources.machine,
        cpu_model=cpu.cpu_model,
        cpu_cores_physical=cpu.cores_physical,
        cpu_cores_logical=cpu.cores_logical,
        ram_total_bytes=cpu.ram_total_bytes,
        ram_available_bytes=cpu.ram_available_bytes,
        unified=verdict,
        bandwidth=bandwidth,
        recommended_backend=backend,
        gpus=tuple(gpus),
    )
