"""Metadata read from real GGUF files: the generated tiny llamas, and small files written here for
layouts the tiny llamas lack (sliding windows, per-layer KV heads, experts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.planner import kv_bytes_for_context, kv_bytes_per_token, read_model_metadata
from tests.fixtures.models import GgufFactory, resolve_shape


def write_metadata_gguf(path: Path, arch: str, keys: dict[str, Any], tensors: dict[str, Any]) -> Path:
    """A GGUF with the given ``{arch}.*`` keys (ints as uint32, lists as arrays) and f32 tensors."""
    import gguf

    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in keys.items():
        if isinstance(value, list):
            writer.add_array(f"{arch}.{key}", value)
        else:
            writer.add_uint32(f"{arch}.{key}", value)
    for name, array in tensors.items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def base_keys(n_layers: int, **extra: Any) -> dict[str, Any]:
    """The keys every architecture needs."""
    return {
        "block_count": n_layers,
        "embedding_length": 64,
        "attention.head_count": 4,
        "attention.head_count_kv": 2,
        "context_length": 8192,
        **extra,
    }


def zeros(*shape: int) -> Any:
    import numpy as np

    return np.zeros(shape, dtype=np.float32)


@pytest.mark.parametrize("shape_name", ["llama-tiny", "llama-mha", "llama-deep"])
@pytest.mark.parametrize("dtype", ["f32", "f16", "q8_0"])
def test_tiny_llamas_read_back_their_shape(tiny_gguf_factory: GgufFactory, shape_name: str, dtype: str) -> None:
    shape = resolve_shape(shape_name)
    path = tiny_gguf_factory(shape_name, dtype)  # type: ignore[arg-type]
    model = read_model_metadata(path)
    assert model.source == "gguf"
    assert model.format == "gguf"
    assert model.architecture == "llama"
    assert model.n_layers == shape.n_layers
    assert model.n_heads == shape.n_heads
    assert model.n_kv_heads == (shape.n_kv_heads,) * shape.n_layers
    assert model.head_dim_k == model.head_dim_v == shape.attention_head_dim
    assert model.hidden_size == shape.n_embd
    assert model.context_length == shape.n_ctx_train
    assert model.vocab_size == shape.vocab
    assert model.parameter_count == shape.parameter_count
    assert kv_bytes_per_token(model, "f16", 512) == shape.kv_bytes_per_token_f16
    assert model.file_size_bytes == path.stat().st_size
    assert model.weight_bytes == sum(size for _, size in model.tensor_bytes_by_type)
    assert sum(model.layer_weight_bytes) + model.non_layer_weight_bytes == model.weight_bytes
    assert len(set(model.layer_weight_bytes)) == 1  # identical blocks
    types = dict(model.tensor_bytes_by_type)
    assert dtype in types
    if dtype == "f32":
        assert model.weight_bytes == 4 * shape.parameter_count
    assert model.file_size_bytes - model.weight_bytes < 64 * 1024  # the rest is header and vocabulary


def test_gemma2_alternates_and_defaults_the_window(tmp_path: Path) -> None:
    path = write_metadata_gguf(tmp_path / "g2.gguf", "gemma2", base_keys(6), {"token_embd.weight": zeros(100, 64)})
    model = read_model_metadata(path)
    assert model.sliding_window == 4096  # llama.cpp's default when the key is absent
    assert model.sliding_layers == (True, False, True, False, True, False)


def test_gemma3_five_local_per_global(tmp_path: Path) -> None:
    keys = base_keys(12, **{"attention.sliding_window": 512, "attention.key_length": 32, "attention.value_length": 32})
    model = read_model_metadata(write_metadata_gguf(tmp_path / "g3.gguf", "gemma3", keys, {}))
    assert model.sliding_layers == tuple(layer % 6 != 5 for layer in range(12))
    assert model.head_dim_k == 32  # key_length, not 64 / 4
    per_layer = 2 * 2 * 32 * 2
    assert kv_bytes_for_context(model, "f16", 4096) == 2 * 4096 * per_layer + 10 * 512 * per_layer


def test_per_layer_kv_heads(tmp_path: Path) -> None:
    keys = base_keys(4, **{"attention.sliding_window": 128, "attention.head_count_kv": [2, 0, 1, 2]})
    model = read_model_metadata(write_metadata_gguf(tmp_path / "kv_heads.gguf", "gemma3", keys, {}))
    assert model.n_kv_heads == (2, 0, 1, 2)  # a layer with 0 KV heads has no cache
    assert kv_bytes_per_token(model, "f32", 64) == (2 + 0 + 1 + 2) * 16 * 4 * 2


def test_bool_pattern_array_overrides_the_architecture(tmp_path: Path) -> None:
    import gguf

    path = tmp_path / "bools.gguf"
    writer = gguf.GGUFWriter(str(path), "gemma3")
    for key, value in base_keys(4, **{"attention.sliding_window": 128}).items():
        writer.add_uint32(f"gemma3.{key}", value)
    writer.add_array("gemma3.attention.sliding_window_pattern", [False, True, True, False])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    model = read_model_metadata(path)
    assert model.sliding_layers == (False, True, True, False)


def test_window_key_on_an_architecture_llamacpp_runs_without_swa(tmp_path: Path) -> None:
    keys = base_keys(2, **{"attention.sliding_window": 4096})
    model = read_model_metadata(write_metadata_gguf(tmp_path / "phi3.gguf", "phi3", keys, {}))
    assert model.sliding_window is None
    assert not any(model.sliding_layers)


def test_moe_expert_tensors_and_active_bytes(tmp_path: Path) -> None:
    tensors = {
        "token_embd.weight": zeros(100, 64),
        "blk.0.attn_q.weight": zeros(64, 64),
        "blk.0.ffn_gate_exps.weight": zeros(4, 32, 64),
        "blk.0.ffn_up_exps.weight": zeros(4, 32, 64),
        "blk.0.ffn_down_exps.weight": zeros(4, 64, 32),
        "blk.0.ffn_gate_inp.weight": zeros(4, 64),
    }
    keys = base_keys(1, expert_count=4, expert_used_count=1)
    model = read_model_metadata(write_metadata_gguf(tmp_path / "moe.gguf", "qwen3moe", keys, tensors))
    expert_bytes = 3 * 4 * 32 * 64 * 4
    shared_bytes = (100 * 64 + 64 * 64 + 4 * 64) * 4
    assert model.is_moe
    assert model.expert_weight_bytes == expert_bytes
    assert model.weight_bytes == expert_bytes + shared_bytes
    assert model.active_weight_bytes == shared_bytes + expert_bytes // 4
    assert model.vocab_size == 100  # from token_embd.weight
    assert model.layer_weight_bytes == (model.weight_bytes - 100 * 64 * 4,)
