"""The one way settings become a PlanRequest (the engine manager, the CLI, the settings verdict, the catalog)."""

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
    parallel_chats: int | None = None,
    kv_cache_dtype: str | None = None,
) -> PlanRequest:
    """The plan the settings ask for; an explicit argument (not None) overrides the matching setting.

    A setting at its Automatic value (as declared: context length 0, parallel chats 0, GPU
    layers -1, block size 0) becomes None in the request: the planner decides.
    """
    return PlanRequest(
        backend=backend,
        context_length=context_length or settings.int_or_automatic("engine.context_length"),
        parallel_chats=parallel_chats or settings.int_or_automatic("engine.parallel_chats"),
        kv_cache_dtype=kv_cache_dtype or settings.str_value("engine.kv_cache_dtype"),
        reserve_bytes=int(settings.float_value("engine.os_reserve_gib") * GIB),
        embedder_bytes=embedder_memory_bytes(settings.str_value("kb.embedding_model")),
        gpu_layers=settings.int_or_automatic("engine.gpu_layers"),
        block_size=settings.int_or_automatic("engine.block_size"),
    )
