"""reStructuredText: underlined (and overlined) titles become heading paths, literal blocks code."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Final

from app.core.kb.documents import ParsedDocument, Section
from app.core.kb.parsers.plain import read_text_file
from app.core.kb.parsers.sections import HeadingStack, SectionCollector, build_page

_ADORNMENT: Final = re.compile(r"""^([=\-`:'"~^_*+#<>.!$%&(),/;?@\[\\\]{|}])\1{2,}[ \t]*$""")


def parse_rst(path: Path, format_name: str) -> ParsedDocument:
    """Parse a reStructuredText file into heading, text and code sections on one page."""
    file = read_text_file(path)
    sections, title = rst_sections(file.text)
    page = build_page(None, sections)
    return ParsedDocument(path, format_name, title or path.stem, (page,), file.encoding, file.notes)


def rst_sections(text: str) -> tuple[list[Section], str | None]:
    """The sections of a reStructuredText text and its title (the first heading)."""
    lines = text.split("\n")
    collector = SectionCollector()
    headings = HeadingStack()
    styles: list[tuple[str, bool]] = []  # heading styles in order of first use = their levels
    title = None
    index = 0
    literal_follows = False
    while index < len(lines):
        line = lines[index]
        heading = _heading_at(lines, index)
        if heading is not None:
            heading_text, style, used_lines = heading
            if style not in styles:
                styles.append(style)
            path = headings.enter(styles.index(style) + 1, heading_text)
            collector.add("\n".join(lines[index : index + used_lines]), "heading", path)
            title = title or heading_text
            index += used_lines
            literal_follows = False
            continue
        if literal_follows and line.strip() and line[:1] in " \t":
            end = _indented_block_end(lines, index)
            collector.add("\n".join(lines[index:end]), "code", headings.path)
            index = end
            literal_follows = False
            continue
        if line.strip():
            literal_follows = line.rstrip().endswith("::")
        collector.add_line(line, headings.path)
        index += 1
    collector.flush()
    return collector.sections, title


def _heading_at(lines: list[str], index: int) -> tuple[str, tuple[str, bool], int] | None:
    """(title, (adornment character, overlined), lines used) when a section title starts at ``index``."""
    line = lines[index]
    over = _ADORNMENT.match(line)
    if over and index + 2 < len(lines):
        under = _ADORNMENT.match(lines[index + 2])
        title = lines[index + 1].strip()
        if under and under.group(1) == over.group(1) and title and not _ADORNMENT.match(lines[index + 1]):
            return title, (over.group(1), True), 3
    if not line.strip() or line[:1] in " \t" or over or index + 1 >= len(lines):
        return None
    under = _ADORNMENT.match(lines[index + 1])
    if under and len(lines[index + 1].rstrip()) >= min(_display_width(line.rstrip()), 4):
        return line.strip(), (under.group(1), False), 2
    return None


def _display_width(text: str) -> int:
    """Columns the text takes in a monospace editor (wide CJK characters count two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _indented_block_end(lines: list[str], start: int) -> int:
    """Index after an indented block starting at ``start`` (blank lines inside it included)."""
    end = start
    index = start
    while index < len(lines):
        line = lines[index]
        if line.strip() and line[:1] not in " \t":
            break
        if line.strip():
            end = index + 1
        index += 1
    return end
