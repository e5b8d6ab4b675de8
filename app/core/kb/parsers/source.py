"""Source code: code sections; Python files are cut at top-level def/class, which name the heading."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from app.core.kb.documents import ParsedDocument, Section
from app.core.kb.parsers.formats import extension_of
from app.core.kb.parsers.plain import read_text_file
from app.core.kb.parsers.sections import SectionCollector, build_page

_PYTHON_EXTENSIONS: Final = frozenset({"py", "pyi", "pyw"})
_PYTHON_TOP_LEVEL: Final = re.compile(r"^(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)")


def parse_source(path: Path, format_name: str) -> ParsedDocument:
    """Parse a source file into code sections (per top-level definition for Python)."""
    file = read_text_file(path)
    if extension_of(path) in _PYTHON_EXTENSIONS:
        sections = python_sections(file.text)
    else:
        sections = [Section(file.text.strip("\n").rstrip(), "code", ())]
    page = build_page(None, sections)
    return ParsedDocument(path, format_name, path.name, (page,), file.encoding, file.notes)


def python_sections(text: str) -> list[Section]:
    """One code section per top-level def/class (decorators included) and one per stretch between them."""
    collector = SectionCollector()
    block: list[str] = []
    heading: tuple[str, ...] = ()
    decorators_start: int | None = None
    open_quote: str | None = None  # inside a multi-line string, column 0 means nothing
    for line in text.split("\n"):
        if open_quote is None:
            definition = _PYTHON_TOP_LEVEL.match(line)
            if line.startswith("@"):
                if decorators_start is None:
                    decorators_start = len(block)
            elif definition:
                start = decorators_start if decorators_start is not None else len(block)
                collector.add("\n".join(block[:start]), "code", heading)
                block = block[start:]
                heading = (f"{definition.group(1)} {definition.group(2)}",)
                decorators_start = None
            elif _starts_statement(line):
                if heading:  # module-level code after a definition belongs to no definition
                    collector.add("\n".join(block), "code", heading)
                    block, heading = [], ()
                decorators_start = None
        block.append(line)
        open_quote = _quote_after(line, open_quote)
    collector.add("\n".join(block), "code", heading)
    return collector.sections


def _starts_statement(line: str) -> bool:
    return bool(line.strip()) and not line[0].isspace() and not line.startswith((")", "]", "}", "#"))


def _quote_after(line: str, open_quote: str | None) -> str | None:
    """The triple quote still open after ``line`` (given the one open before it)."""
    for quote in ('"""', "'''"):
        if line.count(quote) % 2 == 1:
            if open_quote is None:
                return quote
            if open_quote == quote:
                return None
    return open_quote
