"""DOCX (python-docx): Heading/Title styles become heading paths, tables become rows naming their columns."""

from __future__ import annotations

import errno
import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

from app.core.kb.documents import ParsedDocument
from app.core.kb.parsers.archive_limits import unpacking_error
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.sections import HeadingStack, SectionCollector
from app.core.kb.parsers.table import rows_as_lines

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.table import Table
    from docx.text.paragraph import Paragraph

_ZIP_MAGIC: Final = b"PK"
_OLE_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # password-protected OOXML or a legacy .doc
_HEADING_STYLE: Final = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_RESAVE_HINT: Final = "Open and re-save it in Word or LibreOffice, then add it again."


def parse_docx(path: Path, format_name: str) -> ParsedDocument:
    """Parse a Word document: paragraphs, headings and tables in document order, on one page."""
    from docx.table import Table

    document = _open(path)
    collector = SectionCollector()
    headings = HeadingStack()
    title = None
    try:
        core_title = (document.core_properties.title or "").strip()
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                collector.add(_table_text(block), "table", headings.path)
                continue
            paragraph = block
            text = paragraph.text.strip()
            level = _heading_level(paragraph)
            if level is not None and text:
                collector.add(text, "heading", headings.enter(level, text))
                if title is None and level <= 1:
                    title = text
            else:
                # A blank line between paragraphs lets the chunker see paragraph breaks.
                collector.add_line(paragraph.text + "\n", headings.path)
    except Exception as error:
        raise _corrupt(path, error) from error
    page = collector.page()
    if not page.text:
        raise DocumentError.for_file(path, "empty", "this Word document contains no text", None)
    return ParsedDocument(path, format_name, core_title or title or path.stem, (page,), None, ())


def _open(path: Path) -> WordDocument:
    try:
        with path.open("rb") as stream:
            magic = stream.read(len(_OLE_MAGIC))
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error
    if not magic:
        raise DocumentError.for_file(path, "empty", "the file is empty (0 bytes)", None)
    if magic == _OLE_MAGIC:
        raise DocumentError.for_file(
            path, "encrypted",
            "this Word file is password-protected (or an old .doc file renamed to .docx)",
            "Open it in Word, remove the password (or save as .docx), then add it again.",
        )
    if not magic.startswith(_ZIP_MAGIC):
        raise _corrupt(path, None)
    import docx

    try:
        return docx.Document(str(path))
    except NotImplementedError as error:  # zipfile: a compression method or ZIP version it cannot unpack
        raise unpacking_error(path, error) from error
    except OSError as error:
        if error.errno == errno.EINVAL:  # zipfile seeked before the file's start: its offsets are damaged
            raise DocumentError.for_file(
                path, "corrupt", "this Word (.docx) file is damaged: its list of parts points outside the file",
                _RESAVE_HINT,
            ) from error
        raise DocumentError.from_os_error(path, error) from error
    except Exception as error:
        raise _corrupt(path, error) from error


def _heading_level(paragraph: Paragraph) -> int | None:
    """1-9 for "Heading N" styles, 0 for "Title"; None for body text."""
    style = paragraph.style
    name = (style.name or "") if style is not None else ""
    if name.lower() == "title":
        return 0
    match = _HEADING_STYLE.match(name)
    return int(match.group(1)) if match else None


def _table_text(table: Table) -> str:
    """The header row, then each row as ``header: value`` pairs (see :func:`rows_as_lines`), so a
    row read alone still names its columns; a merged cell repeated across the merge shows once."""
    rows = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if previous is not None and cell._tc is previous:
                continue
            previous = cell._tc
            cells.append(" ".join(cell.text.split()))
        rows.append(cells)
    return rows_as_lines(iter(rows))


def _corrupt(path: Path, error: Exception | None) -> DocumentError:
    detail = f" ({type(error).__name__})" if error is not None else ""
    return DocumentError.for_file(
        path, "corrupt", f"this is not a valid Word (.docx) file{detail}",
        _RESAVE_HINT,
    )
