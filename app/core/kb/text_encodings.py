"""Turning a text file's bytes into text: BOMs, strict UTF-8, then the most plausible legacy encoding.

Legacy CJK encodings overlap so much that a short Chinese text in GBK also decodes "cleanly" as
Big5, EUC-KR or Shift-JIS; so does a Big5 text as GBK. Every candidate that decodes without
error is therefore scored on how much the result looks like real text (common Han characters,
kana, common Hangul syllables and CJK punctuation score; control characters, private-use
characters, half-width katakana and accented-letter soup score against), and the best wins;
close calls go to the earlier candidate (GB18030, Big5, Shift-JIS, EUC-KR, EUC-JP, cp1252, cp1251).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from typing import Final

from app.core.kb.parsers.common_characters import CJK_PUNCTUATION, COMMON_HAN, COMMON_HANGUL
from app.core.kb.parsers.errors import DocumentError

_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_LEGACY_CANDIDATES: Final = ("gb18030", "big5", "shift_jis", "euc_kr", "euc_jp", "cp1252", "cp1251")
_WIDE_ENCODINGS: Final = frozenset({"utf-16", "utf-32", "utf-16-le", "utf-16-be"})
# Bytes that never appear in text: C0 controls except tab, newlines, form feed and escape; DEL.
_CONTROL_BYTES: Final = bytes([*range(1, 9), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_NOT_CONTROL: Final = bytes(sorted(set(range(256)) - set(_CONTROL_BYTES)))
_MAX_CONTROL_RATIO: Final = 0.02
_SAMPLE_BYTES: Final = 16 * 1024
_SCORE_CHARACTERS: Final = 1024
_NON_ASCII: Final = re.compile(rb"[\x80-\xff]")
_HIGH_BYTES: Final = bytes(range(0x80, 0x100))
_REPLACEMENT_UTF8: Final = "\ufffd".encode()
# Damaged UTF-8: at least this many valid multi-byte characters per invalid byte.
_DAMAGED_UTF8_VALID_PER_INVALID: Final = 10
_MIN_PLAUSIBILITY: Final = -1.0
# Evidence per character (see _character_evidence): a common Han character or Hangul syllable
# scores 2; a rarer one of these:
_OTHER_HAN: Final = 0.75
_OTHER_HANGUL: Final = 0.7
_SMALL_KANA: Final = frozenset("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ")
_LANGUAGE_OF_ENCODING: Final = {
    "gb18030": "zh", "big5": "zh", "shift_jis": "ja", "euc_jp": "ja", "euc_kr": "ko", "cp1252": "latin",
    "cp1251": "cyrillic",
}
# An earlier candidate wins unless a later one scores this much more (short texts are ambiguous).
_PREFERENCE_MARGIN: Final = 0.1
# UTF-8 that decodes is trusted, unless it is this short and reads as noise.
_SHORT_UTF8_BYTES: Final = 32


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode a whole text file's bytes; returns (text, Python codec name).

    Raises DocumentError(kind="binary") for data that is not text. Text contains U+FFFD only
    where a file that is otherwise valid UTF-8 (or carries a BOM) has a few broken bytes.
    """
    encoding = detect_encoding(data, complete=True)
    return data.decode(encoding, errors="replace"), encoding


