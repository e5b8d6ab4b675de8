"""Decode-speed upper bounds from memory bandwidth: every token reads the active weights + its KV."""

from __future__ import annotations

from app.core.planner.kv import kv_bytes_for_context
from app.core.planner.metadata import ModelMetadata


def decode_bytes_per_token(model: ModelMetadata, kv_cache_dtype: str, context_tokens: int) -> int:
    """Bytes read from memory to decode one token of one sequence at ``context_tokens`` of context.

    Dense models read all weights; MoE models read the shared weights plus
    ``experts_used / expert_count`` of the routed-expert weights.
    """
    return model.active_weight_bytes + kv_bytes_for_context(model, kv_cache_dtype, max(0, context_tokens))


def decode_tokens_per_second_bound(
    model: ModelMetadata, bandwidth_bytes_per_second: float, kv_cache_dtype: str, context_tokens: int
) -> float | None:
    """Single-sequence decode tokens/s ceiling: bandwidth / bytes read per token (None if unknown)."""
    if bandwidth_bytes_per_second <= 0:
        return None
    return bandwidth_bytes_per_second / decode_bytes_per_token(model, kv_cache_dtype, context_tokens)


def aggregate_decode_tokens_per_second_bound(
    model: ModelMetadata,
    bandwidth_bytes_per_second: float,
    kv_cache_dtype: str,
    context_tokens: int,
    parallel_chats: int,
) -> float | None:
    """Total tokens/s ceiling for ``parallel_chats`` chats decoding together: one step reads
    the active weights once and every chat's KV (MoE routing spread across the batch is ignored).
    """
    if bandwidth_bytes_per_second <= 0:
        return None
    chats = max(1, parallel_chats)
    step_bytes = model.active_weight_bytes + chats * kv_bytes_for_context(
        model, kv_cache_dtype, max(0, context_tokens)
    )
    return chats * bandwidth_bytes_per_second / step_bytes
