"""CPU model, core counts and RAM (total and ``MemAvailable``) for Linux, macOS and, roughly, Windows."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from app.core.hardware.sources import ProbeSources

UNKNOWN = "unknown"
GRACE_SOC_ID_PREFIX = "jep106:036b:0241"  # JEP106 0x036b is NVIDIA; chip 0241 carries Grace CPUs
NVIDIA_SOC_ID_PREFIX = "jep106:036b:"

# (implementer, part) from /proc/cpuinfo on aarch64 -> core name (as the Arm TRMs and lscpu name them).
ARM_CORE_NAMES: dict[tuple[int, int], str] = {
    (0x41, 0xD08): "Cortex-A72",
    (0x41, 0xD0B): "Cortex-A76",
    (0x41, 0xD0C): "Neoverse-N1",
    (0x41, 0xD40): "Neoverse-V1",
    (0x41, 0xD42): "Cortex-A78AE",
    (0x41, 0xD49): "Neoverse-N2",
    (0x41, 0xD4F): "Neoverse-V2",
    (0x41, 0xD83): "Neoverse-V3AE",
    (0x41, 0xD84): "Neoverse-V3",
    (0x41, 0xD85): "Cortex-X925",
    (0x41, 0xD87): "Cortex-A725",
    (0x4E, 0x004): "NVIDIA Carmel",
}


@dataclass(frozen=True)
class CpuMemoryFacts:
    """What the probe learnt about the CPU and RAM, plus notes on anything it could not read."""

    cpu_model: str
    cores_physical: int
    cores_logical: int
    ram_total_bytes: int
    ram_available_bytes: int
    arm_core_names: tuple[str, ...] = ()
    soc_id: str | None = None
    notes: tuple[str, ...] = ()


def parse_cpuinfo(text: str) -> list[dict[str, str]]:
    """Split ``/proc/cpuinfo`` into one ``{key: value}`` block per paragraph."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, separator, value = line.partition(":")
        if separator:
            current[key.strip()] = value.strip()
    if current:
        blocks.append(current)
    return blocks


