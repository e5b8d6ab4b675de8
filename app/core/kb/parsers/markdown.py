"""Markdown: ATX and setext headings become heading paths, fenced code blocks become code sections."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from app.core.kb.documents import ParsedDocument, Section
from app.core.kb.parsers.plain import read_text_file
from app.core.kb.parsers.sections import HeadingStack, SectionCollector, build_page

_ATX_HEADING: Final = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_UNDERLINE: Final = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_OPEN: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_FRONT_MATTER_TITLE: Final = re.compile(r"^title:\s*[\"']?(.*?)[\"']?\s*$", re.MULTILINE)
_FRONT_MATTER_MAX_LINES: Final = 200


def parse_markdown(path: Path, format_name: str) -> ParsedDocument:
    """Parse a Markdown file into heading, text and code sections on one page."""
    file = read_text_file(path)
    sections, title = markdown_sections(file.text)
    page = build_page(None, sections)
    return ParsedDocument(path, format_name, title or path.stem, (page,), file.encoding, file.notes)


def markdown_sections(text: str) -> tuple[list[Section], str | None]:
    """The sections of a Markdown text, and its title (front matter ``title:`` or the first # heading)."""
    lines = text.split("\n")
    collector = SectionCollector()
    headings = HeadingStack()
    title = None
    start = 0
    front_matter_end = _front_matter_end(lines)
    if front_matter_end:
        front_matter = "\n".join(lines[: front_matter_end + 1])
        collector.add(front_matter, "text", ())
        found = _FRONT_MATTER_TITLE.search(front_matter)
        title = found.group(1) if found and found.group(1) else None
        start = front_matter_end + 1
    fence: tuple[str, list[str]] | None = None  # (opening marker, lines so far)
    for line in lines[start:]:
        if fence is not None:
            marker, fence_lines = fence
            fence_lines.append(line)
            if _closes_fence(line, marker):
                collector.add("\n".join(fence_lines), "code", headings.path)
                fence = None
            continue
        opening = _FENCE_OPEN.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = (opening.group(1), [line])
            continue
        atx = _ATX_HEADING.match(line)
        if atx:
            heading = (atx.group(2) or "").strip()
            path = headings.enter(len(atx.group(1)), heading)
            collector.add(line, "heading", path)
            if title is None and len(atx.group(1)) == 1 and heading:
                title = heading
            continue
        underline = _SETEXT_UNDERLINE.match(line)
        previous = collector.pending_lines[-1] if collector.pending_lines else ""
        if underline and previous.strip() and not _FENCE_OPEN.match(previous):
            collector.pending_lines.pop()
            level = 1 if underline.group(1)[0] == "=" else 2
            heading = previous.strip()
            path = headings.enter(level, heading)
            collector.add(f"{previous}\n{line}", "heading", path)
            if title is None and level == 1:
                title = heading
            continue
        collector.add_line(line, headings.path)
    if fence is not None:  # an unclosed fence runs to the end of the file
        collector.add("\n".join(fence[1]), "code", headings.path)
    collector.flush()
    return collector.sections, title


def _closes_fence(line: str, marker: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and stripped.startswith(marker[0] * len(marker))
        and stripped == marker[0] * len(stripped)
    )


def _front_matter_end(lines: list[str]) -> int:
    """Index of the line closing a YAML front matter block that opens the file (0 if there is none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, min(len(lines), _FRONT_MATTER_MAX_LINES)):
        if lines[index].rstrip() in ("---", "..."):
            return index
    return 0
