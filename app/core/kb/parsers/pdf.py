"""PDF: the text of each page (1-based page numbers kept), headings from the outline (bookmarks),
tables as rows (see pdf_tables), scanned pages recognised by OCR (see app.core.kb.ocr)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from app.core.kb.documents import DocumentPart, PageText, ParsedDocument, Section
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.pdf_tables import PageTables, page_tables
from app.core.kb.parsers.sections import build_page

if TYPE_CHECKING:
    from pypdf import PdfReader

    from app.core.kb.ocr import OcrStep

log = logging.getLogger(__name__)

_CONTROL_CHARACTERS: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TRAILING_SPACES: Final = re.compile(r"[ \t]+\n")
_BLANK_LINE_RUNS: Final = re.compile(r"\n{3,}")
SCANNED_PAGE_MAX_CHARACTERS: Final = 20
"""A page with less text than this (a page number, a stamp) and a picture on it is read by OCR."""
_OCR_FAILED: Final = "scanned pages not read: "
_OCR_READ: Final = "text recognised (OCR) on page(s) "
_ENCRYPTED_HINT: Final = "Remove the password (open it and print or export to a new PDF), then add that file."


PART_PAGES: Final = 16
"""Pages of a PDF read (and committed) together; a scanned page recognised by OCR is a part of its own."""


def parse_pdf(path: Path, format_name: str, ocr: OcrStep | None = None) -> ParsedDocument:
    """Parse a PDF page by page: tables become rows, a page without a text layer is recognised with
    ``ocr`` (when given); a page whose text cannot be extracted is skipped with a note."""
    pages: list[PageText] = []
    notes: list[str] = []
    title = path.stem
    for part in iter_pdf_parts(path, format_name, ocr):
        pages.extend(part.pages)
        notes.extend(part.notes)
        title = part.title
    recognised = [note.removeprefix(_OCR_READ) for note in notes if note.startswith(_OCR_READ)]
    if recognised:  # one note for the whole document
        notes = [note for note in notes if not note.startswith(_OCR_READ)]
        notes.append(f"{_OCR_READ}{_page_list([int(number) for number in recognised])}")
    return ParsedDocument(path, format_name, title, tuple(pages), None, tuple(dict.fromkeys(notes)))


def iter_pdf_parts(
    path: Path, format_name: str, ocr: OcrStep | None = None, resume: str | None = None,
) -> Iterator[DocumentPart]:
    """The PDF in parts of up to PART_PAGES pages, a scanned page (read by ``ocr``) alone; ``resume``: a part's
    ``resume_after`` (the index of the next page). OCR progress goes to ``ocr.report`` (pages recognised so far
    of those this reading will recognise) and ``ocr.page_started``."""
    reader = _open(path)
    outline = _outline_by_page(reader)
    title = _title(reader) or path.stem
    try:
        page_count = len(reader.pages)
    except Exception as error:
        raise _corrupt(path, error) from error
    first = int(resume) if resume else 0
    heading_path: tuple[str, ...] = ()
    for index in sorted(outline):
        if index < first:
            heading_path = outline[index]
    texts: dict[int, str] = {}
    pending_notes: list[str] = []
    failures: list[str] = []
    recognised_done = pictured_total = yielded_pages = 0
    any_text = False
    group: list[int] = []

    def flush(next_index: int) -> DocumentPart:
        nonlocal heading_path, yielded_pages
        notes = list(pending_notes)
        pending_notes.clear()
        tables = page_tables(path, [index for index in group if texts.get(index)], notes, page_count)
        pages: list[PageText] = []
        for index in group:
            heading_path = outline.get(index, heading_path)
            sections = _page_sections(texts.pop(index, ""), tables.get(index), None, heading_path)
            if sections:
                pages.append(build_page(index + 1, sections))
        group.clear()
        yielded_pages += len(pages)
        return DocumentPart(format_name, title, tuple(pages), str(next_index) if next_index < page_count else None,
                            tuple(notes))

    for window in range(first, page_count, PART_PAGES):  # pages are extracted a window at a time
        extracted = _extract_texts(reader, path, range(window, min(window + PART_PAGES, page_count)), pending_notes)
        any_text = any_text or bool(extracted)
        scanned = [index for index, text in extracted.items() if len(text) < SCANNED_PAGE_MAX_CHARACTERS]
        pictured = _pictured(path, scanned, pending_notes) if scanned and ocr is not None else []
        pictured_total += len(pictured)
        if pictured and ocr is not None and recognised_done == 0:
            ocr.report(path, 0, pictured_total)
        for index in range(window, min(window + PART_PAGES, page_count)):
            if index in pictured and ocr is not None:
                if group:
                    yield flush(index)
                if ocr.cancelled:
                    return
                ocr.started(path, index + 1, page_count, str(index + 1) if index + 1 < page_count else None)
                notes = list(pending_notes)
                pending_notes.clear()
                recognized = _recognize_page(path, index, ocr, notes)
                failures.extend(note for note in notes if note.startswith(_OCR_FAILED))
                recognised_done += 1
                ocr.report(path, recognised_done, pictured_total)
                heading_path = outline.get(index, heading_path)
                sections = _page_sections(extracted.get(index, ""), None, recognized, heading_path)
                if recognized and recognized.strip():
                    notes.append(f"{_OCR_READ}{index + 1}")
                pages = (build_page(index + 1, sections),) if sections else ()
                yielded_pages += len(pages)
                yield DocumentPart(format_name, title, pages, str(index + 1) if index + 1 < page_count else None,
                                   tuple(notes))
                continue
            if index in extracted:
                texts[index] = extracted[index]
            group.append(index)
            if len(group) >= PART_PAGES:
                yield flush(index + 1)
    if group or pending_notes or first == page_count:
        yield flush(page_count)
    if yielded_pages == 0 and first == 0:
        _raise_nothing_read(path, page_count, any_text, ocr, failures)


def _extract_texts(reader: PdfReader, path: Path, indexes: range, notes: list[str]) -> dict[int, str]:
    """The text layer of each page in ``indexes`` (0-based), cleaned; a page that fails is left out, with a note."""
    texts: dict[int, str] = {}
    for index in indexes:
        try:
            raw = reader.pages[index].extract_text() or ""
        except Exception as error:
            if _needs_crypto_library(error):
                raise _crypto_library_missing(path) from error
            notes.append(f"page {index + 1} skipped: its text could not be extracted ({_describe(error)})")
            continue
        texts[index] = clean_page_text(raw)
    return texts


def _raise_nothing_read(path: Path, page_count: int, any_text: bool, ocr: OcrStep | None, failures: list[str]) -> None:
    """The error for a PDF of which no page gave any text."""
    if page_count and not any_text:
        raise DocumentError.for_file(
            path, "corrupt", "no page of this PDF could be read", "Re-save or re-export the PDF, then retry."
        )
    if ocr is None:
        raise DocumentError.for_file(
            path, "empty", "this PDF has no text layer (scanned pages?)",
            "Turn on text recognition (kb.ocr) in Settings, or run OCR on it and add the result.",
        )
    if failures:
        raise DocumentError.for_file(path, "unreadable", failures[0], None)
    raise DocumentError.for_file(
        path, "empty", "this PDF has no text layer and text recognition found no text in it", None
    )


def _page_sections(
    text: str, tables: PageTables | None, recognized: str | None, heading_path: tuple[str, ...]
) -> list[Section]:
    """A page's sections: its text (outside tables when it has any), its table rows, what OCR read."""
    sections: list[Section] = []
    body = tables.outside_text if tables is not None else text
    if recognized is not None and len(recognized.strip()) > len(body.strip()):
        body = clean_page_text(recognized)
    if body:
        sections.append(Section(body, "text", heading_path))
    if tables is not None:
        sections.extend(Section(rows, "table", heading_path) for rows in tables.rows)
    return sections


