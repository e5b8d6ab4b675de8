"""The GGUF header parser: the same metadata as the gguf package's reader, nothing left mapped, and
damaged or hostile headers rejected with a clear error before anything large is allocated.

A ``numpy.memmap`` of a GGUF (what ``gguf.GGUFReader`` makes) was followed by a segfault in
llama.cpp's CUDA model load, so the app's metadata read must not map the file at all.
"""

from __future__ import annotations

import mmap
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from app.core.planner import ModelMetadataError, read_model_metadata
from app.core.planner.gguf_format import GgufArray, GgufFormatError, read_gguf_header
from tests.fixtures.models import GgufFactory


def mapped_paths() -> set[str]:
    """Files mapped into this process now (the path column of /proc/self/maps)."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return {line.split(maxsplit=5)[5].strip() for line in maps if len(line.split(maxsplit=5)) == 6}


def open_descriptors_to(path: Path) -> list[str]:
    found = []
    for entry in Path("/proc/self/fd").iterdir():
        try:
            if Path(entry.readlink()) == path:
                found.append(entry.name)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux's /proc")
def test_reading_metadata_maps_nothing_and_leaves_nothing_open(tiny_gguf_factory: GgufFactory) -> None:
    path = tiny_gguf_factory("llama-deep", "q8_0").resolve()

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the metadata read tried to memory-map the model file")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mmap, "mmap", forbidden)  # numpy.memmap maps through this too
        model = read_model_metadata(path)
        assert str(path) not in mapped_paths()
        assert open_descriptors_to(path) == []
    assert model.n_layers == 4


def test_the_gguf_package_maps_the_file_which_is_what_the_check_above_detects(
    tiny_gguf_factory: GgufFactory,
) -> None:
    """The probe is real: the gguf package's reader does leave the file mapped while it lives."""
    import gguf

    path = tiny_gguf_factory("llama-tiny", "f32").resolve()
    reader = gguf.GGUFReader(path, "r")
    assert str(path) in mapped_paths()
    del reader


@pytest.mark.parametrize("shape_name", ["llama-tiny", "llama-deep"])
@pytest.mark.parametrize("dtype", ["f32", "f16", "q8_0"])
def test_same_fields_and_tensors_as_the_gguf_package(
    tiny_gguf_factory: GgufFactory, shape_name: str, dtype: str
) -> None:
    import gguf

    path = tiny_gguf_factory(shape_name, dtype)  # type: ignore[arg-type]
    header = read_gguf_header(path)
    reader = gguf.GGUFReader(path, "r")
    theirs = {key: field for key, field in reader.fields.items() if not key.startswith("GGUF.")}  # header pseudo-keys
    assert set(header.fields) == set(theirs)
    assert header.version == reader.fields["GGUF.version"].contents()
    for key, field in theirs.items():
        ours = header.fields[key]
        if isinstance(ours, GgufArray):
            assert ours.length == len(field.data)
            if ours.items is not None:
                assert ours.items == list(field.contents())
        elif isinstance(ours, float):
            assert ours == pytest.approx(field.contents())
        else:
            assert ours == field.contents(), key
    assert [(t.name, list(t.shape), t.type_id, header.data_offset + t.offset) for t in header.tensors] == [
        (t.name, [int(d) for d in t.shape], int(t.tensor_type), int(t.data_offset)) for t in reader.tensors
    ]
    del reader


def _header(n_tensors: int, n_fields: int, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_fields)


def _string(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


HOSTILE = {
    "a huge key/value count": _header(0, 1 << 60),
    "a huge tensor count": _header(1 << 62, 0),
    "a huge key length": _header(0, 1) + struct.pack("<Q", 1 << 61),
    "a huge string value": _header(0, 1) + _string("general.name") + struct.pack("<IQ", 8, 1 << 50),
    "a huge array": _header(0, 1) + _string("x.list") + struct.pack("<IIQ", 9, 4, 1 << 58),
    "a huge string array": _header(0, 1) + _string("x.tokens") + struct.pack("<IIQ", 9, 8, 1 << 58),
    "a string array item too long": _header(0, 1) + _string("x.tokens") + struct.pack("<IIQQ", 9, 8, 1, 1 << 40),
}
CUT_VALUE = _header(0, 1) + _string("general.alignment") + struct.pack("<I", 4) + b"\x01"


@pytest.mark.parametrize("case", [*sorted(HOSTILE), "a cut value"])
def test_hostile_counts_and_lengths_fail_fast_in_bounded_memory(tmp_path: Path, case: str) -> None:
    path = tmp_path / "hostile.gguf"
    path.write_bytes(HOSTILE[case] + bytes(64) if case in HOSTILE else CUT_VALUE)
    tracemalloc.start()
    try:
        with pytest.raises(GgufFormatError) as caught:
            read_gguf_header(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.truncated
    assert peak < 1 << 20  # nothing sized by the claimed count was allocated
    with pytest.raises(ModelMetadataError) as reported:
        read_model_metadata(path)
    assert "truncated or damaged" in reported.value.message
    assert path.name in reported.value.message


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (_string("x.bad") + struct.pack("<I", 77), "unknown value type 77"),
        (_string("x.nested") + struct.pack("<IIQ", 9, 9, 1), "array of type 9"),
        (_string("general.alignment") + struct.pack("<II", 4, 48), "not a power of two"),
    ],
)
def test_malformed_values_are_named(tmp_path: Path, body: bytes, expected: str) -> None:
    path = tmp_path / "odd.gguf"
    path.write_bytes(_header(0, 1) + body + bytes(64))
    with pytest.raises(GgufFormatError, match=expected):
        read_gguf_header(path)
    with pytest.raises(ModelMetadataError, match="is damaged"):
        read_model_metadata(path)


def test_tensor_with_too_many_dimensions(tmp_path: Path) -> None:
    path = tmp_path / "dims.gguf"
    path.write_bytes(_header(1, 0) + _string("t") + struct.pack("<I", 9) + bytes(128))
    with pytest.raises(GgufFormatError, match="9 dimensions"):
        read_gguf_header(path)


def test_unknown_tensor_type_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "type.gguf"
    info = _string("token_embd.weight") + struct.pack("<IQQIQ", 2, 64, 4, 999, 0)
    path.write_bytes(_header(1, 1) + _string("general.architecture") + struct.pack("<I", 8) + _string("llama")
                     + info + bytes(4096))
    with pytest.raises(ModelMetadataError, match="type 999"):
        read_model_metadata(path)


def test_long_arrays_keep_only_their_length(tmp_path: Path) -> None:
    path = tmp_path / "long.gguf"
    count = 70_000
    tokens = b"".join(_string(f"t{i}") for i in range(count))
    path.write_bytes(_header(0, 2) + _string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, count) + tokens
                     + _string("x.scores") + struct.pack("<IIQ", 9, 6, count) + bytes(4 * count))
    header = read_gguf_header(path)
    assert header.array_length("tokenizer.ggml.tokens") == count
    assert header.value("tokenizer.ggml.tokens") is None
    assert header.array_length("x.scores") == count


def test_tensor_type_table_matches_the_gguf_package() -> None:
    from gguf.constants import GGML_QUANT_SIZES

    from app.core.planner.gguf_format import GGML_TYPES

    theirs = {int(kind): (kind.name.lower(), *sizes) for kind, sizes in GGML_QUANT_SIZES.items()}
    assert {type_id: GGML_TYPES[type_id] for type_id in theirs if type_id in GGML_TYPES} == theirs
