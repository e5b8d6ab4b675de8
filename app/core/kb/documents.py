"""What parsing and chunking produce: a document's text by page, and chunks that can be cited."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Section:
    """A run of text inside one page, under one heading path.

    ``kind`` tells the chunker how to treat it: "text" (paragraphs), "heading", "code"
    (never split mid-block if avoidable), "table" (csv rows).
    """

    text: str
    kind: str = "text"
    heading_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class PageText:
    """The text of one page (PDF) or of the whole file (``page_number`` None).

    ``sections`` keep structure (headings, code blocks); their texts joined by blank lines
    make ``text``, and character offsets of chunks refer to ``text``.
    """

    page_number: int | None
    text: str
    sections: tuple[Section, ...] = ()
    offset: int = 0
    """Where ``text`` starts in the page's whole text: a big page is read in parts (see DocumentPart), and
    chunk offsets always refer to the whole page."""


@dataclass(frozen=True)
class ParsedDocument:
    path: Path
    format: str
    title: str
    pages: tuple[PageText, ...]
    encoding: str | None = None
    # What was read only in part, e.g. "page 7 skipped: ..." or replaced undecodable bytes.
    notes: tuple[str, ...] = ()

    @property
    def character_count(self) -> int:
        return sum(len(page.text) for page in self.pages)


@dataclass(frozen=True)
class DocumentPart:
    """A stretch of a document read on its own (a big document streams in parts, each committed when read).

    ``resume_after`` says where reading continues after this part (only the parser that made it reads it;
    None after the last part). A part may hold no pages (e.g. a page skipped, said in ``notes``).
    """

    format: str
    title: str
    pages: tuple[PageText, ...]
    resume_after: str | None
    notes: tuple[str, ...] = ()
    encoding: str | None = None
    skipped_page: int | None = None
    """A page given up (its recognition ran out of time or crashed the reader); ``notes`` say why."""

    @property
    def character_count(self) -> int:
        return sum(len(page.text) for page in self.pages)


@dataclass(frozen=True)
class Chunk:
    """A piece of a document sized for the embedding model, with everything a citation needs."""

    ordinal: int
    text: str
    page_number: int | None
    heading_path: tuple[str, ...]
    char_start: int
    char_end: int
    token_count: int

    @property
    def heading(self) -> str:
        return " > ".join(self.heading_path)
