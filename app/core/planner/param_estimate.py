"""Estimates parameter counts and weight bytes from an HF config when no weights are present.

Counted: token embeddings (vocab x hidden), the output head unless tied, per layer the attention
projections (q, k, v, o; biases for Qwen2-style qkv; DeepSeek MLA low-rank projections), a gated
MLP (gate, up, down = 3 x hidden x intermediate) or, for MoE layers, every routed expert plus
the router and shared experts, the RMS norms, and the final norm.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.core.planner.dtypes import FLOAT_DTYPE_BYTES
from app.core.planner.hf_config import HfTextConfig


@dataclass(frozen=True)
class LayerParameters:
    """Parameters of one transformer block, split by how they are stored."""

    linear: int  # attention + MLP/expert matrices (quantized when the model is)
    expert: int  # the routed-expert share of ``linear``
    other: int  # norms, biases, router: kept in the model dtype


@dataclass(frozen=True)
class ParameterEstimate:
    """Parameter counts for a whole model."""

    embedding: int
    lm_head: int
    final_norm: int
    layers: tuple[LayerParameters, ...]

    @property
    def total(self) -> int:
        """All parameters."""
        layer_total = sum(layer.linear + layer.other for layer in self.layers)
        return self.embedding + self.lm_head + self.final_norm + layer_total

    @property
    def expert(self) -> int:
        """Routed-expert parameters."""
        return sum(layer.expert for layer in self.layers)


def estimate_parameters(config: HfTextConfig, vocab_size: int) -> ParameterEstimate:
    """Count parameters of the model described by ``config``."""
    hidden = config.hidden_size
    layers = tuple(_layer_parameters(config, index) for index in range(config.n_layers))
    embedding = vocab_size * hidden
    return ParameterEstimate(
        embedding=embedding,
        lm_head=0 if config.tie_word_embeddings else embedding,
        final_norm=hidden,
        layers=layers,
    )


def _layer_parameters(config: HfTextConfig, index: int) -> LayerParameters:
    """Parameters of block ``index``."""
    hidden = config.hidden_size
    attention_linear, attention_other = _attention_parameters(config)
    other = attention_other + config.norms_per_layer * hidden
    if config.moe_layers[index]:
        expert = config.expert_count * 3 * hidden * config.moe_intermediate_size
        shared = 3 * hidden * config.shared_expert_intermediate_size
        router = hidden * config.expert_count
        if config.shared_expert_intermediate_size and config.model_type.startswith("qwen2"):
            router += hidden  # Qwen2-MoE's shared_expert_gate
        return LayerParameters(linear=attention_linear + expert + shared, expert=expert, other=other + router)
    mlp = 3 * hidden * config.intermediate_size
    return LayerParameters(linear=attention_linear + mlp, expert=0, other=other)


def _attention_parameters(config: HfTextConfig) -> tuple[int, int]:
    """(matrix parameters, bias/norm parameters) of one attention block."""
    hidden, heads = config.hidden_size, config.n_heads
    mla = config.mla
    if mla is not None:
        q_width = heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
        if mla.q_lora_rank:
            q_linear, q_norm = hidden * mla.q_lora_rank + mla.q_lora_rank * q_width, mla.q_lora_rank
        else:
            q_linear, q_norm = hidden * q_width, 0
        kv_a = hidden * (mla.kv_lora_rank + mla.qk_rope_head_dim)
        kv_b = mla.kv_lora_rank * heads * (mla.qk_nope_head_dim + mla.v_head_dim)
        output = heads * mla.v_head_dim * hidden
        return q_linear + kv_a + kv_b + output, q_norm + mla.kv_lora_rank
    q_width = heads * config.head_dim
    kv_width = config.n_kv_heads * config.head_dim
    linear = hidden * q_width + 2 * hidden * kv_width + q_width * hidden
    bias = q_width + 2 * kv_width if config.qkv_bias else 0
    qk_norm = 2 * config.head_dim if config.qk_norm else 0
    return linear, bias + qk_norm


def estimated_weight_bytes(config: HfTextConfig, estimate: ParameterEstimate) -> tuple[int, tuple[int, ...], int]:
    """(total bytes, bytes per layer, routed-expert bytes) for ``estimate``.

    Unquantized weights take the config's dtype; with a quantization_config, block matrices
    take its bits per weight (scales included) and embeddings, head, norms stay in the dtype.
    """
    dtype_bytes = Fraction(FLOAT_DTYPE_BYTES.get(config.dtype, 2))
    linear_bytes = config.quantization[1] / 8 if config.quantization else dtype_bytes
    layer_bytes = tuple(int(layer.linear * linear_bytes + layer.other * dtype_bytes) for layer in estimate.layers)
    outside = (estimate.embedding + estimate.lm_head + estimate.final_norm) * dtype_bytes
    expert_bytes = int(estimate.expert * linear_bytes)
    return int(outside) + sum(layer_bytes), layer_bytes, expert_bytes
