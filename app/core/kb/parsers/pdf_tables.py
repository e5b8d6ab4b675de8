"""Tables in PDF pages (pdfplumber): each table as rows that name their columns, and the page's
other text without the table's loose words."""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.kb.parsers.table import rows_as_lines

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PageTables:
    """The tables found on one page: their rows as text, and the page's text outside them."""

    rows: tuple[str, ...]
    outside_text: str


def page_tables(path: Path, page_indexes: Sequence[int], notes: list[str]) -> dict[int, PageTables]:
    """Tables on the pages ``page_indexes`` (0-based), by page; pages without a table are left out.

    A table must have at least two rows and two columns. A failure costs the table structure of
    that page (its text is still indexed as plain text) and adds a note.
    """
    if not page_indexes:
        return {}
    try:
        import pdfplumber
    except ImportError:
        notes.append("tables read as plain text: the pdfplumber package is not installed")
        return {}
    from app.core.kb.parsers.pdf import clean_page_text

    found: dict[int, PageTables] = {}
    try:
        document = pdfplumber.open(str(path))
    except Exception as error:  # pypdf read it; pdfminer may still choke: keep the plain text
        notes.append(f"tables read as plain text: pdfplumber could not open the file ({type(error).__name__})")
        return {}
    with document:
        for index in page_indexes:
            page = document.pages[index]
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
