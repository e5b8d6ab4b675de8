"""Normalizes a Hugging Face config.json (any family, multimodal nesting) into one shape record."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.core.planner.dtypes import normalize_hf_dtype, quantized_bits_per_weight
from app.core.planner.errors import ModelMetadataError
from app.core.planner.swa import HF_SWA_PATTERNS, swa_layers_from_pattern
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

DEFAULT_CONTEXT_LENGTH = 4096
_TEXT_CONFIG_KEYS = ("text_config", "llm_config", "language_config")
_QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"})
_QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "olmo2"})
_FOUR_NORM_TYPES = frozenset({"gemma2", "gemma3", "gemma3_text"})


@dataclass(frozen=True)
class MlaShape:
    """DeepSeek-style multi-head latent attention sizes."""

    kv_lora_rank: int
    q_lora_rank: int | None
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class HfTextConfig:
    """The text model's shape, read from config.json."""

    model_type: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    hidden_size: int
    intermediate_size: int
    vocab_size: int | None
    context_length: int
    sliding_window: int | None
    sliding_layers: tuple[bool, ...]
    expert_count: int
    experts_used: int
    moe_intermediate_size: int
    shared_expert_intermediate_size: int
    moe_layers: tuple[bool, ...]
    tie_word_embeddings: bool
    qkv_bias: bool
    qk_norm: bool
    norms_per_layer: int
    dtype: str
    quantization: tuple[str, Fraction] | None
    mla: MlaShape | None


def _first_int(config: dict[str, Any], *keys: str) -> int | None:
    """The first key holding a positive integer."""
    for key in keys:
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def merged_text_config(config: dict[str, Any]) -> dict[str, Any]:
    """Top-level keys overlaid with the nested text model's (multimodal configs)."""
    merged = dict(config)
    for key in _TEXT_CONFIG_KEYS:
        nested = config.get(key)
        if isinstance(nested, dict):
            merged.update(nested)
            break
    return merged


def parse_hf_config(config: dict[str, Any], name: str) -> HfTextConfig:
    """Shape facts of a decoder LLM from its config dict; ``name`` is used in error messages."""
    cfg = merged_text_config(config)
    model_type = str(cfg.get("model_type") or config.get("model_type") or "unknown")
    n_layers = _first_int(cfg, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    n_heads = _first_int(cfg, "num_attention_heads", "n_head", "num_heads", "n_heads")
    hidden = _first_int(cfg, "hidden_size", "n_embd", "d_model", "dim")
    if n_layers is None or n_heads is None or hidden is None:
        raise ModelMetadataError(
            Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles", "{0} (model_type '{1}') does not say how many layers, attention heads and hidden units "
                "the model has."), (name, model_type)),
            Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles",
                "The planner needs a decoder LLM's config.json (num_hidden_layers, num_attention_heads, "
                "hidden_size).")),
        )
    n_kv_heads = _first_int(cfg, "num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num")
    if n_kv_heads is None:
        n_kv_heads = 1 if cfg.get("multi_query") is True else n_heads  # missing = plain multi-head
    head_dim = _first_int(cfg, "head_dim", "kv_channels") or hidden // n_heads
    intermediate = _first_int(cfg, "intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size") or 4 * hidden
    expert_count = _first_int(cfg, "num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts") or 0
    experts_used = _first_int(cfg, "num_experts_per_tok", "num_experts_per_token", "moe_top_k", "top_k_experts") or 0
    if expert_count <= 1:
        expert_count, experts_used = 0, 0
    window, sliding = _sliding_layers(cfg, n_layers, model_type)
    quant = config.get("quantization_config") or cfg.get("quantization_config")
    return HfTextConfig(
        model_type=model_type,
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        head_dim=head_dim,
        hidden_size=hidden,
        intermediate_size=intermediate,
        vocab_size=_first_int(cfg, "vocab_size", "padded_vocab_size"),
        context_length=_first_int(
            cfg,
            "max_position_embeddings",
            "n_positions",
            "max_sequence_length",
            "seq_length",
            "model_max_length",
        )
        or DEFAULT_CONTEXT_LENGTH,
        sliding_window=window,
        sliding_layers=sliding,
        expert_count=expert_count,
        experts_used=experts_used,
        moe_intermediate_size=_first_int(cfg, "moe_intermediate_size") or intermediate,
        shared_expert_intermediate_size=_shared_expert_size(cfg),
        moe_layers=_moe_layers(cfg, n_layers, expert_count),
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings", model_type.startswith("gemma"))),
        qkv_bias=bool(cfg.get("attention_bias", model_type in _QKV_BIAS_TYPES)),
        qk_norm=model_type in _QK_NORM_TYPES,
        norms_per_layer=4 if model_type in _FOUR_NORM_TYPES else 2,
        dtype=normalize_hf_dtype(
            cfg.get("dtype") or cfg.get("torch_dtype") or config.get("dtype") or config.get("torch_dtype")
        ),
        quantization=quantized_bits_per_weight(quant) if isinstance(quant, dict) else None,
        mla=_mla_shape(cfg),
    )


