"""HTML: the visible text only (no script, style, noscript, template), h1-h6 as heading paths, pre as code."""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Final

from app.core.kb.documents import ParsedDocument
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.plain import TextFile, decode_bytes
from app.core.kb.parsers.sections import HeadingStack, SectionCollector
from app.core.kb.text_encodings import detect_encoding

_INVISIBLE: Final = frozenset({"script", "style", "noscript", "template", "head", "svg", "canvas", "iframe"})
_VOID: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
_PARAGRAPH_BREAKS: Final = frozenset(
    """p div section article header footer main aside nav blockquote ul ol dl table form figure
    figcaption address fieldset details summary hr caption""".split()
)
_LINE_BREAKS: Final = frozenset({"br", "tr", "li", "dt", "dd"})
_CELLS: Final = frozenset({"td", "th"})
_HEADINGS: Final = {f"h{level}": level for level in range(1, 7)}
_META_CHARSET: Final = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.IGNORECASE)


def parse_html(path: Path, format_name: str) -> ParsedDocument:
    """Parse an HTML page into heading, text and code sections on one page."""
    file = _read_html(path)
    extractor = VisibleTextExtractor()
    extractor.feed(file.text)
    extractor.close()
    page = extractor.collector.page()
    if not page.text:
        raise DocumentError.for_file(path, "empty", "this web page has no visible text", None)
    title = extractor.title.strip() or extractor.first_heading or path.stem
    return ParsedDocument(path, format_name, title, (page,), file.encoding, file.notes)


class VisibleTextExtractor(HTMLParser):
    """Collects the text a browser would show, as sections under the h1-h6 heading path."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.collector = SectionCollector()
        self.title = ""
        self.first_heading: str | None = None
        self._headings = HeadingStack()
        self._hidden: list[str] = []  # open tags whose content is not shown
        self._in_title = False
        self._heading: tuple[int, list[str]] | None = None
        self._pre: list[str] | None = None
        self._pre_depth = 0
        self._line: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag == "body":  # browsers end <head> at <body> even when </head> is missing
            self._hidden.clear()
        if self._hidden:
            if tag == self._hidden[-1] and tag not in _VOID:
                self._hidden.append(tag)
            return
        if tag in _INVISIBLE or _is_hidden(attrs):
            if tag not in _VOID:
                self._hidden.append(tag)
            return
        if tag == "pre":
            self._end_line()
            self._pre_depth += 1
            if self._pre is None:
                self._pre = []
            return
        if self._pre is not None:
            if tag in _LINE_BREAKS:
                self._pre.append("\n")
            return
        if tag in _HEADINGS:
            self._end_line()
            self._heading = (_HEADINGS[tag], [])
        elif tag in _PARAGRAPH_BREAKS:
            self._end_line(paragraph=True)
        elif tag in _LINE_BREAKS:
            self._end_line()
        elif tag in _CELLS and self._line and self._line[-1].strip():
            self._line.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if self._hidden:
            if tag == self._hidden[-1]:
                self._hidden.pop()
            return
        if tag == "pre" and self._pre is not None:
            self._pre_depth -= 1
            if self._pre_depth <= 0:
                self.collector.add("".join(self._pre), "code", self._headings.path)
                self._pre, self._pre_depth = None, 0
            return
        if tag in _HEADINGS and self._heading is not None:
            level, parts = self._heading
            self._heading = None
            text = " ".join("".join(parts).split())
            if text:
                self.collector.add(text, "heading", self._headings.enter(level, text))
                self.first_heading = self.first_heading or text
        elif tag in _PARAGRAPH_BREAKS:
            self._end_line(paragraph=True)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._hidden:
            return
        if self._pre is not None:
            self._pre.append(data)
        elif self._heading is not None:
            self._heading[1].append(data)
        else:
            self._line.append(data)

    def close(self) -> None:
        super().close()
        self._end_line()
        if self._pre is not None:
            self.collector.add("".join(self._pre), "code", self._headings.path)
            self._pre = None

    def _end_line(self, *, paragraph: bool = False) -> None:
        line = " ".join("".join(self._line).split())
        self._line = []
        if line:
            self.collector.add_line(line, self._headings.path)
        if paragraph and self.collector.pending_lines and self.collector.pending_lines[-1]:
            self.collector.add_line("", self._headings.path)


def _is_hidden(attrs: list[tuple[str, str | None]]) -> bool:
    for name, value in attrs:
        if name == "hidden" or (name == "aria-hidden" and value == "true"):
            return True
        if name == "style" and value and "display:none" in value.replace(" ", "").lower():
            return True
    return False


def _read_html(path: Path) -> TextFile:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DocumentError.from_os_error(path, error) from error
    if not data:
        raise DocumentError.for_file(path, "empty", "the file is empty (0 bytes)", None)
    declared = _declared_encoding(data)
    if declared is not None:
        try:
            data.decode(declared)
        except UnicodeDecodeError:
            declared = None
    try:
        encoding = declared or detect_encoding(data)
    except DocumentError as error:
        raise error.with_path(path) from None
    return decode_bytes(path, data, encoding)


def _declared_encoding(data: bytes) -> str | None:
    """The codec named by a <meta charset> in the first 4 KB, if Python knows it."""
    match = _META_CHARSET.search(data[:4096])
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1).decode("ascii")).name
    except (LookupError, UnicodeDecodeError):
        return None
