"""The unified-memory verdict: does the GPU share system RAM? Every sign found becomes evidence text."""

from __future__ import annotations

from app.core.hardware.amd import AmdGpu
from app.core.hardware.nvidia import NvidiaFindings, NvidiaGpu
from app.core.hardware.report import GpuInfo, UnifiedMemoryVerdict
from app.core.hardware.soc import SocFacts

GIB = 1024**3

VERDICT_UNIFIED = (
    "Verdict: unified memory; the pool is system RAM, counted once "
    "(free memory is what the OS reports as available, MemAvailable on Linux)"
)
VERDICT_DISCRETE = "Verdict: discrete GPU memory, counted separately from system RAM"
VERDICT_NO_GPU = "Verdict: no GPU; models run from system RAM on the CPU"


def _gib(byte_count: int) -> str:
    return f"{byte_count / GIB:.1f} GiB"


def _nvidia_gpu_signs(gpu: NvidiaGpu) -> tuple[list[str], bool]:
    """Evidence lines for one NVIDIA GPU, and whether any of them says "unified"."""
    lines: list[str] = []
    unified = False
    if gpu.integrated is True:
        lines.append(f"CUDA reports {gpu.name} as integrated (CU_DEVICE_ATTRIBUTE_INTEGRATED = 1)")
        unified = True
    elif gpu.integrated is False:
        lines.append(f"CUDA reports {gpu.name} as not integrated (CU_DEVICE_ATTRIBUTE_INTEGRATED = 0)")
    if gpu.has_unified_name:
        lines.append(
            f"'{gpu.name}' is a unified-memory part: its GPU shares or coherently addresses CPU memory"
        )
        unified = True
    if gpu.memory_not_supported:
        lines.append(f"NVML cannot report memory for {gpu.name} (Not Supported): it has no memory of its own")
        unified = True
    elif gpu.memory_total_bytes is not None:
        lines.append(f"NVML reports {_gib(gpu.memory_total_bytes)} of memory on {gpu.name}")
    elif gpu.memory_error is not None:
        lines.append(f"NVML memory query failed for {gpu.name}: {gpu.memory_error}")
    return lines, unified


def _nvidia_signs(nvidia: NvidiaFindings, soc: SocFacts) -> tuple[list[str], bool]:
    lines: list[str] = []
    unified = False
    for gpu in nvidia.gpus:
        gpu_lines, gpu_unified = _nvidia_gpu_signs(gpu)
        lines.extend(gpu_lines)
        unified = unified or gpu_unified
    if soc.grace_evidence is not None:
        if nvidia.gpus:
            # A Grace CPU next to an NVIDIA GPU is (almost always) a superchip joined by coherent
            # NVLink-C2C. Erring toward "unified" is the safe mistake: it under-counts memory,
            # whereas counting one pool twice can starve the OS.
            lines.append(f"{soc.grace_evidence}, next to an NVIDIA GPU (coherent NVLink-C2C superchip)")
            unified = True
        else:
            lines.append(f"{soc.grace_evidence}, but no NVIDIA GPU was found")
    return lines, unified


def _amd_signs(amd: tuple[AmdGpu, ...], nvidia_present: bool) -> tuple[list[str], bool]:
    lines: list[str] = []
    for gpu in amd:
        vram = _gib(gpu.vram_total_bytes) if gpu.vram_total_bytes is not None else "unknown"
        gtt = _gib(gpu.gtt_total_bytes) if gpu.gtt_total_bytes is not None else "unknown"
        if gpu.is_apu:
            lines.append(f"{gpu.name} has a {vram} VRAM carve-out and {gtt} of GTT: an APU using system RAM")
        else:
            lines.append(f"{gpu.name} has {vram} of dedicated VRAM (GTT {gtt})")
    if nvidia_present:
        if amd:
            lines.append("An NVIDIA GPU is present, so the AMD GPU does not decide the verdict")
        return lines, False
    any_discrete = any(not gpu.is_apu for gpu in amd)
    if any_discrete and any(gpu.is_apu for gpu in amd):
        lines.append("A discrete AMD GPU is present, so the APU does not decide the verdict")
    return lines, bool(amd) and not any_discrete


def decide_unified(
    *,
    apple: GpuInfo | None,
    soc: SocFacts,
    nvidia: NvidiaFindings,
    amd: tuple[AmdGpu, ...],
    probe_notes: tuple[str, ...] = (),
) -> UnifiedMemoryVerdict:
    """Weigh every sign; any strong "shared memory" sign wins, since double counting is the worse error."""
    evidence: list[str] = []
    unified = False
    if apple is not None:
        evidence.append(f"Apple Silicon ({apple.name}): CPU and GPU share one unified memory")
        unified = True
    if soc.is_jetson:
        evidence.extend(soc.jetson_evidence)
        unified = True
    nvidia_lines, nvidia_unified = _nvidia_signs(nvidia, soc)
    amd_lines, amd_unified = _amd_signs(amd, nvidia_present=bool(nvidia.gpus))
    evidence.extend(nvidia_lines)
    evidence.extend(amd_lines)
    unified = unified or nvidia_unified or amd_unified
    evidence.extend(nvidia.notes)
    evidence.extend(f"Probe note: {note}" for note in probe_notes)
    has_gpu = apple is not None or soc.is_jetson or bool(nvidia.gpus) or bool(amd)
    if not has_gpu:
        evidence.append("No GPU found (no NVIDIA device, no AMD card in /sys/class/drm, not Apple Silicon)")
    evidence.append(VERDICT_UNIFIED if unified else VERDICT_DISCRETE if has_gpu else VERDICT_NO_GPU)
    return UnifiedMemoryVerdict(is_unified=unified, evidence=tuple(evidence))
