"""Unusable model paths raise ModelMetadataError with one clear line, never a library exception."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from app.core.planner import ModelMetadataError, PlanRequest, PlanRequestError, read_model_metadata
from app.core.util.errors import UserFacingError


def rejection(path: Path) -> str:
    """The message read_model_metadata raises for ``path`` (failing the test if it succeeds)."""
    with pytest.raises(ModelMetadataError) as caught:
        read_model_metadata(path)
    assert isinstance(caught.value, UserFacingError)
    assert "\n" not in caught.value.message
    assert caught.value.hint
    return caught.value.message


def test_missing_file(tmp_path: Path) -> None:
    assert "does not exist" in rejection(tmp_path / "missing.gguf")


def test_text_file_named_gguf(not_a_model_file: Path) -> None:
    assert "is not a GGUF file" in rejection(not_a_model_file)


def test_empty_file(empty_file: Path) -> None:
    assert "is not a GGUF file" in rejection(empty_file)


def test_truncated_gguf(truncated_gguf: Path) -> None:
    message = rejection(truncated_gguf)
    assert "truncated" in message
    assert truncated_gguf.name in message


def test_gguf_cut_inside_its_header(tiny_gguf: Path, tmp_path: Path) -> None:
    cut = tmp_path / "header.gguf"
    cut.write_bytes(tiny_gguf.read_bytes()[:40])
    assert "truncated" in rejection(cut)


def test_gguf_with_unsupported_version(tmp_path: Path) -> None:
    path = tmp_path / "future.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 99, 0, 0))
    assert "uses GGUF version 99" in rejection(path)


def test_gguf_without_layer_count(tmp_path: Path) -> None:
    import gguf

    path = tmp_path / "nolayers.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("llama.embedding_length", 64)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert "llama.block_count" in rejection(path)


def test_folder_without_config(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert "has no config.json" in rejection(tmp_path)


def test_config_that_is_not_json(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    assert "is not valid JSON" in rejection(tmp_path)


def test_config_that_is_a_list(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("[1, 2]", encoding="utf-8")
    assert "expected a JSON object" in rejection(tmp_path / "config.json")


def test_config_of_an_unknown_architecture(tmp_path: Path) -> None:
    config = {"model_type": "resnet", "num_channels": 3, "hidden_sizes": [256, 512]}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    message = rejection(tmp_path / "config.json")
    assert "'resnet'" in message
    assert "layers" in message


def test_config_without_vocab_and_without_weights(tmp_path: Path) -> None:
    config = {"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 128}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert "no vocab_size" in rejection(tmp_path)


def test_truncated_safetensors(tiny_hf_llama: Path, tmp_path: Path) -> None:
    (tmp_path / "config.json").write_bytes((tiny_hf_llama / "config.json").read_bytes())
    weights = (tiny_hf_llama / "model.safetensors").read_bytes()
    (tmp_path / "model.safetensors").write_bytes(weights[: len(weights) // 2])
    assert "truncated" in rejection(tmp_path)


def test_safetensors_with_garbage_header(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 128})
    )
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", 5) + b"\xff\xfe{{{")
    assert "unreadable safetensors header" in rejection(tmp_path)


@pytest.mark.parametrize(
    ("backend", "kv_cache_dtype"), [("vllm", "q8_0"), ("vllm", "q4_0"), ("llamacpp", "fp8"), ("llamacpp", "int3")]
)
def test_kv_types_a_backend_cannot_use(backend: str, kv_cache_dtype: str) -> None:
    with pytest.raises(PlanRequestError) as caught:
        PlanRequest(backend=backend, kv_cache_dtype=kv_cache_dtype)  # type: ignore[arg-type]
    assert kv_cache_dtype in caught.value.message


def test_nonsense_requests() -> None:
    for arguments in (
        {"parallel_chats": 0},
        {"context_length": 0},
        {"reserve_bytes": -1},
        {"gpu_layers": -2},
        {"block_size": 0},
    ):
        with pytest.raises(PlanRequestError):
            PlanRequest(backend="llamacpp", **arguments)  # type: ignore[arg-type]
    with pytest.raises(PlanRequestError):
        PlanRequest(backend="ollama")  # type: ignore[arg-type]
