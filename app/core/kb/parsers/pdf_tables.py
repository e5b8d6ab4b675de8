"""Tables in PDF pages (pdfplumber): each table as rows that name their columns, and the page's
other text without the table's loose words."""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.core.kb.parsers.table import rows_as_lines

log = logging.getLogger(__name__)

PAGES_DISAGREE: Final = "its page count is inconsistent"
"""pdfplumber and the text's reader (pypdf) count different pages: tables cannot be matched to pages."""
TABLES_HINT: Final = "Re-save or re-export the PDF to keep its tables, then add it again."


@dataclass(frozen=True)
class PageTables:
    """The tables found on one page: their rows as text, and the page's text outside them."""

    rows: tuple[str, ...]
    outside_text: str


def page_tables(
    path: Path, page_indexes: Sequence[int], notes: list[str], page_count: int | None = None
) -> dict[int, PageTables]:
    """Tables on the pages ``page_indexes`` (0-based), by page; pages without a table are left out.

    A table must have at least two rows and two columns. A failure costs the table structure of
    that page (its text is still indexed as plain text) and adds a note. ``page_count`` is the
    number of pages the text was read from: when pdfplumber counts otherwise (or has no page at an
    index), its pages cannot be matched to the text's, so no table is read and a note says why.
    """
    if not page_indexes:
        return {}
    try:
        import pdfplumber
    except ImportError:
        notes.append("tables read as plain text: the pdfplumber package is not installed")
        return {}

    with path.open("rb") as stream:  # ours to close, whatever pdfplumber fails at
        try:
            document = pdfplumber.open(stream)
        except Exception as error:  # pypdf read it; pdfminer may still choke: keep the plain text
            notes.append(damaged_note(_describe(error)))
            return {}
        try:
            return _read_tables(document, path, page_indexes, page_count, notes)
        finally:
            try:
                document.close()
            except Exception:  # its page list is what failed: nothing more to release
                log.debug("closing pdfplumber's view of %s failed", path, exc_info=True)


def damaged_note(reason: str) -> str:
    """The note for a PDF whose tables were not read because its structure is damaged (its text was)."""
    return f"tables not read: this PDF's structure is damaged ({reason}); its text was read. {TABLES_HINT}"


def _read_tables(
    document: Any, path: Path, page_indexes: Sequence[int], page_count: int | None, notes: list[str]
) -> dict[int, PageTables]:
    from app.core.kb.parsers.pdf import clean_page_text

    try:
        pages = document.pages
    except Exception as error:  # pdfminer could not follow the page tree
        notes.append(damaged_note(_describe(error)))
        return {}
    if (page_count is not None and len(pages) != page_count) or max(page_indexes) >= len(pages):
        log.info("tables of %s not read: pdfplumber counts %d pages, the text has %s", path, len(pages),
                 page_count if page_count is not None else f"page {max(page_indexes) + 1}")
        notes.append(damaged_note(PAGES_DISAGREE))
        return {}
    found: dict[int, PageTables] = {}
    for index in page_indexes:
        page = pages[index]
        try:
            tables = [table for table in page.find_tables() if _is_table(table)]
            if tables:
                rows = tuple(text for text in (_table_rows(table) for table in tables) if text)
                boxes = [table.bbox for table in tables]
                outside = page.filter(functools.partial(_outside_all, boxes=boxes))
                found[index] = PageTables(rows, clean_page_text(outside.extract_text() or ""))
        except Exception as error:  # a malformed page: its text is still there
            log.info("tables of page %d of %s not read: %s", index + 1, path, error)
            notes.append(f"tables on page {index + 1} read as plain text ({type(error).__name__})")
        finally:
            page.close()
    return found


def _describe(error: Exception) -> str:
    text = " ".join(str(error).split())[:120]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _outside_all(item: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    """False for a character whose middle lies in one of the tables (other objects are kept)."""
    if item.get("object_type") != "char":
        return True
    x = (float(item["x0"]) + float(item["x1"])) / 2
    y = (float(item["top"]) + float(item["bottom"])) / 2
    return not any(left <= x <= right and top <= y <= bottom for left, top, right, bottom in boxes)


def _is_table(table: Any) -> bool:
    rows = table.extract()
    return len(rows) >= 2 and max((len(row) for row in rows), default=0) >= 2


def _table_rows(table: Any) -> str:
    cells = [[" ".join((cell or "").split()) for cell in row] for row in table.extract()]
    return rows_as_lines(iter(cells))
