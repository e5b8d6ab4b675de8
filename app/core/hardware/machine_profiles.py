"""Other machines to plan for: built-in profiles (data/machine_profiles.json, with sources) or a saved probe file."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from app.core.hardware.report import (
    BackendRecommendation,
    BandwidthEstimate,
    GpuInfo,
    HardwareReport,
    UnifiedMemoryVerdict,
)
from app.core.hardware.report_io import MachineFileError, read_report_file
from app.core.hardware.unified import VERDICT_DISCRETE, VERDICT_NO_GPU, VERDICT_UNIFIED
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

GIB = 1024**3
CONTEXT = "MachineFile"
PROFILES_FILE = "machine_profiles.json"


@dataclass(frozen=True)
class MachineProfile:
    """A built-in machine: its id, the names it answers to, what it is, where its figures come from."""

    id: str
    aliases: tuple[str, ...]
    title: str
    sources: tuple[str, ...]
    report: HardwareReport


def _key(name: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", name.lower()).split())


def _bytes(gib: Any) -> int | None:
    return None if gib is None else int(float(gib) * GIB)


def _profile(entry: dict[str, Any]) -> MachineProfile:
    unified = bool(entry["unified"])
    gpus = tuple(
        GpuInfo(
            vendor=gpu["vendor"],
            name=gpu["name"],
            memory_total_bytes=None if unified else _bytes(gpu.get("memory_total_gib")),
            memory_free_bytes=None if unified else _bytes(gpu.get("memory_free_gib")),
            integrated=gpu.get("integrated"),
            compute_capability=gpu.get("compute_capability"),
        )
        for gpu in entry["gpus"]
    )
    evidence = Text("MachineEvidence", QT_TRANSLATE_NOOP("MachineEvidence", "Built-in profile '{0}': {1}"),
                    (entry["id"], entry["title"]))
    verdict = VERDICT_UNIFIED if unified else VERDICT_DISCRETE if gpus else VERDICT_NO_GPU
    backend_reason = Text("MachineEvidence", QT_TRANSLATE_NOOP(
        "MachineEvidence", "the backend UniDesk picks on this machine (profile '{0}')"), (entry["id"],))
    report = HardwareReport(
        os_name=entry["os_name"],
        os_release="",
        arch=entry["arch"],
        cpu_model=entry["cpu_model"],
        cpu_cores_physical=int(entry["cpu_cores_physical"]),
        cpu_cores_logical=int(entry["cpu_cores_logical"]),
        ram_total_bytes=_bytes(entry["ram_total_gib"]) or 0,
        ram_available_bytes=_bytes(entry["ram_available_gib"]) or 0,
        unified=UnifiedMemoryVerdict(unified, (evidence, verdict)),
        bandwidth=BandwidthEstimate(float(entry["bandwidth_gb_s"]) * 1e9, "table", entry["bandwidth_label"]),
        recommended_backend=BackendRecommendation(entry["backend"], backend_reason),
        gpus=gpus,
    )
    return MachineProfile(entry["id"], tuple(entry.get("aliases", ())), entry["title"], tuple(entry["sources"]), report)


@cache
def machine_profiles() -> tuple[MachineProfile, ...]:
    """Every built-in profile, in the data file's order."""
    text = resources.files("app.core.hardware").joinpath("data", PROFILES_FILE).read_text(encoding="utf-8")
    return tuple(_profile(entry) for entry in json.loads(text)["profiles"])


def find_profile(name: str) -> MachineProfile | None:
    """The profile whose id or an alias is ``name`` (case, '-', '_' and spaces ignored), if any."""
    wanted = _key(name)
    for profile in machine_profiles():
        if wanted in {_key(profile.id), *(_key(alias) for alias in profile.aliases)}:
            return profile
    return None


def machine_report(name_or_file: str) -> HardwareReport:
    """The report of a built-in profile, or of a file saved with ``unidesk probe --json``.

    Raises MachineFileError naming the known profiles when ``name_or_file`` is neither.
    """
    profile = find_profile(name_or_file)
    if profile is not None:
        return profile.report
    path = Path(name_or_file).expanduser()
    if path.is_file():
        return read_report_file(path)
    names = ", ".join(profile.id for profile in machine_profiles())
    raise MachineFileError(
        Text(CONTEXT, QT_TRANSLATE_NOOP("MachineFile", "Unknown machine '{0}': not a built-in profile nor a file."),
             (name_or_file,)),
        Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MachineFile", "Use one of {0}, or a file saved on that computer with: unidesk probe --json > FILE"),
            (names,)))
