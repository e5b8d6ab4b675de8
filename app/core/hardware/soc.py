"""NVIDIA system-on-chip signs: Jetson (device tree, nv_tegra_release) and Grace CPUs (SoC id, cores)."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.hardware.cpu_memory import GRACE_SOC_ID_PREFIX, CpuMemoryFacts
from app.core.hardware.sources import ProbeSources
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "HardwareEvidence"

DEVICE_TREE_DIRS = ("/proc/device-tree", "/sys/firmware/devicetree/base")
TEGRA_RELEASE_FILE = "/etc/nv_tegra_release"


@dataclass(frozen=True)
class SocFacts:
    """Jetson and Grace signs found on this machine; each ``*_evidence`` is human-readable."""

    jetson_evidence: tuple[str, ...] = ()
    jetson_model: str | None = None
    grace_evidence: str | None = None

    @property
    def is_jetson(self) -> bool:
        return bool(self.jetson_evidence)


def _device_tree_strings(sources: ProbeSources, name: str) -> tuple[str, tuple[str, ...]] | None:
    """The NUL-separated strings of a device-tree property, with the path they came from."""
    for directory in DEVICE_TREE_DIRS:
        raw = sources.read_bytes(f"{directory}/{name}")
        if raw is not None:
            text = raw.decode("utf-8", "replace")
            return f"{directory}/{name}", tuple(part for part in text.split("\0") if part.strip())
    return None


def _jetson_signs(sources: ProbeSources) -> tuple[tuple[str, ...], str | None]:
    evidence: list[str] = []
    compatible = _device_tree_strings(sources, "compatible")
    if compatible is not None:
        path, entries = compatible
        tegra = [entry for entry in entries if entry.lower().startswith("nvidia,tegra")]
        if tegra:
            evidence.append(Text(CONTEXT, QT_TRANSLATE_NOOP("HardwareEvidence", "Jetson device tree: {0} lists {1}"),
                                 (path, ", ".join(tegra))))
    release = sources.read_text(TEGRA_RELEASE_FILE)
    if release is not None:
        first_line: str = release.strip().splitlines()[0].lstrip("# ") if release.strip() else Text(
            CONTEXT, QT_TRANSLATE_NOOP("HardwareEvidence", "empty"))
        evidence.append(Text(CONTEXT, QT_TRANSLATE_NOOP("HardwareEvidence", "{0} present (Jetson Linux: {1})"),
                             (TEGRA_RELEASE_FILE, first_line)))
    model_entry = _device_tree_strings(sources, "model")
    model = model_entry[1][0].strip() if model_entry is not None and model_entry[1] else None
    return tuple(evidence), model if evidence else None


def _grace_sign(cpu: CpuMemoryFacts, machine: str) -> str | None:
    if (cpu.soc_id or "").startswith(GRACE_SOC_ID_PREFIX):
        return Text(CONTEXT, QT_TRANSLATE_NOOP("HardwareEvidence", "Grace CPU: {0} is {1} (NVIDIA Grace)"),
                    ("/sys/devices/soc0/soc_id", cpu.soc_id))
    if machine.lower() in ("aarch64", "arm64") and "Neoverse-V2" in cpu.arm_core_names:
        return Text(CONTEXT, QT_TRANSLATE_NOOP(
            "HardwareEvidence", "{0} cores on {1} in {2} (the core of NVIDIA Grace)"),
            ("Neoverse-V2", "aarch64", "/proc/cpuinfo"))
    return None


def read_soc_facts(sources: ProbeSources, cpu: CpuMemoryFacts) -> SocFacts:
    """Look for Jetson and Grace; on anything but Linux there is nothing to find."""
    if sources.system != "Linux":
        return SocFacts()
    jetson_evidence, jetson_model = _jetson_signs(sources)
    return SocFacts(
        jetson_evidence=jetson_evidence,
        jetson_model=jetson_model,
        grace_evidence=_grace_sign(cpu, sources.machine),
    )