def _sliding_layers(cfg: dict[str, Any], n_layers: int, model_type: str) -> tuple[int | None, tuple[bool, ...]]:
    """Window and per-layer sliding flags.

    ``use_sliding_window: false`` (Qwen2/3) disables it; an explicit ``layer_types`` list wins;
    Qwen2 with ``use_sliding_window`` slides layers from ``max_window_layers`` on; Gemma's
    ``sliding_window_pattern`` (or the family default) makes every n-th layer global; otherwise a
    set ``sliding_window`` (Mistral-7B-v0.1, Phi-3) applies to every layer.
    """
    none = (False,) * n_layers
    window = cfg.get("sliding_window")
    if cfg.get("use_sliding_window") is False or not isinstance(window, int) or window <= 0:
        return None, none
    layer_types = cfg.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        flags = [kind == "sliding_attention" for kind in layer_types]
        flags = (flags + [False] * n_layers)[:n_layers]
        return (window, tuple(flags)) if any(flags) else (None, none)
    if cfg.get("use_sliding_window") is True and isinstance(cfg.get("max_window_layers"), int):
        first_sliding = int(cfg["max_window_layers"])
        return window, tuple(layer >= first_sliding for layer in range(n_layers))
    pattern = cfg.get("sliding_window_pattern")
    if not isinstance(pattern, int) or isinstance(pattern, bool):
        pattern = HF_SWA_PATTERNS.get(model_type, 0)
    return window, swa_layers_from_pattern(n_layers, pattern)


def _moe_layers(cfg: dict[str, Any], n_layers: int, expert_count: int) -> tuple[bool, ...]:
    """Which layers have routed experts (DeepSeek's dense first layers, Qwen's sparse step)."""
    if expert_count == 0:
        return (False,) * n_layers
    first_dense = _first_int(cfg, "first_k_dense_replace") or 0
    step = _first_int(cfg, "decoder_sparse_step", "moe_layer_freq") or 1
    dense_only = cfg.get("mlp_only_layers")
    dense_set = {int(v) for v in dense_only} if isinstance(dense_only, list) else set()
    return tuple(
        layer >= first_dense and (layer + 1) % step == 0 and layer not in dense_set for layer in range(n_layers)
    )


def _shared_expert_size(cfg: dict[str, Any]) -> int:
    """Total intermediate width of always-active shared experts (0 when none)."""
    qwen_shared = _first_int(cfg, "shared_expert_intermediate_size")
    if qwen_shared:
        return qwen_shared
    n_shared = _first_int(cfg, "n_shared_experts", "num_shared_experts") or 0
    moe_width = _first_int(cfg, "moe_intermediate_size") or 0
    return n_shared * moe_width


def _mla_shape(cfg: dict[str, Any]) -> MlaShape | None:
    """MLA sizes when the config has ``kv_lora_rank`` (DeepSeek-V2/V3, Kimi)."""
    kv_lora_rank = _first_int(cfg, "kv_lora_rank")
    if kv_lora_rank is None:
        return None
    return MlaShape(
        kv_lora_rank=kv_lora_rank,
        q_lora_rank=_first_int(cfg, "q_lora_rank"),
        qk_nope_head_dim=_first_int(cfg, "qk_nope_head_dim") or 128,
        qk_rope_head_dim=_first_int(cfg, "qk_rope_head_dim") or 64,
        v_head_dim=_first_int(cfg, "v_head_dim") or 128,
    )