def detect_encoding(data: bytes, *, complete: bool = True) -> str:
    """The codec that decodes ``data`` best; ``complete=False`` when ``data`` is only the file's start.

    Raises DocumentError(kind="binary") for data that is not text.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    sample = data[:_SAMPLE_BYTES]
    wide = _bomless_utf16(sample)
    if wide is not None:
        if _decodes(data, wide, complete=complete):
            return wide
        raise _binary("it looks like UTF-16 text but is not valid UTF-16")
    if b"\x00" in data:
        raise _binary("it contains NUL bytes, which text files never do")
    if sample and len(sample.translate(None, _NOT_CONTROL)) > _MAX_CONTROL_RATIO * len(sample):
        raise _binary("too many of its bytes are control characters")
    if _decodes(data, "utf-8", complete=complete):
        return _utf8_unless_noise(data, complete=complete)
    if _is_damaged_utf8(data):
        return "utf-8"
    return _best_legacy_encoding(data, complete=complete)


def is_wide_encoding(encoding: str) -> bool:
    """True for UTF-16/UTF-32, whose text legitimately contains NUL bytes."""
    return encoding in _WIDE_ENCODINGS


def _binary(reason: str) -> DocumentError:
    return DocumentError(
        f"this is not a text file: {reason}",
        "Only text documents can be added; if it is a document, save it as text, PDF or DOCX.",
        kind="binary",
    )


def _decodes(data: bytes, encoding: str, *, complete: bool) -> bool:
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    try:
        decoder.decode(data, final=complete)
    except UnicodeDecodeError:
        return False
    return True


def _bomless_utf16(sample: bytes) -> str | None:
    """'utf-16-le'/'utf-16-be' when NUL bytes sit in every other position (ASCII-heavy UTF-16)."""
    head = sample[:4096]
    pairs = len(head) // 2
    if pairs < 2 or b"\x00" not in head:
        return None
    zeros_even = head[0 : pairs * 2 : 2].count(0)
    zeros_odd = head[1 : pairs * 2 : 2].count(0)
    if zeros_odd > 0.3 * pairs and zeros_even < 0.05 * pairs:
        return "utf-16-le"
    if zeros_even > 0.3 * pairs and zeros_odd < 0.05 * pairs:
        return "utf-16-be"
    return None


def _is_damaged_utf8(data: bytes) -> bool:
    """Valid UTF-8 except for a few bytes (a truncated or corrupted file), not a legacy encoding."""
    text = data.decode("utf-8", errors="replace")
    invalid = text.count("\ufffd") - data.count(_REPLACEMENT_UTF8)
    if invalid <= 0:
        return False
    ascii_bytes = len(data.translate(None, _HIGH_BYTES))
    valid_multibyte = len(text) - text.count("\ufffd") - ascii_bytes
    return valid_multibyte >= 4 and valid_multibyte >= _DAMAGED_UTF8_VALID_PER_INVALID * invalid


def _utf8_unless_noise(data: bytes, *, complete: bool) -> str:
    """'utf-8', except for a few non-ASCII bytes that read as noise in UTF-8 and as text in a legacy
    encoding (two GBK characters can happen to be valid UTF-8).
    """
    head = data[: _SHORT_UTF8_BYTES * 4]
    non_ascii = len(head) - len(head.translate(None, _HIGH_BYTES))
    if non_ascii == 0 or non_ascii >= _SHORT_UTF8_BYTES:
        return "utf-8"
    utf8_score = _plausibility(data.decode("utf-8", errors="ignore"))
    if utf8_score > 0:
        return "utf-8"
    try:
        legacy = _best_legacy_encoding(data, complete=complete)
    except DocumentError:
        return "utf-8"
    legacy_score = _plausibility(data.decode(legacy, errors="ignore"), legacy)
    return legacy if legacy_score > utf8_score + _PREFERENCE_MARGIN else "utf-8"


def _best_legacy_encoding(data: bytes, *, complete: bool) -> str:
    first_non_ascii = _NON_ASCII.search(data)
    start = max(0, (first_non_ascii.start() if first_non_ascii else 0) - 64)
    sample = data[start : start + _SAMPLE_BYTES]
    candidates = [name for name in _LEGACY_CANDIDATES if _decodes(data, name, complete=complete)]
    suggested = _charset_normalizer_guess(sample)
    if suggested and suggested not in candidates and _decodes(data, suggested, complete=complete):
        candidates.append(suggested)
    candidates.append("latin-1")  # decodes anything; scores badly when the text is not Latin-1
    scores = []
    for name in candidates:
        # The sample starts a little before the first non-ASCII byte; a cut multibyte
        # character at either edge must not count against an encoding.
        text = codecs.getincrementaldecoder(name)(errors="ignore").decode(sample, final=False)
        scores.append((_plausibility(text, name), name))
    best_score = max(score for score, _ in scores)
    if best_score < _MIN_PLAUSIBILITY:
        raise _binary("its bytes are not text in any encoding UniDesk knows")
    return next(name for score, name in scores if score >= best_score - _PREFERENCE_MARGIN)


def _charset_normalizer_guess(sample: bytes) -> str | None:
    try:
        import charset_normalizer
    except ImportError:
        return None
    try:
        best = charset_normalizer.from_bytes(sample).best()
    except Exception:
        return None
    if best is None:
        return None
    try:
        return codecs.lookup(best.encoding).name
    except LookupError:
        return None


def _plausibility(text: str, encoding: str = "utf-8") -> float:
    """How much ``text`` (decoded with ``encoding``) looks like real text: evidence per character,
    averaged with CJK characters counting double.
    """
    language = _LANGUAGE_OF_ENCODING.get(encoding, "")
    total = 0.0
    weight = 0
    limit = min(len(text), _SCORE_CHARACTERS)
    for index in range(limit):
        code = ord(text[index])
        if code < 0x80:
            continue
        weight += 2 if code >= 0x800 else 1
        total += _character_evidence(text, index, code, language)
    return total / weight if weight else 0.0


def _character_evidence(text: str, index: int, code: int, language: str) -> float:
    """Evidence that one character belongs to real text in ``language`` ("zh", "ja", "ko" or "")."""
    character = text[index]
    if 0x3040 <= code <= 0x30FF:  # kana: the mark of Japanese, rare elsewhere
        if character in _SMALL_KANA and not (index and "\u3040" <= text[index - 1] <= "\u30ff"):
            return -1.0  # a small kana only follows another kana
        return 2.0 if language == "ja" else 0.5 if language else 1.5
    if 0x4E00 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7A3:
        evidence = 2.0 if character_is_common_cjk(character) else (
            _OTHER_HAN if code <= 0x9FFF else _OTHER_HANGUL
        )
        return evidence / 2 if language == "ko" and code <= 0x9FFF else evidence  # few hanja in Korean
    if character in CJK_PUNCTUATION:
        return 2.0
    if 0xFF01 <= code <= 0xFF5E:  # full-width ASCII
        return 1.0
    if 0xFF61 <= code <= 0xFF9F or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF:
        return -1.0  # half-width katakana, rare and compatibility ideographs
    category = unicodedata.category(character)
    if category in ("Cc", "Co", "Cn", "Cs") or code == 0xFFFD:
        return -4.0
    if category.startswith("M") and not (index and text[index - 1].isalpha()):
        return -1.0  # a combining mark with nothing to combine with
    if not category.startswith("L"):
        return 0.0
    return _letter_evidence(text, index, code)


def character_is_common_cjk(character: str) -> bool:
    """True for one of the few thousand Han characters and Hangul syllables that make up most real text."""
    return character in COMMON_HAN or character in COMMON_HANGUL


def _letter_evidence(text: str, index: int, code: int) -> float:
    """Accented Latin letters belong next to ASCII letters, other alphabets among their own letters;
    capitals belong at the start of words (or in all-capital words); Cyrillic beyond Russian's is rare.
    """
    before = text[index - 1] if index > 0 else " "
    after = text[index + 1] if index + 1 < len(text) else " "
    if text[index].isupper() and before.isalpha() and (before.islower() or after.islower()):
        return -1.0  # a capital inside a lower-case word: decoding noise
    next_to_ascii_letter = (before.isascii() and before.isalpha()) or (after.isascii() and after.isalpha())
    if 0xC0 <= code <= 0x17F or 0x1E00 <= code <= 0x1EFF:  # Latin-1, Latin Extended-A, Vietnamese
        return 1.0 if next_to_ascii_letter else -0.5
    if code < 0x300:
        return -0.5  # rare Latin letters (ƒ, ǅ, ...), IPA, modifier letters
    if 0x400 <= code <= 0x4FF and not (0x410 <= code <= 0x44F or code in (0x401, 0x451)):
        return 0.0
    block = code >> 7
    same_script = all((ord(c) >> 7) == block or (c.isascii() and not c.isalpha()) for c in (before, after))
    return 1.0 if same_script else -0.5
