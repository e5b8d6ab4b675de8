"""Maps an EngineConfig and a request's sampling onto vLLM's engine and sampling arguments (no vLLM import)."""

from __future__ import annotations

from typing import Any

from app.core.engines.base import DEFAULT_SPECULATIVE_TOKENS, EngineConfig, ModelLoadError, VllmOptions
from app.core.engines.load_texts import said
from app.core.engines.requests import SamplingParams
from app.core.util.translatable import QT_TRANSLATE_NOOP

GIB = 1024**3
NGRAM_LOOKUP_MAX = 4
NGRAM_LOOKUP_MIN = 2

def vllm_kv_cache_dtype(kv_cache_dtype: str) -> str:
    """vLLM's ``kv_cache_dtype``: fp8 stays fp8; 16/32-bit types are "auto" (the model's own dtype).

    The planner resolves "auto" to the model's dtype, so a plan made for f16/bf16 sizes the
    same bytes per element as vLLM's "auto".
    """
    return "fp8" if kv_cache_dtype.startswith("fp8") else "auto"


def speculative_config(options: VllmOptions) -> dict[str, Any] | None:
    """vLLM's ``speculative_config`` for ``options.speculative`` (None when off).

    ``ngram`` looks up the continuation in the prompt itself (prompt lookup decoding: it
    pays off when answers quote the prompt, e.g. retrieved passages); ``draft`` runs a small
    draft model from ``options.speculative_draft_model`` that shares the target's tokenizer.
    """
    mode = options.speculative
    tokens = options.speculative_tokens or DEFAULT_SPECULATIVE_TOKENS
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
        draft = options.speculative_draft_model
        if not draft:
            raise ModelLoadError(
                said(QT_TRANSLATE_NOOP("EngineLoad", "Speculative decoding with a draft model needs a draft model.")),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad",
                    "Choose one in Settings > Engine > Draft model, or set speculative decoding to n-gram or off.")),
                cause="unsupported",
            )
        return {"method": "draft_model", "model": draft, "num_speculative_tokens": tokens}
    raise ModelLoadError(
        said(QT_TRANSLATE_NOOP("EngineLoad", "Unknown speculative decoding mode '{0}'."), mode),
        said(QT_TRANSLATE_NOOP("EngineLoad", "Use off, ngram or draft.")), cause="unsupported",
    )


def engine_arguments(
    config: EngineConfig, *, kv_cache_memory_bytes: int | None, memory_utilization: float | None
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncEngineArgs`` from the plan-derived ``config``.

    The caller has sized the KV cache and checked it against the reserve (``vllm_memory.size_kv_cache``):
    in bytes (``kv_cache_memory_bytes``: vLLM's CPU build, where ``VLLM_CPU_KVCACHE_SPACE`` sets the
    same, and unified-memory GPUs) or by ``gpu_memory_utilization`` (a discrete device pool). vLLM's
    ``kv_cache_memory_bytes`` ignores the fraction when sizing; the fraction is then only its start-up check.
    """
    options = config.vllm_options
    arguments: dict[str, Any] = {
        "model": str(config.model_path),
        "max_model_len": config.context_length,  # the neutral names become vLLM's here
        "max_num_seqs": config.parallel_chats,
        "kv_cache_dtype": vllm_kv_cache_dtype(config.kv_cache_dtype),
        "enable_prefix_caching": config.prefix_caching,
        "enforce_eager": options.enforce_eager,
        "trust_remote_code": False,
        "disable_log_stats": True,  # our own stat logger still receives the stats
        "enable_log_requests": False,
    }
    if config.vllm is not None and config.vllm.block_size:
        arguments["block_size"] = config.vllm.block_size
    if options.max_num_batched_tokens:
        arguments["max_num_batched_tokens"] = options.max_num_batched_tokens
    if options.seed is not None:
        arguments["seed"] = options.seed
    if kv_cache_memory_bytes:
        arguments["kv_cache_memory_bytes"] = int(kv_cache_memory_bytes)
    if memory_utilization is not None:
        arguments["gpu_memory_utilization"] = memory_utilization
    speculative = speculative_config(options)
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