def _pictured(path: Path, scanned: list[int], notes: list[str]) -> list[int]:
    """Those of the ``scanned`` pages that show a picture (OCR candidates); a failure costs them, with a note."""
    from app.core.kb.ocr import pages_with_images

    try:
        return pages_with_images(path, scanned)
    except Exception as error:  # pdfium failed: the text layer is still indexed
        log.warning("looking for pictures in %s failed", path, exc_info=True)
        notes.append(f"{_OCR_FAILED}text recognition failed ({_describe(error)})")
        return []


def _recognize_page(path: Path, index: int, ocr: OcrStep, notes: list[str]) -> str | None:
    """OCR of one page (0-based); a failure costs the page, with a note."""
    from app.core.kb.ocr import OcrUnavailableError, recognize_pdf_page

    try:
        return recognize_pdf_page(path, index, ocr)
    except OcrUnavailableError as error:
        notes.append(f"{_OCR_FAILED}{error}")
    except Exception as error:  # pdfium or the OCR model failed: the text layer is still indexed
        log.warning("OCR of page %d of %s failed", index + 1, path, exc_info=True)
        notes.append(f"{_OCR_FAILED}text recognition failed ({_describe(error)})")
    return None


def _page_list(numbers: list[int]) -> str:
    shown = ", ".join(str(number) for number in numbers[:20])
    return shown + (f" and {len(numbers) - 20} more" if len(numbers) > 20 else "")


