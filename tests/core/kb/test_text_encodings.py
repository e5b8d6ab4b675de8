"""Decoding text files: BOMs, UTF-8, the legacy CJK encodings (also on short texts), binary rejected."""

from __future__ import annotations

import codecs
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.kb.parsers.errors import DocumentError
from app.core.kb.text_encodings import decode_text, detect_encoding
from tests.fixtures.documents import (
    CHINESE_TEXT,
    JAPANESE_TEXT,
    KOREAN_TEXT,
    TRADITIONAL_CHINESE_TEXT,
    WESTERN_TEXT,
)

CASES = [
    (CHINESE_TEXT, "gbk"),
    (CHINESE_TEXT, "gb18030"),
    (CHINESE_TEXT, "gb2312"),
    (TRADITIONAL_CHINESE_TEXT, "big5"),
    (TRADITIONAL_CHINESE_TEXT, "gb18030"),
    (JAPANESE_TEXT, "shift_jis"),
    (JAPANESE_TEXT, "euc_jp"),
    (KOREAN_TEXT, "euc_kr"),
    (WESTERN_TEXT, "cp1252"),
    ("Привет, мир! Это проверка кодировки текста.", "cp1251"),
    (CHINESE_TEXT + "\n" + JAPANESE_TEXT, "utf-8"),
    (CHINESE_TEXT, "utf-8-sig"),
    (CHINESE_TEXT, "utf-16"),  # Python writes a BOM
    (CHINESE_TEXT, "utf-32"),
]


@pytest.mark.parametrize(("text", "encoding"), CASES, ids=[f"{e}-{t[:4]}" for t, e in CASES])
def test_texts_decode_exactly_to_the_original(text: str, encoding: str) -> None:
    decoded, detected = decode_text(text.encode(encoding))
    assert decoded == text
    assert "\ufffd" not in decoded
    assert codecs.lookup(detected).name  # a real codec name


@pytest.mark.parametrize("text", ["你好", "中文", "模型量化", "知识库", "北京", "测试文件", "我们的文档"])
@pytest.mark.parametrize("encoding", ["gbk", "big5"])
def test_short_chinese_texts(text: str, encoding: str) -> None:
    """Two to five characters: too short for statistical detectors, the frequency tie-break decides."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("gbk") if encoding == "big5" else text.encode("big5")
    decoded, _ = decode_text(data)
    assert decoded == text


@pytest.mark.parametrize(
    ("text", "encoding"), [("こんにちは", "shift_jis"), ("日本語", "shift_jis"), ("한국어", "euc_kr")]
)
def test_short_japanese_and_korean_texts(text: str, encoding: str) -> None:
    assert decode_text(text.encode(encoding))[0] == text


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, len(CHINESE_TEXT) - 1), length=st.integers(4, 60))
def test_any_stretch_of_real_chinese_text_in_gbk_decodes_exactly(start: int, length: int) -> None:
    text = CHINESE_TEXT[start : start + length]
    assert decode_text(("Note: " + text).encode("gbk"))[0] == "Note: " + text


def test_non_ascii_text_late_in_the_file_is_detected() -> None:
    text = "plain ascii line\n" * 5000 + CHINESE_TEXT
    decoded, encoding = decode_text(text.encode("gbk"))
    assert decoded == text and encoding == "gb18030"


def test_utf16_without_bom_for_mostly_ascii_text() -> None:
    text = "Hello, world. This is UTF-16 without a byte order mark. 你好"
    assert decode_text(text.encode("utf-16-le")) == (text, "utf-16-le")
    assert decode_text(text.encode("utf-16-be")) == (text, "utf-16-be")


def test_bom_is_not_part_of_the_text() -> None:
    assert decode_text(codecs.BOM_UTF8 + b"abc") == ("abc", "utf-8-sig")
    assert decode_text("abc".encode("utf-16"))[0] == "abc"


def test_damaged_utf8_keeps_its_text_and_marks_only_the_broken_bytes() -> None:
    data = CHINESE_TEXT.encode() + b"\xe4\xbd"  # a character cut off at the end
    decoded, encoding = decode_text(data)
    assert encoding == "utf-8"
    assert decoded == CHINESE_TEXT + "\ufffd"


def test_a_few_latin1_accents_are_not_taken_for_broken_utf8() -> None:
    data = "Café au lait, crème brûlée.".encode("cp1252")
    assert decode_text(data) == ("Café au lait, crème brûlée.", "cp1252")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"text with a NUL\x00 byte", "NUL"),
        (os.urandom(4096) + b"\x00", "NUL"),
        (bytes(range(1, 32)) * 20, "control"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL"),
    ],
)
def test_binary_data_is_rejected(data: bytes, reason: str) -> None:
    with pytest.raises(DocumentError) as caught:
        decode_text(data)
    assert caught.value.kind == "binary"
    assert reason in caught.value.message
    assert caught.value.hint


def test_detection_on_a_file_start_tolerates_a_character_cut_at_the_end() -> None:
    data = CHINESE_TEXT.encode("utf-8")
    assert detect_encoding(data[:-1], complete=False) == "utf-8"
    gbk = CHINESE_TEXT.encode("gbk")
    assert detect_encoding(gbk[:-1], complete=False) == "gb18030"


def test_empty_data_decodes_to_empty_text() -> None:
    assert decode_text(b"") == ("", "utf-8")
