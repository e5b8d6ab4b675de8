"""ModelMetadata: what the planner knows about a model, whichever file it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ModelSource = Literal["gguf", "hf_folder", "hf_config"]


@dataclass(frozen=True)
class ModelMetadata:
    """Shape and size facts of one model.

    Per-layer tuples have one entry per transformer block. ``n_kv_heads`` may differ by layer
    (0 = a layer without a KV cache). ``sliding_layers[i]`` is True where layer ``i`` attends
    only to the last ``sliding_window`` tokens. ``weight_bytes`` is exact for GGUF/safetensors
    and an estimate from the config otherwise (``weights_estimated``).
    """

    path: str
    source: ModelSource
    architecture: str
    n_layers: int
    n_heads: int
    n_kv_heads: tuple[int, ...]
    head_dim_k: int
    head_dim_v: int
    hidden_size: int
    intermediate_size: int
    vocab_size: int
    context_length: int
    sliding_window: int | None
    sliding_layers: tuple[bool, ...]
    expert_count: int
    experts_used: int
    weight_bytes: int
    expert_weight_bytes: int
    layer_weight_bytes: tuple[int, ...]
    tensor_bytes_by_type: tuple[tuple[str, int], ...]
    file_size_bytes: int
    parameter_count: int
    weights_estimated: bool
    model_dtype: str
    quantization: str | None = None

    @property
    def format(self) -> str:
        """The file format: "gguf" for llama.cpp files, "hf" for Hugging Face folders and configs."""
        return "gguf" if self.source == "gguf" else "hf"

    @property
    def is_moe(self) -> bool:
        """True for mixture-of-experts models with routed experts."""
        return self.expert_count > 1 and self.experts_used > 0

    @property
    def active_weight_bytes(self) -> int:
        """Weight bytes read per decoded token: shared weights + the routed share of experts."""
        if not self.is_moe:
            return self.weight_bytes
        shared = self.weight_bytes - self.expert_weight_bytes
        return shared + self.expert_weight_bytes * self.experts_used // self.expert_count

    @property
    def non_layer_weight_bytes(self) -> int:
        """Bytes outside the repeating blocks (token embeddings, output head, final norm)."""
        return max(0, self.weight_bytes - sum(self.layer_weight_bytes))

    @property
    def dominant_weight_type(self) -> str:
        """The tensor type holding the most bytes (e.g. "q4_k", "bf16")."""
        if not self.tensor_bytes_by_type:
            return self.model_dtype
        return max(self.tensor_bytes_by_type, key=lambda item: item[1])[0]

    def summary(self) -> dict[str, Any]:
        """A short JSON-ready description for plan output."""
        return {
            "path": self.path,
            "source": self.source,
            "format": self.format,
            "architecture": self.architecture,
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "n_kv_heads": max(self.n_kv_heads, default=0),
            "head_dim": self.head_dim_k,
            "hidden_size": self.hidden_size,
            "vocab_size": self.vocab_size,
            "context_length": self.context_length,
            "sliding_window": self.sliding_window,
            "sliding_layers": sum(self.sliding_layers),
            "expert_count": self.expert_count,
            "experts_used": self.experts_used,
            "parameter_count": self.parameter_count,
            "weight_bytes": self.weight_bytes,
            "weights_estimated": self.weights_estimated,
            "weight_type": self.dominant_weight_type,
            "quantization": self.quantization,
            "tensor_bytes_by_type": dict(self.tensor_bytes_by_type),
            "file_size_bytes": self.file_size_bytes,
        }
