"""Unified-memory safety for vLLM: the memory fraction it may claim, from what is free, and refusal of unsafe ones.

vLLM's ``gpu_memory_utilization`` is a fraction of the device's *total* memory. On a machine
whose GPU shares system memory (DGX Spark / GB10, Jetson) that total is the whole RAM pool, so
a stock 0.9 claims memory the OS and the user's programs are using and can wedge the machine.
Here the fraction comes from ``MemAvailable`` minus the reserve, and any configuration (the
planner's or a user override) that would leave less than the reserve free is refused. On a device
pool (a discrete card, GH200's HBM) the planner's GPU reserve stays free too, so the memory guardian,
which watches the GPU's free memory there, does not pause a model the app itself just loaded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from app.core.engines.base import ModelLoadError
from app.core.engines.load_texts import said
from app.core.hardware.report import HardwareReport
from app.core.planner.budget import GPU_RESERVE_BYTES
from app.core.planner.compute import VLLM_HOST_OVERHEAD_BYTES
from app.core.util.translatable import QT_TRANSLATE_NOOP

GIB = 1024**3
UTILIZATION_STEP = 1000  # fractions are given to 3 decimals, rounded toward safety
PoolKind = Literal["unified", "device", "cpu"]


@dataclass(frozen=True)
class EnginePool:
    """The memory vLLM's fraction refers to, and what is free in it now.

    ``unified``: the GPU allocates from system RAM (GB10, Jetson); total and available are RAM.
    ``device``: the GPU reports memory of its own that vLLM allocates from (GH200's HBM);
    the OS lives in RAM, described by ``ram_available_bytes``.
    ``cpu``: vLLM's CPU backend, whose KV cache is sized in GiB, not as a fraction.
    """

    kind: PoolKind
    total_bytes: int
    available_bytes: int
    ram_available_bytes: int

    @property
    def shares_system_memory(self) -> bool:
        """True when the OS and the user's programs allocate from the same pool as the engine."""
        return self.kind != "device"

    @property
    def device_usable_bytes(self) -> int:
        """On a device pool: free device memory less the GPU reserve the planner keeps free."""
        return max(0, self.available_bytes - GPU_RESERVE_BYTES)


def engine_pool_from_report(hardware: HardwareReport) -> EnginePool:
    """The pool vLLM would allocate from on ``hardware`` (as the probe saw it)."""
    ram_total, ram_available = hardware.ram_total_bytes, hardware.ram_available_bytes
    if not hardware.gpus:
        return EnginePool("cpu", ram_total, ram_available, ram_available)
    reported = [gpu for gpu in hardware.gpus if gpu.memory_total_bytes]
    if hardware.unified.is_unified and not reported:
        return EnginePool("unified", ram_total, ram_available, ram_available)
    gpu = reported[0] if reported else hardware.gpus[0]
    total = gpu.memory_total_bytes or 0
    free = gpu.memory_free_bytes if gpu.memory_free_bytes is not None else total
    return EnginePool("device", total, free, ram_available)


@dataclass(frozen=True)
class MemoryClaimCheck:
    """Whether a memory claim leaves the reserve free, with the figures behind the verdict.

    ``claimed_bytes`` is what the engine takes from the pool; ``left_free_bytes`` what stays
    free for the OS and other programs afterwards (RAM, on a ``device`` pool);
    ``safe_utilization`` the largest fraction that keeps the reserve (0 when none does).
    """

    pool: EnginePool
    utilization: float | None
    claimed_bytes: int
    host_overhead_bytes: int
    other_bytes: int
    reserve_bytes: int
    left_free_bytes: int
    safe_utilization: float

    @property
    def safe(self) -> bool:
        """True when the reserve stays free (and, on a device pool, the claim leaves the GPU reserve free)."""
        fits_device = self.pool.shares_system_memory or self.claimed_bytes <= self.pool.device_usable_bytes
        return fits_device and self.left_free_bytes >= self.reserve_bytes


def _floor_fraction(numerator: int, denominator: int) -> float:
    if denominator <= 0 or numerator <= 0:
        return 0.0
    return min(UTILIZATION_STEP, math.floor(numerator * UTILIZATION_STEP / denominator)) / UTILIZATION_STEP


def safe_memory_utilization(
    pool: EnginePool,
    reserve_bytes: int,
    host_overhead_bytes: int = VLLM_HOST_OVERHEAD_BYTES,
    other_bytes: int = 0,
) -> float:
    """The largest ``gpu_memory_utilization`` that keeps ``reserve_bytes`` free, rounded down to 0.001.

    Computed from the pool's *available* memory minus the reserve, the engine's host-side
    processes (``host_overhead_bytes``) and other co-resident memory (``other_bytes``, e.g.
    the embedding model) — never from the total alone.
    """
    if pool.shares_system_memory:
        usable = pool.available_bytes - reserve_bytes - host_overhead_bytes - other_bytes
        return _floor_fraction(usable, pool.total_bytes)
    if pool.ram_available_bytes - host_overhead_bytes - other_bytes < reserve_bytes:
        return 0.0
    return _floor_fraction(pool.device_usable_bytes, pool.total_bytes)


def check_memory_claim(
    pool: EnginePool,
    claimed_bytes: int,
    reserve_bytes: int,
    host_overhead_bytes: int = VLLM_HOST_OVERHEAD_BYTES,
    other_bytes: int = 0,
    utilization: float | None = None,
) -> MemoryClaimCheck:
    """Check that taking ``claimed_bytes`` (plus host overhead and ``other_bytes``) leaves the reserve free."""
    ram_after_host = pool.ram_available_bytes - host_overhead_bytes - other_bytes
    left = ram_after_host - claimed_bytes if pool.shares_system_memory else ram_after_host
    return MemoryClaimCheck(
        pool=pool,
        utilization=utilization,
        claimed_bytes=claimed_bytes,
        host_overhead_bytes=host_overhead_bytes,
        other_bytes=other_bytes,
        reserve_bytes=reserve_bytes,
        left_free_bytes=left,
        safe_utilization=safe_memory_utilization(pool, reserve_bytes, host_overhead_bytes, other_bytes),
    )


def check_memory_utilization(
    pool: EnginePool,
    utilization: float,
    reserve_bytes: int,
    host_overhead_bytes: int = VLLM_HOST_OVERHEAD_BYTES,
    other_bytes: int = 0,
) -> MemoryClaimCheck:
    """Check a ``gpu_memory_utilization`` value: vLLM claims ``utilization x total`` of the pool."""
    if not 0 < utilization <= 1:
        raise ValueError(f"memory utilization must be in (0, 1], not {utilization}")
    claimed = math.ceil(utilization * pool.total_bytes)
    return check_memory_claim(pool, claimed, reserve_bytes, host_overhead_bytes, other_bytes, utilization)


def _gib(byte_count: int) -> str:
    return f"{byte_count / GIB:.1f} GiB"


def refusal_error(check: MemoryClaimCheck, what: str) -> ModelLoadError:
    """The ModelLoadError for an unsafe ``check``; ``what`` names the claim ("memory utilisation 0.90")."""
    pool = check.pool
    if not pool.shares_system_memory and check.claimed_bytes > pool.device_usable_bytes:
        message = said(QT_TRANSLATE_NOOP(
            "EngineLoad", "{0} would claim {1} of GPU memory, but only {2} of {3} is free and {4} must stay free."),
            what, _gib(check.claimed_bytes), _gib(pool.available_bytes), _gib(pool.total_bytes),
            _gib(GPU_RESERVE_BYTES))
    else:
        template = (QT_TRANSLATE_NOOP(
            "EngineLoad", "{0} would take {1} of the shared memory pool ({2} available of {3}), leaving {4} for the "
            "system and your other programs; at least {5} must stay free.") if pool.kind == "unified" else
            QT_TRANSLATE_NOOP(
                "EngineLoad", "{0} would take {1} of memory ({2} available of {3}), leaving {4} for the system and "
                "your other programs; at least {5} must stay free."))
        message = said(template, what, _gib(check.claimed_bytes), _gib(pool.available_bytes), _gib(pool.total_bytes),
                       _gib(max(0, check.left_free_bytes)), _gib(check.reserve_bytes))
    if check.safe_utilization > 0 and pool.kind != "cpu":
        hint = said(QT_TRANSLATE_NOOP(
            "EngineLoad", "Set Memory utilisation to {0:.3f} or less (Automatic picks a safe value), or use a shorter "
            "context or fewer parallel chats, or close other programs."), check.safe_utilization)
    else:
        hint = said(QT_TRANSLATE_NOOP(
            "EngineLoad", "Close other programs, choose a smaller model, or use a shorter context or fewer parallel "
            "chats."))
    return ModelLoadError(message, hint, cause="out_of_memory")


def require_safe_utilization(
    pool: EnginePool,
    requested: float | None,
    reserve_bytes: int,
    host_overhead_bytes: int = VLLM_HOST_OVERHEAD_BYTES,
    other_bytes: int = 0,
) -> float:
    """The fraction to give vLLM: ``requested`` if it keeps the reserve free, the safe one when None.

    Raises ModelLoadError (cause ``out_of_memory``) naming the reason and a safe value when
    ``requested`` would leave less than the reserve, or when no fraction at all is safe.
    """
    safe = safe_memory_utilization(pool, reserve_bytes, host_overhead_bytes, other_bytes)
    if requested is None:
        if safe <= 0:
            claim = check_memory_claim(pool, 0, reserve_bytes, host_overhead_bytes, other_bytes)
            raise refusal_error(claim, said(QT_TRANSLATE_NOOP("EngineLoad", "Loading the engine")))
        return safe
    check = check_memory_utilization(pool, requested, reserve_bytes, host_overhead_bytes, other_bytes)
    if not check.safe:
        raise refusal_error(check, said(QT_TRANSLATE_NOOP("EngineLoad", "Memory utilisation {0:.3f}"), requested))
    return requested


def require_safe_cpu_claim(
    pool: EnginePool,
    weights_bytes: int,
    kv_cache_bytes: int,
    reserve_bytes: int,
    host_overhead_bytes: int = VLLM_HOST_OVERHEAD_BYTES,
    other_bytes: int = 0,
) -> MemoryClaimCheck:
    """On vLLM's CPU backend: refuse weights + a KV cache of ``kv_cache_bytes`` that leave less than the reserve."""
    check = check_memory_claim(pool, weights_bytes + kv_cache_bytes, reserve_bytes, host_overhead_bytes, other_bytes)
    if not check.safe:
        raise refusal_error(check, said(QT_TRANSLATE_NOOP("EngineLoad", "The model with a {0} KV cache"),
                                        _gib(kv_cache_bytes)))
    return check
