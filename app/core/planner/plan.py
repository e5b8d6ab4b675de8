"""plan_memory: the memory plan for a model on this machine, with settings that fit."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from app.core.hardware.report import HardwareReport
from app.core.planner.budget import MemoryKind, memory_budget
from app.core.planner.compute import VLLM_HOST_OVERHEAD_BYTES
from app.core.planner.explain import explain
from app.core.planner.kv import kv_bytes_per_token
from app.core.planner.metadata import ModelMetadata
from app.core.planner.recommend import search_setting
from app.core.planner.request import BackendChoice, PlanRequest, resolve_kv_dtype
from app.core.planner.roofline import decode_tokens_per_second_bound
from app.core.planner.sizing import Sizing

GIB = 1024**3
UTILIZATION_STEP = 1000  # gpu_memory_utilization is given to 3 decimals


@dataclass(frozen=True)
class RecommendedSettings:
    """Engine settings for the nearest setting that fits (the request itself when it fits).

    vLLM uses max_model_len, max_num_seqs, gpu_memory_utilization, block_size, kv_cache_dtype
    (and cpu_kvcache_space_gib on CPU); llama.cpp uses n_ctx (= context x chats, padded to 256),
    n_seq_max = max_num_seqs, kv_unified, n_gpu_layers (-1 = all), flash_attn and swa_full,
    which the sizes assume. Settings of the other backend are None.
    """

    max_model_len: int
    max_num_seqs: int
    kv_cache_dtype: str
    gpu_memory_utilization: float | None
    block_size: int | None
    n_gpu_layers: int | None
    n_ctx: int | None
    kv_unified: bool | None
    flash_attn: bool | None
    swa_full: bool | None
    cpu_kvcache_space_gib: int | None
    kv_bytes_total: int
    total_bytes: int
    fits: bool


@dataclass(frozen=True)
class MemoryPlan:
    """Memory needed by the requested setting, the budget, and what to use instead if it does not fit."""

    backend: BackendChoice
    memory_kind: MemoryKind
    model: ModelMetadata
    context_length: int
    parallel_sequences: int
    kv_cache_dtype: str
    weights_bytes: int
    kv_bytes_per_token: int
    kv_bytes_total: int
    compute_bytes: int
    overhead_bytes: int
    embedder_bytes: int
    total_bytes: int
    budget_bytes: int
    gpu_bytes: int
    gpu_budget_bytes: int
    host_bytes: int
    host_budget_bytes: int
    reserve_bytes: int
    fits: bool
    decode_tok_s_roofline: float | None
    decode_tok_s_roofline_empty: float | None
    recommended: RecommendedSettings
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; the model appears as its summary."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "model"}
        data["recommended"] = asdict(self.recommended)
        data["model"] = self.model.summary()
        return data


def plan_memory(model: ModelMetadata, hardware: HardwareReport, request: PlanRequest) -> MemoryPlan:
    """Size ``request`` for ``model`` on ``hardware`` and recommend the nearest setting that fits."""
    budget = memory_budget(hardware, request.reserve_bytes)
    kv_dtype = resolve_kv_dtype(request, model.model_dtype)
    start_context = min(request.context_length or model.context_length, model.context_length)
    result = search_setting(model, budget, request, kv_dtype, start_context)
    requested = result.requested
    setting = requested.setting
    bandwidth = hardware.bandwidth.bytes_per_second
    return MemoryPlan(
        backend=request.backend,
        memory_kind=budget.kind,
        model=model,
        context_length=setting.context_length,
        parallel_sequences=setting.parallel_sequences,
        kv_cache_dtype=setting.kv_cache_dtype,
        weights_bytes=requested.weights_bytes,
        kv_bytes_per_token=kv_bytes_per_token(model, setting.kv_cache_dtype, setting.context_length),
        kv_bytes_total=requested.kv_bytes_total,
        compute_bytes=requested.compute_bytes,
        overhead_bytes=requested.overhead_bytes,
        embedder_bytes=requested.embedder_bytes,
        total_bytes=requested.total_bytes,
        budget_bytes=budget.total_bytes,
        gpu_bytes=requested.gpu_bytes,
        gpu_budget_bytes=budget.gpu_bytes,
        host_bytes=requested.host_bytes,
        host_budget_bytes=budget.host_bytes,
        reserve_bytes=request.reserve_bytes,
        fits=requested.fits,
        decode_tok_s_roofline=decode_tokens_per_second_bound(
            model, bandwidth, setting.kv_cache_dtype, setting.context_length
        ),
        decode_tok_s_roofline_empty=decode_tokens_per_second_bound(model, bandwidth, setting.kv_cache_dtype, 0),
        recommended=_recommended_settings(result.recommended),
        explanation=explain(result, model.context_length, request.context_length),
    )


def vllm_memory_utilization(sizing: Sizing) -> float | None:
    """vLLM's gpu_memory_utilization for ``sizing``: the fraction of the device's (or, unified,
    the whole RAM pool's) total memory that weights + KV + activations + device overhead need,
    rounded up to 0.001 but capped so the reserve (and the host runtime and embedder sharing the
    pool) stays free. Never a blind 0.9.
    """
    budget = sizing.budget
    if budget.kind == "discrete":
        total, ceiling = budget.gpu_total_bytes, budget.gpu_bytes - sizing.embedder_bytes
    else:
        total = budget.ram_total_bytes
        ceiling = budget.host_bytes - VLLM_HOST_OVERHEAD_BYTES - sizing.embedder_bytes
    if total <= 0:
        return None
    needed = math.ceil(sizing.engine_pool_bytes * UTILIZATION_STEP / total)
    cap = math.floor(max(0, ceiling) * UTILIZATION_STEP / total)
    return min(needed, cap) / UTILIZATION_STEP


def _recommended_settings(sizing: Sizing) -> RecommendedSettings:
    """Engine settings for ``sizing``."""
    setting = sizing.setting
    is_vllm = sizing.backend == "vllm"
    on_cpu = sizing.budget.kind == "cpu"
    return RecommendedSettings(
        max_model_len=setting.context_length,
        max_num_seqs=setting.parallel_sequences,
        kv_cache_dtype=setting.kv_cache_dtype,
        gpu_memory_utilization=vllm_memory_utilization(sizing) if is_vllm else None,
        block_size=sizing.block_size if is_vllm else None,
        n_gpu_layers=None if is_vllm else sizing.n_gpu_layers,
        n_ctx=None if is_vllm else sizing.layout.n_ctx,
        kv_unified=None if is_vllm else sizing.kv_unified,
        flash_attn=None if is_vllm else True,
        swa_full=None if is_vllm else False,
        cpu_kvcache_space_gib=max(1, math.ceil(sizing.kv_bytes_total / GIB)) if is_vllm and on_cpu else None,
        kv_bytes_total=sizing.kv_bytes_total,
        total_bytes=sizing.total_bytes,
        fits=sizing.fits,
    )
