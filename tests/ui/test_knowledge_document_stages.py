"""The documents table shows both stages of indexing (findable by keywords, then by meaning) and limit failures."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.ui.knowledge.document_table import STATUS, DocumentTable

pytestmark = pytest.mark.gui


def record(document_id: int, status: DocumentStatus, *, embedded: bool = False, kind: str | None = None,
           message: str | None = None) -> DocumentRecord:
    path = f"/docs/file{document_id}.txt"
    return DocumentRecord(document_id, path, None, None, 10, 0, "text", None, 0, 3, status, kind,
                          None if message is None else f"{path}: {message}", None, 0.0, 0.0, embedded=embedded)


def test_the_table_tells_keywords_only_from_fully_indexed_and_names_limit_failures(qtbot: Any) -> None:
    table = DocumentTable()
    qtbot.addWidget(table)
    keywords = record(1, DocumentStatus.INDEXED)
    embedded = record(2, DocumentStatus.INDEXED, embedded=True)
    too_large = record(3, DocumentStatus.FAILED, kind="too-large",
                       message="the file is 300 MB, more than the 256 MB limit for one file")
    crashed = record(4, DocumentStatus.FAILED, kind="crashed",
                     message="reading it crashed the reader process (signal 11)")
    table.show_documents([keywords, embedded, too_large, crashed])
    rows = [table.topLevelItem(row) for row in range(4)]
    assert [item.text(STATUS) for item in rows if item is not None] == [
        "Keywords only (embedding…)", "Indexed", "Failed: over a size limit", "Failed: crashed the reader"]
    assert rows[0] is not None and "by meaning once its vectors" in rows[0].toolTip(STATUS)
    assert rows[2] is not None and "256 MB limit" in rows[2].toolTip(STATUS)
    table.show_documents([record(1, DocumentStatus.INDEXED, embedded=True), embedded, too_large, crashed])
    first = table.topLevelItem(0)
    assert first is not None and first.text(STATUS) == "Indexed", "the row follows the document to its next stage"
