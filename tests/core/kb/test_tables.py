"""Tables in PDF (pdfplumber) and DOCX kept as rows that name their columns, so one cell's question finds its row."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.core.kb.parsers import parse_document
from app.core.kb.parsers.pdf_tables import page_tables
from app.core.kb.progress import ProgressTracker
from tests.fixtures.documents import write_pdf
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.fixtures.scans_and_tables import write_table_docx, write_table_pdf

ROWS = [
    ["Part", "Supplier", "Unit price", "Lead time"],
    ["Gear housing", "Nordwerk", "18.40 EUR", "3 weeks"],
    ["Drive belt", "Kessler", "6.15 EUR", "5 days"],
    ["Sensor board", "Lumatek", "42.00 EUR", "8 weeks"],
]
HEADER = "Part | Supplier | Unit price | Lead time"
BELT_ROW = "Part: Drive belt | Supplier: Kessler | Unit price: 6.15 EUR | Lead time: 5 days"


def test_a_pdf_table_becomes_rows_and_the_page_text_loses_its_loose_words(tmp_path: Path) -> None:
    pdf = write_table_pdf(tmp_path / "parts.pdf", "Spare parts we order for line 2.", ROWS,
                          "Prices were agreed in January.")
    page = parse_document(pdf).pages[0]
    kinds = [(section.kind, section.text) for section in page.sections]
    assert kinds[0][0] == "text" and "Spare parts we order" in kinds[0][1] and "January" in kinds[0][1]
    assert "Kessler" not in kinds[0][1], "the table's words are not repeated as loose text"
    assert kinds[1] == ("table", "\n".join([HEADER,
                                            "Part: Gear housing | Supplier: Nordwerk | Unit price: 18.40 EUR | "
                                            "Lead time: 3 weeks", BELT_ROW,
                                            "Part: Sensor board | Supplier: Lumatek | Unit price: 42.00 EUR | "
                                            "Lead time: 8 weeks"]))
    assert page.page_number == 1


def test_a_pdf_without_ruled_tables_is_unchanged(tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "plain.pdf", [["Just a paragraph.", "And another line."]])
    notes: list[str] = []
    assert page_tables(pdf, [0], notes) == {} and notes == []
    assert [section.kind for section in parse_document(pdf).pages[0].sections] == ["text"]


def test_a_docx_table_becomes_rows_naming_their_columns(tmp_path: Path) -> None:
    docx = write_table_docx(tmp_path / "parts.docx", "Spare parts we order for line 2.", ROWS)
    sections = parse_document(docx).pages[0].sections
    table = next(section.text for section in sections if section.kind == "table")
    assert table.splitlines()[0] == HEADER and BELT_ROW in table.splitlines()


@pytest.mark.parametrize("kind", ["pdf", "docx"])
def test_a_question_about_one_cell_finds_its_row(tmp_path: Path, kind: str) -> None:
    """Real parsers, chunker, SQLite, chromadb and MiniLM."""
    folder = tmp_path / "docs"
    folder.mkdir()
    if kind == "pdf":
        write_table_pdf(folder / "parts.pdf", "Spare parts we order for line 2.", ROWS, "Prices agreed in January.")
    else:
        write_table_docx(folder / "parts.docx", "Spare parts we order for line 2.", ROWS)
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        knowledge_base.indexer().run([folder], ProgressTracker(), threading.Event())
        result = knowledge_base.search("Who supplies the drive belt and what is its unit price?", k=3)
    assert BELT_ROW in result.hits[0].text