def parse_meminfo(text: str) -> dict[str, int]:
    """``/proc/meminfo`` as ``{key: bytes}`` (values in kB are converted)."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        match = re.match(r"^(\S+):\s+(\d+)(?:\s+(\w+))?", line)
        if match:
            multiplier = 1024 if (match.group(3) or "").lower() == "kb" else 1
            values[match.group(1)] = int(match.group(2)) * multiplier
    return values


def _parse_int(text: str | None) -> int | None:
    try:
        return int(text.strip(), 0) if text is not None else None
    except ValueError:
        return None


def arm_core_names(processors: list[dict[str, str]]) -> tuple[str, ...]:
    """One core name per processor on aarch64 (empty on x86 or when the parts are unknown)."""
    names: list[str] = []
    for block in processors:
        implementer = _parse_int(block.get("CPU implementer"))
        part = _parse_int(block.get("CPU part"))
        if implementer is None or part is None:
            continue
        names.append(ARM_CORE_NAMES.get((implementer, part), f"Arm core 0x{implementer:02x}:0x{part:03x}"))
    return tuple(names)


def describe_arm_cores(names: tuple[str, ...]) -> str:
    """``"10x Cortex-X925 + 10x Cortex-A725"`` from one name per core."""
    return " + ".join(f"{count}x {name}" for name, count in Counter(names).most_common())


def read_soc_id(sources: ProbeSources) -> str | None:
    """The Arm SMCCC SoC id (``/sys/devices/soc0/soc_id``), e.g. ``jep106:036b:0241`` on Grace."""
    text = sources.read_text("/sys/devices/soc0/soc_id")
    if text is None or not text.strip():
        return None
    return text.strip()


def _physical_cores_from_sysfs(sources: ProbeSources) -> int:
    siblings: set[str] = set()
    for entry in sources.list_dir("/sys/devices/system/cpu"):
        if re.fullmatch(r"cpu\d+", entry):
            text = sources.read_text(f"/sys/devices/system/cpu/{entry}/topology/thread_siblings_list")
            if text is not None and text.strip():
                siblings.add(text.strip())
    return len(siblings)


def _physical_cores_from_cpuinfo(processors: list[dict[str, str]]) -> int:
    cores = {
        (block["physical id"], block["core id"])
        for block in processors
        if "physical id" in block and "core id" in block
    }
    return len(cores)


def _cpu_model(processors: list[dict[str, str]], arm_names: tuple[str, ...], soc_id: str | None) -> str:
    for block in processors:
        if block.get("model name"):
            return block["model name"]
    if arm_names:
        cores = describe_arm_cores(arm_names)
        return f"NVIDIA Grace ({cores})" if (soc_id or "").startswith(GRACE_SOC_ID_PREFIX) else cores
    return UNKNOWN


def _linux_memory(sources: ProbeSources) -> tuple[int, int, list[str]]:
    text = sources.read_text("/proc/meminfo")
    if text is None:
        return 0, 0, ["could not read /proc/meminfo: RAM unknown"]
    values = parse_meminfo(text)
    total = values.get("MemTotal", 0)
    notes: list[str] = [] if total else ["/proc/meminfo has no MemTotal: RAM unknown"]
    if "MemAvailable" in values:
        return total, min(values["MemAvailable"], total), notes
    estimate = sum(values.get(key, 0) for key in ("MemFree", "Buffers", "Cached"))
    notes.append("/proc/meminfo has no MemAvailable: free memory estimated as MemFree + Buffers + Cached")
    return total, min(estimate, total), notes


def read_linux(sources: ProbeSources) -> CpuMemoryFacts:
    """CPU and RAM from ``/proc/cpuinfo``, ``/proc/meminfo`` and ``/sys/devices/system/cpu``."""
    notes: list[str] = []
    cpuinfo = sources.read_text("/proc/cpuinfo")
    if cpuinfo is None:
        notes.append("could not read /proc/cpuinfo: CPU model unknown")
    processors = [block for block in parse_cpuinfo(cpuinfo or "") if "processor" in block]
    sysfs_cpus = [e for e in sources.list_dir("/sys/devices/system/cpu") if re.fullmatch(r"cpu\d+", e)]
    logical = len(processors) or len(sysfs_cpus) or sources.cpu_count() or 1
    physical = _physical_cores_from_sysfs(sources) or _physical_cores_from_cpuinfo(processors) or logical
    arm_names = arm_core_names(processors)
    soc_id = read_soc_id(sources)
    total, available, memory_notes = _linux_memory(sources)
    return CpuMemoryFacts(
        cpu_model=_cpu_model(processors, arm_names, soc_id),
        cores_physical=min(physical, logical),
        cores_logical=logical,
        ram_total_bytes=total,
        ram_available_bytes=available,
        arm_core_names=arm_names,
        soc_id=soc_id,
        notes=(*notes, *memory_notes),
    )


def parse_vm_stat(text: str) -> int | None:
    """Available bytes from macOS ``vm_stat``: free + inactive + speculative pages."""
    page_size_match = re.search(r"page size of (\d+) bytes", text)
    if page_size_match is None:
        return None
    pages: dict[str, int] = {}
    for line in text.splitlines():
        match = re.match(r"^Pages ([\w ]+?):\s+(\d+)\.?\s*$", line.strip())
        if match:
            pages[match.group(1)] = int(match.group(2))
    if "free" not in pages:
        return None
    reclaimable = pages["free"] + pages.get("inactive", 0) + pages.get("speculative", 0)
    return reclaimable * int(page_size_match.group(1))


def read_macos(sources: ProbeSources) -> CpuMemoryFacts:
    """CPU and RAM from ``sysctl`` and ``vm_stat``."""

    def sysctl(name: str) -> str | None:
        output = sources.run_command(["sysctl", "-n", name])
        return output.strip() if output is not None and output.strip() else None

    notes: list[str] = []
    brand = sysctl("machdep.cpu.brand_string")
    total = _parse_int(sysctl("hw.memsize"))
    logical = _parse_int(sysctl("hw.logicalcpu")) or sources.cpu_count() or 1
    physical = _parse_int(sysctl("hw.physicalcpu")) or logical
    vm_stat = sources.run_command(["vm_stat"])
    available = parse_vm_stat(vm_stat) if vm_stat is not None else None
    if total is None:
        notes.append("sysctl hw.memsize failed: RAM unknown")
    if available is None:
        notes.append("vm_stat gave no free-page count: available RAM unknown")
    return CpuMemoryFacts(
        cpu_model=brand or UNKNOWN,
        cores_physical=min(physical, logical),
        cores_logical=logical,
        ram_total_bytes=total or 0,
        ram_available_bytes=min(available or 0, total or 0),
        notes=tuple(notes),
    )


def read_with_psutil(sources: ProbeSources) -> CpuMemoryFacts:
    """Fallback for other systems (Windows): psutil when installed, otherwise unknowns."""
    import platform

    notes: tuple[str, ...] = ()
    try:
        import psutil

        memory = psutil.virtual_memory()
        logical = int(psutil.cpu_count(logical=True) or sources.cpu_count() or 1)
        physical = int(psutil.cpu_count(logical=False) or logical)
        total, available = int(memory.total), int(memory.available)
    except Exception as error:  # psutil missing or failing must not stop the probe
        logical = sources.cpu_count() or 1
        physical, total, available = logical, 0, 0
        notes = (f"psutil unavailable ({error}): RAM unknown",)
    return CpuMemoryFacts(
        cpu_model=platform.processor() or UNKNOWN,
        cores_physical=min(physical, logical),
        cores_logical=logical,
        ram_total_bytes=total,
        ram_available_bytes=min(available, total),
        notes=notes,
    )


def read_cpu_memory(sources: ProbeSources) -> CpuMemoryFacts:
    """CPU and RAM facts for whatever system ``sources`` describes."""
    if sources.system == "Linux":
        return read_linux(sources)
    if sources.system == "Darwin":
        return read_macos(sources)
    return read_with_psutil(sources)
