"""Gauge snapshots: memory plan + engine metrics + live memory readings turned into plain data for the gauges."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.hardware.live_memory import view_from_meminfo
from app.core.hardware.report import HardwareReport
from app.core.planner import (
    MemoryPlan,
    aggregate_decode_tokens_per_second_bound,
    decode_tokens_per_second_bound,
)

SegmentKey = Literal[
    "app", "weights", "kv_used", "kv_reserved", "compute", "runtime", "embedder", "other", "cache", "free"
]
PoolKey = Literal["system", "unified", "gpu"]
ENGINE_CHILD_RSS_KEY = "engine_process_rss_bytes"
"""``EngineMetrics.extra`` key under which a backend with child processes (vLLM) reports their RSS."""
PLANNED_KEYS: tuple[SegmentKey, ...] = ("weights", "kv_used", "kv_reserved", "compute", "runtime", "embedder")


@dataclass(frozen=True)
class MemoryReadings:
    """Live memory facts, read a few times a second (all bytes).

    ``ram_available_bytes`` is ``MemAvailable`` on Linux (the truth on unified memory);
    ``page_cache_bytes`` the file pages cached by the OS (reclaimable: part of what is available);
    ``gpu_*`` are NVML's figures summed over discrete NVIDIA GPUs, ``None`` where NVML cannot say.
    """

    ram_total_bytes: int
    ram_available_bytes: int
    process_rss_bytes: int
    engine_child_rss_bytes: int = 0
    gpu_total_bytes: int | None = None
    gpu_used_bytes: int | None = None
    page_cache_bytes: int = 0


@dataclass(frozen=True)
class MemorySegment:
    """One coloured piece of a stacked memory bar."""

    key: SegmentKey
    bytes: int


@dataclass(frozen=True)
class MemoryBarReading:
    """One memory pool as a stacked bar; the segments never add up to more than ``total_bytes``."""

    pool: PoolKey
    total_bytes: int
    segments: tuple[MemorySegment, ...]

    def segment_bytes(self, key: SegmentKey) -> int:
        """Bytes of the segment ``key`` (0 when absent)."""
        return sum(segment.bytes for segment in self.segments if segment.key == key)


@dataclass(frozen=True)
class SpeedReading:
    """Speed figures: live ones (None while idle), the last answer's, and the roofline to compare with.

    ``roofline_tok_s`` is the memory-bandwidth ceiling for what is decoding now (aggregate when
    several chats run), or for one chat at an empty context while idle.
    """

    decode_tok_s: float | None = None
    prefill_tok_s: float | None = None
    last_decode_tok_s: float | None = None
    last_prefill_tok_s: float | None = None
    last_ttft_s: float | None = None
    roofline_tok_s: float | None = None
    running_requests: int = 0
    waiting_requests: int = 0
    kv_cells_used: int = 0
    kv_cells_capacity: int = 0

    @property
    def shown_decode_tok_s(self) -> float | None:
        """Live decode speed while generating, else the last answer's."""
        return self.decode_tok_s if self.decode_tok_s is not None else self.last_decode_tok_s

    @property
    def roofline_fraction(self) -> float | None:
        """The shown decode speed as a fraction of the roofline."""
        shown = self.shown_decode_tok_s
        if shown is None or not self.roofline_tok_s:
            return None
        return shown / self.roofline_tok_s


@dataclass(frozen=True)
class GaugeSnapshot:
    """Everything the gauges draw at one moment."""

    taken_at: float
    model_loaded: bool
    bars: tuple[MemoryBarReading, ...]
    speed: SpeedReading
    process_rss_bytes: int
    engine_child_rss_bytes: int


