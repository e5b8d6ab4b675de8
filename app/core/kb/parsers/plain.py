"""Reading text files of any size and encoding; the parser for plain text (txt, json, yaml, log, ...)."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from app.core.kb.documents import DocumentPart, PageText, ParsedDocument, Section
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.sections import build_page
from app.core.kb.text_encodings import detect_encoding, is_wide_encoding

# Large files are decoded block by block once the first block has fixed the encoding.
BLOCK_BYTES: Final = 8 * 1024 * 1024
PART_BYTES: Final = 256 * 1024
"""A big text file streams in parts of about this many bytes (each chunked and committed on its own)."""
_REPLACEMENT: Final = "\ufffd"
_REPLACEMENT_UTF8: Final = _REPLACEMENT.encode()


@dataclass(frozen=True)
class TextFile:
    """A text file's decoded content (newlines normalised to ``\\n``) and how it was decoded."""

    text: str
    encoding: str
    notes: tuple[str, ...] = ()


def read_text_file(path: Path, *, block_bytes: int = BLOCK_BYTES) -> TextFile:
    """Read and decode ``path``; raises DocumentError for missing, empty, binary or unreadable files.

    The bytes are read and decoded ``block_bytes`` at a time, so a huge file costs about twice its
    text in memory at the peak (the decoded blocks and their join), never its bytes as well.
    """
    try:
        with path.open("rb") as stream:
            first = stream.read(block_bytes)
            if not first:
                raise _empty(path)
            complete = len(first) < block_bytes
            try:
                encoding = detect_encoding(first, complete=complete)
            except DocumentError as error:
                raise error.with_path(path) from None
            text, replaced = _decode_blocks(path, stream, first, encoding, block_bytes)
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error
    if not text.strip():
        raise _empty(path, "it contains only whitespace")
    notes: tuple[str, ...] = ()
    if replaced:
        notes = (f"{replaced} undecodable byte sequence(s) in {encoding} text were replaced with {_REPLACEMENT}",)
    return TextFile(text, encoding, notes)


def decode_bytes(path: Path, data: bytes, encoding: str) -> TextFile:
    """Decode in-memory ``data`` with a known encoding (newlines normalised, replacements noted)."""
    decoded = normalise_newlines(data.decode(encoding, errors="replace"))
    replaced = decoded.count(_REPLACEMENT) - data.count(_REPLACEMENT_UTF8)
    if not decoded.strip():
        raise _empty(path, "it contains only whitespace")
    notes = (f"{replaced} undecodable byte(s) replaced with {_REPLACEMENT}",) if replaced > 0 else ()
    return TextFile(decoded, encoding, notes)


def parse_plain_text(path: Path, format_name: str) -> ParsedDocument:
    """One section holding the whole file's text (the chunker finds its paragraphs and sentences)."""
    file = read_text_file(path)
    page = build_page(None, [Section(file.text, "text", ())])
    return ParsedDocument(path, format_name, path.stem, (page,), file.encoding, file.notes)


