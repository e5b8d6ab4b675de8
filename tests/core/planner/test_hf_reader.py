"""Metadata of a real HF folder (safetensors written by transformers), and of its config.json alone."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.core.planner import kv_bytes_per_token, read_model_metadata
from tests.core.planner.published_configs import GEMMA_3_12B, LLAMA_3_1_8B, write_config


def test_folder_sizes_come_from_the_safetensors_headers(tiny_hf_llama: Path) -> None:
    from safetensors import safe_open

    model = read_model_metadata(tiny_hf_llama)
    elements = 0
    data_bytes = 0
    for file in sorted(tiny_hf_llama.glob("*.safetensors")):
        with safe_open(str(file), framework="numpy") as handle:  # type: ignore[no-untyped-call]
            for name in handle.keys():  # noqa: SIM118 (a safetensors handle, not a dict)
                tensor_slice = handle.get_slice(name)
                count = 1
                for dim in tensor_slice.get_shape():
                    count *= dim
                elements += count
                data_bytes += count * 2  # bfloat16
    assert model.source == "hf_folder"
    assert model.format == "hf"
    assert not model.weights_estimated
    assert model.weight_bytes == data_bytes
    assert model.parameter_count == elements
    assert dict(model.tensor_bytes_by_type) == {"bf16": data_bytes}
    assert (model.n_layers, model.n_heads, model.n_kv_heads, model.head_dim_k) == (2, 2, (1, 1), 64)
    assert kv_bytes_per_token(model, "bf16", 100) == 2 * 2 * 1 * 64 * 2
    assert len(set(model.layer_weight_bytes)) == 1
    assert model.non_layer_weight_bytes == 2 * 30522 * 128 * 2 + 128 * 2  # embeddings, head, final norm


def test_config_alone_estimates_what_the_folder_holds(tiny_hf_llama: Path, tmp_path: Path) -> None:
    measured = read_model_metadata(tiny_hf_llama)
    shutil.copy(tiny_hf_llama / "config.json", tmp_path / "config.json")
    estimated = read_model_metadata(tmp_path / "config.json")
    assert estimated.weights_estimated
    assert estimated.source == "hf_config"
    assert estimated.parameter_count == measured.parameter_count
    assert estimated.weight_bytes == measured.weight_bytes
    assert estimated.layer_weight_bytes == measured.layer_weight_bytes


def test_config_json_beside_weights_uses_the_weights(tiny_hf_llama: Path) -> None:
    model = read_model_metadata(tiny_hf_llama / "config.json")
    assert not model.weights_estimated
    assert model.weight_bytes == read_model_metadata(tiny_hf_llama).weight_bytes


def test_multimodal_folder_counts_text_layers_only(tmp_path: Path) -> None:
    import numpy as np
    from safetensors.numpy import save_file

    write_config(tmp_path, GEMMA_3_12B)
    save_file(
        {
            "language_model.model.layers.0.mlp.up_proj.weight": np.zeros((8, 4), dtype=np.float16),
            "vision_tower.vision_model.encoder.layers.0.mlp.fc1.weight": np.zeros((16, 4), dtype=np.float16),
            "language_model.model.embed_tokens.weight": np.zeros((10, 4), dtype=np.float16),
        },
        str(tmp_path / "model.safetensors"),
    )
    model = read_model_metadata(tmp_path)
    assert model.weight_bytes == (32 + 64 + 40) * 2
    assert model.layer_weight_bytes[0] == 32 * 2
    assert sum(model.layer_weight_bytes) == 32 * 2


def test_llama_config_tokens_per_gib(tmp_path: Path) -> None:
    model = read_model_metadata(write_config(tmp_path, LLAMA_3_1_8B))
    assert model.context_length == 131072
    assert 1024**3 // kv_bytes_per_token(model, "f16", 8192) == 8192  # 8K tokens per GiB