class SpeedTracker:
    """Remembers the last answer's speeds between live readings (one instance per gauge sampler).

    Not thread-safe: the sampler feeds it from one worker at a time.
    """

    def __init__(self) -> None:
        self._decode: float | None = None
        self._prefill: float | None = None
        self._ttft: float | None = None

    def observe(self, metrics: EngineMetrics | None) -> tuple[float | None, float | None, float | None]:
        """(last decode tok/s, last prefill tok/s, last TTFT s) after seeing ``metrics``."""
        if metrics is not None:
            if metrics.running_requests and metrics.decode_tokens_per_s is not None:
                self._decode = metrics.decode_tokens_per_s
            if metrics.prefill_tokens_per_s is not None:
                self._prefill = metrics.prefill_tokens_per_s
            if metrics.last_time_to_first_token_s is not None:
                self._ttft = metrics.last_time_to_first_token_s
        return self._decode, self._prefill, self._ttft

    def record_answer(self, answer: RequestMetrics) -> None:
        """Take a finished answer's own figures (more exact than the engine's rolling window)."""
        if answer.decode_tokens_per_s is not None:
            self._decode = answer.decode_tokens_per_s
        if answer.prefill_tokens_per_s is not None:
            self._prefill = answer.prefill_tokens_per_s
        if answer.time_to_first_token_s is not None:
            self._ttft = answer.time_to_first_token_s

    def reset(self) -> None:
        """Forget everything (a new model was loaded)."""
        self._decode = self._prefill = self._ttft = None


GpuMemoryReader = Callable[[], tuple[int, int] | None]


def read_nvml_memory() -> tuple[int, int] | None:
    """(total, used) bytes over NVIDIA GPUs that report memory, or None when NVML cannot say."""
    from app.core.hardware.nvml_reader import NvmlUnavailable, read_nvml_gpus

    try:
        gpus = read_nvml_gpus()
    except NvmlUnavailable:
        return None
    reported = [gpu for gpu in gpus if gpu.memory_total_bytes and gpu.memory_free_bytes is not None]
    if not reported:
        return None
    total = sum(gpu.memory_total_bytes or 0 for gpu in reported)
    free = sum(gpu.memory_free_bytes or 0 for gpu in reported)
    return total, total - free


def read_memory(
    engine_child_rss_bytes: int = 0,
    *,
    gpu_reader: GpuMemoryReader | None = None,
    meminfo_path: Path = Path("/proc/meminfo"),
) -> MemoryReadings:
    """Read RAM (``/proc/meminfo`` on Linux, psutil elsewhere), this process's RSS and, if given, GPU memory."""
    import psutil

    total, available, page_cache = 0, 0, 0
    if sys.platform.startswith("linux"):
        try:
            view = view_from_meminfo(meminfo_path.read_text(encoding="utf-8", errors="replace"))
            total, available, page_cache = view.total_bytes, view.available_bytes, view.page_cache_bytes
        except OSError:
            pass
    if not total:
        memory = psutil.virtual_memory()
        total, available = int(memory.total), int(memory.available)
    gpu = gpu_reader() if gpu_reader is not None else None
    return MemoryReadings(
        ram_total_bytes=total,
        ram_available_bytes=min(available, total),
        process_rss_bytes=int(psutil.Process().memory_info().rss),
        engine_child_rss_bytes=engine_child_rss_bytes,
        gpu_total_bytes=gpu[0] if gpu else None,
        gpu_used_bytes=gpu[1] if gpu else None,
        page_cache_bytes=page_cache,
    )


def engine_child_rss(metrics: EngineMetrics | None) -> int:
    """RSS of the engine's child processes as the backend reports it (0 for in-process engines)."""
    if metrics is None:
        return 0
    return int(metrics.extra.get(ENGINE_CHILD_RSS_KEY, 0.0))


