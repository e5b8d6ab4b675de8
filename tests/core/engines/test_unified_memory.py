"""Unified-memory safety on faked probe answers: GB10 with 30 of 119 GiB free, Jetson Orin, GH200, CPU."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.engines.base import ModelLoadError
from app.core.engines.manager import engine_config_from_plan
from app.core.engines.unified_memory import (
    EnginePool,
    check_memory_utilization,
    engine_pool_from_report,
    require_safe_cpu_claim,
    require_safe_utilization,
    safe_memory_utilization,
)
from app.core.hardware.report import GpuInfo, HardwareReport
from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.core.planner.compute import VLLM_HOST_OVERHEAD_BYTES
from tests.core.planner.fake_hardware import GIB, cpu_only, gb10, gh200
from tests.core.planner.published_configs import LLAMA_3_1_8B, write_config

RESERVE = 4 * GIB


def gb10_busy() -> HardwareReport:
    """A DGX Spark whose user has other programs open: 30 GiB available of the 119 GiB the OS sees."""
    return replace(gb10(available_gib=30.0), ram_total_bytes=119 * GIB)


def jetson_orin() -> HardwareReport:
    """Jetson AGX Orin 64 GB: unified, NVML reports no memory of its own; 50 GiB available of 61."""
    return replace(
        gb10(available_gib=50.0),
        cpu_model="Cortex-A78AE",
        ram_total_bytes=61 * GIB,
        gpus=(GpuInfo("nvidia", "Orin", None, None, integrated=True, compute_capability="8.7"),),
    )


def test_gb10_pool_is_the_ram_counted_once() -> None:
    pool = engine_pool_from_report(gb10_busy())
    assert pool.kind == "unified" and pool.shares_system_memory
    assert (pool.total_bytes, pool.available_bytes) == (119 * GIB, 30 * GIB)


def test_gb10_safe_fraction_comes_from_available_memory_not_total() -> None:
    pool = engine_pool_from_report(gb10_busy())
    fraction = safe_memory_utilization(pool, RESERVE)
    usable = 30 * GIB - RESERVE - VLLM_HOST_OVERHEAD_BYTES
    assert fraction * pool.total_bytes <= usable < (fraction + 0.001) * pool.total_bytes
    assert 0.2 < fraction < 0.21  # far below a stock 0.9


def test_gb10_stock_utilization_is_refused_with_reason_and_safe_value() -> None:
    pool = engine_pool_from_report(gb10_busy())
    with pytest.raises(ModelLoadError) as raised:
        require_safe_utilization(pool, 0.9, RESERVE)
    error = raised.value
    assert error.cause == "out_of_memory"
    assert "0.900" in error.message and "30.0 GiB available" in error.message and "4.0 GiB" in error.message
    assert error.hint is not None and f"{safe_memory_utilization(pool, RESERVE):.3f}" in error.hint


def test_gb10_fraction_that_keeps_the_reserve_is_accepted_and_one_step_more_is_not() -> None:
    pool = engine_pool_from_report(gb10_busy())
    safe = safe_memory_utilization(pool, RESERVE)
    assert require_safe_utilization(pool, safe, RESERVE) == safe
    over = check_memory_utilization(pool, round(safe + 0.002, 3), RESERVE)
    assert not over.safe and over.left_free_bytes < RESERVE


def test_automatic_utilization_is_the_safe_fraction() -> None:
    pool = engine_pool_from_report(gb10_busy())
    assert require_safe_utilization(pool, None, RESERVE) == safe_memory_utilization(pool, RESERVE)


def test_nothing_is_safe_when_available_memory_is_below_the_reserve() -> None:
    pool = engine_pool_from_report(replace(gb10_busy(), ram_available_bytes=5 * GIB))
    assert safe_memory_utilization(pool, RESERVE) == 0.0
    with pytest.raises(ModelLoadError, match="must stay free"):
        require_safe_utilization(pool, None, RESERVE)


def test_embedder_memory_counts_against_the_pool() -> None:
    pool = engine_pool_from_report(gb10_busy())
    alone = safe_memory_utilization(pool, RESERVE)
    with_embedder = safe_memory_utilization(pool, RESERVE, other_bytes=2 * GIB)
    assert with_embedder < alone
    assert abs((alone - with_embedder) * pool.total_bytes - 2 * GIB) < 0.002 * pool.total_bytes


def test_jetson_orin_is_unified_and_refuses_what_would_starve_the_os() -> None:
    pool = engine_pool_from_report(jetson_orin())
    assert pool.kind == "unified" and pool.total_bytes == 61 * GIB
    safe = safe_memory_utilization(pool, RESERVE)
    assert safe * 61 * GIB <= 50 * GIB - RESERVE - VLLM_HOST_OVERHEAD_BYTES
    assert require_safe_utilization(pool, 0.7, RESERVE) == 0.7  # 42.7 GiB leaves ~5.8 GiB
    with pytest.raises(ModelLoadError):
        require_safe_utilization(pool, 0.8, RESERVE)  # 48.8 GiB of 50 available


def test_gh200_fraction_refers_to_the_hopper_memory() -> None:
    pool = engine_pool_from_report(gh200())
    assert pool.kind == "device" and not pool.shares_system_memory
    assert (pool.total_bytes, pool.available_bytes) == (96 * GIB, 94 * GIB)
    assert safe_memory_utilization(pool, RESERVE) == pytest.approx((94 - 1) / 96, abs=0.001)  # 1 GiB stays free
    assert require_safe_utilization(pool, 0.9, RESERVE) == 0.9  # HBM claim; the OS keeps its RAM
    with pytest.raises(ModelLoadError, match="GPU memory"):
        require_safe_utilization(pool, 0.99, RESERVE)


def test_gh200_still_refuses_when_system_ram_is_exhausted() -> None:
    pool = engine_pool_from_report(replace(gh200(), ram_available_bytes=5 * GIB))
    assert safe_memory_utilization(pool, RESERVE) == 0.0
    with pytest.raises(ModelLoadError):
        require_safe_utilization(pool, 0.5, RESERVE)


def test_cpu_kv_cache_claim_is_checked_against_the_reserve() -> None:
    pool = engine_pool_from_report(cpu_only(ram_total_gib=16.0, ram_available_gib=12.0))
    assert pool.kind == "cpu"
    check = require_safe_cpu_claim(pool, weights_bytes=2 * GIB, kv_cache_bytes=2 * GIB, reserve_bytes=RESERVE)
    assert check.left_free_bytes == 12 * GIB - 4 * GIB - VLLM_HOST_OVERHEAD_BYTES
    with pytest.raises(ModelLoadError, match="KV cache"):
        require_safe_cpu_claim(pool, weights_bytes=2 * GIB, kv_cache_bytes=6 * GIB, reserve_bytes=RESERVE)


def test_the_planners_recommendation_passes_the_check_and_a_user_override_does_not(tmp_path: Path) -> None:
    """The planner's fraction for GB10 keeps the reserve; a user's engine.memory_utilization = 0.9 is refused."""
    hardware = gb10_busy()
    metadata = read_model_metadata(write_config(tmp_path / "llama", LLAMA_3_1_8B))
    plan = plan_memory(metadata, hardware, PlanRequest("vllm", context_length=8192, reserve_bytes=RESERVE))
    assert plan.recommended.fits and plan.recommended.vllm.gpu_memory_utilization is not None
    pool = engine_pool_from_report(hardware)
    planned = engine_config_from_plan(tmp_path / "llama", plan, Settings.defaults()).vllm
    assert planned is not None and planned.gpu_memory_utilization is not None
    assert planned.reserve_bytes == RESERVE and planned.memory_kind == "unified"
    assert require_safe_utilization(pool, planned.gpu_memory_utilization, RESERVE) == planned.gpu_memory_utilization
    overridden = engine_config_from_plan(
        tmp_path / "llama", plan, Settings.defaults().with_changes({"engine.memory_utilization": 0.9})
    ).vllm
    assert overridden is not None and overridden.gpu_memory_utilization == 0.9
    with pytest.raises(ModelLoadError, match=r"Memory utilisation 0\.900"):
        require_safe_utilization(pool, overridden.gpu_memory_utilization, RESERVE)


def test_invalid_fraction_is_a_programming_error() -> None:
    pool = EnginePool("unified", 100 * GIB, 50 * GIB, 50 * GIB)
    with pytest.raises(ValueError):
        check_memory_utilization(pool, 1.5, RESERVE)
