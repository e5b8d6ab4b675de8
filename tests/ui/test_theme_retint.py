"""Switching the theme in a real window re-tints what was drawn with baked colours: a Markdown answer's code
shading, links and highlighting, and the gauges (plot lines, bar background), both from Settings and when
the system's scheme flips while "system" is chosen."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette, QTextBlock, QTextFormat
from PySide6.QtWidgets import QApplication, QWidget

from app.core.services.gauge_readings import GaugeSnapshot, MemoryBarReading, MemorySegment, SpeedReading
from app.ui.chat.code_highlighter import DARK_COLORS, LIGHT_COLORS
from app.ui.chat.markdown_view import CODE_BACKGROUND_DARK, CODE_BACKGROUND_LIGHT, MarkdownView
from app.ui.gauges.gauge_style import DARK_PLOT, LIGHT_PLOT
from app.ui.main_window import MainWindow
from app.ui.theme import apply_theme, dark_palette, light_palette
from tests.ui.chat_support import ChatWindows, chat_of, settled

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
GIB = 1024**3
ANSWER = """Sum the **segments** like this:

```python
def cable_length_km(segments):
    return sum(segments)  # 42
```

More on [the project page](https://example.org/cable)."""


@pytest.fixture
def app(qapp: Any) -> Iterator[QApplication]:
    assert isinstance(qapp, QApplication)
    yield qapp
    apply_theme(qapp, "light")


def code_block(view: MarkdownView) -> QTextBlock:
    block = view.document().begin()
    while block.isValid():
        if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence):
            return block
        block = block.next()
    raise AssertionError("the answer shows no code block")


def rendered_colours(view: MarkdownView) -> dict[str, str]:
    """The colours baked into the rendered answer: code shade, the keyword ``def``, and the link."""
    block = code_block(view)
    keyword = [item.format.foreground().color().name() for item in block.layout().formats()
               if block.text()[item.start:item.start + item.length] == "def"]
    links = []
    text_block = view.document().begin()
    while text_block.isValid():
        iterator = text_block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.charFormat().isAnchor() and fragment.charFormat().anchorHref().startswith("https:"):
                links.append(fragment.charFormat().foreground().color().name())
            iterator += 1
        text_block = text_block.next()
    assert len(keyword) == 1 and len(links) == 1, (keyword, links)
    return {"code": block.blockFormat().background().color().name(), "keyword": keyword[0], "link": links[0]}


def pixels_near(image: QImage, colour: str, tolerance: int = 24) -> int:
    target = QColor(colour)
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            pixel = image.pixelColor(x, y)
            if (abs(pixel.red() - target.red()) + abs(pixel.green() - target.green())
                    + abs(pixel.blue() - target.blue())) <= tolerance:
                count += 1
    return count


def show_speed_and_memory(window: MainWindow) -> None:
    """A minute of steady decoding below the roofline, and a memory bar, as the sampler would report them."""
    now = time.monotonic()
    bar = MemoryBarReading("system", 24 * GIB, (MemorySegment("weights", 6 * GIB), MemorySegment("free", 18 * GIB)))
    for step in range(30):
        speed = SpeedReading(decode_tok_s=40.0, roofline_tok_s=80.0)
        window.gauges.show_snapshot(GaugeSnapshot(now - 30 + step, True, (bar,), speed, GIB, 0))


def test_switching_to_dark_re_tints_answers_and_gauges(
    qtbot: Any, app: QApplication, chat_windows: ChatWindows, screenshot: Shot
) -> None:
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    conversation = store.create_conversation()
    question = store.add_message(conversation.id, "user", "How long is the cable?", None)
    answer = store.add_message(conversation.id, "assistant", ANSWER, question.id, finish_reason="stop")
    sidebar.refresh(select=conversation.id)
    settled(qtbot, view)  # the store is read on a worker
    widget = view.messages.widget_for(answer.id)
    assert widget is not None
    part = widget.body.parts[0]
    window.gauges_dock.show()
    plot = window.gauges.speed_gauge.history
    memory_bar = window.gauges.memory_gauge.bars[0]
    show_speed_and_memory(window)

    light = rendered_colours(part)
    light_plot = plot.grab().toImage()
    light_bar = memory_bar.grab().toImage()
    dark_settings = window.services.live_settings.get().with_changes({"ui.theme": "dark"})
    assert window.apply_settings(dark_settings) == "Saved."  # the Settings dialog's Apply
    dark = rendered_colours(part)
    dark_plot = plot.grab().toImage()
    dark_bar = memory_bar.grab().toImage()

    assert light == {"code": CODE_BACKGROUND_LIGHT, "keyword": LIGHT_COLORS.keyword,
                     "link": light_palette().color(QPalette.ColorRole.Link).name()}
    assert dark == {"code": CODE_BACKGROUND_DARK, "keyword": DARK_COLORS.keyword,
                    "link": dark_palette().color(QPalette.ColorRole.Link).name()}
    # The decode line is drawn with the theme's pen: its colour is on screen, the other theme's hardly
    # (a stray antialiased edge pixel may come close).
    for image, own, other in ((light_plot, LIGHT_PLOT, DARK_PLOT), (dark_plot, DARK_PLOT, LIGHT_PLOT)):
        own_pixels, other_pixels = pixels_near(image, own.decode), pixels_near(image, other.decode)
        assert own_pixels > 20 and other_pixels * 10 < own_pixels, (own_pixels, other_pixels)
    free_x, middle_y = light_bar.width() - 6, light_bar.height() // 2  # the free part shows the bar's background
    assert light_bar.pixelColor(free_x, middle_y).lightness() > 200
    assert dark_bar.pixelColor(free_x, middle_y).lightness() < 60
    screenshot(window, "theme-01-dark-answer-and-gauges")


def test_system_theme_re_tints_the_open_window_when_the_desktop_switches(
    qtbot: Any, app: QApplication, chat_windows: ChatWindows
) -> None:
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    conversation = store.create_conversation()
    answer = store.add_message(conversation.id, "assistant", ANSWER, None, finish_reason="stop")
    sidebar.refresh(select=conversation.id)
    settled(qtbot, view)  # the store is read on a worker
    widget = view.messages.widget_for(answer.id)
    assert widget is not None
    settings = window.services.live_settings.get()
    window.apply_settings(settings.with_changes({"ui.theme": "dark"}))
    assert rendered_colours(widget.body.parts[0])["code"] == CODE_BACKGROUND_DARK
    window.apply_settings(settings.with_changes({"ui.theme": "system"}))  # back to the system's look
    assert rendered_colours(widget.body.parts[0])["code"] == CODE_BACKGROUND_LIGHT  # offscreen: no preference

    app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the desktop went dark
    assert rendered_colours(widget.body.parts[0])["code"] == CODE_BACKGROUND_DARK
    assert window.palette().color(QPalette.ColorRole.Window).lightness() < 80
    app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert rendered_colours(widget.body.parts[0])["code"] == CODE_BACKGROUND_LIGHT
