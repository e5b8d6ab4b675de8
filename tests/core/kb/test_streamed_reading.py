"""Big documents stream through reading and chunking in committed parts: findable by keywords part by part,
bounded memory, and a reading killed midway (kill -9 of the process indexing it) resumes after the last
committed part, with no chunk missing or twice."""

from __future__ import annotations

import itertools
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from app.core.kb.chunker import chunk_document
from app.core.kb.consistency import check_consistency
from app.core.kb.database import DATABASE_FILE_NAME, open_database
from app.core.kb.embedder import Embedder
from app.core.kb.ingest_plan import WorkItem
from app.core.kb.parsers.parts import document_parts
from app.core.kb.parsers.plain import iter_text_parts
from app.core.kb.preparation import Preparer, StreamedDocument
from app.core.kb.read_attempts import MAX_INTERRUPTED
from app.core.kb.retrieval import SearchOptions
from tests.fixtures.embedding_models import write_tiny_sentence_transformer
from tests.fixtures.knowledge_base import open_knowledge_base

PART_BYTES = 24 * 1024
SENTENCES = 9000  # ~0.9 MB: ~38 parts


def write_numbered_text(path: Path, sentences: int) -> Path:
    """One long line of sentences, each with its own word ``beaconNNNNN`` (Chinese every tenth)."""
    with path.open("w", encoding="utf-8") as stream:
        for number in range(sentences):
            if number % 10 == 9:
                stream.write(f"第{number}句说明灯塔 beacon{number:05d} 的位置。")
            else:
                stream.write(f"Sentence {number} records where beacon{number:05d} stands on the northern shore. ")
    return path


