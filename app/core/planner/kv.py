"""KV-cache sizes: per token, for one sequence's context, and as llama.cpp or vLLM lay it out.

Per layer and token the cache holds one K row of ``n_kv_heads * head_dim_k`` values and one V
row of ``n_kv_heads * head_dim_v`` values (GQA uses KV heads, not attention heads). Rows are
sized like ggml_row_size: whole blocks of the cache type (q8_0: 34 bytes per 32 values).
Sliding-window layers keep at most ``sliding_window`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.planner.dtypes import KV_BLOCK_SIZES, kv_row_bytes
from app.core.planner.errors import PlanRequestError
from app.core.planner.metadata import ModelMetadata

LLAMACPP_CTX_PAD = 256  # llama.cpp rounds n_ctx (and each stream, and the SWA cache) up to this
LLAMACPP_N_UBATCH = 512  # llama.cpp's default physical batch; the SWA cache keeps this many extra cells
VLLM_NULL_BLOCKS = 1  # vLLM's BlockPool keeps one block back (its null block) in every layer's cache


def _check_dtype(kv_cache_dtype: str) -> str:
    """Map "auto" to f16 and reject unknown cache types."""
    dtype = "f16" if kv_cache_dtype == "auto" else kv_cache_dtype
    if dtype not in KV_BLOCK_SIZES:
        raise PlanRequestError(
            f"Unknown KV-cache type '{kv_cache_dtype}'.", f"Use one of: auto, {', '.join(KV_BLOCK_SIZES)}."
        )
    return dtype


def layer_kv_bytes_per_token(model: ModelMetadata, kv_cache_dtype: str, layer: int) -> int:
    """Bytes one token occupies in layer ``layer``'s K and V cache."""
    dtype = _check_dtype(kv_cache_dtype)
    kv_heads = model.n_kv_heads[layer]
    if kv_heads <= 0:
        return 0
    value_bytes = kv_row_bytes(dtype, kv_heads * model.head_dim_v) if model.head_dim_v else 0
    return kv_row_bytes(dtype, kv_heads * model.head_dim_k) + value_bytes


def kv_bytes_for_cells(model: ModelMetadata, kv_cache_dtype: str, full_cells: int, sliding_cells: int) -> int:
    """Bytes of a cache with ``full_cells`` tokens in full-attention layers and ``sliding_cells``
    in sliding-window layers.
    """
    total = 0
    for layer in range(model.n_layers):
        cells = sliding_cells if model.sliding_layers[layer] else full_cells
        total += layer_kv_bytes_per_token(model, kv_cache_dtype, layer) * cells
    return total


def kv_bytes_for_context(model: ModelMetadata, kv_cache_dtype: str, context_length: int) -> int:
    """Bytes to cache one sequence of ``context_length`` tokens (sliding layers capped at the window)."""
    window = model.sliding_window or context_length
    return kv_bytes_for_cells(model, kv_cache_dtype, context_length, min(context_length, window))


def kv_bytes_per_token(model: ModelMetadata, kv_cache_dtype: str, context_length: int) -> int:
    """Average KV bytes per token over a ``context_length``-token sequence (rounded up).

    Without sliding-window layers (or within the window) this is the plain per-token size,
    e.g. 131072 bytes for Llama-3.1-8B at f16.
    """
    context_length = max(1, context_length)
    return -(-kv_bytes_for_context(model, kv_cache_dtype, context_length) // context_length)


def pad(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple of ``multiple``."""
    return -(-value // multiple) * multiple


def llamacpp_streams(context_length: int, parallel_chats: int, *, kv_unified: bool) -> tuple[int, int]:
    """(cells per KV stream, streams) llama.cpp makes for ``parallel_chats`` chats of ``context_length``.

    llama.cpp takes one n_ctx for all sequences (context x chats), pads it to a multiple of 256,
    and either shares it (kv_unified: one stream) or splits it into one stream per sequence,
    each padded to 256 again; n_ctx is then cells per stream x streams.
    """
    n_seq = max(1, parallel_chats)
    n_ctx = pad(context_length * n_seq, LLAMACPP_CTX_PAD)
    if kv_unified:
        return n_ctx, 1
    return pad(n_ctx // n_seq, LLAMACPP_CTX_PAD), n_seq


@dataclass(frozen=True)
class KvLayout:
    """How many token cells a backend allocates, in full and in sliding-window layers."""

    full_cells: int
    sliding_cells: int
    n_ctx: int  # llama.cpp: the n_ctx it ends up with (padded); vLLM: tokens of full layers
    per_sequence_cells: int


def llamacpp_kv_layout(
    model: ModelMetadata,
    context_length: int,
    parallel_chats: int,
    *,
    kv_unified: bool = True,
    swa_full: bool = False,
    n_ubatch: int = LLAMACPP_N_UBATCH,
) -> KvLayout:
    """Cells llama.cpp allocates for ``parallel_chats`` chats of ``context_length`` tokens.

    Streams as :func:`llamacpp_streams`. The SWA cache (when not swa_full) holds
    ``pad256(min(n_ctx, window * (n_seq if unified else 1) + n_ubatch))`` cells per stream.
    """
    n_seq = max(1, parallel_chats)
    cells_per_stream, streams = llamacpp_streams(context_length, n_seq, kv_unified=kv_unified)
    n_ctx = cells_per_stream * streams
    sliding_per_stream = cells_per_stream
    if model.sliding_window and any(model.sliding_layers) and not swa_full:
        window_cells = model.sliding_window * (n_seq if kv_unified else 1) + n_ubatch
        sliding_per_stream = pad(min(cells_per_stream, window_cells), LLAMACPP_CTX_PAD)
    return KvLayout(
        full_cells=cells_per_stream * streams,
        sliding_cells=sliding_per_stream * streams,
        n_ctx=n_ctx,
        per_sequence_cells=cells_per_stream if not kv_unified else n_ctx,
    )


def vllm_kv_layout(
    model: ModelMetadata,
    context_length: int,
    parallel_chats: int,
    *,
    block_size: int,
    max_num_batched_tokens: int,
) -> KvLayout:
    """Cells vLLM needs so that ``parallel_chats`` requests of ``context_length`` run at once.

    Full-attention layers need ``ceil(max_model_len / block_size)`` blocks per sequence;
    sliding-window layers need ``ceil(min(window - 1 + max_num_batched_tokens, max_model_len) /
    block_size) + 1`` blocks (vLLM's SlidingWindowSpec), never more than the full amount. Every
    layer also keeps VLLM_NULL_BLOCKS block that vLLM's block pool holds back for itself (so a KV
    cache given in bytes must include it, or the last block of the longest chat does not fit).
    """
    n_seq = max(1, parallel_chats)
    full_blocks = -(-context_length // block_size)
    sliding_blocks = full_blocks
    if model.sliding_window and any(model.sliding_layers):
        window_tokens = min(model.sliding_window - 1 + max_num_batched_tokens, context_length)
        sliding_blocks = min(full_blocks, -(-window_tokens // block_size) + 1)
    reserved = VLLM_NULL_BLOCKS * block_size
    return KvLayout(
        full_cells=full_blocks * block_size * n_seq + reserved,
        sliding_cells=sliding_blocks * block_size * n_seq + reserved,
        n_ctx=full_blocks * block_size,
        per_sequence_cells=full_blocks * block_size,
    )
