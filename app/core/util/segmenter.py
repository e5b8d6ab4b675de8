"""Search terms for SQLite full-text search, Chinese/Japanese/Korean included: one segmenter
for conversation search and knowledge-base search, so one query splits one way in both.

SQLite's ``unicode61`` tokenizer reads a run of CJK characters as one word, so "模型" would never
be found inside "中文模型很好", and the ``trigram`` tokenizer cannot match queries shorter than
three characters. Text is therefore segmented here, in Python, before it is indexed: a latin
word becomes its lower-case form, a CJK run its single characters followed by its overlapping
character bigrams (in order, so a longer query can match as a phrase of bigrams). A query is
split the same way into :class:`Piece` s; each search combines their terms its own way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Han (with extension A, the supplementary planes' extensions B-F and compatibility ideographs),
# Hiragana, Katakana (with its phonetic extensions and half-width forms), Hangul syllables, and
# the iteration/closing marks that are letters in practice (々 〆).
CJK_CHARACTERS = (
    "\u3005\u3006\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f"
)
_WORD = rf"[^\W_{CJK_CHARACTERS}]+"
_TOKEN = re.compile(rf"(?P<cjk>[{CJK_CHARACTERS}]+)|(?P<word>{_WORD}(?:['’]{_WORD})*)")


@dataclass(frozen=True)
class Piece:
    """One searchable piece of a text: a lower-case latin word or a run of CJK characters."""

    text: str
    cjk: bool

    def terms(self) -> list[str]:
        """What a query looks for: a word itself, a CJK run's bigrams (its one character if alone)."""
        if not self.cjk or len(self.text) == 1:
            return [self.text]
        return [self.text[index : index + 2] for index in range(len(self.text) - 1)]


def pieces(text: str) -> list[Piece]:
    """The words and CJK runs of ``text`` in order; punctuation and symbols are dropped."""
    found: list[Piece] = []
    for match in _TOKEN.finditer(text):
        run = match.group("cjk")
        if run is not None:
            found.append(Piece(run, True))
        else:
            found.append(Piece(match.group("word").lower().replace("’", "'"), False))
    return found


def index_terms(text: str) -> str:
    """``text`` as space-separated terms for an FTS5 column: words, CJK characters then bigrams."""
    terms: list[str] = []
    for piece in pieces(text):
        if piece.cjk and len(piece.text) > 1:
            terms.extend(piece.text)
        terms.extend(piece.terms())
    return " ".join(terms)
