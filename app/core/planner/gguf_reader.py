"""Reads a model's shape and tensor sizes from a GGUF file's header (parsed by :mod:`gguf_format`)."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from app.core.planner.errors import ModelMetadataError
from app.core.planner.gguf_format import (
    GGML_TYPES,
    SUPPORTED_VERSIONS,
    GgufFormatError,
    GgufHeader,
    GgufTensorInfo,
    read_gguf_header,
)
from app.core.planner.metadata import ModelMetadata
from app.core.planner.swa import GGUF_DEFAULT_WINDOWS, GGUF_SWA_PATTERNS, swa_layers_from_pattern
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

GGUF_MAGIC = b"GGUF"
SUPPORTED_GGUF_VERSIONS = SUPPORTED_VERSIONS
DEFAULT_CONTEXT_LENGTH = 4096
_BLOCK_INDEX = re.compile(r"^blk\.(\d+)\.")
_HINT = Text("ModelFiles", QT_TRANSLATE_NOOP(
    "ModelFiles", "Pick a complete .gguf model file (re-download it if it was interrupted)."))


def read_gguf_metadata(path: Path) -> ModelMetadata:
    """Read architecture, attention shape, experts and tensor bytes from a GGUF file.

    The header is parsed with plain reads (:mod:`gguf_format`): nothing is mapped, and neither
    numpy nor the gguf package is imported (numpy's libraries loaded before llama.cpp's CUDA
    libraries made the model load segfault; see app.core.engines.backends.llamacpp_native).
    """
    try:
        header = read_gguf_header(path)
    except GgufFormatError as exc:
        raise ModelMetadataError(_unreadable_reason(path, exc), _HINT) from exc
    except OSError as exc:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "{0} cannot be read ({1})."),
                                      (path.name, _reason(exc))), _HINT) from exc
    tensors = [_tensor_row(path, header, info) for info in header.tensors]
    data_end = max((offset + n_bytes for _, _, n_bytes, _, offset, _ in tensors), default=0)
    if data_end > header.file_size:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is truncated: its tensors need {1} bytes but the file has {2}."),
            (path.name, data_end, header.file_size)), _HINT)
    return _build_metadata(_GgufFields(header, path), tensors, path, header.file_size)


def _tensor_row(path: Path, header: GgufHeader, info: GgufTensorInfo) -> tuple[str, str, int, int, int, list[int]]:
    """(name, type name, bytes, elements, absolute data offset, shape) of one tensor."""
    if info.type_id not in GGML_TYPES:
        raise ModelMetadataError(
            Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles", "{0}: tensor {1} has type {2}, which this app does not know."),
                (path.name, info.name, info.type_id)),
            Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "Update UniDesk or choose another build of the model.")),
        )
    type_name, block_size, block_bytes = GGML_TYPES[info.type_id]
    n_elements = math.prod(info.shape)
    if info.shape[0] % block_size:
        raise ModelMetadataError(
            Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles", "{0} is damaged: tensor {1} has {2} columns, not a multiple of {3} as {4} needs."),
                (path.name, info.name, info.shape[0], block_size, type_name)),
            _HINT,
        )
    n_bytes = n_elements // block_size * block_bytes
    return info.name, type_name, n_bytes, n_elements, header.data_offset + info.offset, list(info.shape)


def _reason(exc: Exception) -> str:
    """A short, single-line reason from a library exception."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:120]


def _unreadable_reason(path: Path, exc: GgufFormatError) -> str:
    """Why the header could not be parsed: an unsupported version, or a cut/damaged file."""
    if exc.version is not None and exc.version not in SUPPORTED_GGUF_VERSIONS:
        return Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "{0} uses GGUF version {1}, which this app cannot "
                                                                  "read."), (path.name, exc.version))
    detail = exc.args[0] if exc.args and isinstance(exc.args[0], Text) else _reason(exc)  # the format's words
    if exc.truncated:
        return Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is truncated or damaged: its GGUF header cannot be read ({1})."), (path.name, detail))
    return Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "{0} is damaged: {1}."), (path.name, detail))


def _no_key(path: Path, key: str) -> Text:
    """The file lacks a key the planner needs (or its value is unusable)."""
    return Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "{0} has no usable GGUF key {1}."), (path.name, key))


class _GgufFields:
    """Typed access to the parsed key/value fields; bad values become ModelMetadataError."""

    def __init__(self, header: GgufHeader, path: Path) -> None:
        self._header = header
        self._path = path

    def raw(self, key: str) -> Any:
        """The field's value (int, float, str or list), or None when absent."""
        return self._header.value(key)

    def array_length(self, key: str) -> int | None:
        """Length of an array field without decoding it (e.g. the tokenizer's token list)."""
        return self._header.array_length(key)

    def integer(self, key: str) -> int | None:
        """An integer field; for per-layer arrays, the largest entry."""
        value = self.raw(key)
        if isinstance(value, list):
            numbers = [int(v) for v in value if isinstance(v, (int, float))]
            return max(numbers) if numbers else None
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def per_layer(self, key: str, n_layers: int) -> tuple[int, ...] | None:
        """A field that may be a scalar or one value per layer, as a per-layer tuple."""
        value = self.raw(key)
        if isinstance(value, list) and value:
            values = [int(v) for v in value if isinstance(v, (int, float))]
            if values:
                return tuple((values + values[-1:] * n_layers)[:n_layers])
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (int(value),) * n_layers
        return None

    def required(self, key: str) -> int:
        """An integer field the planner cannot do without."""
        value = self.integer(key)
        if value is None or value <= 0:
            raise ModelMetadataError(
                _no_key(self._path, key),
                Text("ModelFiles", QT_TRANSLATE_NOOP(
                    "ModelFiles", "The file may be from an unsupported converter; try another build of the model.")),
            )
        return value


