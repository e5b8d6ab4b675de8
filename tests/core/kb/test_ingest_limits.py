"""Limits and stages of ingestion with the real reader process, parsers, chunker, SQLite, chromadb and MiniLM.

A file that kills the reader fails alone and is never read again; an app that died while reading a
file retries it a few times, then gives up; files over the size cap and DOCX zip bombs are refused with their
reason; a document is findable by keywords before its vectors are in; small files are embedded before a
big one finishes.
"""

from __future__ import annotations

import argparse
import threading
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli.kb import _list
from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.indexer import IndexingOptions, IndexingSummary
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.parsers import DocumentError, parse_document
from app.core.kb.parsers.archive_limits import check_archive
from app.core.kb.progress import ProgressTracker
from app.core.kb.read_attempts import MAX_INTERRUPTED, begin_attempt
from app.core.util.sqlite import transaction
from tests.core.kb.reader_hooks import HOOK, READS_LOG, reads
from tests.fixtures.documents import ENGLISH_PARAGRAPHS, write_docx
from tests.fixtures.knowledge_base import open_knowledge_base

TEXTS = {
    "bees.txt": "Bees perform a waggle dance to show where the flowers are.",
    "volcano.txt": "Iceland has many volcanoes; ash clouds close airspace.",
}
WAIT_SECONDS = 300  # generous: the machine may be busy


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def reads_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "reads.log"
    monkeypatch.setenv(READS_LOG, str(log))
    return log


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        yield knowledge_base


def run(kb: KnowledgeBase, *paths: Path, options: IndexingOptions | None = None,
        progress: ProgressTracker | None = None) -> IndexingSummary:
    indexer = kb.indexer(options or IndexingOptions(batch_chunks=4, parser=HOOK))
    return indexer.run(paths, progress or ProgressTracker(), threading.Event())


def by_name(kb: KnowledgeBase) -> dict[str, DocumentRecord]:
    return {Path(record.path).name: record for record in kb.documents()}


