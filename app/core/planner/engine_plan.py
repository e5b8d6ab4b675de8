"""The plan's decisions for each backend, in that backend's own words: the typed hand-off to the engines.

The planner sizes a setting (context length x parallel chats) the way each backend will lay it
out; these values carry that layout to the backend, so the backend applies what the plan sized
instead of working it out again. Neutral facts (context length, parallel chats, KV type) stay
on the plan and on ``EngineConfig``; a backend translates them into its own words where it loads.

To add a backend: give it a ``...Plan`` here with the decisions only the planner can make for it,
fill it in ``plan.py``'s ``_recommended_settings`` from the sizing, and read it in the backend.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.planner.budget import MemoryKind
from app.core.planner.kv import LLAMACPP_N_UBATCH, llamacpp_streams
from app.core.planner.request import DEFAULT_RESERVE_BYTES

LLAMACPP_N_BATCH = 512  # llama.cpp's default logical batch; the planner sizes the compute buffer for it
LLAMACPP_SWA_FULL = True  # every sliding-window cell kept: prompt reuse truncates sequences (llama.cpp's default)


def llamacpp_kv_unified(parallel_chats: int) -> bool:
    """One KV stream shared by all chats (True for a single chat), else one stream per chat.

    Separate streams keep one chat's attention from scanning another chat's cells: measured
    ~15% faster than a unified cache with 8 chats.
    """
    return parallel_chats <= 1


LLAMACPP_GRAPH_SAMPLING_ON_GPU = False
"""Whether chats whose layers run on a GPU are sampled inside llama.cpp's graph unless a plan says otherwise.
Off until the engine's use of it is measured on a GPU: the minimal loop's was (H200, 1B shape, Llama-3's
vocabulary: 1.17x host sampling at 1 chat, 2.22x at 16), the engine's was not (the lease ran out of device
time). Tests and benchmarks turn it on per plan (``LlamaCppPlan.graph_sampling``)."""


@dataclass(frozen=True)
class LlamaCppPlan:
    """What llama.cpp is told (``llama_context_params`` / ``llama_model_params``), as the plan sized it.

    ``n_ctx`` is the cells of all chats together, already padded the way llama.cpp pads them (so
    it keeps the number); ``n_seq_max`` is the neutral ``parallel_chats``. ``n_gpu_layers`` -1
    offloads every layer. ``graph_sampling`` True samples inside llama.cpp's graph
    (``engines/backends/llamacpp_graph_sampling``), False on the host; None follows
    ``LLAMACPP_GRAPH_SAMPLING_ON_GPU`` where layers run on a GPU.
    """

    n_ctx: int
    kv_unified: bool
    swa_full: bool = LLAMACPP_SWA_FULL
    n_gpu_layers: int = -1
    n_batch: int = LLAMACPP_N_BATCH
    n_ubatch: int = LLAMACPP_N_UBATCH
    graph_sampling: bool | None = None

    @classmethod
    def for_chats(cls, context_length: int, parallel_chats: int, n_gpu_layers: int = -1) -> LlamaCppPlan:
        """The layout for ``parallel_chats`` chats of ``context_length`` tokens (what the planner sizes)."""
        kv_unified = llamacpp_kv_unified(parallel_chats)
        cells_per_stream, streams = llamacpp_streams(context_length, parallel_chats, kv_unified=kv_unified)
        return cls(n_ctx=cells_per_stream * streams, kv_unified=kv_unified, n_gpu_layers=n_gpu_layers)


@dataclass(frozen=True)
class VllmPlan:
    """What vLLM is told beyond the neutral context length and chats, and what it re-checks at load.

    ``kv_cache_memory_bytes`` is the KV cache the plan sized, in bytes: vLLM is given exactly that
    wherever the engine shares system memory (its CPU build, unified-memory GPUs), whatever CUDA reports
    as free; ``activation_bytes`` is the plan's activation estimate, counted when that claim is checked.
    ``gpu_memory_utilization`` is the fraction of a discrete device's total memory the engine may take
    (on unified memory the whole pool's: used only when no KV bytes are given); ``cpu_kvcache_space_gib``
    is the same KV cache rounded up to GiB (``VLLM_CPU_KVCACHE_SPACE``'s unit). ``memory_kind``,
    ``reserve_bytes`` and ``embedder_bytes`` are the plan's view of memory, which the backend checks again
    against live figures before it starts.
    """

    block_size: int | None = None
    gpu_memory_utilization: float | None = None
    cpu_kvcache_space_gib: int | None = None
    memory_kind: MemoryKind | None = None
    reserve_bytes: int = DEFAULT_RESERVE_BYTES
    embedder_bytes: int = 0
    kv_cache_memory_bytes: int | None = None
    activation_bytes: int = 0
