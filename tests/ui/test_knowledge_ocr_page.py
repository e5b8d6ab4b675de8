"""The knowledge panel's progress names the scanned page being recognised (English and Chinese)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.core.kb.progress import IndexingProgress
from app.ui.i18n import LanguageSwitcher
from app.ui.knowledge.indexing_progress_view import IndexingProgressView

pytestmark = pytest.mark.gui

RECOGNISING = IndexingProgress(phase="indexing", files_total=3, files_done=1, current_file="/books/scan.pdf",
                               ocr_page=3, ocr_pages=120)


def test_the_progress_names_the_page_being_recognised(qtbot: Any, switcher: LanguageSwitcher) -> None:
    view = IndexingProgressView()
    qtbot.addWidget(view)
    view.show_progress(RECOGNISING)
    assert view.file_label.text() == "scan.pdf (text recognition: page 3 of 120)"
    assert view.file_label.toolTip() == "/books/scan.pdf"
    view.show_progress(replace(RECOGNISING, ocr_page=0, ocr_pages=0))  # a page with a text layer, or another file
    assert view.file_label.text() == "scan.pdf"
    assert switcher.apply("zh_CN") == "zh_CN"
    view.show_progress(RECOGNISING)
    assert view.file_label.text() == "scan.pdf（文字识别：第 3 页，共 120 页）"
    assert switcher.apply("en") == "en"
