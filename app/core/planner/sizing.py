"""Sizes one concrete setting (context, chats, KV type, GPU layers) on one machine and backend."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.planner.budget import MemoryBudget
from app.core.planner.compute import (
    LLAMACPP_CPU_HOST_OVERHEAD_BYTES,
    LLAMACPP_DEVICE_OVERHEAD_BYTES,
    LLAMACPP_HOST_OVERHEAD_BYTES,
    VLLM_DEVICE_OVERHEAD_BYTES,
    VLLM_HOST_OVERHEAD_BYTES,
    VLLM_MAX_BATCHED_TOKENS_CPU,
    VLLM_MAX_BATCHED_TOKENS_GPU,
    llamacpp_compute_bytes,
    llamacpp_output_buffer_bytes,
    vllm_activation_bytes,
)
from app.core.planner.engine_plan import LLAMACPP_GRAPH_SAMPLING_ON_GPU, LLAMACPP_SWA_FULL, llamacpp_kv_unified
from app.core.planner.kv import (
    LLAMACPP_N_UBATCH,
    KvLayout,
    layer_kv_bytes_per_token,
    llamacpp_kv_layout,
    vllm_kv_layout,
)
from app.core.planner.metadata import ModelMetadata
from app.core.planner.request import BackendChoice

ALL_LAYERS = -1
VLLM_GPU_BLOCK_SIZE = 16
VLLM_CPU_BLOCK_SIZE = 128


@dataclass(frozen=True)
class Setting:
    """One candidate configuration. ``gpu_layers`` None lets the planner pick (llama.cpp, discrete)."""

    context_length: int
    parallel_chats: int
    kv_cache_dtype: str
    gpu_layers: int | None = None


@dataclass(frozen=True)
class Sizing:
    """Memory a setting needs, split between dedicated GPU memory and host RAM (or the unified pool)."""

    setting: Setting
    backend: BackendChoice
    budget: MemoryBudget
    layout: KvLayout
    weights_bytes: int
    kv_bytes_total: int
    compute_bytes: int
    overhead_bytes: int
    embedder_bytes: int
    gpu_bytes: int
    host_bytes: int
    engine_pool_bytes: int  # what vLLM's gpu_memory_utilization must cover
    n_gpu_layers: int | None
    n_layers: int
    block_size: int | None
    kv_unified: bool

    @property
    def total_bytes(self) -> int:
        """Everything the setting needs."""
        return self.gpu_bytes + self.host_bytes

    @property
    def gpu_fits(self) -> bool:
        """True when the dedicated-GPU part fits in free VRAM."""
        return self.gpu_bytes <= self.budget.gpu_bytes

    @property
    def host_fits(self) -> bool:
        """True when the host/unified part fits in available RAM minus the reserve."""
        return self.host_bytes <= self.budget.host_bytes

    @property
    def fits(self) -> bool:
        """True when both parts fit."""
        return self.gpu_fits and self.host_fits


def size_setting(
    model: ModelMetadata,
    budget: MemoryBudget,
    backend: BackendChoice,
    setting: Setting,
    embedder_bytes: int,
    block_size: int | None = None,
) -> Sizing:
    """Memory ``setting`` needs with ``backend`` under ``budget``."""
    if backend == "llamacpp":
        return _size_llamacpp(model, budget, setting, embedder_bytes)
    return _size_vllm(model, budget, setting, embedder_bytes, block_size)


def _layer_kv_bytes(model: ModelMetadata, kv_cache_dtype: str, layout: KvLayout) -> list[int]:
    """KV bytes of each layer under ``layout``."""
    return [
        layer_kv_bytes_per_token(model, kv_cache_dtype, layer)
        * (layout.sliding_cells if model.sliding_layers[layer] else layout.full_cells)
        for layer in range(model.n_layers)
    ]


def _size_llamacpp(model: ModelMetadata, budget: MemoryBudget, setting: Setting, embedder_bytes: int) -> Sizing:
    """llama.cpp: padded n_ctx, per-layer placement of weights and KV when VRAM is short; the compute buffer
    as llama.cpp reserves it with a GPU, as the engine's graphs write it on the CPU, plus the output buffer.

    The layout is the one the plan hands to llama.cpp (``engine_plan.LlamaCppPlan``): a shared KV
    stream for one chat, one stream per chat otherwise, and a full-size sliding-window cache.
    """
    kv_unified = llamacpp_kv_unified(setting.parallel_chats)
    layout = llamacpp_kv_layout(
        model, setting.context_length, setting.parallel_chats, kv_unified=kv_unified, swa_full=LLAMACPP_SWA_FULL
    )
    streams = 1 if kv_unified else setting.parallel_chats
    cells_per_stream = layout.full_cells // streams
    compute = llamacpp_compute_bytes(model, cells_per_stream, LLAMACPP_N_UBATCH, setting.parallel_chats)
    graph_sampling = budget.has_gpu and LLAMACPP_GRAPH_SAMPLING_ON_GPU
    compute += llamacpp_output_buffer_bytes(model, setting.parallel_chats, graph_sampling=graph_sampling)
    layer_kv = _layer_kv_bytes(model, setting.kv_cache_dtype, layout)
    kv_total = sum(layer_kv)
    device_overhead = LLAMACPP_DEVICE_OVERHEAD_BYTES if budget.has_gpu else 0
    host_overhead = LLAMACPP_HOST_OVERHEAD_BYTES if budget.has_gpu else LLAMACPP_CPU_HOST_OVERHEAD_BYTES
    overhead = host_overhead + device_overhead
    everything = model.weight_bytes + kv_total + compute + overhead + embedder_bytes
    if budget.kind == "discrete":
        chosen, gpu, host = _place_layers(
            model, budget, setting.gpu_layers, layer_kv, device_overhead + compute + embedder_bytes
        )
        pool = gpu
    else:
        chosen = ALL_LAYERS if budget.has_gpu else 0
        gpu, host, pool = 0, everything, everything
    return Sizing(
        setting=setting,
        backend="llamacpp",
        budget=budget,
        layout=layout,
        weights_bytes=model.weight_bytes,
        kv_bytes_total=kv_total,
        compute_bytes=compute,
        overhead_bytes=overhead,
        embedder_bytes=embedder_bytes,
        gpu_bytes=gpu,
        host_bytes=host,
        engine_pool_bytes=pool,
        n_gpu_layers=chosen,
        n_layers=model.n_layers,
        block_size=None,
        kv_unified=kv_unified,
    )


def _place_layers(
    model: ModelMetadata, budget: MemoryBudget, gpu_layers: int | None, layer_kv: list[int], device_fixed: int
) -> tuple[int, int, int]:
    """(n_gpu_layers, gpu bytes, host bytes) for llama.cpp on a discrete GPU.

    llama.cpp offloads the last ``n_gpu_layers`` blocks, each with its KV cache; the token
    embeddings and output head move too only when everything is offloaded (ALL_LAYERS). With
    ``gpu_layers`` None the largest count whose GPU part fits in free VRAM is chosen.
    """
    per_layer = [weights + kv for weights, kv in zip(model.layer_weight_bytes, layer_kv, strict=True)]
    last_layers_bytes = [0]  # last_layers_bytes[k]: weights + KV of the last k layers
    for layer_bytes in reversed(per_layer):
        last_layers_bytes.append(last_layers_bytes[-1] + layer_bytes)
    host_fixed = LLAMACPP_HOST_OVERHEAD_BYTES

    def split(offloaded: int) -> tuple[int, int]:
        if offloaded == ALL_LAYERS or offloaded > model.n_layers:
            return device_fixed + model.weight_bytes + sum(layer_kv), host_fixed
        on_gpu = last_layers_bytes[offloaded]
        return device_fixed + on_gpu, host_fixed + model.non_layer_weight_bytes + last_layers_bytes[-1] - on_gpu

    if gpu_layers is not None:
        chosen = gpu_layers
    else:
        candidates = [ALL_LAYERS, *range(model.n_layers, -1, -1)]
        chosen = next((count for count in candidates if split(count)[0] <= budget.gpu_bytes), 0)
    gpu, host = split(chosen)
    return chosen, gpu, host


def _size_vllm(
    model: ModelMetadata, budget: MemoryBudget, setting: Setting, embedder_bytes: int, block_size: int | None
) -> Sizing:
    """vLLM: blocks for max_model_len x max_num_seqs, activations, everything on one device."""
    on_cpu = budget.kind == "cpu"
    block = block_size or (VLLM_CPU_BLOCK_SIZE if on_cpu else VLLM_GPU_BLOCK_SIZE)
    batched = VLLM_MAX_BATCHED_TOKENS_CPU if on_cpu else VLLM_MAX_BATCHED_TOKENS_GPU
    layout = vllm_kv_layout(
        model,
        setting.context_length,
        setting.parallel_chats,
        block_size=block,
        max_num_batched_tokens=batched,
    )
    kv_total = sum(_layer_kv_bytes(model, setting.kv_cache_dtype, layout))
    compute = vllm_activation_bytes(model, batched, setting.parallel_chats)
    device_overhead = 0 if on_cpu else VLLM_DEVICE_OVERHEAD_BYTES
    pool = model.weight_bytes + kv_total + compute + device_overhead
    if budget.kind == "discrete":
        gpu, host = pool + embedder_bytes, VLLM_HOST_OVERHEAD_BYTES
    else:
        gpu, host = 0, pool + VLLM_HOST_OVERHEAD_BYTES + embedder_bytes
    return Sizing(
        setting=setting,
        backend="vllm",
        budget=budget,
        layout=layout,
        weights_bytes=model.weight_bytes,
        kv_bytes_total=kv_total,
        compute_bytes=compute,
        overhead_bytes=VLLM_HOST_OVERHEAD_BYTES + device_overhead,
        embedder_bytes=embedder_bytes,
        gpu_bytes=gpu,
        host_bytes=host,
        engine_pool_bytes=pool,
        n_gpu_layers=None,
        n_layers=model.n_layers,
        block_size=block,
        kv_unified=True,
    )
