"""Live memory facts for loading vLLM: the pool its fraction refers to, weight bytes, engine processes' memory."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.core.engines.backends.vllm_guard import ProcessIdentity, descendants, is_alive
from app.core.engines.unified_memory import EnginePool, PoolKind


def live_engine_pool(on_cpu: bool, kind_hint: str | None = None) -> EnginePool:
    """The pool vLLM allocates from, measured now.

    RAM figures come from ``MemAvailable`` (psutil), the truth on unified memory where CUDA
    under-reports what is free. A GPU that reports memory of its own (``is_integrated`` false,
    e.g. GH200's HBM) is a ``device`` pool measured by CUDA. ``kind_hint`` (the probe's
    verdict, from EngineConfig.extra["memory_kind"]) wins over the CUDA query when given.
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
