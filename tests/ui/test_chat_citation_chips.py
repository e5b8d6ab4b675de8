"""Citation chips and the passage popup in the real chat window: readable labels that tell passages apart, a
tooltip that wraps, the passage as formatted text, a popup beside its chip inside the window, and a clear
message when the system cannot open the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from app.core.chat.records import Citation, Role
from app.ui.chat.citation_chip import CHIP_MAX_WIDTH
from app.ui.chat.passage_popup import placed
from tests.ui.chat_support import ChatWindows, chat_of, settled

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000
MEMORY = ("The **KV cache** grows with the context: each token keeps a key and a value per layer.\n\n"
          "- 4,096 tokens × 32 layers\n- `q8_0` halves it")
SECOND = "A second passage of the same section: *quantized* caches trade a little quality for room."
LONG_NAME = "a-rather-long-file-name-for-the-annual-infrastructure-report-2026.pdf"


def _answer_with_sources(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path, filler: int = 0
) -> tuple[Any, Any, Any]:
    notes = tmp_path / "spark-notes.md"
    notes.write_text("# Field notes\n\n## Memory\n\n" + MEMORY + "\n\n" + SECOND + "\n", encoding="utf-8")
    report = tmp_path / LONG_NAME
    report.write_bytes(b"%PDF-1.4\n%%EOF\n")
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    conversation = store.create_conversation("Spark notes")
    parent = None
    for index in range(filler):  # earlier turns push the answer to the bottom of the view
        role: Role = "user" if index % 2 == 0 else "assistant"
        parent = store.add_message(conversation.id, role, f"Earlier line {index}\n\n" + "More text. " * 30, parent,
                                   finish_reason="stop" if role == "assistant" else None).id
    question = store.add_message(conversation.id, "user", "How big is the KV cache?", parent)
    citations = (
        Citation(1, str(notes), None, "Field notes > Memory", 3, True, MEMORY + " " + "Cache detail. " * 40),
        Citation(2, str(notes), None, "Field notes > Memory", 3, True, "## Memory\n\n" + SECOND),
        Citation(3, str(report), 12, "Appendix B > Cooling > Data hall airflow", 4, False, "Cold aisle air."),
    )
    answer = store.add_message(conversation.id, "assistant", "It grows with the context [1][2] [3].", question.id,
                               finish_reason="stop", citations=citations, model="tiny")
    sidebar.refresh(select=conversation.id)
    settled(qtbot, view)
    widget = view.messages.widget_for(answer.id)
    assert widget is not None
    qtbot.waitUntil(lambda: all(chip.isVisible() for chip in widget.chips), timeout=WAIT_MS)
    return window, view, widget


def test_chips_keep_the_file_and_section_readable_and_tell_two_passages_apart(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path, screenshot: Shot
) -> None:
    window, _, widget = _answer_with_sources(qtbot, chat_windows, tmp_path)
    first, second, third = (chip.text() for chip in widget.chips)
    assert first.startswith("[1] spark-notes.md, Memory") and second.startswith("[2] spark-notes.md, Memory")
    assert first[3:] != second[3:]  # not the same chip twice: each quotes its passage's first words
    assert "“The KV cache" in first and "“A second" in second
    assert third.startswith("[3] a-rather") and ".pdf" in third  # a long name loses its middle, not its end
    assert "p. 12" in third or "…" in third
    for chip in widget.chips:
        assert chip.fontMetrics().horizontalAdvance(chip.text()) <= CHIP_MAX_WIDTH
    screenshot(window, "citation-chips")


def test_the_tooltip_wraps_inside_the_window(qtbot: Any, chat_windows: ChatWindows, tmp_path: Path) -> None:
    window, _, widget = _answer_with_sources(qtbot, chat_windows, tmp_path)
    chip = widget.chips[0]
    assert "**" not in chip.toolTip() and "KV cache" in chip.toolTip()  # the passage as read, not its Markdown
    QToolTip.showText(chip.mapToGlobal(QPoint(8, 8)), chip.toolTip(), chip)
    try:
        qtbot.waitUntil(QToolTip.isVisible, timeout=WAIT_MS)
        tip = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "qtooltip_label" and w.isVisible())
        assert tip.width() <= window.width() // 2, tip.width()  # a 600-character passage used to be one long line
    finally:
        QToolTip.hideText()


def test_the_passage_opens_beside_its_chip_as_formatted_text(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path, screenshot: Shot
) -> None:
    window, view, widget = _answer_with_sources(qtbot, chat_windows, tmp_path, filler=8)
    view.messages.verticalScrollBar().setValue(view.messages.verticalScrollBar().maximum())
    chip = widget.chips[1]
    qtbot.waitUntil(lambda: chip.visibleRegion().boundingRect().height() == chip.height(), timeout=WAIT_MS)
    chip.passage_action.trigger()
    popup = view.passage_popup
    assert popup is not None
    qtbot.waitUntil(popup.isVisible, timeout=WAIT_MS)
    text = popup.passage.toPlainText()
    assert "A second passage" in text and "*" not in text and "##" not in text  # Markdown shown formatted
    chip_rect = QRect(chip.mapToGlobal(QPoint(0, 0)), chip.size())
    frame = QRect(window.mapToGlobal(QPoint(0, 0)), window.size())
    popup_rect = popup.geometry()
    assert frame.contains(popup_rect), (frame, popup_rect)  # inside the window
    assert not popup_rect.intersects(chip_rect)  # next to its chip, not over it
    assert min(abs(popup_rect.top() - chip_rect.bottom()), abs(chip_rect.top() - popup_rect.bottom())) <= 12
    screenshot(window, "citation-passage")
    popup.close()


def test_placement_prefers_below_then_above_and_stays_inside() -> None:
    bounds = QRect(0, 0, 1000, 800)
    assert placed((400, 200), QRect(100, 100, 150, 24), bounds) == QPoint(100, 128)  # below
    assert placed((400, 200), QRect(100, 700, 150, 24), bounds) == QPoint(100, 496)  # above: no room below
    assert placed((400, 200), QRect(900, 100, 80, 24), bounds).x() == 600  # pulled back inside on the right
    top = placed((400, 900), QRect(100, 300, 150, 24), bounds).y()
    assert top == 0  # taller than the window: from its top


def test_a_file_the_system_cannot_open_says_so_and_offers_its_path(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path, screenshot: Shot
) -> None:
    window, view, widget = _answer_with_sources(qtbot, chat_windows, tmp_path)
    tried: list[QUrl] = []

    def no_handler(url: QUrl) -> bool:
        tried.append(url)
        return False

    view.open_url = no_handler
    qtbot.mouseClick(widget.chips[0], Qt.MouseButton.LeftButton)
    popup = view.passage_popup
    assert popup is not None and len(tried) == 1
    qtbot.waitUntil(popup.isVisible, timeout=WAIT_MS)
    assert popup.failure.isVisible() and ".md" in popup.failure.text()
    qtbot.mouseClick(popup.open_button, Qt.MouseButton.LeftButton)  # trying again fails again: it stays, saying so
    assert len(tried) == 2 and popup.isVisible() and popup.failure.isVisible()
    screenshot(window, "citation-open-failed")
    qtbot.mouseClick(popup.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(tmp_path / "spark-notes.md")
    popup.close()
