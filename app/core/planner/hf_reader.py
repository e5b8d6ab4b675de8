"""Reads model metadata from a Hugging Face folder (config.json + safetensors) or a bare config.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.core.planner.errors import ModelMetadataError
from app.core.planner.hf_config import HfTextConfig, parse_hf_config
from app.core.planner.metadata import ModelMetadata
from app.core.planner.param_estimate import estimate_parameters, estimated_weight_bytes
from app.core.planner.safetensors_reader import SafetensorsSummary, summarize_safetensors
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

_FOLDER_HINT = Text("ModelFiles", QT_TRANSLATE_NOOP(
    "ModelFiles", "Pick a Hugging Face model folder (with config.json), a config.json or a .gguf file."))


def read_hf_metadata(path: Path) -> ModelMetadata:
    """Metadata from an HF model folder, or from a config.json (using safetensors beside it if any)."""
    if path.is_dir():
        config_path = path / "config.json"
        if not config_path.is_file():
            raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles", "{0} has no config.json, so it is not a Hugging Face model folder."), (str(path),)),
                _FOLDER_HINT)
    else:
        config_path = path
    config = _load_config(config_path)
    text = parse_hf_config(config, config_path.name)
    weight_files = sorted(config_path.parent.glob("*.safetensors"))
    summary = summarize_safetensors(weight_files) if weight_files else None
    return _build_metadata(text, summary, path, config_path)


def _load_config(config_path: Path) -> dict[str, Any]:
    """Parse config.json into a dict, with one-line errors for unreadable files."""
    try:
        text = config_path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "{0} does not exist."),
                                      (str(config_path),)), _FOLDER_HINT) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "Cannot read {0}: {1}."),
                                      (str(config_path), str(exc))), _FOLDER_HINT) from exc
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is not valid JSON (line {1}: {2})."), (config_path.name, exc.lineno, exc.msg)),
            _FOLDER_HINT) from exc
    if not isinstance(config, dict):
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is not a model config (expected a JSON object)."), (config_path.name,)), _FOLDER_HINT)
    return config


def _build_metadata(
    text: HfTextConfig, summary: SafetensorsSummary | None, path: Path, config_path: Path
) -> ModelMetadata:
    """Combine config shape with measured (safetensors) or estimated weight sizes."""
    n_layers = text.n_layers
    if text.mla is not None:
        kv_heads = (1,) * n_layers
        head_dim_k, head_dim_v = text.mla.kv_lora_rank + text.mla.qk_rope_head_dim, 0
    else:
        kv_heads = (text.n_kv_heads,) * n_layers
        head_dim_k = head_dim_v = text.head_dim
    estimate = estimate_parameters(text, text.vocab_size) if text.vocab_size else None
    if summary is not None:
        weight_bytes = summary.total_bytes
        layer_bytes = tuple(summary.layer_bytes.get(index, 0) for index in range(n_layers))
        expert_bytes = summary.expert_bytes
        by_type = summary.bytes_by_dtype
        quantized = text.quantization is not None
        parameters = estimate.total if quantized and estimate is not None else summary.element_count
        file_size = summary.file_size_bytes
    else:
        if estimate is None:
            raise ModelMetadataError(
                Text("ModelFiles", QT_TRANSLATE_NOOP(
                    "ModelFiles", "{0} has no vocab_size and there are no weights beside it, so the model size "
                    "cannot be worked out."), (config_path.name,)),
                _FOLDER_HINT,
            )
        weight_bytes, layer_bytes, expert_bytes = estimated_weight_bytes(text, estimate)
        weight_type = text.quantization[0] if text.quantization else text.dtype
        by_type = ((weight_type, weight_bytes),)
        parameters = estimate.total
        file_size = config_path.stat().st_size
    return ModelMetadata(
        path=str(path),
        source="hf_folder" if summary is not None else "hf_config",
        architecture=text.model_type,
        n_layers=n_layers,
        n_heads=text.n_heads,
        n_kv_heads=kv_heads,
        head_dim_k=head_dim_k,
        head_dim_v=head_dim_v,
        hidden_size=text.hidden_size,
        intermediate_size=text.intermediate_size,
        vocab_size=text.vocab_size or 0,
        context_length=text.context_length,
        sliding_window=text.sliding_window,
        sliding_layers=text.sliding_layers,
        expert_count=text.expert_count,
        experts_used=text.experts_used,
        weight_bytes=weight_bytes,
        expert_weight_bytes=expert_bytes,
        layer_weight_bytes=layer_bytes,
        tensor_bytes_by_type=by_type,
        file_size_bytes=file_size,
        parameter_count=parameters,
        weights_estimated=summary is None,
        model_dtype=text.dtype,
        quantization=text.quantization[0] if text.quantization else None,
    )
