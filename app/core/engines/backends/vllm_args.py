"""Maps an EngineConfig and a request's sampling onto vLLM's engine and sampling arguments (no vLLM import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from app.core.config import Settings
from app.core.engines.base import EngineConfig, ModelLoadError
from app.core.engines.requests import SamplingParams

GIB = 1024**3
SpeculativeMode = Literal["off", "ngram", "draft"]
DEFAULT_SPECULATIVE_TOKENS = 4
NGRAM_LOOKUP_MAX = 4
NGRAM_LOOKUP_MIN = 2

# Keys of EngineConfig.extra this backend reads (besides the planner's n_ctx/kv_unified/...):
#   cpu_kvcache_space_gib  KV cache size on vLLM's CPU backend (from the plan)
#   enforce_eager          skip torch.compile / CUDA graphs (faster start, slower decode)
#   max_num_batched_tokens tokens per scheduler step (prefill chunk)
#   speculative            "off" | "ngram" | "draft"; speculative_tokens; speculative_draft_model
#   reserve_bytes          memory to leave free (unified-memory safety); memory_kind; embedder_bytes
#   seed                   engine seed


def vllm_extra_from_settings(settings: Settings) -> dict[str, object]:
    """The vLLM-only entries of EngineConfig.extra that come from the user's settings."""
    return {
        "speculative": settings.str_value("engine.speculative"),
        "speculative_tokens": settings.int_value("engine.speculative_tokens"),
        "speculative_draft_model": settings.str_value("engine.speculative_draft_model"),
        "reserve_bytes": int(settings.float_value("engine.os_reserve_gib") * GIB),
    }


def vllm_kv_cache_dtype(kv_cache_dtype: str) -> str:
    """vLLM's ``kv_cache_dtype``: fp8 stays fp8; 16/32-bit types are "auto" (the model's own dtype).

    The planner resolves "auto" to the model's dtype, so a plan made for f16/bf16 sizes the
    same bytes per element as vLLM's "auto".
    """
    return "fp8" if kv_cache_dtype.startswith("fp8") else "auto"


def speculative_config(extra: Mapping[str, Any]) -> dict[str, Any] | None:
    """vLLM's ``speculative_config`` for ``extra["speculative"]`` (None when off).

    ``ngram`` looks up the continuation in the prompt itself (prompt lookup decoding: it
    pays off when answers quote the prompt, e.g. retrieved passages); ``draft`` runs a small
    draft model from ``extra["speculative_draft_model"]`` that shares the target's tokenizer.
    """
    mode = str(extra.get("speculative", "off") or "off")
    tokens = int(extra.get("speculative_tokens", DEFAULT_SPECULATIVE_TOKENS) or DEFAULT_SPECULATIVE_TOKENS)
    if mode == "off":
        return None
    if mode == "ngram":
        return {
            "method": "ngram",
            "num_speculative_tokens": tokens,
            "prompt_lookup_max": NGRAM_LOOKUP_MAX,
            "prompt_lookup_min": NGRAM_LOOKUP_MIN,
        }
    if mode == "draft":
        draft = str(extra.get("speculative_draft_model", "") or "")
        if not draft:
            raise ModelLoadError(
                "Speculative decoding with a draft model needs a draft model.",
                "Choose one in Settings > Engine > Draft model, or set speculative decoding to n-gram or off.",
                cause="unsupported",
            )
        return {"method": "draft_model", "model": draft, "num_speculative_tokens": tokens}
    raise ModelLoadError(
        f"Unknown speculative decoding mode '{mode}'.", "Use off, ngram or draft.", cause="unsupported"
    )


def engine_arguments(config: EngineConfig, *, on_cpu: bool, memory_utilization: float | None) -> dict[str, Any]:
    """Keyword arguments for ``AsyncEngineArgs`` from the plan-derived ``config``.

    On CPU the KV cache is sized in bytes (``kv_cache_memory_bytes``, what
    ``VLLM_CPU_KVCACHE_SPACE`` sets) from the plan's ``cpu_kvcache_space_gib``; on a GPU by
    ``gpu_memory_utilization`` (already checked against the reserve by the caller).
    """
    extra = config.extra
    arguments: dict[str, Any] = {
        "model": str(config.model_path),
        "max_model_len": config.context_length,
        "max_num_seqs": config.parallel_sequences,
        "kv_cache_dtype": vllm_kv_cache_dtype(config.kv_cache_dtype),
        "enable_prefix_caching": config.prefix_caching,
        "enforce_eager": bool(extra.get("enforce_eager", False)),
        "trust_remote_code": False,
        "disable_log_stats": True,  # our own stat logger still receives the stats
        "enable_log_requests": False,
    }
    if config.block_size:
        arguments["block_size"] = config.block_size
    batched = extra.get("max_num_batched_tokens")
    if batched:
        arguments["max_num_batched_tokens"] = int(batched)
    if "seed" in extra:
        arguments["seed"] = int(extra["seed"])
    if on_cpu:
        space_gib = extra.get("cpu_kvcache_space_gib")
        space_bytes = extra.get("kv_cache_memory_bytes")
        if space_bytes:
            arguments["kv_cache_memory_bytes"] = int(space_bytes)
        elif space_gib:
            arguments["kv_cache_memory_bytes"] = int(space_gib) * GIB
    elif memory_utilization is not None:
        arguments["gpu_memory_utilization"] = memory_utilization
    speculative = speculative_config(extra)
    if speculative is not None:
        arguments["speculative_config"] = speculative
    return arguments


def sampling_arguments(sampling: SamplingParams) -> dict[str, Any]:
    """Keyword arguments for vLLM's ``SamplingParams`` (without ``output_kind``)."""
    greedy = sampling.greedy
    return {
        "temperature": sampling.temperature,
        "top_p": 1.0 if greedy else sampling.top_p,
        "top_k": 0 if greedy or sampling.top_k <= 0 else sampling.top_k,
        "min_p": 0.0 if greedy else sampling.min_p,
        "repetition_penalty": sampling.repetition_penalty,
        "seed": sampling.seed,
        "max_tokens": sampling.max_tokens,
        "stop": list(sampling.stop) or None,
        "ignore_eos": sampling.ignore_eos,
    }
