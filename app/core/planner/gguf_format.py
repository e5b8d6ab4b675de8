"""A small GGUF header parser: key/values and the tensor table, read with plain buffered reads.

Nothing is memory-mapped and neither numpy nor the gguf package is imported (numpy loaded
before llama.cpp's CUDA libraries made the model load crash), and every count and length in the
header is checked against the bytes left in the file before anything is allocated, so a
damaged or hostile file fails with :class:`GgufFormatError` in bounded memory.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
MAX_DIMS = 4  # GGML_MAX_DIMS
# Strings longer than this are skipped, not decoded (a chat template is ~10 KiB; keys are short).
MAX_DECODED_STRING = 1 << 20
MAX_KEY_LENGTH = 1 << 16
# Arrays longer than this (token lists, merges, scores) keep only their length.
MAX_DECODED_ARRAY = 1 << 16

Value = int | float | bool | str | list[int | float | bool | str] | None

# value type id -> (struct format, size in bytes); 8 = string and 9 = array are handled apart.
_SCALARS: dict[int, tuple[str, int]] = {
    0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4),
    6: ("<f", 4), 7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8),
}
_STRING, _ARRAY = 8, 9

# ggml tensor types by id (ggml.h's enum ggml_type): name, values per block, bytes per block.
GGML_TYPES: dict[int, tuple[str, int, int]] = {
    0: ("f32", 1, 4), 1: ("f16", 1, 2), 2: ("q4_0", 32, 18), 3: ("q4_1", 32, 20), 6: ("q5_0", 32, 22),
    7: ("q5_1", 32, 24), 8: ("q8_0", 32, 34), 9: ("q8_1", 32, 40), 10: ("q2_k", 256, 84), 11: ("q3_k", 256, 110),
    12: ("q4_k", 256, 144), 13: ("q5_k", 256, 176), 14: ("q6_k", 256, 210), 15: ("q8_k", 256, 292),
    16: ("iq2_xxs", 256, 66), 17: ("iq2_xs", 256, 74), 18: ("iq3_xxs", 256, 98), 19: ("iq1_s", 256, 50),
    20: ("iq4_nl", 32, 18), 21: ("iq3_s", 256, 110), 22: ("iq2_s", 256, 82), 23: ("iq4_xs", 256, 136),
    24: ("i8", 1, 1), 25: ("i16", 1, 2), 26: ("i32", 1, 4), 27: ("i64", 1, 8), 28: ("f64", 1, 8),
    29: ("iq1_m", 256, 56), 30: ("bf16", 1, 2), 34: ("tq1_0", 256, 54), 35: ("tq2_0", 256, 66),
    39: ("mxfp4", 32, 17), 40: ("nvfp4", 64, 36), 41: ("q1_0", 128, 18),
}


def _said(template: str, *args: object) -> Text:
    """Why the header cannot be read, in words the window translates (``QT_TRANSLATE_NOOP("ModelFiles", ...)``)."""
    return Text("ModelFiles", template, args)


_WHOLE_PARTS = {
    "the magic": QT_TRANSLATE_NOOP("ModelFiles", "the magic"),
    "the version": QT_TRANSLATE_NOOP("ModelFiles", "the version"),
    "the tensor count": QT_TRANSLATE_NOOP("ModelFiles", "the tensor count"),
    "the key/value count": QT_TRANSLATE_NOOP("ModelFiles", "the key/value count"),
    "a key": QT_TRANSLATE_NOOP("ModelFiles", "a key"),
    "a tensor name": QT_TRANSLATE_NOOP("ModelFiles", "a tensor name"),
}
_PARTS_OF = (
    ("the element type of ", QT_TRANSLATE_NOOP("ModelFiles", "the element type of {0}")),
    ("the dimension count of ", QT_TRANSLATE_NOOP("ModelFiles", "the dimension count of {0}")),
    ("the length of ", QT_TRANSLATE_NOOP("ModelFiles", "the length of {0}")),
    ("the shape of ", QT_TRANSLATE_NOOP("ModelFiles", "the shape of {0}")),
    ("the offset of ", QT_TRANSLATE_NOOP("ModelFiles", "the offset of {0}")),
    ("the type of ", QT_TRANSLATE_NOOP("ModelFiles", "the type of {0}")),
)


def _part(what: str) -> str:
    """The part of the header a read was for, as the reader names it (plain strings, so reading costs nothing
    more), made a Text when the read failed; a bare key name is that key's value."""
    if what in _WHOLE_PARTS:
        return _said(_WHOLE_PARTS[what])
    for prefix, template in _PARTS_OF:
        if what.startswith(prefix):
            return _said(template, what[len(prefix):])
    return _said(QT_TRANSLATE_NOOP("ModelFiles", "the value of {0}"), what)  # a key's value


