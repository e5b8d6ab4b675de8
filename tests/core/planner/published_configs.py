"""config.json contents of published models (as released on the Hugging Face hub), for planner tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LLAMA_3_1_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rope_scaling": {"factor": 8.0, "rope_type": "llama3"},
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}
LLAMA_3_1_8B_PARAMETERS = 8_030_261_248

LLAMA_3_2_1B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "head_dim": 64,
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "max_position_embeddings": 131072,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 16,
    "num_key_value_heads": 8,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}
LLAMA_3_2_1B_PARAMETERS = 1_235_814_400

# Llama-2-7B: plain multi-head attention; the key num_key_value_heads is left out on purpose.
LLAMA_2_7B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "max_position_embeddings": 4096,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "torch_dtype": "float16",
    "vocab_size": 32000,
}
LLAMA_2_7B_PARAMETERS = 6_738_415_616

QWEN2_5_7B: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "sliding_window": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "vocab_size": 152064,
}
QWEN2_5_7B_PARAMETERS = 7_615_616_512

MISTRAL_7B_V0_1: dict[str, Any] = {
    "architectures": ["MistralForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "sliding_window": 4096,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 32000,
}
MISTRAL_7B_V0_1_PARAMETERS = 7_241_732_096

GEMMA_2_9B: dict[str, Any] = {
    "architectures": ["Gemma2ForCausalLM"],
    "head_dim": 256,
    "hidden_size": 3584,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "model_type": "gemma2",
    "num_attention_heads": 16,
    "num_hidden_layers": 42,
    "num_key_value_heads": 8,
    "sliding_window": 4096,
    "torch_dtype": "float32",
    "vocab_size": 256000,
}
GEMMA_2_9B_PARAMETERS = 9_241_705_984

# Gemma-3-12B: multimodal, the language model's shape is nested under text_config.
GEMMA_3_12B: dict[str, Any] = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "text_config": {
        "head_dim": 256,
        "hidden_size": 3840,
        "intermediate_size": 15360,
        "max_position_embeddings": 131072,
        "model_type": "gemma3_text",
        "num_attention_heads": 16,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "sliding_window": 1024,
        "sliding_window_pattern": 6,
        "vocab_size": 262208,
    },
    "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27, "model_type": "siglip_vision_model"},
    "torch_dtype": "bfloat16",
}

MIXTRAL_8X7B: dict[str, Any] = {
    "architectures": ["MixtralForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mixtral",
    "num_attention_heads": 32,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 32000,
}
MIXTRAL_8X7B_PARAMETERS = 46_702_792_704
MIXTRAL_8X7B_ACTIVE_PARAMETERS = 12_879_925_248

QWEN3_30B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "decoder_sparse_step": 1,
    "head_dim": 128,
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "max_position_embeddings": 40960,
    "max_window_layers": 48,
    "mlp_only_layers": [],
    "model_type": "qwen3_moe",
    "moe_intermediate_size": 768,
    "num_attention_heads": 32,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_key_value_heads": 4,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "vocab_size": 151936,
}
QWEN3_30B_A3B_PARAMETERS = 30_532_122_624


def write_config(folder: Path, config: dict[str, Any], name: str = "config.json") -> Path:
    """Write ``config`` as JSON into ``folder`` and return the file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(config), encoding="utf-8")
    return path
