"""Search terms for conversation full-text search, with Chinese/Japanese/Korean text handled.

SQLite's ``unicode61`` tokenizer reads a run of CJK characters as one word, so searching "模型"
would never find "中文模型很好". Messages are therefore indexed as pre-segmented text: latin
words in lower case, and every CJK run as its overlapping character bigrams (in order, so a
longer query matches as a phrase of bigrams) followed by its single characters (so a
one-character query matches too). Queries are segmented the same way.
"""

from __future__ import annotations

import re

_CJK = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_{_CJK}]+)")


def _bigrams(run: str) -> list[str]:
    return [run[index : index + 2] for index in range(len(run) - 1)]


def index_text(text: str) -> str:
    """``text`` as space-separated terms for the FTS5 column."""
    terms: list[str] = []
    for match in _TOKEN.finditer(text):
        run = match.group("cjk")
        if run is not None:
            terms.extend(_bigrams(run))
            terms.extend(run)
        else:
            terms.append(match.group("word").casefold())
    return " ".join(terms)


def query_parts(query: str) -> list[tuple[str, bool]]:
    """The pieces of ``query`` a message must contain, in order: (text, is a CJK run)."""
    parts: list[tuple[str, bool]] = []
    for match in _TOKEN.finditer(query):
        run = match.group("cjk")
        parts.append((run, True) if run is not None else (match.group("word").casefold(), False))
    return parts


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression requiring every part of ``query``; None if it has no searchable text.

    A CJK run of two or more characters becomes a phrase of its bigrams; a lone character
    matches its unigram. The last latin word matches as a prefix (search as you type).
    """
    parts = query_parts(query)
    if not parts:
        return None
    clauses: list[str] = []
    for position, (part, is_cjk) in enumerate(parts):
        if is_cjk:
            terms = _bigrams(part) if len(part) > 1 else [part]
            clauses.append('"' + " ".join(terms) + '"')
        else:
            prefix = "*" if position == len(parts) - 1 else ""
            clauses.append(f'"{part}"{prefix}')
    return " AND ".join(clauses)


def snippet(text: str, query: str, width: int = 80) -> str:
    """About ``width`` characters of ``text`` around the first part of ``query`` found in it."""
    folded = text.casefold()
    positions = [found for part, _ in query_parts(query) if (found := folded.find(part)) >= 0]
    flat = " ".join(text.split())
    if not positions:
        return flat[:width] + ("…" if len(flat) > width else "")
    start = max(0, min(positions) - width // 3)
    piece = " ".join(text[start : start + width].split())
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(text) else "")
