"""Reading documents of every supported format into ParsedDocument; parse_document picks the parser."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from app.core.kb.documents import ParsedDocument
from app.core.kb.parsers.archive_limits import check_archive
from app.core.kb.parsers.errors import DOCUMENT_ERROR_KINDS, DocumentError
from app.core.kb.parsers.formats import (
    UNSUPPORTED_DOCUMENT_HINTS,
    extension_of,
    format_for_path,
)

if TYPE_CHECKING:
    from app.core.kb.ocr import OcrStep

__all__ = ["DOCUMENT_ERROR_KINDS", "DocumentError", "parse_document"]

Parser = Callable[[Path, str], ParsedDocument]

SUPPORTED_HINT: Final = (
    "Supported: text, Markdown, reStructuredText, PDF, DOCX, HTML, CSV, source code and pictures of text."
)

# Format -> (module in this package, parser function). Imported on first use: this package's
# errors and formats are imported by app.core.kb.text_encodings, which the parsers themselves import.
_PARSERS: Final = {
    "text": ("plain", "parse_plain_text"),
    "markdown": ("markdown", "parse_markdown"),
    "rst": ("rst", "parse_rst"),
    "pdf": ("pdf", "parse_pdf"),
    "docx": ("word", "parse_docx"),
    "html": ("web", "parse_html"),
    "csv": ("table", "parse_table"),
    "tsv": ("table", "parse_table"),
    "code": ("source", "parse_source"),
    "image": ("image", "parse_image"),
}
# Formats whose parser reads scanned pages or pictures when given an OcrStep.
_OCR_FORMATS: Final = frozenset({"pdf", "image"})


def parse_document(path: Path, ocr: OcrStep | None = None) -> ParsedDocument:
    """Read ``path`` into pages and sections, choosing the parser by extension (content for unknown ones).

    With ``ocr``, scanned PDF pages and pictures (PNG, JPEG) are recognised; without it they are not read.

    Raises DocumentError, whose ``kind`` says what is wrong: missing, empty, binary, encrypted,
    corrupt, unsupported or unreadable; its message names the file.
    """
    path = Path(path)
    format_name = format_for_path(path)
    if format_name is None:
        extension = extension_of(path)
        raise DocumentError.for_file(
            path, "unsupported", f".{extension} files are not documents UniDesk can read",
            UNSUPPORTED_DOCUMENT_HINTS.get(
                extension, SUPPORTED_HINT
            ),
        )
    try:
        check_file(path)
        if format_name == "sniff":
            return _parse_unknown_text(path)
        if format_name == "docx":
            check_archive(path)  # a zip bomb is refused before its parser unpacks anything
        if format_name in _OCR_FORMATS:
            return _ocr_parser(format_name)(path, format_name, ocr)
        return _parser(format_name)(path, format_name)
    except DocumentError as error:
        raise error.with_path(path) from None
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error


def check_file(path: Path) -> None:
    """What every reading checks first: a regular file (else the precise OS error), and not empty."""
    if not path.is_file():
        path.stat()  # raises the precise error: missing, permission denied, ...
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory", str(path))
        raise DocumentError.for_file(path, "unsupported", "this is not a regular file", None)
    if path.stat().st_size == 0:
        raise DocumentError.for_file(path, "empty", "the file is empty (0 bytes)", "There is nothing to index in it.")


def _parser(format_name: str) -> Parser:
    module_name, function_name = _PARSERS[format_name]
    module = importlib.import_module(f"{__name__}.{module_name}")
    parser: Parser = getattr(module, function_name)
    return parser


def _ocr_parser(format_name: str) -> Callable[[Path, str, OcrStep | None], ParsedDocument]:
    module_name, function_name = _PARSERS[format_name]
    module = importlib.import_module(f"{__name__}.{module_name}")
    parser: Callable[[Path, str, OcrStep | None], ParsedDocument] = getattr(module, function_name)
    return parser


def _parse_unknown_text(path: Path) -> ParsedDocument:
    """A file with an unknown extension is read as plain text when its content is text."""
    try:
        return _parser("text")(path, "text")
    except DocumentError as error:
        if error.kind != "binary":
            raise
        raise DocumentError.for_file(
            path, "unsupported", "its type is unknown and its content is not text",
            SUPPORTED_HINT,
        ) from None