def _needs(what: str, count: int, left: int) -> Text:
    return _said(QT_TRANSLATE_NOOP("ModelFiles", "{0} needs {1} bytes but only {2} are left"), _part(what), count, left)


class GgufFormatError(ValueError):
    """The file is not a GGUF this parser can read; ``truncated`` when it ends too early."""

    def __init__(self, message: str, *, truncated: bool = False, version: int | None = None) -> None:
        super().__init__(message)
        self.truncated = truncated
        self.version = version


@dataclass(frozen=True)
class GgufArray:
    """An array value: its length always, its items only when short and not nested."""

    element_type: int
    length: int
    items: list[int | float | bool | str] | None


@dataclass(frozen=True)
class GgufTensorInfo:
    name: str
    shape: tuple[int, ...]  # GGUF order: the fastest-varying dimension first
    type_id: int
    offset: int  # from the start of the data section


@dataclass(frozen=True)
class GgufHeader:
    version: int
    fields: dict[str, int | float | bool | str | GgufArray | None]  # None: a string too long to keep
    tensors: list[GgufTensorInfo]
    data_offset: int  # where the aligned tensor data section starts
    file_size: int

    def value(self, key: str) -> Value:
        """A field as a plain value (arrays as lists; None when absent or not kept)."""
        field = self.fields.get(key)
        if isinstance(field, GgufArray):
            return None if field.items is None else list(field.items)
        return field

    def array_length(self, key: str) -> int | None:
        field = self.fields.get(key)
        return field.length if isinstance(field, GgufArray) else None


