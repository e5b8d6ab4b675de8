"""plan_memory: the memory plan for a model on this machine, with settings that fit."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

from app.core.hardware.report import HardwareReport
from app.core.planner.budget import MemoryKind, memory_budget
from app.core.planner.compute import VLLM_HOST_OVERHEAD_BYTES
from app.core.planner.concurrency import ChatsChoice, chats_sentence, choose_parallel_chats
from app.core.planner.engine_plan import LlamaCppPlan, VllmPlan
from app.core.planner.explain import explain
from app.core.planner.kv import kv_bytes_per_token
from app.core.planner.metadata import ModelMetadata
from app.core.planner.recommend import SearchResult, search_setting
from app.core.planner.request import BackendChoice, PlanRequest, resolve_kv_dtype
from app.core.planner.roofline import decode_tokens_per_second_bound
from app.core.planner.sizing import ALL_LAYERS, Sizing
from app.core.util.translatable import Sentences

GIB = 1024**3
UTILIZATION_STEP = 1000  # gpu_memory_utilization is given to 3 decimals


@dataclass(frozen=True)
class RecommendedSettings:
    """The nearest setting that fits (the request itself when it fits), and what each backend is told.

    ``context_length`` (tokens per chat), ``parallel_chats`` and ``kv_cache_dtype`` are the
    neutral decisions; ``llamacpp`` or ``vllm`` (the other one is None) carries the decisions in
    that backend's words, which the sizes assume (see ``engine_plan``).
    """

    context_length: int
    parallel_chats: int
    kv_cache_dtype: str
    kv_bytes_total: int
    total_bytes: int
    fits: bool
    llamacpp: LlamaCppPlan | None = None
    vllm: VllmPlan | None = None


@dataclass(frozen=True)
class MemoryPlan:
    """Memory needed by the requested setting, the budget, and what to use instead if it does not fit.

    ``parallel_chats_reason`` says why the planner chose ``parallel_chats`` when the request left
    it automatic (None when the user fixed it); ``explanation`` ends with it then.
    """

    backend: BackendChoice
    memory_kind: MemoryKind
    model: ModelMetadata
    context_length: int
    parallel_chats: int
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
    parallel_chats_reason: str | None = None

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
    chats_choice = None
    if request.parallel_chats is None:
        chats_choice = choose_parallel_chats(
            model, budget, request, kv_dtype, start_context, hardware.cpu_cores_physical
        )
        request = replace(request, parallel_chats=chats_choice.parallel_chats)
    result = search_setting(model, budget, request, kv_dtype, start_context)
    requested = result.requested
    setting = requested.setting
    bandwidth = hardware.bandwidth.bytes_per_second
    return MemoryPlan(
        backend=request.backend,
        memory_kind=budget.kind,
        model=model,
        context_length=setting.context_length,
        parallel_chats=setting.parallel_chats,
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
        explanation=_explanation(result, model.context_length, request.context_length, chats_choice),
        parallel_chats_reason=None if chats_choice is None else chats_choice.reason,
    )


def _explanation(result: SearchResult, trained: int, requested: int | None, chats: ChatsChoice | None) -> str:
    """The plan's sentence, followed by the one about an automatic number of chats."""
    sentence = explain(result, trained, requested)
    if chats is None:
        return sentence
    return Sentences(sentence, chats_sentence(chats))


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
    """Engine settings for ``sizing``: the neutral ones and the chosen backend's own."""
    setting = sizing.setting
    budget = sizing.budget
    llamacpp = vllm = None
    if sizing.backend == "llamacpp":
        layers = ALL_LAYERS if sizing.n_gpu_layers is None else sizing.n_gpu_layers
        llamacpp = LlamaCppPlan.for_chats(setting.context_length, setting.parallel_chats, n_gpu_layers=layers)
    else:
        on_cpu = budget.kind == "cpu"
        vllm = VllmPlan(
            block_size=sizing.block_size,
            gpu_memory_utilization=vllm_memory_utilization(sizing),
            cpu_kvcache_space_gib=max(1, math.ceil(sizing.kv_bytes_total / GIB)) if on_cpu else None,
            memory_kind=budget.kind,
            reserve_bytes=budget.reserve_bytes,
            embedder_bytes=sizing.embedder_bytes,
            kv_cache_memory_bytes=None if budget.kind == "discrete" else sizing.kv_bytes_total,
            activation_bytes=sizing.compute_bytes,
        )
    return RecommendedSettings(
        context_length=setting.context_length,
        parallel_chats=setting.parallel_chats,
        kv_cache_dtype=setting.kv_cache_dtype,
        kv_bytes_total=sizing.kv_bytes_total,
        total_bytes=sizing.total_bytes,
        fits=sizing.fits,
        llamacpp=llamacpp,
        vllm=vllm,
    )