def planned_segments(plan: MemoryPlan, kv_usage: float) -> tuple[MemorySegment, ...]:
    """The plan's parts, with the KV cache split into cells in use and reserved-but-empty."""
    kv_used = round(plan.kv_bytes_total * min(1.0, max(0.0, kv_usage)))
    return (
        MemorySegment("weights", plan.weights_bytes),
        MemorySegment("kv_used", kv_used),
        MemorySegment("kv_reserved", plan.kv_bytes_total - kv_used),
        MemorySegment("compute", plan.compute_bytes),
        MemorySegment("runtime", plan.overhead_bytes),
        MemorySegment("embedder", plan.embedder_bytes),
    )


def _scaled(segments: tuple[MemorySegment, ...], fraction: float) -> tuple[MemorySegment, ...]:
    return tuple(MemorySegment(segment.key, round(segment.bytes * fraction)) for segment in segments)


def _fit(pool: PoolKey, total: int, segments: list[MemorySegment]) -> MemoryBarReading:
    """Drop empty segments and trim from the end (free, then other programs) so the bar fits ``total``."""
    room = max(0, total)
    fitted: list[MemorySegment] = []
    for segment in segments:
        size = min(max(0, segment.bytes), room)
        room -= size
        if size > 0:
            fitted.append(MemorySegment(segment.key, size))
    return MemoryBarReading(pool, max(0, total), tuple(fitted))


def _system_bar(
    pool: PoolKey, readings: MemoryReadings, app_segments: tuple[MemorySegment, ...]
) -> MemoryBarReading:
    """RAM as one bar: UniDesk's parts, other programs (measured), page cache, free.

    Other programs = used RAM minus what UniDesk's processes hold. When UniDesk holds more than its
    parts say (the Python/Qt runtime, caches), the surplus is shown as runtime; what is available is
    capped at MemAvailable and at what is left once the planned parts are fully resident. The page
    cache is part of what is available (the OS reclaims it on demand), so it is shown on its own,
    inside the available part, rather than as used memory.
    """
    total = readings.ram_total_bytes
    used = max(0, total - readings.ram_available_bytes)
    held = readings.process_rss_bytes + readings.engine_child_rss_bytes
    planned = sum(segment.bytes for segment in app_segments)
    segments = list(app_segments)
    if held > planned:
        segments.append(MemorySegment("runtime" if planned else "app", held - planned))
    other = max(0, used - held)
    shown_app = max(planned, held)
    available = max(0, min(readings.ram_available_bytes, total - shown_app - other))
    cache = min(max(0, readings.page_cache_bytes), available)
    return _fit(pool, total, [*_merge(segments), MemorySegment("other", other), MemorySegment("cache", cache),
                              MemorySegment("free", available - cache)])


def _merge(segments: list[MemorySegment]) -> list[MemorySegment]:
    """One segment per key, in first-seen order."""
    sizes: dict[SegmentKey, int] = {}
    for segment in segments:
        sizes[segment.key] = sizes.get(segment.key, 0) + segment.bytes
    return [MemorySegment(key, size) for key, size in sizes.items()]


def _gpu_bar(
    readings: MemoryReadings, hardware: HardwareReport | None, app_segments: tuple[MemorySegment, ...]
) -> MemoryBarReading:
    """Dedicated GPU memory: UniDesk's planned part, other programs (NVML), free."""
    total = readings.gpu_total_bytes or (hardware.gpu_memory_total_bytes if hardware else 0)
    planned = sum(segment.bytes for segment in app_segments)
    if readings.gpu_used_bytes is not None:
        used = readings.gpu_used_bytes
    elif hardware is not None:
        used = max(0, hardware.gpu_memory_total_bytes - hardware.gpu_memory_free_bytes)
    else:
        used = planned
    other = max(0, used - planned)
    free = max(0, total - planned - other)
    return _fit("gpu", total, [*app_segments, MemorySegment("other", other), MemorySegment("free", free)])


