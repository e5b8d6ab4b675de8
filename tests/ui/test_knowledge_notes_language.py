"""What the reader noted about a document (a damaged PDF's tables, a skipped page) is shown in the window's
language, a note a line, in the documents table's tooltip and the details; unknown words stay as written."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.kb.parsers.pdf_tables import PAGES_DISAGREE, damaged_note
from app.ui.i18n import LanguageSwitcher
from app.ui.knowledge.document_table import STATUS, DocumentTable
from app.ui.knowledge.knowledge_texts import notes_text

pytestmark = pytest.mark.gui

CJK = re.compile(r"[\u4e00-\u9fff]")


def record(notes: str | None) -> DocumentRecord:
    return DocumentRecord(id=1, path="/docs/report.pdf", source_folder=None, content_hash="h", size=10, mtime_ns=1,
                          format="pdf", title="report", pages=2, chunk_count=3, status=DocumentStatus.INDEXED,
                          error_kind=None, error_message=None, notes=notes, added_at=0.0, updated_at=0.0)


def test_a_known_note_reads_in_chinese_and_an_unknown_one_as_written(qapp: Any, switcher: LanguageSwitcher) -> None:
    damaged = damaged_note(PAGES_DISAGREE)
    unknown = "something the reader said in its own words"
    assert notes_text(record(f"{damaged}\n{unknown}")) == f"{damaged}\n{unknown}"  # English: as stored
    assert switcher.apply("zh_CN") == "zh_CN"
    shown = notes_text(record(f"{damaged}\n{unknown}")).splitlines()
    assert len(shown) == 2
    assert CJK.search(shown[0]) and "tables not read" not in shown[0]
    assert shown[1] == unknown
    table = DocumentTable()
    table.show_documents([record(damaged)])
    tooltip = table.topLevelItem(0).toolTip(STATUS)
    assert CJK.search(tooltip) and "tables not read" not in tooltip
    assert notes_text(record(None)) == ""