def chunk_rows(database: Path) -> list[tuple[int, int, int, int, str]]:
    """(chunk id, ordinal, char_start, char_end, text) of every chunk, by ordinal (read-only)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT id, ordinal, char_start, char_end, text FROM chunks ORDER BY ordinal")
        return [(int(row[0]), int(row[1]), int(row[2]), int(row[3]), str(row[4])) for row in rows]
    finally:
        connection.close()


def reading_state(database: Path) -> tuple[str, int] | None:
    """(document status, chunks committed by its reading so far), None before anything is committed."""
    if not database.exists():
        return None
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1)
        try:
            row = connection.execute(
                "SELECT d.status, r.next_ordinal FROM documents d JOIN reading_progress r ON r.document_id = d.id"
            ).fetchone()
        finally:
            connection.close()
    except sqlite3.OperationalError:  # the schema is still being written
        return None
    return None if row is None else (str(row[0]), int(row[1]))


def reference_chunks(path: Path, model: Path, chunk_tokens: int) -> list[tuple[int, int, int, str]]:
    """What an uninterrupted reading stores: the same parts and chunker, in this process."""
    embedder = Embedder(str(model), device="cpu")
    tokens = embedder.chunk_tokens_for(chunk_tokens)
    preparer = Preparer(lambda p, stopped, resume, on_page: document_parts(p, resume, None, PART_BYTES),
                        chunk_document, embedder.count_tokens, tokens, min(64, tokens // 2))
    outcome = preparer(WorkItem(1, path, path.stat().st_size, 0))
    assert isinstance(outcome, StreamedDocument)
    return [(chunk.ordinal, chunk.char_start, chunk.char_end, chunk.text)
            for part in outcome.parts for chunk in part.chunks]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_sentence_transformer(tmp_path_factory.mktemp("models") / "tiny-st")


def kill_after_progress(child: subprocess.Popen[bytes], database: Path, committed: int) -> None:
    """kill -9 the child once its reading has committed more than ``committed`` chunks (it must still run)."""
    try:
        deadline = time.monotonic() + 600
        state = reading_state(database)
        while (state is None or state[1] <= committed) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # polling another process's database: there is no event to wait on
            state = reading_state(database)
        assert child.poll() is None, child.communicate()
        os.kill(child.pid, signal.SIGKILL)
        child.wait(60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(60)


def run_child(kb: Path, model: Path, file: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.core.kb.ingest_child", str(kb), str(model), str(file), str(PART_BYTES)],
        cwd=Path(__file__).resolve().parents[3], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def test_a_reading_killed_midway_resumes_after_its_last_committed_part(tmp_path: Path, tiny_model: Path) -> None:
    big = write_numbered_text(tmp_path / "beacons.txt", SENTENCES)
    kb = tmp_path / "kb"
    database = kb / DATABASE_FILE_NAME
    kill_after_progress(run_child(kb, tiny_model, big), database, 0)
    state = reading_state(database)
    assert state is not None and state[0] == "indexing", state
    before = chunk_rows(database)
    committed = state[1]
    assert 0 < committed == len(before) and [row[1] for row in before] == list(range(committed))
    last_sentence = before[-1][4].rsplit("beacon", 1)[-1][:5]
    assert int(last_sentence) < SENTENCES - 100, "the kill came after most of the file was read"

    # Keyword search finds the committed parts at once, before the document is indexed.
    with open_knowledge_base(kb, kb__embedding_model=str(tiny_model)) as knowledge_base:
        assert check_consistency(open_database(database), knowledge_base.vector_store).ok
        found = knowledge_base.search("beacon00002", options=SearchOptions(k=3, use_vectors=False))
        assert found.hits and "beacon00002" in found.hits[0].text
        assert knowledge_base.documents()[0].stage == "indexing"

    # Two earlier runs were interrupted too (as if the app had been quit twice): a run that commits parts before
    # it is killed still counts as progress, so the file is never given up for its interruptions.
    connection = sqlite3.connect(database)
    with connection:
        connection.execute("UPDATE read_attempts SET attempts = ?", (MAX_INTERRUPTED - 1,))
    connection.close()
    kill_after_progress(run_child(kb, tiny_model, big), database, committed)
    assert chunk_rows(database)[:committed] == before
    resumed = run_child(kb, tiny_model, big)
    output, errors = resumed.communicate(timeout=900)
    assert resumed.returncode == 0, errors.decode(errors="replace")[-3000:]
    assert output.split() == [b"1", b"0"]
    after = chunk_rows(database)
    assert after[:committed] == before, "the parts committed before the kill were read again"
    text = big.read_text(encoding="utf-8")
    expected = reference_chunks(big, tiny_model, 512)
    assert [row[1:] for row in after] == expected  # no chunk missing, none twice, same cuts as one reading
    for (_, _, start, end, chunk), following in itertools.pairwise(after):
        assert text[start:end] == chunk
        assert following[2] <= end or not text[end : following[2]].strip()  # overlap or only spaces between
    assert {word for row in after for word in re.findall(r"beacon\d{5}", row[4])} == {
        f"beacon{number:05d}" for number in range(SENTENCES)}
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        assert connection.execute("SELECT status, chunk_count FROM documents").fetchall() == [("indexed", len(after))]
        assert connection.execute("SELECT COUNT(*) FROM reading_progress").fetchone() == (0,)
    finally:
        connection.close()


def test_streaming_a_huge_text_holds_about_one_part_in_memory(tmp_path: Path) -> None:
    from tests.fixtures.documents import ENGLISH_PARAGRAPHS, write_big_text

    path = write_big_text(tmp_path / "huge.txt", 24 * 1024 * 1024, ENGLISH_PARAGRAPHS[0])
    tracemalloc.start()
    try:
        characters = sum(part.character_count for part in document_parts(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert characters > 23 * 1024 * 1024
    assert peak < 4 * 1024 * 1024, peak  # a whole reading holds the text (24 MB) at least once


@pytest.mark.parametrize("encoding", ["utf-8", "gb18030", "utf-16"])
def test_parts_join_to_the_whole_text_and_a_resumed_reading_gives_the_same_parts(
    tmp_path: Path, encoding: str
) -> None:
    from app.core.kb.parsers.plain import parse_plain_text

    text = ("第一句。Second sentence!\r\n" * 300 + "x" * 5000 + "\r" + "尾声\r\n") * 3
    path = tmp_path / "mixed.txt"
    path.write_bytes(text.encode(encoding))
    whole = parse_plain_text(path, "text").pages[0].text
    parts = list(iter_text_parts(path, "text", part_bytes=1000))
    assert len(parts) > 10 and parts[-1].resume_after is None
    pages = [page for part in parts for page in part.pages]
    assert "".join(page.text for page in pages) == whole
    assert all(whole[page.offset : page.offset + len(page.text)] == page.text for page in pages)
    middle = len(parts) // 2
    again = list(iter_text_parts(path, "text", parts[middle - 1].resume_after, part_bytes=1000))
    assert again == parts[middle:]


def test_a_pdf_streams_in_runs_of_pages_and_resumes_at_the_next_page(tmp_path: Path) -> None:
    from app.core.kb.parsers import parse_document
    from app.core.kb.parsers.pdf import PART_PAGES
    from tests.fixtures.documents import write_pdf

    pdf = write_pdf(tmp_path / "manual.pdf", [[f"Page {number} explains valve {number}."] for number in range(1, 41)])
    parts = list(document_parts(pdf))
    assert [[page.page_number for page in part.pages] for part in parts] == [
        list(range(1, PART_PAGES + 1)), list(range(PART_PAGES + 1, 2 * PART_PAGES + 1)),
        list(range(2 * PART_PAGES + 1, 41))]
    assert [part.resume_after for part in parts] == [str(PART_PAGES), str(2 * PART_PAGES), None]
    assert [page for part in parts for page in part.pages] == list(parse_document(pdf).pages)
    assert list(document_parts(pdf, parts[0].resume_after)) == parts[1:]
