"""Memory bandwidth estimate: the known-device table first, else a short numpy copy benchmark."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.hardware.bandwidth_table import look_up_bandwidth
from app.core.hardware.report import BandwidthEstimate
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text, listed

MIB = 1024**2
CONTEXT = "MachineEvidence"
DEFAULT_ARRAY_BYTES = 128 * MIB  # larger than any CPU cache, so the copy streams from DRAM
DEFAULT_TIME_BUDGET_S = 0.25
MAX_REPEATS = 8


def _said(template: str, *args: object) -> Text:
    """Where a figure came from (``template`` marked with QT_TRANSLATE_NOOP("MachineEvidence", ...))."""
    return Text(CONTEXT, template, args)


@dataclass(frozen=True)
class BandwidthCandidate:
    """A device name to look up, with its memory size where a table entry has variants by size."""

    name: str
    memory_bytes: int | None = None


def measure_copy_bandwidth(
    array_bytes: int = DEFAULT_ARRAY_BYTES,
    *,
    time_budget_s: float = DEFAULT_TIME_BUDGET_S,
    max_repeats: int = MAX_REPEATS,
) -> BandwidthEstimate:
    """Copy one large array into another a few times; bytes read + written per second, STREAM-copy style.

    Single-threaded numpy, so it is a lower bound on what the memory system can give. Takes about
    0.1-0.5 s; any failure (numpy missing, no memory) gives an "unknown" estimate instead.
    """
    try:
        import numpy as np

        element_count = max(array_bytes // 8, 1)
        source = np.ones(element_count, dtype=np.float64)  # filling touches every page up front
        target = np.ones(element_count, dtype=np.float64)
        np.copyto(target, source)  # warm-up pass
        best_seconds = float("inf")
        repeats = 0
        started = time.perf_counter()
        while repeats < max_repeats:
            before = time.perf_counter()
            np.copyto(target, source)
            best_seconds = min(best_seconds, time.perf_counter() - before)
            repeats += 1
            if time.perf_counter() - started > time_budget_s:
                break
        bytes_moved = 2 * source.nbytes
    except Exception as error:  # the probe must never crash on a benchmark
        failed = _said(QT_TRANSLATE_NOOP("MachineEvidence", "copy benchmark failed: {0}"), str(error))
        return BandwidthEstimate(0.0, "unknown", failed)
    if best_seconds <= 0:
        too_fast = _said(QT_TRANSLATE_NOOP("MachineEvidence", "copy benchmark too fast to time"))
        return BandwidthEstimate(0.0, "unknown", too_fast)
    return BandwidthEstimate(
        bytes_moved / best_seconds,
        "measured",
        _said(QT_TRANSLATE_NOOP("MachineEvidence", "numpy copy of {0:.0f} MiB on one CPU thread, best of {1}, "
                                                   "read + write bytes counted (STREAM copy)"),
              array_bytes / MIB, repeats),
    )


def estimate_bandwidth(
    candidates: Sequence[BandwidthCandidate],
    *,
    cpu_cores: int | None,
    decode_reads_system_ram: bool,
    measure: bool,
) -> BandwidthEstimate:
    """Bandwidth decode will see: the first candidate found in the table, else a measurement.

    Candidates come in priority order (the GPU that runs decode first, the CPU last). The CPU
    benchmark stands in only when decode reads system RAM (CPU-only or unified memory); for an
    unknown discrete GPU a CPU figure would mislead, so the estimate is "unknown".
    """
    for candidate in candidates:
        hit = look_up_bandwidth(candidate.name, memory_bytes=candidate.memory_bytes, cpu_cores=cpu_cores)
        if hit is not None:
            return BandwidthEstimate(
                hit.bytes_per_second, "table",
                _said(QT_TRANSLATE_NOOP("MachineEvidence", "{0} (matched '{1}')"), hit.label, candidate.name),
            )
    names = listed(candidate.name for candidate in candidates) or _said(
        QT_TRANSLATE_NOOP("MachineEvidence", "this machine"))
    if not decode_reads_system_ram:
        return BandwidthEstimate(0.0, "unknown", _said(
            QT_TRANSLATE_NOOP("MachineEvidence", "no bandwidth figure known for {0}"), names))
    if measure:
        return measure_copy_bandwidth()
    return BandwidthEstimate(0.0, "unknown", _said(
        QT_TRANSLATE_NOOP("MachineEvidence", "no table entry for {0}; measurement not requested"), names))
