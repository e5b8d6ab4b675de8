"""A hardware report read back from JSON (``unidesk probe --json > mine.json``), with clear errors for bad files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

from app.core.hardware.report import (
    BackendName,
    BackendRecommendation,
    BandwidthEstimate,
    BandwidthSource,
    GpuInfo,
    GpuVendor,
    HardwareReport,
    UnifiedMemoryVerdict,
)
from app.core.util.errors import UserFacingError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "MachineFile"


class MachineFileError(UserFacingError):
    """A saved machine description could not be read; the message names the file and what is wrong."""


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if name not in data:
        raise ValueError(f"{where} has no '{name}'")
    value = data[name]
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise ValueError(f"{where}.{name} must be a number, not {value!r}")
    if not isinstance(value, kind):
        raise ValueError(f"{where}.{name} has the wrong type ({type(value).__name__})")
    return value


def _choice(value: Any, allowed: tuple[str, ...], where: str) -> Any:
    if value not in allowed:
        raise ValueError(f"{where} is {value!r}; expected one of {', '.join(allowed)}")
    return value


def _optional_int(data: dict[str, Any], name: str, where: str) -> int | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}.{name} must be a non-negative whole number of bytes, not {value!r}")
    return value


def _gpu(data: Any, index: int) -> GpuInfo:
    where = f"gpus[{index}]"
    if not isinstance(data, dict):
        raise ValueError(f"{where} is not an object")
    integrated = data.get("integrated")
    return GpuInfo(
        vendor=_choice(data.get("vendor"), get_args(GpuVendor), f"{where}.vendor"),
        name=str(_field(data, "name", str, where)),
        memory_total_bytes=_optional_int(data, "memory_total_bytes", where),
        memory_free_bytes=_optional_int(data, "memory_free_bytes", where),
        integrated=bool(integrated) if integrated is not None else None,
        compute_capability=data.get("compute_capability"),
        driver=data.get("driver"),
    )


def report_from_dict(data: Any) -> HardwareReport:
    """The report ``HardwareReport.to_dict()`` wrote. Raises ValueError naming the first bad field."""
    if not isinstance(data, dict):
        raise ValueError("the document is not a JSON object")
    unified = _field(data, "unified", dict, "report")
    bandwidth = _field(data, "bandwidth", dict, "report")
    backend = _field(data, "recommended_backend", dict, "report")
    gpus = data.get("gpus", [])
    if not isinstance(gpus, list):
        raise ValueError("report.gpus is not a list")
    ram_total = _field(data, "ram_total_bytes", int, "report")
    ram_available = _field(data, "ram_available_bytes", int, "report")
    if ram_total <= 0 or not 0 <= ram_available <= ram_total:
        raise ValueError(f"RAM figures are impossible (total {ram_total}, available {ram_available})")
    return HardwareReport(
        os_name=str(_field(data, "os_name", str, "report")),
        os_release=str(data.get("os_release", "")),
        arch=str(_field(data, "arch", str, "report")),
        cpu_model=str(_field(data, "cpu_model", str, "report")),
        cpu_cores_physical=int(_field(data, "cpu_cores_physical", int, "report")),
        cpu_cores_logical=int(_field(data, "cpu_cores_logical", int, "report")),
        ram_total_bytes=ram_total,
        ram_available_bytes=ram_available,
        unified=UnifiedMemoryVerdict(
            is_unified=bool(_field(unified, "is_unified", bool, "unified")),
            evidence=tuple(str(line) for line in unified.get("evidence", [])),
        ),
        bandwidth=BandwidthEstimate(
            bytes_per_second=float(_field(bandwidth, "bytes_per_second", (int, float), "bandwidth")),
            source=_choice(bandwidth.get("source"), get_args(BandwidthSource), "bandwidth.source"),
            detail=str(bandwidth.get("detail", "")),
        ),
        recommended_backend=BackendRecommendation(
            backend=_choice(backend.get("backend"), get_args(BackendName), "recommended_backend.backend"),
            reason=str(backend.get("reason", "")),
        ),
        gpus=tuple(_gpu(gpu, index) for index, gpu in enumerate(gpus)),
    )


def read_report_file(path: Path) -> HardwareReport:
    """A report saved with ``unidesk probe --json``; MachineFileError says what is wrong (the file is not touched)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise MachineFileError(
            Text(CONTEXT, QT_TRANSLATE_NOOP("MachineFile", "Cannot read the machine file {0}: {1}."),
                 (str(path), error.strerror or str(error))),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MachineFile", "Give a file saved with: unidesk probe --json > FILE"))) from error
    try:
        return report_from_dict(json.loads(text))
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        raise MachineFileError(
            Text(CONTEXT, QT_TRANSLATE_NOOP("MachineFile", "{0} is not a saved machine description: {1}."),
                 (str(path), str(error))),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MachineFile", "Save one again on that computer with: unidesk probe --json > FILE"))) from error
