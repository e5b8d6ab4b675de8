"""PlanRequest: what the user asks the planner for, validated on construction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.core.planner.dtypes import KV_CACHE_DTYPES, LLAMACPP_KV_DTYPES, VLLM_KV_DTYPES
from app.core.planner.errors import PlanRequestError

GIB = 1024**3
DEFAULT_RESERVE_BYTES = 4 * GIB
BackendChoice = Literal["vllm", "llamacpp"]


@dataclass(frozen=True)
class PlanRequest:
    """Settings to plan for, in the app's words (the backends' words appear only in the plan's engine part).

    ``context_length`` is tokens per chat (None = automatic: the model's trained maximum, lowered
    until it fits); ``parallel_chats`` is how many chats run at once (None = automatic: the planner
    picks from the memory and the backend); ``reserve_bytes`` is RAM left for the OS and other
    programs; ``embedder_bytes`` is the co-resident embedding model; ``gpu_layers`` fixes
    llama.cpp's offloaded layers (None = as many as fit, -1 = all); ``block_size`` overrides vLLM's
    KV block (None = 16 on GPU, 128 on CPU).
    """

    backend: BackendChoice
    context_length: int | None = None
    parallel_chats: int | None = 1
    kv_cache_dtype: str = "auto"
    reserve_bytes: int = DEFAULT_RESERVE_BYTES
    embedder_bytes: int = 0
    gpu_layers: int | None = None
    block_size: int | None = None

    def __post_init__(self) -> None:
        if self.backend not in ("vllm", "llamacpp"):
            raise PlanRequestError(f"Unknown backend '{self.backend}'.", "Use 'vllm' or 'llamacpp'.")
        if self.kv_cache_dtype not in KV_CACHE_DTYPES:
            raise PlanRequestError(
                f"Unknown KV-cache type '{self.kv_cache_dtype}'.",
                f"Use one of: {', '.join(KV_CACHE_DTYPES)}.",
            )
        supported = backend_kv_dtypes(self.backend)
        if self.kv_cache_dtype != "auto" and self.kv_cache_dtype not in supported:
            raise PlanRequestError(
                f"{self.backend} cannot use a {self.kv_cache_dtype} KV cache.",
                f"Use one of: auto, {', '.join(sorted(supported))}.",
            )
        if self.context_length is not None and self.context_length < 1:
            raise PlanRequestError("The context length must be at least 1 token.", None)
        if self.parallel_chats is not None and self.parallel_chats < 1:
            raise PlanRequestError("At least one parallel chat is needed.", None)
        if self.reserve_bytes < 0 or self.embedder_bytes < 0:
            raise PlanRequestError("Reserve and embedder sizes cannot be negative.", None)
        if self.gpu_layers is not None and self.gpu_layers < -1:
            raise PlanRequestError("GPU layers must be -1 (all), 0 or more.", None)
        if self.block_size is not None and self.block_size < 1:
            raise PlanRequestError("The KV block size must be at least 1 token.", None)


def backend_kv_dtypes(backend: BackendChoice) -> frozenset[str]:
    """The KV-cache types ``backend`` can use (besides "auto")."""
    return frozenset(LLAMACPP_KV_DTYPES if backend == "llamacpp" else VLLM_KV_DTYPES)


def resolve_kv_dtype(request: PlanRequest, model_dtype: str) -> str:
    """The concrete KV type: "auto" is f16 for llama.cpp and the model's dtype for vLLM."""
    if request.kv_cache_dtype != "auto":
        return request.kv_cache_dtype
    if request.backend == "llamacpp":
        return "f16"
    return model_dtype if model_dtype in ("bf16", "f16", "f32") else "bf16"


def smaller_kv_dtype(backend: BackendChoice, kv_cache_dtype: str) -> str | None:
    """The next smaller KV type to try when memory is short (q8_0 for llama.cpp, fp8 for vLLM)."""
    smaller = "q8_0" if backend == "llamacpp" else "fp8"
    order = ("f32", "bf16", "f16", "fp8", "q8_0", "q4_0")
    if order.index(kv_cache_dtype) < order.index(smaller):
        return smaller
    return None
