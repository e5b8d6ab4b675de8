"""Text files read block by block: exact text across block edges, and bounded memory for huge files."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from app.core.kb.parsers import DocumentError, parse_document
from app.core.kb.parsers.plain import read_text_file
from tests.fixtures.documents import CHINESE_TEXT, ENGLISH_PARAGRAPHS, write_big_text, write_bytes

MIXED = "\r\n".join([CHINESE_TEXT, *ENGLISH_PARAGRAPHS, "末尾。\r"]) * 40


@pytest.mark.parametrize("encoding", ["utf-8", "gb18030", "utf-16", "big5-safe"])
@pytest.mark.parametrize("block_bytes", [7, 64, 1000])
def test_blocks_decode_to_the_same_text_as_one_read(tmp_path: Path, encoding: str, block_bytes: int) -> None:
    """Multibyte characters and \\r\\n pairs split across blocks come out whole."""
    text = MIXED if encoding != "big5-safe" else MIXED.replace(CHINESE_TEXT, "繁體中文的段落。")
    codec = "big5" if encoding == "big5-safe" else encoding
    path = write_bytes(tmp_path / "mixed.txt", text.encode(codec))
    read = read_text_file(path, block_bytes=block_bytes)
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert read.text == expected
    assert read.notes == ()


def test_tiny_blocks_keep_crlf_pairs_whole(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "crlf.txt", b"ab\r\ncd\r\n\r\nef\r" * 50)
    for block_bytes in (1, 2, 3, 5):
        assert read_text_file(path, block_bytes=block_bytes).text == "ab\ncd\n\nef\n" * 50


def test_nul_bytes_after_the_first_block_are_caught(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "late-binary.txt", b"plain text line\n" * 100 + b"\x00\x01\x02")
    with pytest.raises(DocumentError) as caught:
        read_text_file(path, block_bytes=256)
    assert caught.value.kind == "binary" and "NUL" in caught.value.message


def test_a_huge_text_file_costs_about_two_copies_of_its_text(tmp_path: Path) -> None:
    size = 48 * 1024 * 1024
    path = write_big_text(tmp_path / "huge.txt", size, ENGLISH_PARAGRAPHS[0])
    tracemalloc.start()
    try:
        document = parse_document(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    text = document.pages[0].text
    assert len(text) > size * 0.95 and "\r" not in text
    # bytes read whole plus decoded copies plus a newline-normalised copy would be >= 3x.
    assert peak < 2.3 * len(text) + 32 * 1024 * 1024, peak / len(text)