def _build_metadata(
    fields: _GgufFields, tensors: list[tuple[str, str, int, int, int, list[int]]], path: Path, file_size: int
) -> ModelMetadata:
    """Assemble ModelMetadata from GGUF fields and the tensor table."""
    arch = fields.raw("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelMetadataError(_no_key(path, "general.architecture"), _HINT)
    n_layers = fields.required(f"{arch}.block_count")
    n_embd = fields.required(f"{arch}.embedding_length")
    heads = fields.per_layer(f"{arch}.attention.head_count", n_layers)
    if heads is None or max(heads) <= 0:
        raise ModelMetadataError(_no_key(path, f"{arch}.attention.head_count"), _HINT)
    n_heads = max(heads)
    kv_heads = fields.per_layer(f"{arch}.attention.head_count_kv", n_layers) or heads
    head_dim_k = fields.integer(f"{arch}.attention.key_length") or n_embd // n_heads
    head_dim_v = fields.integer(f"{arch}.attention.value_length") or n_embd // n_heads
    if fields.integer(f"{arch}.attention.key_length_mla") is not None:
        head_dim_v = 0  # MLA: llama.cpp caches only the compressed latent (K), no V
    window, sliding = _sliding_layers(fields, arch, n_layers)

    bytes_by_type: dict[str, int] = defaultdict(int)
    layer_bytes = [0] * n_layers
    expert_bytes = 0
    n_elements = 0
    vocab_from_tensor = None
    for name, type_name, n_bytes, elements, _offset, shape in tensors:
        bytes_by_type[type_name] += n_bytes
        n_elements += elements
        match = _BLOCK_INDEX.match(name)
        if match and int(match.group(1)) < n_layers:
            layer_bytes[int(match.group(1))] += n_bytes
        if "_exps." in name:
            expert_bytes += n_bytes
        if name == "token_embd.weight" and len(shape) >= 2:
            vocab_from_tensor = shape[1]
    vocab = (
        fields.integer(f"{arch}.vocab_size") or vocab_from_tensor or fields.array_length("tokenizer.ggml.tokens") or 0
    )
    weight_bytes = sum(bytes_by_type.values())
    dominant = max(bytes_by_type.items(), key=lambda item: item[1])[0] if bytes_by_type else "f16"
    return ModelMetadata(
        path=str(path),
        source="gguf",
        architecture=arch,
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=kv_heads,
        head_dim_k=head_dim_k,
        head_dim_v=head_dim_v,
        hidden_size=n_embd,
        intermediate_size=fields.integer(f"{arch}.feed_forward_length") or 4 * n_embd,
        vocab_size=vocab,
        context_length=fields.integer(f"{arch}.context_length") or DEFAULT_CONTEXT_LENGTH,
        sliding_window=window,
        sliding_layers=sliding,
        expert_count=fields.integer(f"{arch}.expert_count") or 0,
        experts_used=fields.integer(f"{arch}.expert_used_count") or 0,
        weight_bytes=weight_bytes,
        expert_weight_bytes=expert_bytes,
        layer_weight_bytes=tuple(layer_bytes),
        tensor_bytes_by_type=tuple(sorted(bytes_by_type.items(), key=lambda item: -item[1])),
        file_size_bytes=file_size,
        parameter_count=n_elements,
        weights_estimated=False,
        model_dtype="f16" if dominant not in ("f32", "bf16") else dominant,
        quantization=None if dominant in ("f32", "f16", "bf16") else dominant,
    )


def _sliding_layers(fields: _GgufFields, arch: str, n_layers: int) -> tuple[int | None, tuple[bool, ...]]:
    """The window size and per-layer sliding flags, following llama.cpp's loaders.

    A per-layer ``{arch}.attention.sliding_window_pattern`` bool array wins; an integer there
    overrides the architecture's pattern. Architectures llama.cpp does not run with SWA (e.g.
    a Mistral converted as "llama") get no sliding layers, since llama.cpp caches them in full.
    """
    no_sliding = (False,) * n_layers
    window = fields.integer(f"{arch}.attention.sliding_window") or GGUF_DEFAULT_WINDOWS.get(arch)
    if not window:
        return None, no_sliding
    pattern_value = fields.raw(f"{arch}.attention.sliding_window_pattern")
    if isinstance(pattern_value, list) and pattern_value:
        flags = [bool(v) for v in pattern_value]
        return window, tuple((flags + [False] * n_layers)[:n_layers])
    if arch not in GGUF_SWA_PATTERNS:
        return None, no_sliding
    n_pattern, dense_first = GGUF_SWA_PATTERNS[arch]
    if isinstance(pattern_value, int) and not isinstance(pattern_value, bool):
        n_pattern = pattern_value
    return window, swa_layers_from_pattern(n_layers, n_pattern, dense_first)
