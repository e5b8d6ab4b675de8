"""Markdown text helpers for the chat view: find fenced code blocks and give each a "Copy code" link."""

from __future__ import annotations

import re
from dataclasses import dataclass

COPY_CODE_SCHEME = "copy-code"
"""Links ``copy-code:N`` copy the N-th code block of a message (0-based)."""

_OPENING_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_SAFE_LANGUAGE = re.compile(r"[^\w+#.-]")


@dataclass(frozen=True)
class CodeBlock:
    """One fenced code block: its language tag (may be empty), its code, and the line its fence opens on."""

    language: str
    code: str
    start_line: int
    closed: bool


def _language_of(info: str) -> str:
    words = info.strip().split()
    return _SAFE_LANGUAGE.sub("", words[0])[:24] if words else ""


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
    )


def fenced_code_blocks(text: str) -> list[CodeBlock]:
    """The fenced code blocks of ``text`` in order; an unclosed last fence (still streaming) counts too."""
    blocks: list[CodeBlock] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        opening = _OPENING_FENCE.match(lines[index])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            line = lines[end]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
            end += 1
        closed = end < len(lines)
        blocks.append(CodeBlock(_language_of(opening["info"]), "\n".join(body), index, closed))
        index = end + 1
    return blocks


def split_points(text: str) -> list[int]:
    """Offsets where ``text`` can be cut into parts that render as Markdown on their own: just after a
    blank line that lies outside fenced code (a paragraph, list or code block has ended there)."""
    points: list[int] = []
    fence = ""
    offset = 0
    previous_blank = False
    for line in text.split("\n"):
        end = offset + len(line) + 1
        if fence:
            if _closes(line, fence):
                fence = ""
        else:
            opening = _OPENING_FENCE.match(line)
            if opening is not None and not (opening["fence"][0] == "`" and "`" in opening["info"]):
                fence = opening["fence"]
            elif not line.strip() and previous_blank is False and end <= len(text):
                points.append(end)
        previous_blank = not line.strip() and not fence
        offset = end
    # Not before an indented line: it continues the list item or quote above the blank line.
    return [point for point in points if point < len(text) and text[point] not in " \t"]


def chunk_ends(text: str, start: int, max_chars: int) -> list[int]:
    """Split points after ``start`` chosen so that parts are about ``max_chars`` long (never cut elsewhere)."""
    ends: list[int] = []
    last = start
    candidates = [point for point in split_points(text) if point > start]
    for index, point in enumerate(candidates):
        following = candidates[index + 1] if index + 1 < len(candidates) else len(text)
        if following - last > max_chars:
            ends.append(point)
            last = point
    return ends


def with_copy_links(text: str, copy_label: str = "Copy code", first_number: int = 0, *,
                    continued: bool = False) -> str:
    """``text`` with a line ``*language* · [Copy code](copy-code:N)`` right above each fenced code block
    (N counts from ``first_number``: the blocks before this part of a longer text). ``continued``: the first
    block goes on from the part before (its fence was opened again), so it has its link there already."""
    blocks = fenced_code_blocks(text)
    if not blocks:
        return text
    lines = text.split("\n")
    for number in range(len(blocks) - 1, 0 if continued else -1, -1):
        block = blocks[number]
        indent = lines[block.start_line][: len(lines[block.start_line]) - len(lines[block.start_line].lstrip(" "))]
        language = f"*{block.language}* · " if block.language else ""
        link = f"[{copy_label}]({COPY_CODE_SCHEME}:{first_number + number})"
        lines.insert(block.start_line, f"{indent}{language}{link}")
        if block.start_line > 0 and lines[block.start_line - 1].strip():
            lines.insert(block.start_line, "")  # a paragraph of its own, not glued to the text above
    return "\n".join(lines)


def open_fence(text: str) -> str:
    """The opening fence line of a code block ``text`` leaves open at its end ("" when it ends outside code)."""
    blocks = fenced_code_blocks(text)
    if not blocks or blocks[-1].closed:
        return ""
    return text.split("\n")[blocks[-1].start_line]


def soft_cut(text: str, at_least: int) -> int:
    """Where to cut ``text`` that has no Markdown split point (one long paragraph, list or code block): after
    its last line end past ``at_least``, else after its last space there, else at its end."""
    for separator in ("\n", " "):
        found = text.rfind(separator, at_least)
        if found >= 0:
            return found + 1
    return len(text)