def build_memory_bars(
    readings: MemoryReadings,
    plan: MemoryPlan | None,
    metrics: EngineMetrics | None,
    hardware: HardwareReport | None,
) -> tuple[MemoryBarReading, ...]:
    """The bars to draw: one for RAM (the whole pool on unified memory), plus dedicated GPU memory if any.

    On a discrete GPU the plan's parts are split between the two bars in the plan's GPU/host
    proportion (the planner sizes the two sides, not each part on each side).
    """
    unified = bool(hardware and hardware.unified.is_unified)
    ram_pool: PoolKey = "unified" if unified else "system"
    if plan is None:
        return (_system_bar(ram_pool, readings, ()),)
    kv_usage = metrics.kv_usage if metrics is not None else 0.0
    parts = planned_segments(plan, kv_usage)
    if plan.memory_kind != "discrete" or plan.total_bytes <= 0:
        return (_system_bar(ram_pool, readings, parts),)
    gpu_fraction = plan.gpu_bytes / plan.total_bytes
    return (
        _gpu_bar(readings, hardware, _scaled(parts, gpu_fraction)),
        _system_bar("system", readings, _scaled(parts, 1.0 - gpu_fraction)),
    )


def roofline_now(plan: MemoryPlan, metrics: EngineMetrics | None, bandwidth_bytes_per_second: float) -> float | None:
    """Decode ceiling for what runs now: aggregate over running chats at their average context,
    one chat at an empty context while idle.
    """
    running = metrics.running_requests if metrics is not None else 0
    if running <= 0 or metrics is None:
        return decode_tokens_per_second_bound(plan.model, bandwidth_bytes_per_second, plan.kv_cache_dtype, 0)
    average_context = metrics.kv_cells_used // running
    if running == 1:
        return decode_tokens_per_second_bound(
            plan.model, bandwidth_bytes_per_second, plan.kv_cache_dtype, average_context
        )
    return aggregate_decode_tokens_per_second_bound(
        plan.model, bandwidth_bytes_per_second, plan.kv_cache_dtype, average_context, running
    )


def build_speed_reading(
    plan: MemoryPlan | None,
    metrics: EngineMetrics | None,
    hardware: HardwareReport | None,
    tracker: SpeedTracker,
) -> SpeedReading:
    """Live and last-answer speeds with the roofline they are measured against."""
    last_decode, last_prefill, last_ttft = tracker.observe(metrics)
    bandwidth = hardware.bandwidth.bytes_per_second if hardware is not None else 0.0
    roofline = roofline_now(plan, metrics, bandwidth) if plan is not None and bandwidth > 0 else None
    if metrics is None:
        return SpeedReading(last_decode_tok_s=last_decode, last_prefill_tok_s=last_prefill,
                            last_ttft_s=last_ttft, roofline_tok_s=roofline)
    generating = metrics.running_requests > 0
    return SpeedReading(
        decode_tok_s=metrics.decode_tokens_per_s if generating else None,
        prefill_tok_s=metrics.prefill_tokens_per_s if generating else None,
        last_decode_tok_s=last_decode,
        last_prefill_tok_s=last_prefill,
        last_ttft_s=last_ttft,
        roofline_tok_s=roofline,
        running_requests=metrics.running_requests,
        waiting_requests=metrics.waiting_requests,
        kv_cells_used=metrics.kv_cells_used,
        kv_cells_capacity=metrics.kv_cells_capacity,
    )


def build_gauge_snapshot(
    readings: MemoryReadings,
    plan: MemoryPlan | None,
    metrics: EngineMetrics | None,
    hardware: HardwareReport | None,
    tracker: SpeedTracker,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> GaugeSnapshot:
    """Turn one round of readings into the snapshot the gauges draw (``plan`` None: no model loaded)."""
    return GaugeSnapshot(
        taken_at=clock(),
        model_loaded=plan is not None,
        bars=build_memory_bars(readings, plan, metrics, hardware),
        speed=build_speed_reading(plan, metrics, hardware, tracker),
        process_rss_bytes=readings.process_rss_bytes,
        engine_child_rss_bytes=readings.engine_child_rss_bytes,
    )
