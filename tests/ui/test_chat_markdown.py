"""Markdown in the chat view: fenced code blocks found (even unclosed while streaming), each with a working
"Copy code" link, code highlighted, and streamed text re-rendered at most a few times a second."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor, QTextFormat
from PySide6.QtWidgets import QTextBrowser

from app.ui.chat.markdown_body import PART_CHARS, RENDER_INTERVAL_MS, MarkdownBody
from app.ui.chat.markdown_text import fenced_code_blocks, split_points, with_copy_links
from tests.ui.chat_support import markdown_tokens

pytestmark = pytest.mark.gui

ANSWER = """Use this:

```python
def greet(name):
    # say hello
    return "Hello, " + name  # 2 parts
```

Then in a shell:

~~~bash
echo done
~~~
"""


def test_code_blocks_are_found_with_their_language_even_unclosed() -> None:
    blocks = fenced_code_blocks(ANSWER)
    assert [(block.language, block.closed) for block in blocks] == [("python", True), ("bash", True)]
    assert blocks[0].code == 'def greet(name):\n    # say hello\n    return "Hello, " + name  # 2 parts'
    assert blocks[1].code == "echo done"
    streaming = fenced_code_blocks("Look:\n```js\nlet x = 1;\n")
    assert len(streaming) == 1 and not streaming[0].closed and streaming[0].code == "let x = 1;\n"
    assert fenced_code_blocks("no code here, just ``` inline") == []
    linked = with_copy_links(ANSWER)
    assert "*python* · [Copy code](copy-code:0)\n```python" in linked
    assert "*bash* · [Copy code](copy-code:1)\n~~~bash" in linked
    assert "[Copy code](copy-code:7)" in with_copy_links(ANSWER, first_number=6)


def test_text_is_cut_only_after_blank_lines_outside_code() -> None:
    text = "Intro\n\n- a\n- b\n\n```py\nx = 1\n\ny = 2\n```\n\n- item\n\n  continued\n\nTail"
    points = split_points(text)
    assert [text[point:point + 6] for point in points] == ["- a\n- ", "```py\n", "- item", "Tail"]


def _anchor_position(view: QTextBrowser, href: str) -> int:
    block = view.document().begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.charFormat().anchorHref() == href:
                return fragment.position() + 1
            iterator += 1
        block = block.next()
    raise AssertionError(f"no link {href}")


def _anchor_count(view: QTextBrowser, prefix: str) -> int:
    hrefs = set()
    block = view.document().begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            href = iterator.fragment().charFormat().anchorHref()
            if href.startswith(prefix):
                hrefs.add(href)
            iterator += 1
        block = block.next()
    return len(hrefs)


def test_copy_code_links_copy_the_code_and_code_is_highlighted(qtbot: Any) -> None:
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.resize(600, 100)
    body.show()
    body.set_markdown(ANSWER)
    qtbot.waitExposed(body)
    [view] = body.parts
    assert view.height() >= math.ceil(view.document().size().height()) > 100  # as tall as its content

    cursor = QTextCursor(view.document())
    cursor.setPosition(_anchor_position(view, "copy-code:1"))
    with qtbot.waitSignal(body.code_copied):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.cursorRect(cursor).center())
    assert QGuiApplication.clipboard().text() == "echo done"
    assert body.copy_code(0) and QGuiApplication.clipboard().text().startswith("def greet(name):")
    assert not body.copy_code(5)

    code_blocks = []
    block = view.document().begin()
    while block.isValid():
        if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence):
            code_blocks.append(block)
        block = block.next()
    assert [block.text() for block in code_blocks][:1] == ["def greet(name):"]
    assert all(block.blockFormat().background().style() != Qt.BrushStyle.NoBrush for block in code_blocks)
    colors = {
        (block.text()[item.start:item.start + item.length], item.format.foreground().color().name())
        for block in code_blocks for item in block.layout().formats()
    }
    keyword_colors = {color for text, color in colors if text in ("def", "return")}
    comment_colors = {color for text, color in colors if text.startswith("#")}
    string_colors = {color for text, color in colors if text.startswith('"')}
    assert len(keyword_colors) == 1 and comment_colors and string_colors
    assert len(keyword_colors | comment_colors | string_colors) == 3  # three different colours


def test_streamed_text_shows_at_once_and_is_rendered_at_most_a_few_times_a_second(qtbot: Any) -> None:
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.show()
    body.set_markdown("")
    renders = body.renders
    appended_at = time.monotonic()
    for number in range(200):
        body.append(f"**word{number}** ")
    assert body.renders == renders  # appended as plain text, no re-parse per piece
    assert "**word199**" in body.plain_text()  # yet visible at once
    assert body.render_pending()
    qtbot.waitUntil(lambda: not body.render_pending(), timeout=10_000)
    assert time.monotonic() - appended_at >= 0.9 * RENDER_INTERVAL_MS / 1000  # once the interval is over
    assert body.renders == renders + 1
    assert "**" not in body.plain_text() and "word199" in body.plain_text()  # now Markdown
    assert body.source_text.count("**") == 400


def test_a_long_answer_is_kept_in_parts_and_only_the_last_one_is_rendered_again(qtbot: Any) -> None:
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.resize(600, 100)
    body.show()
    body.set_markdown("")
    tokens = markdown_tokens(3000)
    for start in range(0, len(tokens), 100):  # a burst per frame, then a render
        body.append("".join(tokens[start:start + 100]))
        body.flush()
    text = "".join(tokens)
    assert body.source_text == text
    assert len(body.parts) >= len(text) // (PART_CHARS * 2)  # cut into parts as it grew
    finished = body.parts[:-1]
    revisions = [part.document().revision() for part in finished]
    body.append(" and a last word.")
    body.flush()
    assert body.parts[:-1] == finished
    assert [part.document().revision() for part in finished] == revisions  # not rendered again
    once = MarkdownBody()
    qtbot.addWidget(once)
    once.set_markdown(body.source_text)
    assert once.plain_text() == body.plain_text()  # same text on show as rendering it in one go
    assert len(fenced_code_blocks(text)) > 20
    assert body.copy_code(20) and QGuiApplication.clipboard().text() == fenced_code_blocks(text)[20].code
    links = [_anchor_count(part, "copy-code:") for part in body.parts]
    assert sum(links) == len(fenced_code_blocks(body.source_text))  # every block has its own link number
