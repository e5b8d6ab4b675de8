"""The reader process: real parsing in a warm child process; crashes, memory and time limits end as
failures of that one file, and the next file is read by a fresh process."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from app.core.kb.parse_worker import CHILD_LOGGER, MIB, ParseLimits, ParseWorker, too_large
from app.core.kb.parsers import parse_document
from app.core.kb.parsers.document_texts import document_text
from app.core.kb.parsers.errors import DocumentError
from app.core.util.translatable import Text
from tests.core.kb.reader_hooks import HOOK
from tests.fixtures.log_records import records_of

GENEROUS = ParseLimits(timeout_seconds=120.0)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_worker_reads_files_as_parse_document_does_and_stays_warm(tmp_path: Path) -> None:
    first = write(tmp_path / "notes.md", "# Bees\n\nBees dance to show where flowers are.\n")
    second = write(tmp_path / "plain.txt", "Sourdough needs a starter culture.")
    with ParseWorker(GENEROUS) as worker:
        assert worker.parse(first) == parse_document(first)
        assert worker.parse(second) == parse_document(second)
        assert worker.started == 1, "one process read both files"


def test_a_parser_error_arrives_with_its_kind_and_reason(tmp_path: Path) -> None:
    empty = write(tmp_path / "blank.txt", "   \n  ")
    with ParseWorker(GENEROUS) as worker, pytest.raises(DocumentError) as caught:
        worker.parse(empty)
    assert caught.value.kind == "empty" and "only whitespace" in caught.value.message
    assert caught.value.path == empty


def test_a_file_that_kills_the_worker_fails_alone(tmp_path: Path) -> None:
    poison = write(tmp_path / "kill-me.txt", "anything")
    good = write(tmp_path / "good.txt", "Iceland has many volcanoes.")
    with ParseWorker(GENEROUS, HOOK) as worker:
        with pytest.raises(DocumentError) as caught:
            worker.parse(poison)
        assert caught.value.kind == "crashed" and "killed" in caught.value.message
        assert str(poison) in caught.value.message
        assert worker.parse(good) == parse_document(good), "a fresh process reads the next file"
        assert worker.started == 2


def test_a_parser_bug_is_in_the_apps_log_with_its_traceback(tmp_path: Path) -> None:
    buggy = write(tmp_path / "bug.txt", "anything")
    with records_of(CHILD_LOGGER, logging.INFO) as seen, ParseWorker(GENEROUS, HOOK) as worker:
        with pytest.raises(DocumentError) as caught:
            worker.parse(buggy)
        assert caught.value.kind == "unreadable" and "RuntimeError: a parser bug met bug.txt" in caught.value.message
        logged = seen.wait_for(lambda record: record.getMessage() == f"reading {buggy} failed")
    assert (logged.name, logged.levelno) == (f"{CHILD_LOGGER}.app.core.kb.parse_worker", logging.ERROR)
    assert logged.processName == "unidesk-kb-reader"
    assert "RuntimeError: a parser bug met bug.txt" in logging.Formatter().format(logged)


def test_a_file_that_needs_too_much_memory_fails_as_too_large(tmp_path: Path) -> None:
    hog = write(tmp_path / "hog.txt", "anything")
    good = write(tmp_path / "good.txt", "Ash clouds close airspace.")
    with ParseWorker(ParseLimits(timeout_seconds=120.0, memory_bytes=512 * MIB), HOOK) as worker:
        with pytest.raises(DocumentError) as caught:
            worker.parse(hog)
        assert caught.value.kind == "too-large" and "512 MB of memory" in caught.value.message
        assert "kb.read_memory_mb" in (caught.value.hint or "")
        assert worker.parse(good) == parse_document(good)


def test_a_file_that_never_finishes_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    hang = write(tmp_path / "hang.txt", "anything")
    good = write(tmp_path / "good.txt", "Hydration is water over flour.")
    with ParseWorker(ParseLimits(timeout_seconds=2.0), HOOK) as worker:
        with pytest.raises(DocumentError) as caught:
            worker.parse(hang)
        assert caught.value.kind == "timeout" and "longer than 2 s" in caught.value.message
        worker.limits = GENEROUS
        assert worker.parse(good) == parse_document(good)


def test_cancelling_stops_a_reading_in_progress(tmp_path: Path) -> None:
    hang = write(tmp_path / "hang.txt", "anything")
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    with ParseWorker(GENEROUS, HOOK) as worker:
        started = time.monotonic()
        assert worker.parse(hang, stop.is_set) is None
        assert time.monotonic() - started < 100, "it did not wait for the deadline"


def test_the_size_limit_names_the_size_the_limit_and_the_setting(tmp_path: Path) -> None:
    limits = ParseLimits(max_file_bytes=2 * MIB)
    assert too_large(tmp_path / "a.txt", 2 * MIB, limits) is None
    error = too_large(tmp_path / "a.txt", 5 * MIB, limits)
    assert error is not None and error.kind == "too-large"
    assert "the file is 5 MB, more than the 2 MB limit" in error.message and "kb.max_file_mb" in (error.hint or "")


@pytest.mark.parametrize("problem", [
    "the file is 5 MB, more than the 2 MB limit for one file",
    "reading it took longer than 2 s, so it was stopped",
    "reading it needed more than the 512 MB of memory allowed",
    "reading it crashed the reader process (it was killed, probably for using too much memory)",
    "reading it was interrupted 2 times (the app stopped meanwhile)",
    "it would inflate to 400 MB, more than the 512 MB allowed",
    "its part word/document.xml is compressed 1000:1, as zip bombs are",
])
def test_limit_problems_are_translatable(problem: str) -> None:
    assert isinstance(document_text(problem), Text)
