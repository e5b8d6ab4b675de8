"""Reading a document as a stream of parts, each committed on its own (a big file never waits whole in memory).

Plain text streams in parts of a few hundred kilobytes (see ``plain.iter_text_parts``), a PDF in runs of
pages (a scanned page alone: see ``pdf.iter_pdf_parts``); every other format is read whole, as one part.
A part's ``resume_after`` says where reading continues, so a reading that stopped (a crash, a cancel, a
page that took too long) resumes after the last part committed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.kb.documents import DocumentPart, ParsedDocument
from app.core.kb.parsers import check_file, parse_document
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.formats import format_for_path
from app.core.kb.parsers.plain import PART_BYTES, iter_text_parts

if TYPE_CHECKING:
    from app.core.kb.ocr import OcrStep

PageStarted = Callable[[int, int, "str | None"], None]
"""Told (page number, pages in the document, where reading resumes if this page is skipped) before a slow
page (one recognised by OCR) is read."""


def whole_part(document: ParsedDocument) -> DocumentPart:
    """A document read whole, as its only part."""
    return DocumentPart(document.format, document.title, document.pages, None, document.notes, document.encoding)


def document_parts(
    path: Path, resume: str | None = None, ocr: OcrStep | None = None, part_bytes: int = PART_BYTES
) -> Iterator[DocumentPart]:
    """The parts of ``path`` from ``resume`` (None: the start); raises DocumentError like parse_document.
    ``part_bytes``: the size of a plain-text part."""
    path = Path(path)
    format_name = format_for_path(path)
    try:
        if format_name == "text":
            check_file(path)
            yield from iter_text_parts(path, format_name, resume, part_bytes=part_bytes)
            return
        if format_name == "pdf":
            check_file(path)
            from app.core.kb.parsers.pdf import iter_pdf_parts

            yield from iter_pdf_parts(path, format_name, ocr, resume)
            return
    except DocumentError as error:
        raise error.with_path(path) from None
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error
    yield whole_part(parse_document(path, ocr))


def read_parts(
    path: Path, resume: str | None = None, page_started: PageStarted | None = None, part_bytes: int = PART_BYTES
) -> Iterator[DocumentPart]:
    """The reader process's streaming reader without OCR (scanned pages and pictures are not read)."""
    return document_parts(path, resume, None, part_bytes)

