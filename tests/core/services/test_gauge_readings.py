"""Gauge snapshots from a real memory plan, engine metrics and (real or fake) memory readings, without Qt."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.planner import (
    MemoryPlan,
    PlanRequest,
    aggregate_decode_tokens_per_second_bound,
    decode_tokens_per_second_bound,
    plan_memory,
    read_model_metadata,
)
from app.core.services.gauge_readings import (
    ENGINE_CHILD_RSS_KEY,
    MemoryReadings,
    SpeedTracker,
    build_gauge_snapshot,
    build_memory_bars,
    engine_child_rss,
    read_memory,
)
from tests.core.planner.fake_hardware import cpu_only, gb10, rtx4090

GIB = 1024**3
MIB = 1024**2


@pytest.fixture(scope="module")
def cpu_plan(tiny_gguf: Path) -> MemoryPlan:
    return plan_memory(read_model_metadata(tiny_gguf), cpu_only(), PlanRequest("llamacpp", parallel_chats=2))


def _metrics(**values: object) -> EngineMetrics:
    return EngineMetrics(backend="llamacpp", model_name="tiny", **values)  # type: ignore[arg-type]


def _readings(available_gib: float = 10.0, rss_mib: float = 300.0, child_mib: float = 0.0) -> MemoryReadings:
    return MemoryReadings(
        ram_total_bytes=16 * GIB,
        ram_available_bytes=int(available_gib * GIB),
        process_rss_bytes=int(rss_mib * MIB),
        engine_child_rss_bytes=int(child_mib * MIB),
    )


def test_without_a_model_the_bar_is_this_app_other_programs_and_free() -> None:
    readings = _readings(available_gib=10, rss_mib=300, child_mib=100)
    (bar,) = build_memory_bars(readings, None, None, cpu_only())
    assert bar.pool == "system" and bar.total_bytes == 16 * GIB
    assert bar.segment_bytes("app") == 400 * MIB
    assert bar.segment_bytes("other") == 6 * GIB - 400 * MIB
    assert bar.segment_bytes("free") == 10 * GIB
    assert sum(segment.bytes for segment in bar.segments) == bar.total_bytes


def test_plan_parts_with_kv_split_by_cells_in_use(cpu_plan: MemoryPlan) -> None:
    metrics = _metrics(kv_cells_used=1000, kv_cells_capacity=4000)
    (bar,) = build_memory_bars(_readings(), cpu_plan, metrics, cpu_only())
    assert bar.segment_bytes("weights") == cpu_plan.weights_bytes
    kv_used, kv_reserved = bar.segment_bytes("kv_used"), bar.segment_bytes("kv_reserved")
    assert kv_used + kv_reserved == cpu_plan.kv_bytes_total
    assert kv_used == pytest.approx(cpu_plan.kv_bytes_total / 4, abs=1)
    assert bar.segment_bytes("compute") == cpu_plan.compute_bytes
    assert bar.segment_bytes("embedder") == cpu_plan.embedder_bytes
    # Measured: other programs = used RAM minus what UniDesk holds; free never exceeds MemAvailable.
    assert bar.segment_bytes("other") == 6 * GIB - 300 * MIB
    assert bar.segment_bytes("free") <= 10 * GIB
    assert sum(segment.bytes for segment in bar.segments) <= bar.total_bytes


def test_memory_held_beyond_the_plan_shows_as_runtime(cpu_plan: MemoryPlan) -> None:
    planned = cpu_plan.total_bytes
    held_mib = planned / MIB + 500
    (bar,) = build_memory_bars(_readings(rss_mib=held_mib), cpu_plan, None, cpu_only())
    assert bar.segment_bytes("runtime") == pytest.approx(cpu_plan.overhead_bytes + 500 * MIB, abs=MIB)


def test_a_full_machine_never_draws_more_than_its_total(cpu_plan: MemoryPlan) -> None:
    readings = dataclasses.replace(_readings(available_gib=0.0, rss_mib=100), ram_total_bytes=cpu_plan.total_bytes)
    (bar,) = build_memory_bars(readings, cpu_plan, None, cpu_only())
    assert sum(segment.bytes for segment in bar.segments) == bar.total_bytes
    assert bar.segment_bytes("free") == 0


def test_unified_memory_is_one_pool(tiny_gguf: Path) -> None:
    plan = plan_memory(read_model_metadata(tiny_gguf), gb10(), PlanRequest("llamacpp"))
    bars = build_memory_bars(_readings(), plan, None, gb10())
    assert [bar.pool for bar in bars] == ["unified"]


def test_a_discrete_gpu_gets_its_own_bar_with_other_programs_from_nvml(tiny_gguf: Path) -> None:
    hardware = rtx4090()
    plan = plan_memory(read_model_metadata(tiny_gguf), hardware, PlanRequest("llamacpp"))
    assert plan.memory_kind == "discrete" and plan.gpu_bytes > 0
    readings = dataclasses.replace(_readings(), gpu_total_bytes=24 * GIB, gpu_used_bytes=plan.gpu_bytes + 2 * GIB)
    gpu, system = build_memory_bars(readings, plan, None, hardware)
    assert (gpu.pool, system.pool) == ("gpu", "system")
    planned_on_gpu = sum(gpu.segment_bytes(key) for key in ("weights", "kv_used", "kv_reserved", "compute",
                                                             "runtime", "embedder"))
    assert planned_on_gpu == pytest.approx(plan.gpu_bytes, abs=8)
    assert gpu.segment_bytes("other") == pytest.approx(2 * GIB, abs=8)
    assert gpu.segment_bytes("free") == pytest.approx(22 * GIB - plan.gpu_bytes, abs=8)


def test_speed_keeps_the_last_answer_and_compares_with_the_roofline(cpu_plan: MemoryPlan) -> None:
    tracker = SpeedTracker()
    hardware = cpu_only(bandwidth=50e9)
    busy = _metrics(running_requests=1, decode_tokens_per_s=42.0, prefill_tokens_per_s=900.0,
                    last_time_to_first_token_s=0.12, kv_cells_used=800, kv_cells_capacity=4096)
    snapshot = build_gauge_snapshot(_readings(), cpu_plan, busy, hardware, tracker, clock=lambda: 5.0)
    speed = snapshot.speed
    assert snapshot.taken_at == 5.0 and snapshot.model_loaded
    assert speed.decode_tok_s == 42.0 and speed.prefill_tok_s == 900.0
    bound = decode_tokens_per_second_bound(cpu_plan.model, 50e9, cpu_plan.kv_cache_dtype, 800)
    assert speed.roofline_tok_s == pytest.approx(bound)
    assert speed.roofline_fraction == pytest.approx(42.0 / bound)
    idle = build_gauge_snapshot(_readings(), cpu_plan, _metrics(), hardware, tracker).speed
    assert idle.decode_tok_s is None and idle.shown_decode_tok_s == 42.0  # the last answer's
    assert idle.last_ttft_s == 0.12
    assert idle.roofline_tok_s == pytest.approx(cpu_plan.decode_tok_s_roofline_empty)
    two = _metrics(running_requests=2, decode_tokens_per_s=70.0, kv_cells_used=1000)
    aggregate = build_gauge_snapshot(_readings(), cpu_plan, two, hardware, tracker).speed.roofline_tok_s
    expected = aggregate_decode_tokens_per_second_bound(cpu_plan.model, 50e9, cpu_plan.kv_cache_dtype, 500, 2)
    assert aggregate == pytest.approx(expected)
    tracker.record_answer(RequestMetrics(decode_tokens_per_s=40.5, time_to_first_token_s=0.2))
    assert tracker.observe(None)[0] == 40.5 and tracker.observe(None)[2] == 0.2


def test_no_bandwidth_means_no_roofline(cpu_plan: MemoryPlan) -> None:
    speed = build_gauge_snapshot(_readings(), cpu_plan, _metrics(), cpu_only(bandwidth=0.0), SpeedTracker()).speed
    assert speed.roofline_tok_s is None and speed.roofline_fraction is None


def test_engine_child_memory_comes_from_the_backend_metrics() -> None:
    assert engine_child_rss(None) == 0
    assert engine_child_rss(_metrics(extra={ENGINE_CHILD_RSS_KEY: 3.0 * GIB})) == 3 * GIB


def test_reading_this_machine(tmp_path: Path) -> None:
    readings = read_memory(123, gpu_reader=lambda: (8 * GIB, 2 * GIB))
    assert readings.ram_total_bytes > 0 and 0 <= readings.ram_available_bytes <= readings.ram_total_bytes
    assert readings.process_rss_bytes > 0 and readings.engine_child_rss_bytes == 123
    assert (readings.gpu_total_bytes, readings.gpu_used_bytes) == (8 * GIB, 2 * GIB)


@pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="Linux reads /proc/meminfo")
def test_meminfo_is_what_linux_reads(tmp_path: Path) -> None:
    fake = tmp_path / "meminfo"
    fake.write_text("MemTotal:       8000000 kB\nMemFree:  100 kB\nMemAvailable:   3000000 kB\n", encoding="utf-8")
    readings = read_memory(meminfo_path=fake)
    assert readings.ram_total_bytes == 8_000_000 * 1024
    assert readings.ram_available_bytes == 3_000_000 * 1024


@pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="Linux reads /proc/meminfo")
def test_the_page_cache_is_read_from_the_file_lists(tmp_path: Path) -> None:
    fake = tmp_path / "meminfo"
    fake.write_text(
        "MemTotal: 8000000 kB\nMemAvailable: 5000000 kB\nCached: 4200000 kB\nShmem: 200000 kB\n"
        "Active(file): 1000000 kB\nInactive(file): 3000000 kB\n", encoding="utf-8")
    assert read_memory(meminfo_path=fake).page_cache_bytes == 4_000_000 * 1024


def test_the_page_cache_is_shown_as_reclaimable_not_as_used() -> None:
    # 16 GiB, 10 GiB available of which 7 GiB is page cache (the model file just read): the cache is
    # its own segment inside the available part; other programs are not charged for it.
    readings = dataclasses.replace(_readings(available_gib=10, rss_mib=300), page_cache_bytes=7 * GIB)
    (bar,) = build_memory_bars(readings, None, None, cpu_only())
    assert bar.segment_bytes("cache") == 7 * GIB
    assert bar.segment_bytes("free") == 3 * GIB
    assert bar.segment_bytes("other") == 6 * GIB - 300 * MIB
    assert sum(segment.bytes for segment in bar.segments) == bar.total_bytes


def test_page_cache_beyond_what_is_available_is_capped() -> None:
    readings = dataclasses.replace(_readings(available_gib=2, rss_mib=300), page_cache_bytes=9 * GIB)
    (bar,) = build_memory_bars(readings, None, None, cpu_only())
    assert bar.segment_bytes("cache") == 2 * GIB and bar.segment_bytes("free") == 0
