"""The unified-memory verdict: does the GPU share system RAM? Every sign found becomes evidence text."""

from __future__ import annotations

from app.core.hardware.amd import AmdGpu
from app.core.hardware.nvidia import NvidiaFindings, NvidiaGpu
from app.core.hardware.report import GpuInfo, UnifiedMemoryVerdict
from app.core.hardware.soc import SocFacts
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

GIB = 1024**3
CONTEXT = "MachineEvidence"
"""Translation context of the evidence lines (Texts: English to the CLI, translated in the window)."""

VERDICT_UNIFIED = Text(CONTEXT, QT_TRANSLATE_NOOP(
    "MachineEvidence",
    "Verdict: unified memory; the pool is system RAM, counted once "
    "(free memory is what the OS reports as available, MemAvailable on Linux)"))
VERDICT_DISCRETE = Text(CONTEXT, QT_TRANSLATE_NOOP(
    "MachineEvidence", "Verdict: discrete GPU memory, counted separately from system RAM"))
VERDICT_NO_GPU = Text(CONTEXT, QT_TRANSLATE_NOOP(
    "MachineEvidence", "Verdict: no GPU; models run from system RAM on the CPU"))


def _gib(byte_count: int) -> str:
    return f"{byte_count / GIB:.1f} GiB"


def _nvidia_gpu_signs(gpu: NvidiaGpu) -> tuple[list[str], bool]:
    """Evidence lines for one NVIDIA GPU, and whether any of them says "unified"."""
    lines: list[str] = []
    unified = False
    if gpu.integrated is True:
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "CUDA reports {0} as integrated (CU_DEVICE_ATTRIBUTE_INTEGRATED = 1)"), (gpu.name,)))
        unified = True
    elif gpu.integrated is False:
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "CUDA reports {0} as not integrated (CU_DEVICE_ATTRIBUTE_INTEGRATED = 0)"), (gpu.name,)))
    if gpu.has_unified_name:
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "'{0}' is a unified-memory part: its GPU shares or coherently addresses CPU memory"),
            (gpu.name,)))
        unified = True
    if gpu.memory_not_supported:
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "NVML cannot report memory for {0} (Not Supported): it has no memory of its own"),
            (gpu.name,)))
        unified = True
    elif gpu.memory_total_bytes is not None:
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP("MachineEvidence", "NVML reports {0} of memory on {1}"),
                          (_gib(gpu.memory_total_bytes), gpu.name)))
    elif gpu.memory_error is not None:
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP("MachineEvidence", "NVML memory query failed for {0}: {1}"),
                          (gpu.name, gpu.memory_error)))
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
            lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MachineEvidence", "{0}, next to an NVIDIA GPU (coherent NVLink-C2C superchip)"),
                (soc.grace_evidence,)))
            unified = True
        else:
            lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP("MachineEvidence", "{0}, but no NVIDIA GPU was found"),
                              (soc.grace_evidence,)))
    return lines, unified


def _amd_signs(amd: tuple[AmdGpu, ...], nvidia_present: bool) -> tuple[list[str], bool]:
    lines: list[str] = []
    for gpu in amd:
        unknown = Text(CONTEXT, QT_TRANSLATE_NOOP("MachineEvidence", "unknown"))
        vram = _gib(gpu.vram_total_bytes) if gpu.vram_total_bytes is not None else unknown
        gtt = _gib(gpu.gtt_total_bytes) if gpu.gtt_total_bytes is not None else unknown
        if gpu.is_apu:
            lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MachineEvidence", "{0} has a {1} VRAM carve-out and {2} of GTT: an APU using system RAM"),
                (gpu.name, vram, gtt)))
        else:
            lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP("MachineEvidence", "{0} has {1} of dedicated VRAM (GTT {2})"),
                              (gpu.name, vram, gtt)))
    if nvidia_present:
        if amd:
            lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MachineEvidence", "An NVIDIA GPU is present, so the AMD GPU does not decide the verdict")))
        return lines, False
    any_discrete = any(not gpu.is_apu for gpu in amd)
    if any_discrete and any(gpu.is_apu for gpu in amd):
        lines.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "A discrete AMD GPU is present, so the APU does not decide the verdict")))
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
        evidence.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "Apple Silicon ({0}): CPU and GPU share one unified memory"), (apple.name,)))
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
    evidence.extend(Text(CONTEXT, QT_TRANSLATE_NOOP("MachineEvidence", "Probe note: {0}"), (note,))
                    for note in probe_notes)
    has_gpu = apple is not None or soc.is_jetson or bool(nvidia.gpus) or bool(amd)
    if not has_gpu:
        evidence.append(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineEvidence", "No GPU found (no NVIDIA device, no AMD card in /sys/class/drm, not Apple Silicon)")))
    evidence.append(VERDICT_UNIFIED if unified else VERDICT_DISCRETE if has_gpu else VERDICT_NO_GPU)
    return UnifiedMemoryVerdict(is_unified=unified, evidence=tuple(evidence))