def kb_list(kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What `unidesk kb list` prints for this knowledge base, line by line."""
    capsys.readouterr()
    assert _list(argparse.Namespace(json=False), kb) == 0
    return capsys.readouterr().out.splitlines()


def test_a_file_that_kills_the_reader_fails_alone_and_is_not_read_again(
        kb: KnowledgeBase, docs: Path, reads_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (docs / "kill-poison.txt").write_text("this file takes the reader process down", encoding="utf-8")
    summary = run(kb, docs)
    records = by_name(kb)
    poison = records["kill-poison.txt"]
    assert poison.status is DocumentStatus.FAILED and poison.error_kind == "crashed"
    assert "crashed the reader process" in (poison.error_message or "") and poison.read_attempts == 1
    assert [records[name].stage for name in TEXTS] == ["indexed", "indexed"]
    assert summary.files_failed == 1 and summary.files_indexed == 2
    assert reads(reads_log).count("kill-poison.txt") == 1
    run(kb)  # the next start: resumes earlier work only
    run(kb, docs)  # and a rescan of the folder
    assert reads(reads_log).count("kill-poison.txt") == 1, "never read again while it is unchanged"
    assert by_name(kb)["kill-poison.txt"].error_kind == "crashed"
    assert check_consistency(open_database(kb.database_path), kb.vector_store).ok
    listing = kb_list(kb, capsys)
    assert "STAGE" in listing[0] and sum(" indexed " in line for line in listing) == 2
    assert any("crashed: " in line and line.endswith("(1 attempt(s) to read it)") for line in listing)


def _interrupt(kb: KnowledgeBase, docs: Path, name: str, times: int) -> None:
    """What an app killed while reading ``name`` leaves: the file pending with open attempts."""
    path = docs / name
    path.write_text("A file whose reading the app did not survive.", encoding="utf-8")
    run(kb, docs, options=IndexingOptions(batch_chunks=4, parser="tests.core.kb.test_ingest_limits:refuse"))
    record = by_name(kb)[name]
    connection = open_database(kb.database_path)
    stat = path.stat()
    with transaction(connection):
        connection.execute("UPDATE documents SET status = 'pending', error_kind = NULL WHERE id = ?", (record.id,))
        connection.execute("DELETE FROM read_attempts WHERE document_id = ?", (record.id,))
        for _ in range(times):
            begin_attempt(connection, record.id, stat.st_size, stat.st_mtime_ns)
    connection.close()


def refuse(path: Path) -> object:
    """A reader that fails every file (used to register files without reading them)."""
    raise DocumentError.for_file(path, "corrupt", "refused by the test")


def test_a_file_the_app_died_reading_three_times_is_failed_without_reading_it(
        kb: KnowledgeBase, docs: Path, reads_log: Path) -> None:
    _interrupt(kb, docs, "fatal.txt", times=MAX_INTERRUPTED)
    summary = run(kb)
    record = by_name(kb)["fatal.txt"]
    assert record.status is DocumentStatus.FAILED and record.error_kind == "crashed"
    assert f"interrupted {MAX_INTERRUPTED} times" in (record.error_message or "")
    assert record.read_attempts == MAX_INTERRUPTED
    assert "fatal.txt" not in reads(reads_log) and summary.files_failed == 1


def test_a_file_the_app_died_reading_fewer_times_is_read_again(
        kb: KnowledgeBase, docs: Path, reads_log: Path) -> None:
    _interrupt(kb, docs, "unlucky.txt", times=MAX_INTERRUPTED - 1)
    run(kb)
    record = by_name(kb)["unlucky.txt"]
    assert record.stage == "indexed" and record.read_attempts == 0
    assert reads(reads_log) == ["unlucky.txt"]


def test_cancelling_while_a_file_is_read_does_not_count_as_an_attempt(
        kb: KnowledgeBase, tmp_path: Path, reads_log: Path) -> None:
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "hang-slow.txt").write_text("a file whose reading never ends", encoding="utf-8")
    cancel = threading.Event()
    summaries: list[IndexingSummary] = []
    indexer = kb.indexer(IndexingOptions(batch_chunks=4, parser=HOOK))
    worker = threading.Thread(target=lambda: summaries.append(indexer.run([folder], ProgressTracker(), cancel)))
    worker.start()
    for _ in range(WAIT_SECONDS * 10):
        if "hang-slow.txt" in reads(reads_log):
            break
        cancel.wait(0.1)
    cancel.set()
    worker.join(WAIT_SECONDS)
    assert summaries and summaries[0].cancelled
    record = by_name(kb)["hang-slow.txt"]
    assert record.status is DocumentStatus.PENDING and record.read_attempts == 0


def test_files_over_the_size_cap_fail_with_the_limit_and_the_setting(tmp_path: Path, docs: Path) -> None:
    (docs / "huge.txt").write_text(ENGLISH_PARAGRAPHS[0] * (2 * 1024 * 1024 // len(ENGLISH_PARAGRAPHS[0]) + 1))
    with open_knowledge_base(tmp_path / "kb", kb__max_file_mb=1) as kb:
        summary = kb.indexer().run([docs], ProgressTracker(), threading.Event())
        records = by_name(kb)
    huge = records["huge.txt"]
    assert huge.status is DocumentStatus.FAILED and huge.error_kind == "too-large"
    assert "more than the 1 MB limit for one file" in (huge.error_message or "")
    assert "kb.max_file_mb" in (huge.error_message or "")
    assert summary.files_indexed == 2 and [records[name].stage for name in TEXTS] == ["indexed", "indexed"]


def _zip_bomb(path: Path, inflated_mb: int) -> Path:
    """A DOCX-shaped archive whose document part unpacks to ``inflated_mb`` MB of one repeated byte."""
    block = b"<w:t>" + b"A" * (1024 * 1024 - 5)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            for _ in range(inflated_mb):
                part.write(block)
    return path


def test_a_docx_zip_bomb_is_refused_before_anything_is_unpacked(tmp_path: Path) -> None:
    bomb = _zip_bomb(tmp_path / "bomb.docx", 64)
    assert bomb.stat().st_size < 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(DocumentError) as caught:
            parse_document(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.kind == "too-large" and "word/document.xml is compressed" in caught.value.message
    assert peak < 8 * 1024 * 1024, "nothing was unpacked"


def test_an_archive_that_unpacks_to_too_much_in_total_is_refused(tmp_path: Path) -> None:
    archive = _zip_bomb(tmp_path / "big.docx", 9)
    with pytest.raises(DocumentError) as caught:
        check_archive(archive, max_inflated_bytes=8 * 1024 * 1024)
    assert caught.value.kind == "too-large" and "inflate to 9 MB, more than the 8 MB allowed" in caught.value.message


def test_a_real_docx_passes_the_archive_check(tmp_path: Path) -> None:
    document = write_docx(tmp_path / "real.docx")
    check_archive(document)
    assert parse_document(document).pages[0].text


def test_a_document_is_found_by_keywords_before_its_vectors_are_in(
        kb: KnowledgeBase, docs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    embedder = kb.embedders.get(kb.settings.str_value("kb.embedding_model"))
    embedder.load()
    gate = threading.Event()
    real_embed = embedder.embed_documents

    def held_embed(texts: list[str]) -> object:
        assert gate.wait(WAIT_SECONDS), "the test never opened the gate"
        return real_embed(texts)

    monkeypatch.setattr(embedder, "embed_documents", held_embed)
    summaries: list[IndexingSummary] = []
    worker = threading.Thread(target=lambda: summaries.append(run(kb, docs)))
    worker.start()
    try:
        deadline = threading.Event()
        for _ in range(WAIT_SECONDS * 10):
            if all(record.stage == "keywords" for record in kb.documents()) and len(kb.documents()) == 2:
                break
            deadline.wait(0.1)
        assert {record.stage for record in kb.documents()} == {"keywords"}
        hits = kb.search("waggle dance", k=3).hits
        assert hits and Path(hits[0].path).name == "bees.txt" and hits[0].retrievers == ("keyword",)
        assert sum(" keywords " in line for line in kb_list(kb, capsys)) == 2
    finally:
        gate.set()
        worker.join(WAIT_SECONDS)
    assert summaries and summaries[0].files_indexed == 2
    assert {record.stage for record in kb.documents()} == {"indexed"}
    assert "vector" in kb.search("how do bees show where flowers are", k=1).hits[0].retrievers


class OrderTracker(ProgressTracker):
    """Remembers the order in which files became findable and embedded (by size: the big one is unique)."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[int] = []

    def file_finished(self, size: int, *, indexed: bool, skipped: bool = False) -> None:
        if indexed:
            self.embedded.append(size)
        super().file_finished(size, indexed=indexed, skipped=skipped)


def test_small_files_are_embedded_before_a_big_one_finishes(kb: KnowledgeBase, docs: Path) -> None:
    big = docs / "big.txt"
    line = " ".join(f"Sentence {number} tells about topic {number % 17} and its details." for number in range(700))
    big.write_text(line, encoding="utf-8")  # one line, dozens of chunks
    for index in range(5):
        (docs / f"note{index}.txt").write_text(f"Note {index}: the meeting moved to room {index}.")
    progress = OrderTracker()
    summary = run(kb, docs, options=IndexingOptions(batch_chunks=4), progress=progress)
    assert summary.files_indexed == 8 and by_name(kb)["big.txt"].chunk_count > 32
    assert progress.embedded[-1] == big.stat().st_size, "the big file finished last"
    assert check_consistency(open_database(kb.database_path), kb.vector_store).awaiting_vectors == 0


def test_attempts_are_counted_per_document_and_never_for_a_removed_one(tmp_path: Path) -> None:
    from app.core.kb.catalog import delete_document, insert_pending
    from app.core.kb.read_attempts import attempts, cancel_attempt, end_attempt, interrupted

    connection = open_database(tmp_path / "kb.sqlite3")
    with transaction(connection):
        document = insert_pending(connection, str(tmp_path / "a.txt"), 10, 1, None)
        assert begin_attempt(connection, document, 10, 1) == 1
        assert begin_attempt(connection, document, 10, 1) == 2
    assert interrupted(connection)[document].attempts == 2
    with transaction(connection):
        cancel_attempt(connection, document)
        assert attempts(connection, document) == 1 and document not in interrupted(connection)
        begin_attempt(connection, document, 10, 1)
        end_attempt(connection, document)
        assert attempts(connection, document) == 2 and not interrupted(connection)
        delete_document(connection, document)
        assert begin_attempt(connection, document, 10, 1) == 0, "a removed document gets no attempt row"
    connection.close()
