"""Answers with sources in the real chat window: Markdown with highlighted code, citation chips that open the
file at its page (PDF: #page=N) or show the passage, copy buttons, and links."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from app.core.chat.records import Citation
from app.ui.chat.markdown_view import is_dark
from app.ui.theme import apply_theme
from tests.ui.chat_support import ChatWindows, chat_of, settled

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # re-tinting every widget after a theme change: generous for a slow, loaded machine

ANSWER = """The cable runs **42 km** under the strait [1], and the bees dance to show the way [2].

```python
def cable_length_km(segments):
    # sum of the laid segments
    return sum(segments)  # 42
```

See [the project page](https://example.org/cable) for more."""


@pytest.fixture
def sources(tmp_path: Path) -> tuple[Path, Path]:
    report = tmp_path / "docs" / "report.pdf"
    report.parent.mkdir()
    report.write_bytes(b"%PDF-1.4\n% a stand-in; the viewer is not started in tests\n%%EOF\n")
    notes = tmp_path / "docs" / "bees.md"
    notes.write_text("# Honeybee colonies\n\nForagers dance to show where the flowers are.\n", encoding="utf-8")
    return report, notes


def test_citation_chips_open_the_source_at_its_page_or_show_the_passage(
    qtbot: Any, chat_windows: ChatWindows, sources: tuple[Path, Path], tmp_path: Path, screenshot: Shot
) -> None:
    report, notes = sources
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    opened: list[QUrl] = []
    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    view.open_url = open_url
    confirmed: list[QUrl] = []  # the user agrees to open a web link once its address is shown

    def confirm_link(url: QUrl) -> bool:
        confirmed.append(url)
        return True

    view.confirm_link = confirm_link
    conversation = store.create_conversation()
    question = store.add_message(conversation.id, "user", "How long is the cable?", None)
    citations = (
        Citation(1, str(report), 3, "Submarine cable", 7, True, "The submarine cable project connects the two "
                 "islands with a 42 km line laid in 2019."),
        Citation(2, str(notes), None, "Honeybee colonies > Communication", 8, True,
                 "Foragers dance to show where the flowers are."),
        Citation(3, str(tmp_path / "gone.txt"), None, "", 9, False, "A file that was removed since."),
    )
    answer = store.add_message(conversation.id, "assistant", ANSWER, question.id, finish_reason="stop",
                               citations=citations, model="tiny-model")
    sidebar.refresh(select=conversation.id)
    settled(qtbot, view)
    assert view.conversation_id == conversation.id
    widget = view.messages.widget_for(answer.id)
    assert widget is not None and widget.sources.isVisibleTo(widget)
    chips = widget.chips
    assert [chip.citation.number for chip in chips] == [1, 2, 3]
    assert chips[0].text().startswith("[1] report.pdf, p. 3")
    assert chips[0].font().bold() and not chips[2].font().bold()  # cited sources stand out
    assert "42 km line" in chips[0].toolTip()
    screenshot(window, "chat-10-citations")

    qtbot.mouseClick(chips[0], Qt.MouseButton.LeftButton)
    assert [url.toString() for url in opened] == [QUrl.fromLocalFile(str(report)).toString() + "#page=3"]
    qtbot.mouseClick(chips[1], Qt.MouseButton.LeftButton)
    assert opened[-1] == QUrl.fromLocalFile(str(notes)) and not opened[-1].hasFragment()  # no pages in Markdown

    chips[1].passage_action.trigger()
    popup = view.passage_popup
    assert popup is not None and popup.isVisible()
    assert "Foragers dance" in popup.passage.toPlainText() and popup.open_button.isEnabled()
    screenshot(popup, "chat-11-passage-popup")
    qtbot.mouseClick(popup.open_button, Qt.MouseButton.LeftButton)
    assert opened[-1] == QUrl.fromLocalFile(str(notes)) and not popup.isVisible()

    count = len(opened)
    qtbot.mouseClick(chips[2], Qt.MouseButton.LeftButton)  # the file is gone: show what we kept instead
    assert len(opened) == count and popup.isVisible()
    assert "no longer there" in popup.location.text() and not popup.open_button.isEnabled()
    popup.close()

    qtbot.mouseClick(widget.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == ANSWER and widget.copy_button.text() == "Copied"
    assert widget.body.copy_code(0)
    assert QGuiApplication.clipboard().text().startswith("def cable_length_km(segments):")

    widget.body.parts[-1].anchorClicked.emit(QUrl("https://example.org/cable"))
    assert confirmed[-1] == QUrl("https://example.org/cable") and opened[-1] == QUrl("https://example.org/cable")
    assert "42 km" in widget.body.plain_text() and "**" not in widget.body.plain_text()

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        apply_theme(app, "dark")
        qtbot.waitUntil(lambda: is_dark(widget.body.parts[0].palette()), timeout=WAIT_MS)
        screenshot(window, "chat-13-citations-dark")
    finally:
        apply_theme(app, "light")
