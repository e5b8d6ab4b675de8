"""OCR of scanned PDF pages and pictures with the real rapidocr models (rendered Chinese and English text)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.kb.ocr import (
    OCR_PARSER,
    RENDER_LONG_SIDE_PX,
    OcrStep,
    TextPiece,
    TextRecognizer,
    join_lines,
    render_scale,
)
from app.core.kb.parsers import DocumentError, parse_document
from app.core.kb.parsers.formats import format_for_path
from tests.fixtures.documents import write_pdf
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.fixtures.scans_and_tables import append_pdf, find_cjk_font, render_text_page, write_scanned_pdf

FONT = find_cjk_font()
pytestmark = pytest.mark.skipif(
    FONT is None, reason="no CJK font on this machine to draw Chinese test pages (install fonts-noto-cjk)"
)

ENGLISH = ["Quarterly invoice summary", "Total due: 4,250 EUR by March 31"]
CHINESE = ["报销流程说明", "差旅费用须在出差结束后十五天内提交审批。"]


@pytest.fixture(scope="module")
def recognizer() -> TextRecognizer:
    return TextRecognizer()


@pytest.fixture(scope="module")
def mixed_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Page 1 has a text layer; pages 2 (English) and 3 (Chinese) are scans without one."""
    folder = tmp_path_factory.mktemp("scans")
    assert FONT is not None
    text_page = write_pdf(folder / "text.pdf", [["Travel policy, chapter one", "Book trains early."]])
    scans = write_scanned_pdf(folder / "scans.pdf", [ENGLISH, CHINESE], FONT)
    return append_pdf(text_page, scans, folder / "mixed.pdf")


def test_scanned_pages_are_recognised_and_keep_their_page_numbers(
    mixed_pdf: Path, recognizer: TextRecognizer
) -> None:
    reports: list[tuple[str, int, int]] = []
    document = parse_document(mixed_pdf, OcrStep(recognizer, lambda path, done, total: reports.append(
        (path.name, done, total))))
    pages = {page.page_number: page.text for page in document.pages}
    assert pages[1] == "Travel policy, chapter one\nBook trains early."
    assert "Quarterly invoice summary" in pages[2] and "4,250 EUR" in pages[2]
    assert "报销流程说明" in pages[3] and "十五天内提交审批" in pages[3]
    assert reports == [("mixed.pdf", 0, 2), ("mixed.pdf", 1, 2), ("mixed.pdf", 2, 2)]
    assert "text recognised (OCR) on page(s) 2, 3" in document.notes


def test_without_ocr_scanned_pages_are_left_out_and_a_scan_only_pdf_says_how_to_read_it(
    mixed_pdf: Path, tmp_path: Path
) -> None:
    assert [page.page_number for page in parse_document(mixed_pdf).pages] == [1]
    assert FONT is not None
    scan = write_scanned_pdf(tmp_path / "scan.pdf", [ENGLISH], FONT)
    with pytest.raises(DocumentError) as caught:
        parse_document(scan)
    assert caught.value.kind == "empty" and "kb.ocr" in (caught.value.hint or "")


def test_a_blank_page_without_pictures_is_not_sent_to_ocr(tmp_path: Path, recognizer: TextRecognizer) -> None:
    calls: list[int] = []
    pdf = write_pdf(tmp_path / "blank.pdf", [["Only the first page has words."], []])
    document = parse_document(pdf, OcrStep(recognizer, lambda path, done, total: calls.append(total)))
    assert [page.page_number for page in document.pages] == [1] and calls == []


def test_pictures_are_recognised_when_added_one_by_one(tmp_path: Path, recognizer: TextRecognizer) -> None:
    assert FONT is not None
    image = render_text_page(CHINESE + ENGLISH, FONT, size=(1400, 700))
    png, jpg = tmp_path / "note.png", tmp_path / "note.jpg"
    image.save(png)
    image.save(jpg, quality=90)
    for path in (png, jpg):
        assert format_for_path(path) == "image"
        document = parse_document(path, OcrStep(recognizer))
        assert document.pages[0].page_number == 1
        assert "差旅费用" in document.pages[0].text and "Quarterly invoice" in document.pages[0].text
    with pytest.raises(DocumentError) as caught:
        parse_document(png)
    assert caught.value.kind == "unsupported" and "kb.ocr" in (caught.value.hint or "")


def test_a_damaged_picture_is_refused_with_a_clear_reason(tmp_path: Path, recognizer: TextRecognizer) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really a picture" * 10)
    with pytest.raises(DocumentError) as caught:
        parse_document(broken, OcrStep(recognizer))
    assert caught.value.kind == "corrupt" and "broken.png" in caught.value.message


def test_cancel_stops_between_pages(mixed_pdf: Path, recognizer: TextRecognizer) -> None:
    cancel = threading.Event()
    seen: list[int] = []

    def report(path: Path, done: int, total: int) -> None:
        seen.append(done)
        if done == 1:
            cancel.set()

    document = parse_document(mixed_pdf, OcrStep(recognizer, report, cancel))
    assert seen == [0, 1] and [page.page_number for page in document.pages] == [1, 2]


class BrokenRecognizer(TextRecognizer):
    def recognize(self, image: object) -> str:
        raise RuntimeError("model file damaged")


def test_a_failing_recognizer_costs_the_scanned_pages_not_the_text_layer(mixed_pdf: Path, tmp_path: Path) -> None:
    document = parse_document(mixed_pdf, OcrStep(BrokenRecognizer()))
    assert [page.page_number for page in document.pages] == [1]
    assert "scanned pages not read: text recognition failed (RuntimeError: model file damaged)" in document.notes
    assert FONT is not None
    with pytest.raises(DocumentError) as caught:
        parse_document(write_scanned_pdf(tmp_path / "scan.pdf", [ENGLISH], FONT), OcrStep(BrokenRecognizer()))
    assert caught.value.kind == "unreadable" and "model file damaged" in caught.value.message


def test_reading_order_and_render_scale() -> None:
    pieces = [TextPiece("world", 120, 10, 30), TextPiece("second line", 10, 40, 60), TextPiece("hello", 10, 12, 28)]
    assert join_lines(pieces) == "hello world\nsecond line"
    assert render_scale(612, 792) == pytest.approx(RENDER_LONG_SIDE_PX / 792)
    assert render_scale(6000, 8000) == 1.0 and render_scale(50, 60) == 4.0


def test_a_scanned_page_is_found_by_search_with_its_page(tmp_path: Path, mixed_pdf: Path) -> None:
    """Real pipeline: the reader process (with its memory limit) runs OCR_PARSER because kb.ocr is on;
    real SQLite, chromadb and MiniLM."""
    from app.core.kb.indexer import IndexingOptions
    from app.core.kb.progress import ProgressTracker

    assert IndexingOptions.from_settings(Settings({})).parser == OCR_PARSER
    assert IndexingOptions.from_settings(Settings({"kb.ocr": False})).parser != OCR_PARSER
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        summary = knowledge_base.indexer().run([mixed_pdf], ProgressTracker(), threading.Event())
        assert summary.files_indexed == 1, summary.problems
        chinese = knowledge_base.search("差旅费用 提交审批", k=3)
        english = knowledge_base.search("When is the quarterly invoice total due?", k=3)
    assert chinese.hits[0].page == 3 and "十五天" in chinese.hits[0].text
    assert english.hits[0].page == 2 and "4,250" in english.hits[0].text


def test_ocr_is_a_declared_setting_on_by_default() -> None:
    assert Settings({}).bool_value("kb.ocr") is True
