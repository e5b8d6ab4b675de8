"""KV-cache sizes of published architectures, read from their config.json, against hand-worked numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.planner import ModelMetadata, kv_bytes_for_context, kv_bytes_per_token, read_model_metadata
from tests.core.planner.published_configs import (
    GEMMA_2_9B,
    GEMMA_3_12B,
    LLAMA_2_7B,
    LLAMA_3_1_8B,
    MISTRAL_7B_V0_1,
    MIXTRAL_8X7B,
    QWEN2_5_7B,
    QWEN3_30B_A3B,
    write_config,
)


def read_config(tmp_path: Path, config: dict[str, Any]) -> ModelMetadata:
    """Metadata of a model described only by ``config``."""
    return read_model_metadata(write_config(tmp_path, config))


@pytest.mark.parametrize(
    ("config", "expected_f16"),
    [
        (LLAMA_3_1_8B, 2 * 32 * 8 * 128 * 2),  # 131072: 32 layers, 8 KV heads, head_dim 128
        (QWEN2_5_7B, 2 * 28 * 4 * 128 * 2),  # 57344: 28 layers, 4 KV heads
        (MISTRAL_7B_V0_1, 2 * 32 * 8 * 128 * 2),  # within its 4096-token window
        (GEMMA_2_9B, 2 * 42 * 8 * 256 * 2),  # 344064: head_dim 256 overrides hidden/heads (224)
        (GEMMA_3_12B, 2 * 48 * 8 * 256 * 2),  # nested text_config
        (LLAMA_2_7B, 2 * 32 * 32 * 128 * 2),  # 524288: no GQA, KV heads = heads
        (MIXTRAL_8X7B, 2 * 32 * 8 * 128 * 2),
        (QWEN3_30B_A3B, 2 * 48 * 4 * 128 * 2),  # 98304
    ],
)
def test_f16_bytes_per_token_of_short_contexts(tmp_path: Path, config: dict[str, Any], expected_f16: int) -> None:
    model = read_config(tmp_path, config)
    assert kv_bytes_per_token(model, "f16", 1024) == expected_f16
    assert kv_bytes_for_context(model, "f16", 1024) == 1024 * expected_f16


def test_llama_3_1_8b_matches_the_design_example(tmp_path: Path) -> None:
    model = read_config(tmp_path, LLAMA_3_1_8B)
    assert kv_bytes_per_token(model, "f16", 131072) == 131072
    # "4 chats x 8K tokens = 4 GiB"
    assert 4 * kv_bytes_for_context(model, "f16", 8192) == 4 * 1024**3


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        ("f32", 2 * 32 * 1024 * 4),
        ("bf16", 2 * 32 * 1024 * 2),
        ("fp8", 2 * 32 * 1024),
        ("q8_0", 2 * 32 * (1024 // 32) * 34),  # 69632: 34-byte blocks of 32 values
        ("q4_0", 2 * 32 * (1024 // 32) * 18),  # 36864: 18-byte blocks of 32 values
        ("auto", 2 * 32 * 1024 * 2),  # auto means f16
    ],
)
def test_kv_dtypes_of_llama_3_1_8b(tmp_path: Path, dtype: str, expected: int) -> None:
    model = read_config(tmp_path, LLAMA_3_1_8B)
    assert kv_bytes_per_token(model, dtype, 4096) == expected


def test_mistral_sliding_window_caps_every_layer(tmp_path: Path) -> None:
    model = read_config(tmp_path, MISTRAL_7B_V0_1)
    assert model.sliding_window == 4096
    assert all(model.sliding_layers)
    per_token = 131072
    assert kv_bytes_for_context(model, "f16", 32768) == 4096 * per_token
    assert kv_bytes_per_token(model, "f16", 32768) == 4096 * per_token // 32768
    assert kv_bytes_for_context(model, "f16", 4096) == kv_bytes_for_context(model, "f16", 8192)


def test_gemma_2_alternates_local_and_global_layers(tmp_path: Path) -> None:
    model = read_config(tmp_path, GEMMA_2_9B)
    assert model.sliding_layers == tuple(layer % 2 == 0 for layer in range(42))
    layer_per_token = 2 * 8 * 256 * 2
    expected = 21 * 8192 * layer_per_token + 21 * 4096 * layer_per_token  # 2,113,929,216
    assert kv_bytes_for_context(model, "f16", 8192) == expected == 2_113_929_216


def test_gemma_3_has_five_local_layers_per_global_one(tmp_path: Path) -> None:
    model = read_config(tmp_path, GEMMA_3_12B)
    assert model.architecture == "gemma3_text"
    assert model.context_length == 131072
    assert model.sliding_layers.count(False) == 8
    assert [layer for layer in range(48) if not model.sliding_layers[layer]] == [5, 11, 17, 23, 29, 35, 41, 47]
    layer_per_token = 2 * 8 * 256 * 2
    expected = 8 * 32768 * layer_per_token + 40 * 1024 * layer_per_token
    assert kv_bytes_for_context(model, "f16", 32768) == expected == 2_483_027_968


def test_gemma_3_layer_types_list_gives_the_same_layers(tmp_path: Path) -> None:
    text = dict(GEMMA_3_12B["text_config"])
    del text["sliding_window_pattern"]
    text["layer_types"] = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(48)]
    from_list = read_config(tmp_path / "list", {**GEMMA_3_12B, "text_config": text})
    from_pattern = read_config(tmp_path / "pattern", GEMMA_3_12B)
    assert from_list.sliding_layers == from_pattern.sliding_layers


def test_qwen2_sliding_window_is_off_unless_enabled(tmp_path: Path) -> None:
    default = read_config(tmp_path / "off", QWEN2_5_7B)
    assert default.sliding_window is None
    assert not any(default.sliding_layers)
    enabled = read_config(
        tmp_path / "on", {**QWEN2_5_7B, "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 20}
    )
    assert enabled.sliding_layers == tuple(layer >= 20 for layer in range(28))
    per_layer = 2 * 4 * 128 * 2
    assert kv_bytes_for_context(enabled, "f16", 8192) == 20 * 8192 * per_layer + 8 * 4096 * per_layer


def test_head_dim_override_and_missing_kv_heads(tmp_path: Path) -> None:
    gemma = read_config(tmp_path / "gemma", GEMMA_2_9B)
    assert gemma.head_dim_k == gemma.head_dim_v == 256  # not 3584 / 16 = 224
    llama2 = read_config(tmp_path / "llama2", LLAMA_2_7B)
    assert llama2.n_kv_heads == (32,) * 32


def test_deepseek_mla_caches_only_the_latent(tmp_path: Path) -> None:
    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "kv_lora_rank": 512,
        "q_lora_rank": 1536,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "vocab_size": 129280,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "max_position_embeddings": 163840,
    }
    model = read_config(tmp_path, config)
    assert kv_bytes_per_token(model, "bf16", 4096) == 61 * (512 + 64) * 2
    # Published: 671B parameters (without the multi-token-prediction layer), 37B activated per token.
    assert abs(model.parameter_count - 671e9) / 671e9 < 0.001
    assert abs(model.active_weight_bytes / 2 - 37e9) / 37e9 < 0.02
