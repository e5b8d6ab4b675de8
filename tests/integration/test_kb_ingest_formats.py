"""Every document format through the real pipeline: parsers, chunker, MiniLM, chromadb, SQLite.

Good files of every format and encoding are indexed and searchable with page and heading;
each bad file fails on its own with its own kind of error while the rest is indexed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.indexer import IndexingSummary
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from tests.fixtures import documents as docs
from tests.fixtures.knowledge_base import open_knowledge_base

pytestmark = pytest.mark.integration

GOOD = {
    "report.pdf": "pdf", "guide.docx": "docx", "help.html": "html", "notes.md": "markdown",
    "manual.rst": "rst", "tool.py": "code", "people.csv": "csv", "plain.txt": "text",
    "gbk.txt": "text", "utf16.txt": "text", "big5.txt": "text", "sjis.txt": "text",
}
BAD = {
    "locked.pdf": "encrypted", "broken.pdf": "corrupt", "empty.txt": "empty", "binary.txt": "binary",
    "broken.docx": "corrupt", "protected.docx": "encrypted",
}


def _write_folder(folder: Path) -> Path:
    pdf = docs.write_pdf(folder / "report.pdf", [
        ["Quarterly report", "Revenue grew in the northern region."],
        ["Page two discusses the submarine cable project in detail."],
        ["Page three lists the risks of the lighthouse renovation."],
    ], title="Quarterly report")
    docs.encrypt_pdf(pdf, folder / "locked.pdf", "secret")
    docs.write_corrupt_pdf(folder / "broken.pdf")
    docs.write_docx(folder / "guide.docx")
    docs.write_corrupt_docx(folder / "broken.docx")
    docs.write_ole_container(folder / "protected.docx")
    docs.write_text(folder / "help.html", docs.HTML_PAGE, "utf-8")
    docs.write_text(folder / "notes.md", docs.MARKDOWN_TEXT, "utf-8")
    docs.write_text(folder / "manual.rst", docs.RST_TEXT, "utf-8")
    docs.write_text(folder / "tool.py", docs.PYTHON_SOURCE, "utf-8")
    docs.write_text(folder / "people.csv", docs.CSV_TEXT, "utf-8")
    docs.write_text(folder / "plain.txt", "\n\n".join(docs.ENGLISH_PARAGRAPHS), "utf-8")
    docs.write_text(folder / "gbk.txt", docs.CHINESE_TEXT * 3, "gbk")
    docs.write_text(folder / "utf16.txt", docs.WESTERN_TEXT + "\n" + docs.KOREAN_TEXT, "utf-16")
    docs.write_text(folder / "big5.txt", docs.TRADITIONAL_CHINESE_TEXT * 3, "big5")
    docs.write_text(folder / "sjis.txt", docs.JAPANESE_TEXT * 3, "shift_jis")
    docs.write_bytes(folder / "empty.txt", b"")
    docs.write_bytes(folder / "binary.txt", bytes(range(256)) * 64)
    return folder


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KnowledgeBase, IndexingSummary]]:
    root = tmp_path_factory.mktemp("formats")
    folder = _write_folder(root / "docs")
    # Small chunks, so that sections of these short documents land in chunks of their own.
    with open_knowledge_base(root / "kb", kb__chunk_tokens=64, kb__chunk_overlap_tokens=8) as knowledge_base:
        summary = knowledge_base.indexer().run([folder], ProgressTracker(), threading.Event())
        yield knowledge_base, summary


def _records(knowledge_base: KnowledgeBase) -> dict[str, DocumentRecord]:
    return {Path(record.path).name: record for record in knowledge_base.documents()}


def test_every_good_format_is_indexed(indexed: tuple[KnowledgeBase, IndexingSummary]) -> None:
    knowledge_base, summary = indexed
    records = _records(knowledge_base)
    for name, document_format in GOOD.items():
        record = records[name]
        assert record.status is DocumentStatus.INDEXED, (name, record.error_message)
        assert record.chunk_count > 0 and record.format == document_format, name
    assert summary.files_indexed == len(GOOD)
    assert records["report.pdf"].pages == 3


def test_each_bad_file_has_its_own_error(indexed: tuple[KnowledgeBase, IndexingSummary]) -> None:
    knowledge_base, summary = indexed
    records = _records(knowledge_base)
    for name, kind in BAD.items():
        record = records[name]
        assert record.status is DocumentStatus.FAILED and record.error_kind == kind, (name, record)
        assert name in (record.error_message or ""), "the message names the file"
        assert record.chunk_count == 0
    assert summary.files_failed == len(BAD)
    assert {Path(problem.path).name for problem in summary.problems} == set(BAD)


def test_nothing_stored_is_damaged(indexed: tuple[KnowledgeBase, IndexingSummary]) -> None:
    knowledge_base, _ = indexed
    report = check_consistency(open_database(knowledge_base.database_path), knowledge_base.vector_store)
    assert report.ok, report.problems
    assert report.orphan_vectors == 0 and report.chunks == report.vectors


def test_pdf_hits_cite_their_page(indexed: tuple[KnowledgeBase, IndexingSummary]) -> None:
    knowledge_base, _ = indexed
    hit = knowledge_base.search("submarine cable project", k=1).hits[0]
    assert Path(hit.path).name == "report.pdf" and hit.page == 2
    hit = knowledge_base.search("lighthouse renovation risks", k=1).hits[0]
    assert hit.page == 3


def test_docx_and_markdown_hits_carry_headings(indexed: tuple[KnowledgeBase, IndexingSummary]) -> None:
    knowledge_base, _ = indexed
    hit = knowledge_base.search("AppImage without root rights", k=1).hits[0]
    assert Path(hit.path).name == "guide.docx" and hit.heading.startswith("Field Guide")
    hit = knowledge_base.search("text under the setext heading", k=1).hits[0]
    assert Path(hit.path).name == "notes.md" and hit.heading


def test_html_scripts_are_not_indexed(indexed: tuple[KnowledgeBase, IndexingSummary]) -> None:
    knowledge_base, _ = indexed
    hits = knowledge_base.search("SCRIPT TEXT MUST NOT APPEAR tracking", k=10).hits
    assert all("SCRIPT TEXT" not in hit.text for hit in hits)


@pytest.mark.parametrize(("question", "name"), [
    ("向量检索", "gbk.txt"), ("檔名與頁碼", "big5.txt"),
    ("日本語のテキスト", "sjis.txt"), ("한국어 텍스트", "utf16.txt"),
])
def test_legacy_encodings_are_decoded_and_searchable(
    indexed: tuple[KnowledgeBase, IndexingSummary], question: str, name: str
) -> None:
    knowledge_base, _ = indexed
    hits = knowledge_base.search(question, k=3).hits
    assert name in {Path(hit.path).name for hit in hits}
