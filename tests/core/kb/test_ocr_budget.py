"""Scanned pages have their own time budget: each page recognised by OCR gets the read timeout, a page that
runs out of it is skipped with a note (the others are kept), pages are committed one by one, and a reading
stopped midway resumes at the next page. Real reader process, PDF rendering, SQLite, chromadb and MiniLM; the
recogniser in the reader process is the test hook's (fast, or never returning on one page)."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest

from app.core.kb.catalog import DocumentStatus
from app.core.kb.indexer import IndexingOptions
from app.core.kb.parse_worker import ParseLimits
from app.core.kb.progress import PAGE_SKIPPED, FileProblem, IndexingProgress, ProgressTracker
from app.core.kb.retrieval import SearchOptions
from tests.core.kb.reader_hooks import HANG_PAGE, PARTS_HOOK, READS_LOG, reads
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.fixtures.scans_and_tables import find_cjk_font, write_scanned_pdf

FONT = find_cjk_font()
pytestmark = pytest.mark.skipif(FONT is None, reason="no CJK font on this machine to draw test pages")
PAGE_SECONDS = 20.0


class PageWatch(ProgressTracker):
    """Records the OCR pages the progress reports; sets ``cancel`` when page ``cancel_at`` starts."""

    def __init__(self, cancel: threading.Event | None = None, cancel_at: int = 0) -> None:
        super().__init__()
        self.pages: list[tuple[int, int]] = []
        self._cancel, self._cancel_at = cancel, cancel_at

    def update(self, **changes: Any) -> None:
        super().update(**changes)
        page = changes.get("ocr_page", 0)
        if page:
            self.pages.append((page, changes.get("ocr_pages", 0)))
            if self._cancel is not None and page == self._cancel_at:
                self._cancel.set()


def options() -> IndexingOptions:
    return dataclasses.replace(IndexingOptions(), parser=PARTS_HOOK, limits=ParseLimits(timeout_seconds=PAGE_SECONDS))


@pytest.fixture
def scan(tmp_path: Path) -> Path:
    assert FONT is not None
    return write_scanned_pdf(tmp_path / "scan.pdf", [["first scanned page"], ["second"], ["third"]], FONT)


def test_a_page_over_its_budget_is_skipped_and_the_others_are_kept(
    tmp_path: Path, scan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HANG_PAGE, "2")
    progress = PageWatch()
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        summary = knowledge_base.indexer(options()).run([scan], progress, threading.Event())
        assert summary.files_indexed == 1 and summary.files_failed == 0, summary.problems
        record = knowledge_base.documents()[0]
        found = {page: knowledge_base.search(f"lighthouse{page}", options=SearchOptions(k=1, use_vectors=False))
                 for page in (1, 2, 3)}
    assert progress.pages == [(1, 3), (2, 3), (3, 3)]
    assert [(problem.kind, problem.message) for problem in summary.problems] == [
        (PAGE_SKIPPED, f"{scan}: page 2 skipped: text recognition took longer than {PAGE_SECONDS:g} s")]
    assert record.status is DocumentStatus.INDEXED and record.pages == 2
    assert f"page 2 skipped: text recognition took longer than {PAGE_SECONDS:g} s" in (record.notes or "")
    assert [hit.page for hit in found[1].hits] == [1] and [hit.page for hit in found[3].hits] == [3]
    assert not found[2].hits


def test_a_reading_stopped_on_a_page_keeps_the_pages_before_and_resumes_there(
    tmp_path: Path, scan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "reads.log"
    monkeypatch.setenv(READS_LOG, str(log))
    monkeypatch.setenv(HANG_PAGE, "2")
    cancel = threading.Event()
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        first = knowledge_base.indexer(options()).run([scan], PageWatch(cancel, cancel_at=2), cancel)
        assert first.cancelled
        record = knowledge_base.documents()[0]
        assert record.status is DocumentStatus.INDEXING and record.chunk_count == 1
        early = knowledge_base.search("lighthouse1", options=SearchOptions(k=1, use_vectors=False))
        assert [hit.page for hit in early.hits] == [1]  # committed page by page: found before the end
        before = reads(log)
        assert before[0] == "page-1" and "page-3" not in before  # page 2 may have started when it was stopped

        monkeypatch.delenv(HANG_PAGE)
        again = knowledge_base.indexer(options()).run([], ProgressTracker(), threading.Event())
        assert again.files_indexed == 1, again.problems
        record = knowledge_base.documents()[0]
        pages = [knowledge_base.search(f"lighthouse{page}", options=SearchOptions(k=1, use_vectors=False)).hits[0].page
                 for page in (1, 2, 3)]
    assert reads(log)[len(before):] == ["page-2", "page-3"]  # resumed at page 2, not from the start
    assert record.status is DocumentStatus.INDEXED and record.pages == 3 and record.chunk_count == 3
    assert pages == [1, 2, 3]


def test_the_command_line_says_which_page_is_recognised_and_which_was_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from app.cli.kb import _print_problems, _progress_line

    line = _progress_line(IndexingProgress(phase="indexing", files_total=1, current_file="/books/scan.pdf",
                                           ocr_page=3, ocr_pages=120))
    assert line.endswith(" - scan.pdf (text recognition: page 3 of 120)")
    _print_problems([FileProblem("/books/scan.pdf", PAGE_SKIPPED, "/books/scan.pdf: page 2 skipped: text "
                                 "recognition took longer than 300 s"), FileProblem("/a.txt", "empty", "/a.txt: x")])
    assert capsys.readouterr().out.splitlines() == [
        "  read without a page: /books/scan.pdf: page 2 skipped: text recognition took longer than 300 s",
        "  failed (empty): /a.txt: x",
    ]
