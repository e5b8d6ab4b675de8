"""Sums tensor bytes from safetensors headers (JSON after an 8-byte length), without torch."""

from __future__ import annotations

import json
import re
import struct
from collections import defaultdict
from dataclasses import dataclass
from math import prod
from pathlib import Path

from app.core.planner.errors import ModelMetadataError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

MAX_HEADER_BYTES = 100 * 1024 * 1024
_LAYER_INDEX = re.compile(r"(?:^|\.)layers\.(\d+)\.")
_NON_TEXT_PARTS = ("vision", "visual", "audio", "mm_projector", "multi_modal")


@dataclass(frozen=True)
class SafetensorsSummary:
    """Totals over all shards of one model."""

    total_bytes: int
    element_count: int
    bytes_by_dtype: tuple[tuple[str, int], ...]
    layer_bytes: dict[int, int]
    expert_bytes: int
    file_size_bytes: int


def summarize_safetensors(files: list[Path]) -> SafetensorsSummary:
    """Read every file's header and add up tensor sizes by dtype, by layer and for experts."""
    by_dtype: dict[str, int] = defaultdict(int)
    layer_bytes: dict[int, int] = defaultdict(int)
    expert_bytes = 0
    elements = 0
    file_sizes = 0
    for file in files:
        header = _read_header(file)
        file_sizes += file.stat().st_size
        for name, info in header.items():
            if name == "__metadata__" or not isinstance(info, dict):
                continue
            n_bytes, n_elements, dtype = _tensor_size(file, name, info)
            by_dtype[dtype.lower()] += n_bytes
            elements += n_elements
            lowered = name.lower()
            match = _LAYER_INDEX.search(name)
            if match and not any(part in lowered for part in _NON_TEXT_PARTS):
                layer_bytes[int(match.group(1))] += n_bytes
            if ".experts." in name:
                expert_bytes += n_bytes
    return SafetensorsSummary(
        total_bytes=sum(by_dtype.values()),
        element_count=elements,
        bytes_by_dtype=tuple(sorted(by_dtype.items(), key=lambda item: -item[1])),
        layer_bytes=dict(layer_bytes),
        expert_bytes=expert_bytes,
        file_size_bytes=file_sizes,
    )


def _read_header(file: Path) -> dict[str, object]:
    """The JSON header of one safetensors file, checked against the file's length."""
    hint = Text("ModelFiles", QT_TRANSLATE_NOOP("ModelFiles", "Re-download the model; a .safetensors file is damaged."))
    try:
        with file.open("rb") as handle:
            length_bytes = handle.read(8)
            if len(length_bytes) < 8:
                raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
                    "ModelFiles", "{0} is too short to be a safetensors file."), (file.name,)), hint)
            (length,) = struct.unpack("<Q", length_bytes)
            if length > MAX_HEADER_BYTES:
                raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
                    "ModelFiles", "{0} is not a safetensors file (header length {1})."), (file.name, length)), hint)
            raw = handle.read(length)
    except OSError as exc:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "Cannot read {0}: {1}."), (str(file), exc.strerror or str(exc))), hint) from exc
    if len(raw) < length:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is truncated inside its safetensors header."), (file.name,)), hint)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelMetadataError(_unreadable_header(file), hint) from exc
    if not isinstance(header, dict):
        raise ModelMetadataError(_unreadable_header(file), hint)
    data_end = max(
        (
            int(v["data_offsets"][1])
            for k, v in header.items()
            if k != "__metadata__" and isinstance(v, dict) and _valid_offsets(v)
        ),
        default=0,
    )
    if 8 + length + data_end > file.stat().st_size:
        raise ModelMetadataError(Text("ModelFiles", QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is truncated: its tensors end past the end of the file."), (file.name,)), hint)
    return header


def _unreadable_header(file: Path) -> Text:
    return Text("ModelFiles", QT_TRANSLATE_NOOP(
        "ModelFiles", "{0} has an unreadable safetensors header."), (file.name,))


def _valid_offsets(info: dict[str, object]) -> bool:
    """True when ``data_offsets`` is a pair of non-negative integers."""
    offsets = info.get("data_offsets")
    return isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(v, int) and v >= 0 for v in offsets)


def _tensor_size(file: Path, name: str, info: dict[str, object]) -> tuple[int, int, str]:
    """(bytes, elements, dtype) of one header entry."""
    shape = info.get("shape")
    dtype = info.get("dtype")
    if not _valid_offsets(info) or not isinstance(shape, list) or not isinstance(dtype, str):
        raise ModelMetadataError(
            Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles", "{0}: tensor {1} has a malformed safetensors entry."), (file.name, name)),
            Text("ModelFiles", QT_TRANSLATE_NOOP(
                "ModelFiles", "Re-download the model; a .safetensors file is damaged.")),
        )
    offsets = info["data_offsets"]
    assert isinstance(offsets, list)
    return int(offsets[1]) - int(offsets[0]), prod(int(d) for d in shape), dtype
