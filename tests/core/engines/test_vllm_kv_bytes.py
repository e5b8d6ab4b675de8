"""vLLM sized in bytes on simulated unified-memory machines: the planned KV cache exactly, the reserve kept free."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.core.engines.backends.vllm_memory import STARTUP_CHECK_UTILIZATION, KvCacheSizing, size_kv_cache
from app.core.engines.base import ModelLoadError
from app.core.engines.unified_memory import EnginePool, engine_pool_from_report
from app.core.hardware.machine_profiles import machine_report
from app.core.hardware.report import HardwareReport
from app.core.planner import MemoryPlan, PlanRequest, plan_memory, read_model_metadata
from app.core.planner.compute import VLLM_DEVICE_OVERHEAD_BYTES, VLLM_HOST_OVERHEAD_BYTES
from tests.core.planner.fake_hardware import gb10
from tests.core.planner.published_configs import LLAMA_3_1_8B, QWEN3_30B_A3B, write_config

GIB = 1024**3
RESERVE = 4 * GIB
UNIFIED_MACHINES = ("dgx-spark", "jetson-agx-thor", "jetson-agx-orin-64gb", "gh200")
CONTEXTS = (1024, 8192, 32768, 131072)


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(tmp_path_factory.mktemp("llama"), LLAMA_3_1_8B)


@pytest.fixture(scope="module")
def qwen_moe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(tmp_path_factory.mktemp("qwen"), QWEN3_30B_A3B)


def plan_for(config: Path, hardware: HardwareReport, context: int) -> MemoryPlan:
    return plan_memory(read_model_metadata(config), hardware, PlanRequest("vllm", context_length=context,
                                                                          reserve_bytes=RESERVE))


def sized(plan: MemoryPlan, pool: EnginePool) -> KvCacheSizing:
    return size_kv_cache(
        pool,
        weights_bytes=plan.weights_bytes,
        kv_cache_bytes=plan.recommended.kv_bytes_total,
        activation_bytes=plan.compute_bytes,
        reserve_bytes=plan.reserve_bytes,
        embedder_bytes=plan.embedder_bytes,
    )


@pytest.mark.parametrize("machine", UNIFIED_MACHINES)
def test_on_unified_memory_vllm_gets_exactly_the_planned_kv_bytes(llama: Path, machine: str) -> None:
    hardware = machine_report(machine)
    plan = plan_for(llama, hardware, 8192)
    pool = engine_pool_from_report(hardware)
    assert pool.kind == "unified" and plan.recommended.fits
    sizing = sized(plan, pool)
    assert sizing.kv_cache_memory_bytes == plan.recommended.kv_bytes_total > 0
    # vLLM sizes nothing by the fraction then; it only passes vLLM's start-up check against CUDA's free figure.
    assert sizing.gpu_memory_utilization == STARTUP_CHECK_UTILIZATION
    assert sizing.claimed_bytes == (plan.weights_bytes + plan.recommended.kv_bytes_total + plan.compute_bytes
                                    + VLLM_DEVICE_OVERHEAD_BYTES)
    assert sizing.left_free_bytes >= RESERVE


@pytest.mark.parametrize("machine", UNIFIED_MACHINES)
@pytest.mark.parametrize("context", CONTEXTS)
def test_no_setting_started_on_unified_memory_leaves_less_than_the_reserve(
    llama: Path, qwen_moe: Path, machine: str, context: int
) -> None:
    """Whatever the plan asks for, the check either refuses it or the reserve stays free (busy machines too)."""
    full = machine_report(machine)
    for available_fraction in (1.0, 0.5, 0.2, 0.1):
        hardware = dataclasses.replace(full, ram_available_bytes=int(full.ram_available_bytes * available_fraction))
        pool = engine_pool_from_report(hardware)
        for model in (llama, qwen_moe):
            plan = plan_for(model, hardware, context)
            try:
                sizing = sized(plan, pool)
            except ModelLoadError as error:
                assert error.cause == "out_of_memory" and "must stay free" in error.message
                continue
            used = sizing.claimed_bytes + VLLM_HOST_OVERHEAD_BYTES + plan.embedder_bytes
            assert pool.available_bytes - used == sizing.left_free_bytes >= RESERVE


def test_a_kv_cache_the_pool_cannot_afford_is_refused_with_the_reason(llama: Path) -> None:
    plan = plan_for(llama, gb10(), 8192)
    busy = EnginePool("unified", 128 * GIB, 30 * GIB, 30 * GIB)  # the plan was made with 120 GiB free
    huge = size_kv_cache(busy, weights_bytes=plan.weights_bytes, kv_cache_bytes=2 * GIB, reserve_bytes=RESERVE)
    assert huge.kv_cache_memory_bytes == 2 * GIB
    with pytest.raises(ModelLoadError) as refused:
        size_kv_cache(busy, weights_bytes=plan.weights_bytes, kv_cache_bytes=12 * GIB, reserve_bytes=RESERVE)
    assert refused.value.cause == "out_of_memory"
    assert "12.0 GiB KV cache" in refused.value.message and "4.0 GiB must stay free" in refused.value.message
    assert "utilisation" not in str(refused.value.hint)  # the fraction does not size the cache here


def test_a_discrete_device_pool_keeps_the_checked_fraction() -> None:
    hardware = machine_report("rtx-4090")
    pool = engine_pool_from_report(hardware)
    assert pool.kind == "device"
    sizing = size_kv_cache(pool, weights_bytes=8 * GIB, kv_cache_bytes=4 * GIB, reserve_bytes=RESERVE,
                           requested_utilization=0.8)
    assert sizing.kv_cache_memory_bytes is None and sizing.gpu_memory_utilization == 0.8
    with pytest.raises(ModelLoadError, match="GPU memory"):
        size_kv_cache(pool, weights_bytes=8 * GIB, kv_cache_bytes=None, reserve_bytes=RESERVE,
                      requested_utilization=0.999)


def test_vllms_cpu_build_gets_bytes_and_no_fraction() -> None:
    pool = EnginePool("cpu", 16 * GIB, 12 * GIB, 12 * GIB)
    sizing = size_kv_cache(pool, weights_bytes=2 * GIB, kv_cache_bytes=GIB, reserve_bytes=RESERVE)
    assert (sizing.kv_cache_memory_bytes, sizing.gpu_memory_utilization) == (GIB, None)
    with pytest.raises(ModelLoadError):
        size_kv_cache(pool, weights_bytes=2 * GIB, kv_cache_bytes=6 * GIB, reserve_bytes=RESERVE)


def test_without_planned_bytes_unified_memory_falls_back_to_a_safe_fraction() -> None:
    pool = EnginePool("unified", 128 * GIB, 100 * GIB, 100 * GIB)
    sizing = size_kv_cache(pool, weights_bytes=16 * GIB, kv_cache_bytes=None, reserve_bytes=RESERVE)
    assert sizing.kv_cache_memory_bytes is None and sizing.gpu_memory_utilization is not None
    assert sizing.left_free_bytes >= RESERVE


@pytest.mark.parametrize("machine", UNIFIED_MACHINES)
def test_the_engine_arguments_carry_the_planned_bytes_from_plan_to_vllm(llama: Path, machine: str) -> None:
    """Plan -> EngineConfig -> the backend's sizing -> AsyncEngineArgs keywords, on a simulated machine."""
    from app.core.config import Settings
    from app.core.engines.backends.vllm_args import engine_arguments
    from app.core.engines.manager import engine_config_from_plan

    hardware = machine_report(machine)
    plan = plan_for(llama, hardware, 16384)
    config = engine_config_from_plan(llama.parent, plan, Settings.defaults())
    assert config.vllm is not None and config.vllm.kv_cache_memory_bytes == plan.recommended.kv_bytes_total
    sizing = size_kv_cache(
        engine_pool_from_report(hardware),
        weights_bytes=plan.weights_bytes,
        kv_cache_bytes=config.vllm.kv_cache_memory_bytes,
        activation_bytes=config.vllm.activation_bytes,
        reserve_bytes=config.vllm.reserve_bytes,
        embedder_bytes=config.vllm.embedder_bytes,
        requested_utilization=config.vllm.gpu_memory_utilization,
    )
    arguments = engine_arguments(config, kv_cache_memory_bytes=sizing.kv_cache_memory_bytes,
                                 memory_utilization=sizing.gpu_memory_utilization)
    assert arguments["kv_cache_memory_bytes"] == plan.recommended.kv_bytes_total
    assert arguments["gpu_memory_utilization"] == STARTUP_CHECK_UTILIZATION
    assert arguments["max_model_len"] == plan.recommended.context_length
    assert arguments["max_num_seqs"] == plan.recommended.parallel_chats
