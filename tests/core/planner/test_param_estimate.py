"""Parameter counts and weight sizes estimated from config.json, against published parameter counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.planner import read_model_metadata
from tests.core.planner.published_configs import (
    GEMMA_2_9B,
    GEMMA_2_9B_PARAMETERS,
    LLAMA_2_7B,
    LLAMA_2_7B_PARAMETERS,
    LLAMA_3_1_8B,
    LLAMA_3_1_8B_PARAMETERS,
    LLAMA_3_2_1B,
    LLAMA_3_2_1B_PARAMETERS,
    MISTRAL_7B_V0_1,
    MISTRAL_7B_V0_1_PARAMETERS,
    MIXTRAL_8X7B,
    MIXTRAL_8X7B_ACTIVE_PARAMETERS,
    MIXTRAL_8X7B_PARAMETERS,
    QWEN2_5_7B,
    QWEN2_5_7B_PARAMETERS,
    QWEN3_30B_A3B,
    QWEN3_30B_A3B_PARAMETERS,
    write_config,
)


@pytest.mark.parametrize(
    ("config", "parameters", "bytes_per_parameter"),
    [
        (LLAMA_3_1_8B, LLAMA_3_1_8B_PARAMETERS, 2),
        (LLAMA_3_2_1B, LLAMA_3_2_1B_PARAMETERS, 2),  # tied embeddings
        (LLAMA_2_7B, LLAMA_2_7B_PARAMETERS, 2),
        (QWEN2_5_7B, QWEN2_5_7B_PARAMETERS, 2),  # qkv biases
        (MISTRAL_7B_V0_1, MISTRAL_7B_V0_1_PARAMETERS, 2),
        (GEMMA_2_9B, GEMMA_2_9B_PARAMETERS, 4),  # released as float32, four norms per layer
        (MIXTRAL_8X7B, MIXTRAL_8X7B_PARAMETERS, 2),
        (QWEN3_30B_A3B, QWEN3_30B_A3B_PARAMETERS, 2),  # 128 experts, q/k norms
    ],
)
def test_estimates_match_published_parameter_counts(
    tmp_path: Path, config: dict[str, Any], parameters: int, bytes_per_parameter: int
) -> None:
    model = read_model_metadata(write_config(tmp_path, config))
    assert model.weights_estimated
    assert model.source == "hf_config"
    assert model.parameter_count == parameters
    assert model.weight_bytes == parameters * bytes_per_parameter
    assert sum(model.layer_weight_bytes) + model.non_layer_weight_bytes == model.weight_bytes


def test_mixtral_active_weights_count_two_of_eight_experts(tmp_path: Path) -> None:
    model = read_model_metadata(write_config(tmp_path, MIXTRAL_8X7B))
    assert model.is_moe
    assert (model.expert_count, model.experts_used) == (8, 2)
    assert model.active_weight_bytes == 2 * MIXTRAL_8X7B_ACTIVE_PARAMETERS


def test_qwen3_moe_activates_about_3_3b(tmp_path: Path) -> None:
    model = read_model_metadata(write_config(tmp_path, QWEN3_30B_A3B))
    assert (model.expert_count, model.experts_used) == (128, 8)
    active_parameters = model.active_weight_bytes / 2
    assert 3.3e9 <= active_parameters <= 3.4e9  # published: "3.3B activated"


@pytest.mark.parametrize(
    ("quantization", "bits_per_weight"),
    [
        ({"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}, 8),
        ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, 4 + 20 / 128),
        ({"quant_method": "gptq", "bits": 8, "group_size": 128}, 8 + 24 / 128),
        ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, 4.5),
    ],
)
def test_quantized_configs_shrink_block_weights_only(
    tmp_path: Path, quantization: dict[str, Any], bits_per_weight: float
) -> None:
    model = read_model_metadata(write_config(tmp_path, {**LLAMA_3_1_8B, "quantization_config": quantization}))
    embedding = 128256 * 4096
    outside_blocks = (2 * embedding + 4096) * 2  # embeddings, head and final norm stay bf16
    norms = 32 * 2 * 4096 * 2
    linear = LLAMA_3_1_8B_PARAMETERS - 2 * embedding - 4096 - 32 * 2 * 4096
    expected = outside_blocks + norms + linear * bits_per_weight / 8
    assert model.weight_bytes == pytest.approx(expected, abs=64)
    assert model.quantization is not None
    assert model.parameter_count == LLAMA_3_1_8B_PARAMETERS


def test_dtype_key_and_float16(tmp_path: Path) -> None:
    config = {**LLAMA_3_1_8B, "dtype": "float16"}
    del config["torch_dtype"]
    model = read_model_metadata(write_config(tmp_path, config))
    assert model.model_dtype == "f16"
    assert model.weight_bytes == 2 * LLAMA_3_1_8B_PARAMETERS
