"""Test-only parsers for the reader process (named as "tests.core.kb.reader_hooks:parse").

The file's name says what to do: ``kill*`` kills the reader process, ``hog*`` allocates memory until the
limit stops it, ``hang*`` never returns, ``bug*`` fails as a parser bug would (a RuntimeError); anything else
is read by the real parser. ``read_parts`` (named as
PARTS_HOOK) is the real streaming reader with a fake page recogniser that can hang on one page. Every read is
logged (one name a line) in the file named by the environment variable READS_LOG, when set, so tests can
count what the reader process read.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from app.core.kb.documents import DocumentPart, ParsedDocument
from app.core.kb.ocr import OcrStep, TextRecognizer
from app.core.kb.parsers import parse_document
from app.core.kb.parsers.parts import document_parts

HOOK = "tests.core.kb.reader_hooks:parse"
READS_LOG = "UNIDESK_TEST_READS_LOG"
PARTS_HOOK = "parts:tests.core.kb.reader_hooks:read_parts"
HANG_PAGE = "UNIDESK_TEST_OCR_HANG_PAGE"
"""read_parts: the page number whose recognition never returns."""


def parse(path: Path) -> ParsedDocument:
    _log(path.name)
    if path.name.startswith("kill"):
        os.kill(os.getpid(), signal.SIGKILL)
    if path.name.startswith("hog"):
        hoard = []
        while True:  # 64 MB at a time, touched so it is resident too
            hoard.append(bytearray(64 * 1024 * 1024))
            hoard[-1][::4096] = b"x" * len(hoard[-1][::4096])
    if path.name.startswith("bug"):
        raise RuntimeError(f"a parser bug met {path.name}")
    if path.name.startswith("hang"):
        while True:
            time.sleep(1)
    return parse_document(path)


class _PageRecognizer(TextRecognizer):
    """Reads a scanned page as "scanned page N lighthouseN" at once (logged as "page-N" in READS_LOG), except
    the page named by HANG_PAGE: its recognition never returns."""

    def __init__(self) -> None:
        super().__init__()
        self.page = 0

    def recognize(self, image: object) -> str:
        _log(f"page-{self.page}")
        if str(self.page) == os.environ.get(HANG_PAGE):
            while True:
                time.sleep(1)
        return f"scanned page {self.page} lighthouse{self.page}"


def read_parts(
    path: Path, resume: str | None, page_started: Callable[[int, int, str | None], None], part_bytes: int
) -> Iterator[DocumentPart]:
    """The real streaming reader with OCR by :class:`_PageRecognizer` (named by PARTS_HOOK)."""
    recognizer = _PageRecognizer()

    def started(_: Path, number: int, pages: int, resume_after: str | None) -> None:
        recognizer.page = number
        page_started(number, pages, resume_after)

    return document_parts(path, resume, OcrStep(recognizer, on_page_started=started), part_bytes)


def _log(name: str) -> None:
    log = os.environ.get(READS_LOG)
    if log:
        with open(log, "a", encoding="utf-8") as stream:
            stream.write(name + "\n")


def reads(log: Path) -> list[str]:
    """Names read so far by reader processes, in order."""
    return log.read_text(encoding="utf-8").split() if log.exists() else []