def clean_page_text(raw: str) -> str:
    """Normalise extracted page text: newlines, no control characters, at most one blank line in a row."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL_CHARACTERS.sub("", text)
    text = _TRAILING_SPACES.sub("\n", text)
    return _BLANK_LINE_RUNS.sub("\n\n", text).strip()


def _open(path: Path) -> PdfReader:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(path)
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error
    except DependencyError as error:
        raise _crypto_library_missing(path) from error
    except Exception as error:
        raise _corrupt(path, error) from error
    if reader.is_encrypted:  # pypdf has already tried the empty password, which many PDFs use
        try:
            decrypted = reader.decrypt("")
        except DependencyError as error:
            raise _crypto_library_missing(path) from error
        except Exception as error:
            raise _corrupt(path, error) from error
        if decrypted == 0:  # PasswordType.NOT_DECRYPTED
            raise DocumentError.for_file(path, "encrypted", "this PDF is protected by a password", _ENCRYPTED_HINT)
    return reader


def _outline_by_page(reader: PdfReader) -> dict[int, tuple[str, ...]]:
    """Page index -> the bookmark path in force from that page on (empty when there is no outline)."""
    starts: list[tuple[int, int, tuple[str, ...]]] = []

    def walk(items: list[Any], parents: tuple[str, ...]) -> None:
        previous: tuple[str, ...] | None = None
        for item in items:
            if isinstance(item, list):
                walk(item, previous if previous is not None else parents)
                continue
            title = str(getattr(item, "title", "") or "").strip()
            previous = (*parents, title) if title else parents
            page = reader.get_destination_page_number(item)
            if page is not None and page >= 0:
                starts.append((page, len(starts), previous))

    try:
        walk(list(reader.outline), ())
    except Exception:
        return {}  # a broken outline costs the headings, not the text
    by_page: dict[int, tuple[str, ...]] = {}
    for page, _, heading_path in sorted(starts):
        by_page[page] = heading_path
    return by_page


def _title(reader: PdfReader) -> str | None:
    try:
        metadata = reader.metadata
        title = metadata.title if metadata is not None else None
    except Exception:
        return None
    return str(title).strip() or None if title else None


def _needs_crypto_library(error: Exception) -> bool:
    from pypdf.errors import DependencyError

    return isinstance(error, DependencyError)


def _crypto_library_missing(path: Path) -> DocumentError:
    return DocumentError.for_file(
        path, "encrypted", "this PDF is AES-encrypted and the 'cryptography' package is not installed",
        "Install it (pip install cryptography) or remove the encryption, then retry.",
    )


def _corrupt(path: Path, error: Exception) -> DocumentError:
    return DocumentError.for_file(
        path, "corrupt", f"this PDF is damaged and cannot be read ({_describe(error)})",
        "Re-download it or re-export it from the program that made it, then retry.",
    )


def _describe(error: Exception) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text[:120]}" if text else type(error).__name__
