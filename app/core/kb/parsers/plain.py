"""Reading text files of any size and encoding; the parser for plain text (txt, json, yaml, log, ...)."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from app.core.kb.documents import ParsedDocument, Section
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.sections import build_page
from app.core.kb.text_encodings import detect_encoding, is_wide_encoding

# Large files are decoded block by block once the first block has fixed the encoding.
BLOCK_BYTES: Final = 8 * 1024 * 1024
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