def normalise_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode_blocks(
    path: Path, stream: BinaryIO, first: bytes, encoding: str, block_bytes: int
) -> tuple[str, int]:
    """Decode ``first`` and the rest of ``stream``; returns the text and how many characters were replaced."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    pieces: list[str] = []
    replaced = 0
    carried_cr = False
    block = first
    while block:
        next_block = stream.read(block_bytes) if len(block) == block_bytes else b""
        if not is_wide_encoding(encoding) and b"\x00" in block:
            raise DocumentError.for_file(
                path, "binary", "this is not a text file: it contains NUL bytes, which text files never do",
                "Only text documents can be added; if it is a document, save it as text, PDF or DOCX.",
            )
        piece = decoder.decode(block, final=not next_block)
        replaced += piece.count(_REPLACEMENT) - block.count(_REPLACEMENT_UTF8)
        if carried_cr:
            piece = "\r" + piece
        carried_cr = bool(next_block) and piece.endswith("\r")
        if carried_cr:
            piece = piece[:-1]  # a "\r\n" split across blocks must become one newline
        pieces.append(normalise_newlines(piece))
        block = next_block
    text = pieces[0] if len(pieces) == 1 else "".join(pieces)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, max(replaced, 0)


def _empty(path: Path, problem: str = "the file is empty (0 bytes)") -> DocumentError:
    return DocumentError.for_file(
        path, "empty", problem, "There is nothing to index; add it again once it has content."
    )



_PART_BREAKS: Final = ("\n", "。", "！", "？", "；", "!", "?", " ", "\t")
"""Where a part may end: after a line end, a sentence end or a space (never between "\r" and "\n")."""


def iter_text_parts(
    path: Path, format_name: str, resume: str | None = None, *, part_bytes: int = PART_BYTES
) -> Iterator[DocumentPart]:
    """The file's text in parts of about ``part_bytes`` bytes, each ending at a break where one is near;
    ``resume``: a part's ``resume_after`` (reading goes on from there). Every part is decided by where it starts
    alone, so a resumed reading gives the same parts as one that never stopped. Offsets count from the start of
    the whole (newline-normalised) text, as :func:`parse_plain_text` gives it.
    """
    try:
        with path.open("rb") as stream:
            if resume is None:
                head = stream.read(part_bytes)
                if not head:
                    raise _empty(path)
                try:
                    encoding = detect_encoding(head, complete=len(head) < part_bytes)
                except DocumentError as error:
                    raise error.with_path(path) from None
                position: _TextPosition | None = _TextPosition(0, 0, encoding, _continuing_codec(encoding, head))
            else:
                position = _TextPosition.parse(resume)
            while position is not None:
                part, position = _read_part(path, stream, position, format_name, part_bytes)
                yield part
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error


@dataclass(frozen=True)
class _TextPosition:
    """Where a part starts: its byte and character offsets, how to decode from there, and (once past the
    start) the codec that decodes the rest (no byte-order mark)."""

    byte: int
    char: int
    codec: str
    continuing: str

    def resume_token(self) -> str:
        return json.dumps({"byte": self.byte, "char": self.char, "codec": self.continuing})

    @classmethod
    def parse(cls, token: str) -> _TextPosition:
        values = json.loads(token)
        return cls(int(values["byte"]), int(values["char"]), str(values["codec"]), str(values["codec"]))


def _continuing_codec(encoding: str, head: bytes) -> str:
    """The codec that decodes the text after its first bytes (a byte-order mark only starts a file)."""
    if encoding == "utf-8-sig":
        return "utf-8"
    if encoding == "utf-16":
        return "utf-16-le" if head.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
    if encoding == "utf-32":
        return "utf-32-le" if head.startswith(codecs.BOM_UTF32_LE) else "utf-32-be"
    return encoding


def _read_part(
    path: Path, stream: BinaryIO, start: _TextPosition, format_name: str, part_bytes: int
) -> tuple[DocumentPart, _TextPosition | None]:
    stream.seek(start.byte)
    block = stream.read(part_bytes)
    last = not stream.read(1)
    if not is_wide_encoding(start.codec) and b"\x00" in block:
        raise DocumentError.for_file(
            path, "binary", "this is not a text file: it contains NUL bytes, which text files never do",
            "Only text documents can be added; if it is a document, save it as text, PDF or DOCX.",
        )
    decoder = codecs.getincrementaldecoder(start.codec)(errors="replace")
    raw = decoder.decode(block, final=last)
    consumed = len(block) - (0 if last else len(decoder.getstate()[0]))
    if not last:
        cut = _part_end(raw)
        carried = raw[cut:]
        try:
            carried_bytes = len(carried.encode(start.continuing)) if _REPLACEMENT not in carried else -1
        except UnicodeError:
            carried_bytes = -1
        if carried_bytes >= 0:
            raw, consumed = raw[:cut], consumed - carried_bytes
    replaced = max(0, raw.count(_REPLACEMENT) - block[:consumed].count(_REPLACEMENT_UTF8))
    if start.byte == 0 and raw.startswith("\ufeff"):
        raw = raw[1:]
    text = normalise_newlines(raw)
    pages = (PageText(None, text, (Section(text, "text", ()),), start.char),) if text.strip() else ()
    notes = (f"{replaced} undecodable byte sequence(s) in {start.codec} text were replaced with {_REPLACEMENT} "
             f"(at byte {start.byte} or later)",) if replaced else ()
    following = None if last else _TextPosition(start.byte + consumed, start.char + len(text), start.continuing,
                                                 start.continuing)
    part = DocumentPart(format_name, path.stem, pages, None if following is None else following.resume_token(),
                        notes, start.codec)
    return part, following


def _part_end(text: str) -> int:
    """Where a part of ``text`` (not the file's last) ends: after the last break in its last quarter, else at
    its end (before a trailing "\r", whose "\n" may follow in the next part)."""
    best = max(text.rfind(mark, len(text) * 3 // 4) for mark in _PART_BREAKS)
    if best >= 0:
        return best + 1
    end = len(text) - 1 if text.endswith("\r") else len(text)
    return end or len(text)
