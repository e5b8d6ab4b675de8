"""Cutting a parsed document into overlapping chunks sized in embedding-model tokens, along its structure.

A page's sections are cut into *atoms* (sentences and lines of prose, lines of code and tables;
words, CJK characters or character runs for atoms too big alone), each carrying the strength of
the break before it: section start > blank line > sentence end > line end > word > cut. A chunk
takes atoms while their estimated tokens fit, then ends at the strongest break that leaves it
reasonably full (a code section that fits in one chunk is never broken); its exact size comes
from one ``count_tokens`` call, and the estimate (a regex count scaled by the ratio observed so
far) is corrected from it. The next chunk starts a few atoms back (overlap) unless a new section
starts there. Chunks never cross pages; ``chunk.text == page.text[chunk.char_start:chunk.char_end]``
exactly; a chunk never ends with whitespace and starts with some only as a code line's indentation.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from app.core.kb.documents import Chunk, DocumentPart, PageText, ParsedDocument, Section

TokenCounter = Callable[[str], int]

SECTION, PARAGRAPH, SENTENCE, LINE, WORD, CUT = 5, 4, 3, 2, 1, 0
# How full a chunk must be (fraction of the token budget) before it may end at a break of a strength.
_MIN_FILL: Final = {SECTION: 0.25, PARAGRAPH: 0.5, SENTENCE: 0.5, LINE: 0.6, WORD: 0.75, CUT: 1.0}
_CJK: Final = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
# A cheap token estimate: CJK characters, word pieces of up to 8 letters, digit groups, symbols.
# (Patterns with big character classes take milliseconds to compile: compiled on first use, then
# re's own cache hands them out.)
_TOKEN_ESTIMATE: Final = rf"[{_CJK}]|[^\W\d_{_CJK}]{{1,8}}|\d{{1,3}}|[^\w\s]"
# A line's text from its first non-blank character (matches start only there: no backtracking).
_LINE_CONTENT: Final = re.compile(r"\S[^\n]*")
_SENTENCE_END: Final = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|[。！？；]+[”’」』）\"']*")
_WORD_PIECE: Final = rf"[{_CJK}]|[^\s{_CJK}]+"
_LINE_KINDS: Final = frozenset({"code", "table"})


class _Atom(NamedTuple):
    start: int
    end: int
    strength: int  # of the break before this atom
    section: int
    words: int  # the regex estimate, before scaling by the observed tokens-per-word ratio
    dense: bool  # a line of code or a table row: such text has its own tokens-per-word ratio
    heading: bool
    exact: int = 0  # the exact token count, when known (a code section kept whole); else 0


def chunk_document(
    document: ParsedDocument,
    count_tokens: TokenCounter,
    chunk_tokens: int = 512,
    overlap_tokens: int = 64,
) -> list[Chunk]:
    """All chunks of ``document`` in order (see ``iter_chunks``)."""
    return list(iter_chunks(document, count_tokens, chunk_tokens, overlap_tokens))


def iter_chunks(
    document: ParsedDocument | DocumentPart,
    count_tokens: TokenCounter,
    chunk_tokens: int = 512,
    overlap_tokens: int = 64,
    first_ordinal: int = 0,
) -> Iterator[Chunk]:
    """Chunks of at most ``chunk_tokens`` tokens (by ``count_tokens``), consecutive chunks of one
    section sharing at most ``overlap_tokens``; ordinals count up from ``first_ordinal`` across the document
    (a part of a document: its chunks end where it ends; offsets count from the whole page's start).
    """
    if chunk_tokens < 1:
        raise ValueError("chunk_tokens must be at least 1")
    if not 0 <= overlap_tokens < chunk_tokens:
        raise ValueError("overlap_tokens must be at least 0 and less than chunk_tokens")
    estimator = _TokenEstimator(count_tokens)
    ordinal = first_ordinal
    for page in document.pages:
        for chunk in _PageChunker(page, estimator, chunk_tokens, overlap_tokens).chunks(ordinal):
            yield chunk
            ordinal += 1


class _TokenEstimator:
    """Exact counts from the model's tokenizer, and cheap estimates scaled by what it has said so far
    (one tokens-per-word ratio for prose, one for code and tables).
    """

    def __init__(self, count_tokens: TokenCounter) -> None:
        self.count_tokens = count_tokens
        self._token_pattern = re.compile(_TOKEN_ESTIMATE)
        self._ratio = {False: 1.0, True: 1.0}
        self._calibrated = {False: False, True: False}

    def words(self, text: str, start: int, end: int) -> int:
        return len(self._token_pattern.findall(text, start, end))

    def atom(self, atom: _Atom) -> float:
        return atom.exact or atom.words * self._ratio[atom.dense]

    def atoms(self, atoms: list[_Atom]) -> float:
        return sum(self.atom(atom) for atom in atoms)

    def count(self, text: str, atoms: list[_Atom]) -> int:
        """The exact count of ``text`` (made of ``atoms``); the ratio of the dominant kind learns from it."""
        tokens = self.count_tokens(text)
        words = {False: 0, True: 0}
        known = 0
        for atom in atoms:
            if atom.exact:
                known += atom.exact
            else:
                words[atom.dense] += atom.words
        dense = words[True] > words[False]
        if words[dense]:
            explained = known + words[not dense] * self._ratio[not dense]
            self.learn(dense, words[dense], tokens - explained)
        return tokens

    def learn(self, dense: bool, words: int, tokens: float) -> None:
        if words <= 0 or tokens <= 0:
            return
        observed = tokens / words
        if self._calibrated[dense]:
            observed = (self._ratio[dense] + observed) / 2
        self._ratio[dense], self._calibrated[dense] = observed, True


class _PageChunker:
    """Chunks one page: atoms stream in, a window of them becomes chunk after chunk."""

    def __init__(
        self, page: PageText, estimator: _TokenEstimator, chunk_tokens: int, overlap_tokens: int
    ) -> None:
        self.page = page
        self.text = page.text
        self.estimator = estimator
        self.limit = chunk_tokens
        self.overlap = overlap_tokens
        self.sections = _section_spans(page)
        self.pending: deque[_Atom] = deque()
        self.atoms = self._atoms()
        self.done = False  # every atom of the page has been pulled into the window

    def chunks(self, first_ordinal: int) -> Iterator[Chunk]:
        window: list[_Atom] = []
        carried = 0  # atoms at the window's start repeated from the previous chunk (the overlap)
        ordinal = first_ordinal
        while True:
            self._fill(window)
            if len(window) == carried:
                return
            end, tokens = self._fit(window, carried)
            if end <= carried:  # the overlap crowded out every new atom: drop it
                del window[:carried]
                carried = 0
                continue
            yield self._chunk(window[:end], tokens, ordinal)
            ordinal += 1
            overlap_start = self._overlap_start(window, end)
            del window[:overlap_start]
            carried = end - overlap_start

    # -- filling and fitting -------------------------------------------------------------

    def _fill(self, window: list[_Atom]) -> None:
        """Pull atoms until the window holds more than one chunk's worth (or the page is done)."""
        estimate = self.estimator.atom
        total = self.estimator.atoms(window)
        while total <= self.limit:
            atom = self._next_atom()
            if atom is None:
                self.done = True
                return
            tokens = estimate(atom)
            if tokens > self.limit and atom.end - atom.start > 1:
                self.pending.extendleft(reversed(self._split(atom, tokens)))
                continue
            window.append(atom)
            total += tokens

    def _fit(self, window: list[_Atom], carried: int) -> tuple[int, int]:
        """(atoms in the next chunk, its exact token count): the best break that fits, verified."""
        budget = float(self.limit)
        while True:
            end = self._choose_break(window, carried, budget)
            if end <= carried:
                return end, 0
            tokens = self.estimator.count(self.text[window[0].start : window[end - 1].end], window[:end])
            if tokens <= self.limit:
                return self._extended(window, carried, end, tokens)
            if end - carried > 1:
                estimated = self.estimator.atoms(window[:end])
                budget = min(budget, estimated) * self.limit / tokens * 0.97
                continue
            if carried:
                return carried, 0  # even one new atom does not fit beside the overlap
            atom = window[0]  # one atom alone is too big: cut it finer
            if atom.end - atom.start <= 1:
                raise ValueError(f"chunk_tokens={self.limit} is too small: one character takes {tokens} tokens")
            window[0:1] = self._split(atom, tokens)
            budget = float(self.limit)

    def _extended(self, window: list[_Atom], carried: int, end: int, tokens: int) -> tuple[int, int]:
        """Once more with the corrected estimate when the chunk came out small: the first chunks of a
        document are cut on an uncalibrated estimate.
        """
        if tokens >= 0.85 * self.limit or (end == len(window) and self.done):
            return end, tokens
        self._fill(window)
        longer = self._choose_break(window, carried, float(self.limit))
        if longer <= end:
            return end, tokens
        longer_tokens = self.estimator.count(self.text[window[0].start : window[longer - 1].end], window[:longer])
        return (longer, longer_tokens) if longer_tokens <= self.limit else (end, tokens)

    def _choose_break(self, window: list[_Atom], carried: int, budget: float) -> int:
        """How many atoms of the window the chunk takes: the strongest break that fills it enough."""
        cumulative = 0.0
        fits: list[float] = []  # estimated tokens of the chunk ending after each atom
        for atom in window:
            tokens = self.estimator.atom(atom)
            if fits and cumulative + tokens > budget:
                break
            cumulative += tokens
            fits.append(cumulative)
        last = len(fits)
        if last == len(window) and self.done:
            return last
        if last <= carried:
            return carried  # the overlap alone fills the budget
        best, best_strength = last, -1
        has_text = any(not atom.heading for atom in window[:carried])
        for end in range(carried + 1, min(last + 1, len(window))):
            has_text = has_text or not window[end - 1].heading
            strength = window[end].strength
            if fits[end - 1] < _MIN_FILL[strength] * budget or not has_text or window[end - 1].heading:
                continue  # too empty, or a heading cut off from its text
            if strength >= best_strength:
                best, best_strength = end, strength
        return best

    def _overlap_start(self, window: list[_Atom], end: int) -> int:
        """Where the next chunk starts: at most ``overlap`` tokens back from ``end``, in the same section."""
        if self.overlap == 0:
            return end
        if end == len(window):
            following = self._next_atom()
            if following is None:
                return end
            self.pending.appendleft(following)
            if following.strength == SECTION:
                return end
        elif window[end].strength == SECTION:
            return end
        section = window[end - 1].section
        start, tokens = end, 0.0
        while start > 1:  # never back to this chunk's own start: each chunk must move on
            candidate = window[start - 1]
            tokens += self.estimator.atom(candidate)
            if candidate.section != section or tokens > self.overlap:
                break
            start -= 1
        while start < end:
            if self.estimator.count_tokens(self.text[window[start].start : window[end - 1].end]) <= self.overlap:
                return start
            start += 1
        return end

    # -- atoms ---------------------------------------------------------------------------

    def _next_atom(self) -> _Atom | None:
        if self.pending:
            return self.pending.popleft()
        return next(self.atoms, None)

    def _atoms(self) -> Iterator[_Atom]:
        words = self.estimator.words
        for index, (start, end, section) in enumerate(self.sections):
            heading = section.kind == "heading"
            dense = section.kind in _LINE_KINDS
            if section.kind == "code":
                whole = self._whole_code(start, end)
                if whole is not None:
                    whole_words = words(self.text, whole[0], whole[1])
                    yield _Atom(whole[0], whole[1], SECTION, index, whole_words, dense, heading, whole[2])
                    continue
            strength = SECTION
            previous_end = start
            spans = _line_spans if dense or heading else _sentence_spans
            for atom_start, atom_end, boundary in spans(self.text, start, end):
                if strength != SECTION:
                    strength = PARAGRAPH if self.text.count("\n", previous_end, atom_start) >= 2 else boundary
                yield _Atom(atom_start, atom_end, strength, index, words(self.text, atom_start, atom_end),
                            dense, heading)
                strength, previous_end = -1, atom_end

    def _whole_code(self, start: int, end: int) -> tuple[int, int, int] | None:
        """(start, end, exact tokens) of a code section that fits in one chunk, else None."""
        if end - start > self.limit * 16:
            return None
        lines = _lines(self.text, start, end, keep_indent=True)
        first = next(lines, None)
        if first is None:
            return None
        start, end = first
        for _, line_end in lines:
            end = line_end
        words = self.estimator.words(self.text, start, end)
        if self.estimator.atom(_Atom(start, end, SECTION, 0, words, True, False)) > self.limit * 3:
            return None
        tokens = self.estimator.count_tokens(self.text[start:end])
        self.estimator.learn(True, words, tokens)
        return (start, end, tokens) if tokens <= self.limit else None

    def _split(self, atom: _Atom, tokens: float) -> list[_Atom]:
        """Pieces of an atom of ``tokens`` tokens, too many for a chunk: its words (CJK characters), else
        runs of characters sized to fit.
        """
        pieces = [
            (match.start(), match.end())
            for match in re.compile(_WORD_PIECE).finditer(self.text, atom.start, atom.end)
        ]
        inner = WORD
        if len(pieces) == 1:  # one word: runs of characters (the atom's indentation, if any, dropped)
            first, last = pieces[0]
            length = last - first
            size = max(1, min(length - 1, int(length * self.limit / tokens * 0.9)))
            pieces = [(start, min(start + size, last)) for start in range(first, last, size)]
            inner = CUT
        return [
            atom._replace(start=start, end=end, strength=atom.strength if number == 0 else inner,
                          words=max(1, self.estimator.words(self.text, start, end)), exact=0)
            for number, (start, end) in enumerate(pieces)
        ]

    def _chunk(self, atoms: list[_Atom], tokens: int, ordinal: int) -> Chunk:
        start, end = atoms[0].start, atoms[-1].end
        offset = self.page.offset
        return Chunk(ordinal, self.text[start:end], self.page.page_number, self._heading_path(atoms),
                     offset + start, offset + end, tokens)

    def _heading_path(self, atoms: list[_Atom]) -> tuple[str, ...]:
        """The heading path of the section holding most of the chunk's characters (headings aside)."""
        weights: dict[int, int] = {}
        for atom in atoms:
            if not atom.heading:
                weights[atom.section] = weights.get(atom.section, 0) + atom.end - atom.start
        section = max(weights, key=lambda index: weights[index]) if weights else atoms[-1].section
        return self.sections[section][2].heading_path


def _section_spans(page: PageText) -> list[tuple[int, int, Section]]:
    """Where each section's text lies in the page text (the whole page as one section if they don't match)."""
    spans: list[tuple[int, int, Section]] = []
    cursor = 0
    for section in page.sections:
        if not section.text:
            continue
        if page.text.startswith(section.text, cursor):
            start = cursor
        else:
            start = page.text.find(section.text, cursor)
            if start < 0:
                return [(0, len(page.text), Section(page.text))]
        spans.append((start, start + len(section.text), section))
        cursor = start + len(section.text)
    return spans or [(0, len(page.text), Section(page.text))]


def _lines(text: str, start: int, end: int, *, keep_indent: bool) -> Iterator[tuple[int, int]]:
    """(start, end) of the non-blank lines in text[start:end], without trailing whitespace."""
    for match in _LINE_CONTENT.finditer(text, start, end):
        line_start, line_end = match.start(), match.end()
        if keep_indent:
            line_start = max(text.rfind("\n", start, line_start) + 1, start)
        while text[line_end - 1].isspace():
            line_end -= 1
        yield line_start, line_end


def _line_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Non-blank lines (indentation kept, trailing spaces dropped)."""
    for line_start, line_end in _lines(text, start, end, keep_indent=True):
        yield line_start, line_end, SENTENCE


def _sentence_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Sentences of prose, also cut at line ends; stripped of surrounding whitespace."""
    boundary = LINE
    for line_start, line_end in _lines(text, start, end, keep_indent=False):
        piece_start = line_start
        for sentence_end in _SENTENCE_END.finditer(text, line_start, line_end):
            span = _stripped(text, piece_start, sentence_end.end())
            if span is not None:
                yield span[0], span[1], boundary
            boundary, piece_start = SENTENCE, sentence_end.end()
        span = _stripped(text, piece_start, line_end)
        if span is not None:
            yield span[0], span[1], boundary
            boundary = LINE
        # else the line ended with a sentence: the next line starts after a sentence break


def _stripped(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None
