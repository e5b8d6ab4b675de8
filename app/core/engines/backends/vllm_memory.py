"""Live memory facts for loading vLLM: the pool its fraction refers to, weight bytes, engine processes' memory."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.engines.backends.vllm_guard import ProcessIdentity, descendants, is_alive
from app.core.engines.base import ModelLoadError
from app.core.engines.load_texts import said
from app.core.engines.unified_memory import (
    GIB,
    EnginePool,
    PoolKind,
    check_memory_claim,
    refusal_error,
    require_safe_utilization,
)
from app.core.planner.compute import VLLM_DEVICE_OVERHEAD_BYTES
from app.core.util.translatable import QT_TRANSLATE_NOOP

DEFAULT_RESERVE_BYTES = 4 * GIB
NOT_ENOUGH_MEMORY_HINT = said(QT_TRANSLATE_NOOP(
    "EngineLoad", "Use a shorter context or fewer parallel chats, or close other programs."))
STARTUP_CHECK_UTILIZATION = 0.01
"""``gpu_memory_utilization`` given with a KV cache sized in bytes. vLLM then sizes nothing by the fraction:
it only compares ``fraction x total`` with the free memory CUDA reports at start-up, a figure that on
unified memory leaves out the page cache (vllm #48140). The real check is :func:`size_kv_cache`'s, against
``MemAvailable``; a small fraction keeps vLLM's own from refusing a start the pool can afford."""


@dataclass(frozen=True)
class KvCacheSizing:
    """How vLLM's KV cache is sized: in bytes (``kv_cache_memory_bytes``), or as a fraction of a device pool.

    ``claimed_bytes`` is what the engine takes from the pool (weights + KV + activations + device overhead
    on the bytes path; the fraction of the pool otherwise); ``left_free_bytes`` what stays for everyone else.
    """

    kv_cache_memory_bytes: int | None
    gpu_memory_utilization: float | None
    claimed_bytes: int
    left_free_bytes: int


def size_kv_cache(
    pool: EnginePool,
    *,
    weights_bytes: int,
    kv_cache_bytes: int | None,
    activation_bytes: int = 0,
    reserve_bytes: int = DEFAULT_RESERVE_BYTES,
    embedder_bytes: int = 0,
    requested_utilization: float | None = None,
) -> KvCacheSizing:
    """Decide how vLLM sizes its KV cache on ``pool`` and refuse (ModelLoadError) what leaves less than the reserve.

    Where the engine shares system memory (vLLM's CPU build; GB10, Jetson, GH200 as unified) and the plan
    gave its KV bytes (``kv_cache_bytes``), the KV cache is those bytes exactly, whatever CUDA reports as
    free; the claim (weights + KV + activations + device overhead, plus the host processes and the
    embedder) must leave ``reserve_bytes`` of ``MemAvailable``. On a discrete device pool, vLLM's fraction
    sizes it (``requested_utilization``, or the largest safe one), checked as before.
    """
    if pool.kind == "device" or (pool.kind == "unified" and not kv_cache_bytes):
        utilization = require_safe_utilization(pool, requested_utilization, reserve_bytes, other_bytes=embedder_bytes)
        check = check_memory_claim(pool, round(utilization * pool.total_bytes), reserve_bytes,
                                   other_bytes=embedder_bytes)
        return KvCacheSizing(None, utilization, check.claimed_bytes, check.left_free_bytes)
    kv_bytes = kv_cache_bytes or 0
    device_overhead = 0 if pool.kind == "cpu" else VLLM_DEVICE_OVERHEAD_BYTES
    claimed = weights_bytes + kv_bytes + activation_bytes + device_overhead
    check = check_memory_claim(pool, claimed, reserve_bytes, other_bytes=embedder_bytes)
    if not check.safe:  # the fraction is not what sizes it here: the hint names what does
        refused = refusal_error(check, said(QT_TRANSLATE_NOOP("EngineLoad", "The model with a {0} KV cache"),
                                            f"{kv_bytes / GIB:.1f} GiB"))
        raise ModelLoadError(refused.message, NOT_ENOUGH_MEMORY_HINT, cause="out_of_memory")
    startup = None if pool.kind == "cpu" else STARTUP_CHECK_UTILIZATION
    return KvCacheSizing(kv_bytes or None, startup, check.claimed_bytes, check.left_free_bytes)


def pool_kind_hint(memory_kind: str | None) -> str | None:
    """The pool kind :func:`live_engine_pool` takes for the plan's memory kind (a discrete GPU is a device pool)."""
    if memory_kind == "discrete":
        return "device"
    return memory_kind


def live_engine_pool(on_cpu: bool, kind_hint: str | None = None) -> EnginePool:
    """The pool vLLM allocates from, measured now.

    RAM figures come from ``MemAvailable`` (psutil), the truth on unified memory where CUDA
    under-reports what is free. A GPU that reports memory of its own (``is_integrated`` false,
    e.g. GH200's HBM) is a ``device`` pool measured by CUDA. ``kind_hint`` (the probe's
    verdict, from the plan's ``memory_kind``: :func:`pool_kind_hint`) wins over the CUDA query when given.
    """
    import psutil

    memory = psutil.virtual_memory()
    ram_total, ram_available = int(memory.total), int(memory.available)
    if on_cpu:
        return EnginePool("cpu", ram_total, ram_available, ram_available)
    kind: PoolKind
    if kind_hint in ("unified", "device"):
        kind = "unified" if kind_hint == "unified" else "device"
    else:
        kind = "unified" if _cuda_is_integrated() else "device"
    if kind == "unified":
        return EnginePool("unified", ram_total, ram_available, ram_available)
    free, total = _cuda_memory()
    return EnginePool("device", total, free, ram_available)


def _cuda_is_integrated() -> bool:
    import torch

    return bool(getattr(torch.cuda.get_device_properties(0), "is_integrated", False))


def _cuda_memory() -> tuple[int, int]:
    import torch

    free, total = torch.cuda.mem_get_info()
    return int(free), int(total)


def weights_bytes(model_folder: Path) -> int:
    """Bytes of the model's weight files (safetensors, else PyTorch .bin) in ``model_folder``."""
    if not model_folder.is_dir():
        return 0
    for pattern in ("*.safetensors", "*.bin", "*.pt"):
        files = list(model_folder.glob(pattern))
        if files:
            return sum(path.stat().st_size for path in files)
    return 0


def processes_memory(processes: Iterable[ProcessIdentity]) -> int:
    """Resident memory (RSS) of ``processes`` and all their descendants, in bytes (0 for gone ones)."""
    import psutil

    total = 0
    for identity in processes:
        if not is_alive(identity):
            continue
        for pid in (identity.pid, *descendants(identity.pid)):
            try:
                total += int(psutil.Process(pid).memory_info().rss)
            except (psutil.Error, OSError):
                continue
    return total


def wait_for_exit(processes: Iterable[ProcessIdentity], timeout_s: float) -> list[ProcessIdentity]:
    """Wait until ``processes`` have exited; return those still alive after ``timeout_s``."""
    import time

    remaining = list(processes)
    deadline = time.monotonic() + timeout_s
    while remaining and time.monotonic() < deadline:
        remaining = [identity for identity in remaining if is_alive(identity)]
        if remaining:
            time.sleep(0.1)
    return [identity for identity in remaining if is_alive(identity)]


def describe_exception_chain(error: BaseException) -> str:
    """The messages of ``error`` and its causes, joined (vLLM wraps the root cause)."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current).strip()
        if text:
            parts.append(f"{type(current).__name__}: {text}")
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)


def exception_names(error: BaseException) -> set[str]:
    """Class names of ``error`` and its causes (to recognise vLLM errors without importing vLLM)."""
    names: set[str] = set()
    current: Any = error
    while current is not None and type(current).__name__ not in names:
        names.add(type(current).__name__)
        current = current.__cause__ or current.__context__
    return names
