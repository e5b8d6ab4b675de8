"""A retrieval check on the user's own documents: how often search finds the passage a question is about.

Passages are sampled from the knowledge base (spread over its documents), a question writer (the
loaded chat model, see app.core.services.retrieval_check) writes one question per passage, and each
question is searched with the current settings. recall@k is the share of questions whose passage
is among the top k hits: the number to compare after changing the embedding model or chunk size.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from app.core.kb.retrieval import SearchResult

DEFAULT_SAMPLES: Final = 20
MIN_PASSAGE_CHARACTERS: Final = 120
"""Shorter chunks (a heading, a table's last row) make poor questions and are not sampled; a Chinese,
Japanese or Korean character counts twice (it carries about as much as two letters of English)."""
_WIDE: Final = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

QuestionWriter = Callable[[str], str]
"""Writes one question that the given passage answers."""
CheckProgress = Callable[[int, int], None]
"""Called with (questions checked, questions in all)."""


class Searcher(Protocol):
    def search(self, query: str, k: int | None = None) -> SearchResult: ...


@dataclass(frozen=True)
class Passage:
    """A sampled chunk: what the question is written from, and what counts as finding it."""

    chunk_id: int
    document_id: int
    path: str
    page: int | None
    char_start: int
    char_end: int
    text: str


@dataclass(frozen=True)
class CheckedQuestion:
    passage: Passage
    question: str
    rank: int | None
    """1-based rank of the passage among the hits; None when it is not in the top k."""


@dataclass(frozen=True)
class CheckReport:
    k: int
    questions: tuple[CheckedQuestion, ...]
    seconds: float
    settings: dict[str, str]
    cancelled: bool = False

    @property
    def found(self) -> int:
        return sum(1 for item in self.questions if item.rank is not None)

    @property
    def recall(self) -> float:
        """recall@k: found / asked (0.0 when nothing was asked)."""
        return self.found / len(self.questions) if self.questions else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k, "recall_at_k": round(self.recall, 4), "found": self.found,
            "questions": [
                {"question": item.question, "rank": item.rank, "path": item.passage.path,
                 "page": item.passage.page, "chunk_id": item.passage.chunk_id,
                 "passage": item.passage.text[:300]}
                for item in self.questions
            ],
            "seconds": round(self.seconds, 2), "settings": dict(self.settings), "cancelled": self.cancelled,
        }


def sample_passages(database_path: Path, count: int, seed: int | None = None) -> list[Passage]:
    """Up to ``count`` chunks of indexed documents, taken in turn from each document, at random."""
    from app.core.kb.database import open_database

    generator = random.Random(seed)
    connection = open_database(database_path)
    try:
        rows = connection.execute(
            "SELECT c.id, c.document_id, d.path, c.page, c.char_start, c.char_end, c.text FROM chunks c "
            "JOIN documents d ON d.id = c.document_id WHERE d.status = 'indexed' AND length(c.text) >= ? "
            "ORDER BY c.id",
            (MIN_PASSAGE_CHARACTERS // 2,),
        ).fetchall()
    finally:
        connection.close()
    by_document: dict[int, list[Passage]] = {}
    for row in rows:
        if len(row[6]) + len(_WIDE.findall(row[6])) < MIN_PASSAGE_CHARACTERS:
            continue
        passage = Passage(int(row[0]), int(row[1]), str(row[2]), row[3], int(row[4]), int(row[5]), str(row[6]))
        by_document.setdefault(passage.document_id, []).append(passage)
    pools = list(by_document.values())
    for pool in pools:
        generator.shuffle(pool)
    generator.shuffle(pools)
    chosen: list[Passage] = []
    while len(chosen) < count and any(pools):
        for pool in pools:
            if pool and len(chosen) < count:
                chosen.append(pool.pop())
    return chosen


def found_at(passage: Passage, result: SearchResult) -> int | None:
    """Rank of ``passage`` among the hits: its own chunk, or a hit overlapping most of it (same document)."""
    for rank, hit in enumerate(result.hits, start=1):
        if hit.chunk_id == passage.chunk_id:
            return rank
        if hit.document_id == passage.document_id and hit.page == passage.page:
            overlap = min(hit.char_end, passage.char_end) - max(hit.char_start, passage.char_start)
            if overlap * 2 >= passage.char_end - passage.char_start:
                return rank
    return None


def run_retrieval_check(
    searcher: Searcher,
    passages: Sequence[Passage],
    write_question: QuestionWriter,
    *,
    k: int = 5,
    settings: dict[str, str] | None = None,
    progress: CheckProgress | None = None,
    cancel: threading.Event | None = None,
) -> CheckReport:
    """Ask one written question per passage and record where search ranks the passage (top ``k``).

    A question the writer leaves empty counts as not found (the model could not use the passage).
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    started = time.monotonic()
    checked: list[CheckedQuestion] = []
    for passage in passages:
        if cancel is not None and cancel.is_set():
            break
        question = " ".join(write_question(passage.text).split())
        rank = found_at(passage, searcher.search(question, k)) if question else None
        checked.append(CheckedQuestion(passage, question, rank))
        if progress is not None:
            progress(len(checked), len(passages))
    cancelled = cancel is not None and cancel.is_set() and len(checked) < len(passages)
    return CheckReport(k, tuple(checked), time.monotonic() - started, dict(settings or {}), cancelled)


def report_lines(report: CheckReport) -> list[str]:
    """The report in a few lines for a terminal."""
    lines = [f"recall@{report.k}: {report.recall:.2f} ({report.found} of {len(report.questions)} questions "
             f"found their passage) in {report.seconds:.0f} s"]
    lines += [f"  {name}: {value}" for name, value in report.settings.items()]
    for item in report.questions:
        where = f"#{item.rank}" if item.rank is not None else "missed"
        page = f" p.{item.passage.page}" if item.passage.page is not None else ""
        lines.append(f"  [{where:>6}] {item.question[:90]}  ({Path(item.passage.path).name}{page})")
    return lines

