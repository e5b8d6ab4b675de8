"""Helpers shared by the parsers: collecting sections under a heading path and building pages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from app.core.kb.documents import PageText, Section

SECTION_SEPARATOR: Final = "\n\n"
_LEADING_BLANK_LINES: Final = re.compile(r"\A(?:[ \t]*\n)+")


def trim_section_text(text: str, *, keep_indent: bool) -> str:
    """Drop blank lines at both ends and trailing whitespace; keep the first line's indent for code."""
    if keep_indent:
        return _LEADING_BLANK_LINES.sub("", text).rstrip()
    return text.strip()


@dataclass
class HeadingStack:
    """The current heading path while walking a document; ``enter`` a heading of some level."""

    _levels: list[tuple[int, str]] = field(default_factory=list)

    def enter(self, level: int, title: str) -> tuple[str, ...]:
        """Make ``title`` the current heading at ``level`` (1 = top); returns the new path."""
        while self._levels and self._levels[-1][0] >= level:
            self._levels.pop()
        self._levels.append((level, title))
        return self.path

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(title for _, title in self._levels)


@dataclass
class SectionCollector:
    """Accumulates sections in order, dropping empty ones; text lines are buffered until a flush."""

    sections: list[Section] = field(default_factory=list)
    pending_lines: list[str] = field(default_factory=list)
    _lines_path: tuple[str, ...] = ()

    def add_line(self, line: str, heading_path: tuple[str, ...]) -> None:
        """Buffer a line of running text under ``heading_path`` (a new path flushes the old lines)."""
        if self.pending_lines and heading_path != self._lines_path:
            self.flush()
        self._lines_path = heading_path
        self.pending_lines.append(line)

    def flush(self, kind: str = "text") -> None:
        """Turn the buffered lines into one section."""
        if self.pending_lines:
            text, self.pending_lines = "\n".join(self.pending_lines), []
            self.add(text, kind, self._lines_path)

    def add(self, text: str, kind: str, heading_path: tuple[str, ...]) -> None:
        """Add a whole section (after the buffered lines, which are flushed first); blank text is dropped."""
        if self.pending_lines:
            self.flush()
        trimmed = trim_section_text(text, keep_indent=kind == "code")
        if trimmed:
            self.sections.append(Section(trimmed, kind, heading_path))

    def page(self, page_number: int | None = None) -> PageText:
        """The collected sections as one page."""
        self.flush()
        return build_page(page_number, self.sections)


def build_page(page_number: int | None, sections: list[Section]) -> PageText:
    """A page whose text is its sections' texts joined by blank lines (what chunk offsets refer to)."""
    text = SECTION_SEPARATOR.join(section.text for section in sections)
    return PageText(page_number, text, tuple(sections))
