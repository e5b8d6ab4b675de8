"""Plain-text tables for the terminal: each column as wide as its widest cell, so rows never shift."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for a wide (CJK, full-width) character, one for the others."""
    return sum(2 if unicodedata.east_asian_width(character) in "WF" else 1 for character in text)


def aligned_lines(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """The header and the rows as lines: two spaces between columns, each column padded to its widest cell
    (numbers right-aligned where ``right`` says so), the last column not padded (it may be long: a path, a list)."""
    if any(len(row) != len(header) for row in rows) or len(right) != len(header):
        raise ValueError("every row needs one cell per header column, and right one flag per column")
    widths = [max(display_width(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = []
        for index, (cell, width, flush_right) in enumerate(zip(cells, widths, right, strict=True)):
            gap = " " * (width - display_width(cell))
            if index == len(cells) - 1 and not flush_right:
                padded.append(cell)
            else:
                padded.append(gap + cell if flush_right else cell + gap)
        return "  ".join(padded).rstrip()

    return [line(header), *(line(row) for row in rows)]