class _Cursor:
    """Reads little-endian values from a buffered file, never past its end."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self._handle = handle
        self.size = size
        self.position = 0

    @property
    def left(self) -> int:
        return self.size - self.position

    def take(self, count: int, what: str) -> bytes:
        if count < 0 or count > self.left:
            raise GgufFormatError(_needs(what, count, self.left), truncated=True)
        data = self._handle.read(count)
        if len(data) != count:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "the file ended inside {0}"), _part(what)), truncated=True)
        self.position += count
        return data

    def skip(self, count: int, what: str) -> None:
        if count < 0 or count > self.left:
            raise GgufFormatError(_needs(what, count, self.left), truncated=True)
        self._handle.seek(count, 1)
        self.position += count

    def unpack(self, fmt: str, size: int, what: str) -> int | float | bool:
        value: int | float | bool = struct.unpack(fmt, self.take(size, what))[0]
        return value

    def u32(self, what: str) -> int:
        return int(self.unpack("<I", 4, what))

    def u64(self, what: str) -> int:
        return int(self.unpack("<Q", 8, what))

    def string(self, what: str, limit: int) -> str | None:
        """A length-prefixed UTF-8 string; None (and skipped) when longer than ``limit``."""
        length = self.u64(what)
        if length > self.left:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "{0} claims {1} bytes but only {2} are left"), _part(what), length,
                self.left), truncated=True)
        if length > limit:
            self.skip(length, what)
            return None
        return self.take(length, what).decode("utf-8", errors="replace")


def read_gguf_header(path: Path) -> GgufHeader:
    """Parse the header, key/values and tensor table of the GGUF at ``path``."""
    size = path.stat().st_size
    with path.open("rb", buffering=1 << 16) as handle:
        cursor = _Cursor(handle, size)
        if cursor.left < 4 or cursor.take(4, "the magic") != GGUF_MAGIC:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP("ModelFiles", "not a GGUF file (no GGUF magic)")))
        version = cursor.u32("the version")
        if version not in SUPPORTED_VERSIONS:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "GGUF version {0} is not supported"), version), version=version)
        n_tensors = cursor.u64("the tensor count")
        n_fields = cursor.u64("the key/value count")
        # Smallest possible entries: a key/value is 8 (key length) + 4 (type) + 1; a tensor 8 + 4 + 4 + 8.
        if n_fields * 13 > cursor.left:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "the header claims {0} key/values, more than the file can hold"),
                n_fields), truncated=True)
        if n_tensors * 24 > cursor.left:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "the header claims {0} tensors, more than the file can hold"),
                n_tensors), truncated=True)
        fields: dict[str, int | float | bool | str | GgufArray | None] = {}
        for _ in range(n_fields):
            key = cursor.string("a key", MAX_KEY_LENGTH)
            if key is None:
                raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                    "ModelFiles", "a key is longer than {0} bytes"), MAX_KEY_LENGTH))
            fields[key] = _read_value(cursor, cursor.u32(f"the type of {key}"), key)
        tensors = [_read_tensor_info(cursor) for _ in range(n_tensors)]
        alignment = fields.get("general.alignment", DEFAULT_ALIGNMENT)
        valid = isinstance(alignment, int) and not isinstance(alignment, bool) and alignment > 0
        if not isinstance(alignment, int) or not valid or alignment & (alignment - 1):
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "general.alignment is {0}, not a power of two"), repr(alignment)))
        data_offset = -(-cursor.position // alignment) * alignment
    return GgufHeader(version, fields, tensors, data_offset, size)


def _read_value(cursor: _Cursor, type_id: int, key: str) -> int | float | bool | str | GgufArray | None:
    if type_id in _SCALARS:
        fmt, width = _SCALARS[type_id]
        return cursor.unpack(fmt, width, key)
    if type_id == _STRING:
        return cursor.string(key, MAX_DECODED_STRING)
    if type_id == _ARRAY:
        element_type = cursor.u32(f"the element type of {key}")
        length = cursor.u64(f"the length of {key}")
        return _read_array(cursor, element_type, length, key)
    raise GgufFormatError(_said(QT_TRANSLATE_NOOP("ModelFiles", "{0} has unknown value type {1}"), key, type_id))


def _read_array(cursor: _Cursor, element_type: int, length: int, key: str) -> GgufArray:
    if element_type in _SCALARS:
        fmt, width = _SCALARS[element_type]
        if length * width > cursor.left:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "{0} claims {1} items, more than the file holds"), key, length),
                truncated=True)
        if length > MAX_DECODED_ARRAY:
            cursor.skip(length * width, key)
            return GgufArray(element_type, length, None)
        raw = cursor.take(length * width, key)
        items: list[int | float | bool | str] = list(struct.unpack(f"<{length}{fmt[1]}", raw))
        return GgufArray(element_type, length, items)
    if element_type == _STRING:
        if length * 8 > cursor.left:
            raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
                "ModelFiles", "{0} claims {1} strings, more than the file holds"), key, length),
                truncated=True)
        keep = length <= MAX_DECODED_ARRAY
        strings: list[int | float | bool | str] = []
        read: Callable[[str, int], str | None] = cursor.string
        for _ in range(length):
            text = read(key, MAX_DECODED_STRING if keep else -1)
            if keep:
                strings.append(text if text is not None else "")
        return GgufArray(element_type, length, strings if keep else None)
    raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
        "ModelFiles", "{0} is an array of type {1}, which this reader does not accept"), key,
        element_type))


def _read_tensor_info(cursor: _Cursor) -> GgufTensorInfo:
    name = cursor.string("a tensor name", MAX_KEY_LENGTH)
    if name is None:
        raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
            "ModelFiles", "a tensor name is longer than {0} bytes"), MAX_KEY_LENGTH))
    n_dims = cursor.u32(f"the dimension count of {name}")
    if not 1 <= n_dims <= MAX_DIMS:
        raise GgufFormatError(_said(QT_TRANSLATE_NOOP(
            "ModelFiles", "tensor {0} has {1} dimensions (1 to {2} allowed)"), name, n_dims,
            MAX_DIMS))
    shape = tuple(cursor.u64(f"the shape of {name}") for _ in range(n_dims))
    type_id = cursor.u32(f"the type of {name}")
    offset = cursor.u64(f"the offset of {name}")
    return GgufTensorInfo(name, shape, type_id, offset)
