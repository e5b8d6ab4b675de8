"""Build a PlanRequest from the user's settings (shared by the CLI, the engine manager and the GUI)."""

from __future__ import annotations

from app.core.config import Settings
from app.core.planner.embedders import embedder_memory_bytes
from app.core.planner.request import BackendChoice, PlanRequest

GIB = 1024**3


def plan_request_from_settings(
    settings: Settings,
    backend: BackendChoice,
    *,
    context_length: int | None = None,
    parallel_sequences: int | None = None,
    kv_cache_dtype: str | None = None,
) -> PlanRequest:
    """The plan the settings ask for; explicit arguments override the matching setting."""
    gpu_layers = settings.int_value("engine.gpu_layers")
    return PlanRequest(
        backend=backend,
        context_length=context_length or settings.int_value("engine.context_length") or None,
        parallel_sequences=parallel_sequences or settings.int_value("engine.parallel_chats"),
        kv_cache_dtype=kv_cache_dtype or settings.str_value("engine.kv_cache_dtype"),
        reserve_bytes=int(settings.float_value("engine.os_reserve_gib") * GIB),
        embedder_bytes=embedder_memory_bytes(settings.str_value("kb.embedding_model")),
        gpu_layers=None if gpu_layers == -1 else gpu_layers,
        block_size=settings.int_value("engine.block_size") or None,
    )
