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

from app.ui.chat.markdown_body import PART_CHARS, RENDER_INTERVAL_MS, SOFT_PART_CHARS, MarkdownBody
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


def _small_model_text(length: int) -> str:
    """What a small model often writes: one paragraph with no blank line, mixed scripts, Markdown marks."""
    words = ["engine", "模型", "**bold**", "`code`", "文件", "hello", "系统", "*x*", "document", "因为"]
    text, number = "", 0
    while len(text) < length:
        text += words[number % len(words)] + ("" if number % 7 == 3 else " ")
        number += 1
    return text


def _stream(body: MarkdownBody, text: str, piece_chars: int) -> list[tuple[int, int]]:
    """Append ``text`` in frame-sized pieces with a render after each; (render size, last part size) per frame."""
    sizes = []
    for start in range(0, len(text), piece_chars):
        body.append(text[start:start + piece_chars])
        body.flush()
        sizes.append((body.last_render_chars, len(body.parts[-1].toPlainText())))
    return sizes


@pytest.mark.parametrize("kind", ["paragraph", "code"])
def test_a_long_answer_with_no_place_to_cut_renders_and_lays_out_only_its_tail_and_ends_as_one_part(
        qtbot: Any, kind: str) -> None:
    """A paragraph (or code block) that never ends is cut anyway while it streams, so a frame's render and
    append handle a bounded tail however long the answer grows; at the end it is one part, as opening shows it."""
    text = _small_model_text(30_000)
    if kind == "code":
        text = "Look:\n\n```python\n" + text.replace(" ", "\n") + "\n```\n\nDone."
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.resize(600, 100)
    body.show()
    body.set_markdown("")
    sizes = _stream(body, text, 180)
    assert max(render for render, _shown in sizes) <= SOFT_PART_CHARS + 200  # the tail, never the whole answer
    assert max(shown for _render, shown in sizes) <= SOFT_PART_CHARS + 200
    assert len(body.parts) > 5
    finished = body.parts[0]
    revision = finished.document().revision()
    body.append(" more")
    body.flush()
    assert finished.document().revision() == revision  # a finished part is not rendered again
    body.finish()
    once = MarkdownBody()
    qtbot.addWidget(once)
    once.set_markdown(body.source_text)
    assert body.plain_text() == once.plain_text()
    if kind == "paragraph":  # no split point at all: one part, rendered exactly as in one go
        assert len(body.parts) == len(once.parts) == 1
        assert body.parts[0].toHtml() == once.parts[0].toHtml()
    else:  # the pieces cut inside the code block are one part again (the text around it may be apart)
        assert len(body.parts) <= 2
        assert body.copy_code(0) and QGuiApplication.clipboard().text() == fenced_code_blocks(text)[0].code
        assert sum(_anchor_count(part, "copy-code:") for part in body.parts) == 1


def test_a_code_block_cut_while_streaming_keeps_one_copy_link_and_its_number(qtbot: Any) -> None:
    code = "\n".join(f"value_{number} = {number}" for number in range(900))
    text = f"```python\n{code}\n```\n\nAfter.\n\n```bash\necho two\n```\n"
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.show()
    body.set_markdown("")
    _stream(body, text, 150)
    assert len(body.parts) > 2  # cut inside the code block while streaming
    assert sum(_anchor_count(part, "copy-code:0") for part in body.parts) == 1
    assert sum(_anchor_count(part, "copy-code:1") for part in body.parts) == 1
    continued = body.parts[1].document().begin()
    assert continued.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence)  # still shown as code


def test_an_answer_shown_while_it_is_written_is_cut_as_streaming_cuts_it(qtbot: Any) -> None:
    """Switching back to a conversation whose answer is being written shows its text so far in one go; a long
    paragraph was then one part, rendered whole again every quarter second as more text came."""
    text = _small_model_text(30_000)
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.show()
    body.set_markdown(text, streaming=True)
    assert len(body.parts) > 5
    sizes = _stream(body, _small_model_text(3_000), 180)
    assert max(render for render, _shown in sizes) <= SOFT_PART_CHARS + 200
    body.finish()
    assert len(body.parts) == 1
    once = MarkdownBody()
    qtbot.addWidget(once)
    once.set_markdown(body.source_text)
    assert body.parts[0].toHtml() == once.parts[0].toHtml()
