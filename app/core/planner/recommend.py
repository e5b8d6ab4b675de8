"""Searches for the nearest setting that fits: less context, then fewer chats, a smaller KV type,
then fewer GPU layers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.core.planner.budget import MemoryBudget
from app.core.planner.metadata import ModelMetadata
from app.core.planner.request import PlanRequest, smaller_kv_dtype
from app.core.planner.sizing import Setting, Sizing, size_setting

MIN_SEARCH_CONTEXT = 2048


@dataclass(frozen=True)
class SearchResult:
    """The setting asked for, and the nearest one that fits (the same one when it fits)."""

    requested: Sizing
    recommended: Sizing
    found: bool
    auto_context: bool


def context_candidates(start: int) -> list[int]:
    """``start``, then the powers of two below it down to MIN_SEARCH_CONTEXT."""
    values = [start]
    power = 1 << (start.bit_length() - 1)
    if power == start:
        power //= 2
    while power >= MIN_SEARCH_CONTEXT:
        values.append(power)
        power //= 2
    return values


def chat_candidates(start: int) -> list[int]:
    """``start``, then halving down to 1."""
    values = [start]
    while values[-1] > 1:
        values.append(values[-1] // 2)
    return values


def search_setting(
    model: ModelMetadata, budget: MemoryBudget, request: PlanRequest, kv_cache_dtype: str, context_length: int
) -> SearchResult:
    """Size the requested setting and, if it does not fit, find the nearest that does.

    ``request.parallel_chats`` is a number here (the planner settles an automatic one first).
    With ``request.context_length`` None the largest candidate context that fits is taken as
    the request itself. Otherwise the order is: shrink the context, then the chats, then use a
    smaller KV type, then (discrete GPU with fixed layers) let the planner offload fewer layers.
    """

    def size(setting: Setting) -> Sizing:
        return size_setting(model, budget, request.backend, setting, request.embedder_bytes, request.block_size)

    chats_asked = request.parallel_chats or 1
    base = Setting(context_length, chats_asked, kv_cache_dtype, request.gpu_layers)
    if request.context_length is None:
        for context in context_candidates(context_length):
            sizing = size(replace(base, context_length=context))
            if sizing.fits:
                return SearchResult(sizing, sizing, found=True, auto_context=True)
    requested = size(base)
    if requested.fits:
        return SearchResult(requested, requested, found=True, auto_context=request.context_length is None)
    layer_options: list[int | None] = [request.gpu_layers]
    if request.gpu_layers is not None and request.backend == "llamacpp" and budget.kind == "discrete":
        layer_options.append(None)
    smaller = smaller_kv_dtype(request.backend, kv_cache_dtype)
    dtypes = [kv_cache_dtype, *([smaller] if smaller else [])]
    last = requested
    for layers in layer_options:
        for dtype in dtypes:
            for chats in chat_candidates(chats_asked):
                for context in context_candidates(context_length):
                    last = size(Setting(context, chats, dtype, layers))
                    if last.fits:
                        return SearchResult(requested, last, found=True, auto_context=request.context_length is None)
    return SearchResult(requested, last, found=False, auto_context=request.context_length is None)
