"""Map an answer's "[2]" markers back to the numbered passages it was given."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.chat.records import Citation, Passage

EXCERPT_CHARS = 240
# [2]  [1, 3]  [1-3]  [1][2]  and the full-width forms Chinese text uses: 【2】 ［2］ [1，2]
_MARKER = re.compile(r"[\[【［]\s*(\d+(?:\s*(?:[,，、;；]|[-–~～])\s*\d+)*)\s*[\]】］]")
_RANGE = re.compile(r"(\d+)\s*[-–~～]\s*(\d+)")
_MAX_RANGE = 50


def cited_numbers(answer: str, passage_count: int) -> list[int]:
    """Source numbers the answer mentions, in order of first mention; numbers with no source are ignored."""
    found: list[int] = []
    for match in _MARKER.finditer(answer):
        for part in re.split(r"\s*[,，、;；]\s*", match.group(1)):
            numbers = _expand(part)
            found.extend(number for number in numbers if 1 <= number <= passage_count and number not in found)
    return found


def _expand(part: str) -> list[int]:
    span = _RANGE.fullmatch(part)
    if span is None:
        return [int(part)] if part.isdigit() else []
    first, last = int(span.group(1)), int(span.group(2))
    if last < first or last - first > _MAX_RANGE:
        return []
    return list(range(first, last + 1))


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def citations_for(answer: str, passages: Sequence[Passage]) -> tuple[Citation, ...]:
    """Every source given to the model, numbered as in the prompt, flagged when the answer cites it.

    All sources are returned even when the model cites none, so the user can always check them.
    """
    cited = set(cited_numbers(answer, len(passages)))
    return tuple(
        Citation(
            number=number, path=passage.path, page=passage.page, heading=passage.heading,
            document_id=passage.document_id, cited=number in cited, excerpt=excerpt(passage.text),
        )
        for number, passage in enumerate(passages, 1)
    )
