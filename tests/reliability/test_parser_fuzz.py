"""Hostile files through the real reader process: hypothesis writes truncated and mutated PDFs and DOCX files,
garbage under document names, zip bombs and deeply nested XML, invalid encodings, huge single lines and deeply
nested HTML and Markdown, and a real knowledge base indexes them with the real parse worker
(``app/core/kb/parse_worker.py``), chunker, SQLite, chromadb and MiniLM. Inputs too big to embed in every run
(8 MiB single lines, a million-deep nesting, a 600 MiB zip bomb) go through the reader process alone.

Each file ends indexed, or failed with its kind and a reason; nothing is left pending or being read; the reading
stays within the worker's memory and time limits (the app's own memory does not grow with it); and the
documents indexed before are untouched and still found. Examples (batches of 1-3 files):
``UNIDESK_PARSER_FUZZ_EXAMPLES`` (default 10; each batch is an indexing run, a few seconds)."""

from __future__ import annotations

import functools
import io
import itertools
import random
import struct
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.kb.catalog import DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.indexer import IndexingOptions
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.parse_worker import MIB, ParseLimits, ParseWorker
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.progress import ProgressTracker
from tests.fixtures.documents import ENGLISH_PARAGRAPHS, write_docx, write_pdf
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.reliability.conftest import env_int

EXAMPLES = env_int("UNIDESK_PARSER_FUZZ_EXAMPLES", 10)
FUZZ_FILES = settings(max_examples=EXAMPLES, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LIMITS = ParseLimits(max_file_bytes=32 * MIB, timeout_seconds=90.0, memory_bytes=1536 * MIB)
"""The worker's bounds for the run: a file beyond them fails as too-large or timeout, never hangs the run."""
RUN_LIMIT_S = 900.0  # not a speed check: a bound only a hang reaches (a batch takes seconds)
APP_GROWTH_LIMIT = 1024 * MIB  # parsing happens in the worker: the app's own memory must not follow the files
TEXT_SUFFIXES = ("txt", "md", "html", "csv", "rst", "json", "py")
ALL_SUFFIXES = (*TEXT_SUFFIXES, "pdf", "docx")
GOOD = {"harbour.txt": "The harbour crane was serviced on Tuesday; code word quillfeather.",
        "orchard.md": "# Orchard\n\nApple trees need pruning in late winter; code word lanternfish.\n"}


@functools.cache
def real_pdf() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        pages = [list(ENGLISH_PARAGRAPHS[:3]), ["Second page.", "More text here."]]
        return write_pdf(Path(folder) / "seed.pdf", pages, title="Seed").read_bytes()


@functools.cache
def real_docx() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        return write_docx(Path(folder) / "seed.docx").read_bytes()


def docx_with_body(body: bytes) -> bytes:
    """The seed DOCX with ``word/document.xml`` replaced by ``body``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(real_docx())) as seed, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for item in seed.infolist():
            new.writestr(item.filename, body if item.filename == "word/document.xml" else seed.read(item))
    return out.getvalue()


def zip_bomb(inflated_mib: int) -> bytes:
    """A DOCX-shaped archive whose document part inflates to ``inflated_mib`` MiB of one repeated byte."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            for _ in range(inflated_mib):
                part.write(b"A" * MIB)
    return out.getvalue()


def mutated(data: bytes, seed: int, flips: int) -> bytes:
    rng = random.Random(seed)
    buffer = bytearray(data)
    for _ in range(flips):
        buffer[rng.randrange(len(buffer))] = rng.randrange(256)
    return bytes(buffer)


W = b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
BAD_BYTES = (b"\xff\xfe", b"\xfe\xff\x00", b"\xed\xa0\x80", b"\xc0\xaf", b"\xe2\x82", b"\x00", b"\x80\x81\x82",
             b"\xef\xbb\xbf", b"\x1b[31m", "\u202e\u200b".encode(), "é".encode("latin-1"), "漢字".encode("gb18030"))


@st.composite
def hostile_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """(extension, bytes) of one hostile file."""
    kind = draw(st.sampled_from((
        "garbage", "encoding", "huge-line", "deep-html", "deep-markdown", "truncated-pdf", "mutated-pdf",
        "truncated-docx", "mutated-docx", "docx-bomb", "docx-deep-xml", "docx-entities", "docx-many-parts",
    )))
    seed = draw(st.integers(0, 2**32 - 1))
    if kind == "garbage":
        return draw(st.sampled_from(ALL_SUFFIXES)), draw(st.binary(max_size=4096))
    if kind == "encoding":
        pieces = draw(st.lists(st.sampled_from(BAD_BYTES) | st.text(max_size=40).map(str.encode), max_size=60))
        return draw(st.sampled_from(TEXT_SUFFIXES)), b"".join(pieces)
    if kind == "huge-line":  # one line without a newline (megabyte lines: test_huge_inputs_...)
        unit = draw(st.sampled_from((b"lorem ipsum dolor ", b"<b>", b"[", b"|", b"*", b",", b"\t", b"\x00")))
        return draw(st.sampled_from(TEXT_SUFFIXES)), unit * (draw(st.sampled_from((4_096, 48_000))) // len(unit))
    if kind == "deep-html":  # the tags are read, not kept: the depth costs no text to embed
        depth = draw(st.sampled_from((1_000, 50_000, 300_000)))
        closed = b"</div>" * depth if draw(st.booleans()) else b""
        return "html", b"<div>" * depth + b"deep text" + closed
    if kind == "deep-markdown":  # kept as text: nested only as deep as a few dozen chunks cost to embed
        depth = draw(st.sampled_from((100, 2_000, 8_000)))
        shape = draw(st.sampled_from((b">", b"[", b"*", b"`", b"#", b"<div>", b"1. ")))
        nested_list = b"".join(b"  " * level + b"- item\n" for level in range(min(depth, 200)))
        return draw(st.sampled_from(("md", "rst", "txt"))), shape * depth + b" text\n" + nested_list
    if kind == "truncated-pdf":
        data = real_pdf()
        return "pdf", data[:draw(st.integers(0, len(data)))]
    if kind == "mutated-pdf":
        return "pdf", mutated(real_pdf(), seed, draw(st.integers(1, 40)))
    if kind == "truncated-docx":
        data = real_docx()
        return "docx", data[:draw(st.integers(0, len(data)))]
    if kind == "mutated-docx":
        return "docx", mutated(real_docx(), seed, draw(st.integers(1, 40)))
    if kind == "docx-bomb":
        return "docx", zip_bomb(draw(st.sampled_from((16, 96))))
    if kind == "docx-deep-xml":
        depth = draw(st.sampled_from((300, 5_000, 200_000)))
        return "docx", docx_with_body(W + b"<w:p>" * depth + b"<w:r><w:t>deep</w:t></w:r>" + b"</w:p>" * depth
                                      + b"</w:body></w:document>")
    if kind == "docx-entities":  # a billion laughs in the document part
        entities = b'<!ENTITY a0 "laugh">' + b"".join(
            b'<!ENTITY a%d "%s">' % (level, b"&a%d;" % (level - 1) * 10) for level in range(1, 10))
        return "docx", docx_with_body(b'<?xml version="1.0"?><!DOCTYPE w:document [' + entities + b"]>"
                                      + W + b"<w:p><w:r><w:t>&a9;</w:t></w:r></w:p></w:body></w:document>")
    out = io.BytesIO()  # docx-many-parts: more parts than any document has
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for number in range(draw(st.sampled_from((2_000, 20_001)))):
            archive.writestr(f"word/part{number}.xml", b"<x/>")
    return "docx", out.getvalue()


def good_state(kb: KnowledgeBase) -> dict[str, tuple[Any, ...]]:
    return {Path(record.path).name: (record.id, record.content_hash, record.chunk_count, record.status,
                                     record.embedded)
            for record in kb.documents() if Path(record.path).name in GOOD}


def test_hostile_files_through_the_reader_process_end_done_or_failed_and_leave_the_rest_alone(
    tmp_path: Path,
) -> None:
    good = tmp_path / "good"
    good.mkdir()
    for name, text in GOOD.items():
        (good / name).write_text(text, encoding="utf-8")
    options = IndexingOptions(batch_chunks=16, limits=LIMITS)
    app = psutil.Process()
    batches = itertools.count()
    outcomes: dict[str, int] = {}
    with open_knowledge_base(tmp_path / "kb") as kb:
        kb.indexer(options).run([good], ProgressTracker(), threading.Event())
        before = good_state(kb)
        assert [entry[3] for entry in before.values()] == [DocumentStatus.INDEXED] * len(GOOD)
        baseline = app.memory_info().rss

        @FUZZ_FILES
        @given(files=st.lists(hostile_file(), min_size=1, max_size=3))
        def one_batch(files: list[tuple[str, bytes]]) -> None:
            folder = tmp_path / "hostile" / f"batch{next(batches)}"
            folder.mkdir(parents=True)
            written = [folder / f"file{index}.{suffix}" for index, (suffix, _) in enumerate(files)]
            for path, (_, data) in zip(written, files, strict=True):
                path.write_bytes(data)
            progress = ProgressTracker()
            started = time.monotonic()
            kb.indexer(options).run([folder], progress, threading.Event())
            assert time.monotonic() - started < RUN_LIMIT_S
            records = {record.path: record for record in kb.documents()}
            problems = {problem.path: problem for problem in progress.snapshot().problems}
            for path in written:
                record = records.get(str(path))
                if record is None:  # refused before reading (discovery): it must say why
                    assert str(path) in problems and problems[str(path)].message, path
                    outcome = f"refused: {problems[str(path)].kind}"
                elif record.status is DocumentStatus.FAILED:
                    assert record.error_kind and record.error_message, record
                    outcome = f"failed: {record.error_kind}"
                else:
                    assert record.status is DocumentStatus.INDEXED, (path, record.status)
                    outcome = "indexed"
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            unfinished = [record.path for record in records.values()
                          if record.status in (DocumentStatus.PENDING, DocumentStatus.INDEXING)]
            assert not unfinished, f"left unfinished by the reader: {unfinished}"
            assert good_state(kb) == before
            assert app.memory_info().rss - baseline < APP_GROWTH_LIMIT

        one_batch()
        for name, text in GOOD.items():
            word = text.split("code word ")[1].rstrip(".\n")
            hits = kb.search(word, k=3).hits
            assert hits and Path(hits[0].path).name == name, (word, hits)
        assert check_consistency(open_database(kb.database_path), kb.vector_store).ok
    print(f"parser fuzz: {next(batches)} batches through the reader process; outcomes {dict(sorted(outcomes.items()))}")



def huge_inputs() -> dict[str, bytes]:
    """Megabyte single lines and deep nesting in every text format, and deep or entity-bomb XML in a DOCX."""
    size = 8 * MIB
    lines = {"words.txt": b"lorem ipsum dolor ", "stars.md": b"*", "commas.csv": b",", "tags.html": b"<b>",
             "brackets.json": b"[", "rule.rst": b"=", "parens.py": b"(", "nul.txt": b"\x00"}
    inputs = {f"line-{name}": unit * (size // len(unit)) for name, unit in lines.items()}
    inputs["deep.html"] = b"<div>" * 300_000 + b"deep text"
    inputs["deep.md"] = b">" * 1_000_000 + b" deep text\n"
    inputs["deep.docx"] = docx_with_body(W + b"<w:p>" * 200_000 + b"<w:r><w:t>deep</w:t></w:r>" + b"</w:p>" * 200_000
                                         + b"</w:body></w:document>")
    inputs["bomb.docx"] = zip_bomb(600)
    return inputs


def test_huge_inputs_are_read_or_refused_by_the_reader_process_within_its_limits(tmp_path: Path) -> None:
    """What is too big to embed in every CI run goes through the reader process alone: each file is read (its
    parts arrive) or refused with a reason within the worker's limits, and the same worker reads on after it."""
    app = psutil.Process()
    baseline = app.memory_info().rss
    outcomes: dict[str, str] = {}
    with ParseWorker(LIMITS) as worker:
        for name, data in huge_inputs().items():
            path = tmp_path / name
            path.write_bytes(data)
            started = time.monotonic()
            try:
                parts = list(worker.parts(path))
                outcomes[name] = f"read: {sum(len(part.pages) for part in parts)} page(s)"
            except DocumentError as error:
                assert error.kind and error.message, name
                outcomes[name] = f"refused: {error.kind}"
            assert time.monotonic() - started < RUN_LIMIT_S, name
            path.unlink()
            assert app.memory_info().rss - baseline < APP_GROWTH_LIMIT, name
            after = tmp_path / "after.txt"
            after.write_text("A small note read after it.", encoding="utf-8")
            text = " ".join(page.text for part in worker.parts(after) for page in part.pages)
            assert "small note" in text, f"the reader did not recover after {name}"
    print(f"huge inputs through the reader process: {outcomes}")
    assert outcomes["bomb.docx"] == "refused: too-large"


def zip_from_the_future(data: bytes) -> bytes:
    """``data`` (a ZIP) whose first central-directory entry needs ZIP version 24.4 to be extracted."""
    entry = data.index(b"PK\x01\x02")
    return data[:entry + 6] + bytes([244, 0]) + data[entry + 8:]


def zip_with_a_directory_past_its_end(data: bytes) -> bytes:
    """``data`` (a ZIP) whose end record puts the central directory 4 KiB further than it is: the first parts'
    offsets come out negative."""
    end = data.rindex(b"PK\x05\x06")
    offset = struct.unpack_from("<I", data, end + 16)[0]
    return data[:end + 16] + struct.pack("<I", offset + 4096) + data[end + 20:]


# Damaged files whose reason was a bare Python error or the wrong advice (a parser let an error out, or took it
# for a disk problem). The DOCX files fail as damaged; the PDFs keep their text (only their tables are lost, said in
# a note). Crafted counterparts: tests/core/kb/test_damaged_files.py.
FOUND_BY_FUZZING: dict[str, Callable[[], bytes]] = {
    "pages-disagree.pdf": lambda: mutated(real_pdf(), 2709900430, 4),  # pdf_tables: IndexError on a page index
    "bad-dictionary.pdf": lambda: mutated(real_pdf(), 3170611280, 6),  # pdfplumber's PdfminerException
    "future-zip.docx": lambda: zip_from_the_future(real_docx()),  # archive_limits: zipfile's NotImplementedError
    "directory-past-end.docx": lambda: zip_with_a_directory_past_its_end(real_docx()),  # "check the disk" (EINVAL)
}
TABLES_LOST = "tables not read: this PDF's structure is damaged ("


def test_damaged_files_found_by_fuzzing_fail_alone_or_keep_their_text_with_a_reason(tmp_path: Path) -> None:
    folder = tmp_path / "found"
    folder.mkdir()
    for name, build in FOUND_BY_FUZZING.items():
        (folder / name).write_bytes(build())
    (folder / "fine.txt").write_text("A healthy note about tide tables.", encoding="utf-8")
    with open_knowledge_base(tmp_path / "kb") as kb:
        summary = kb.indexer(IndexingOptions(limits=LIMITS)).run([folder], ProgressTracker(), threading.Event())
        records = {Path(record.path).name: record for record in kb.documents()}
    damaged_docx = [name for name in FOUND_BY_FUZZING if name.endswith(".docx")]
    assert summary.files_failed == len(damaged_docx) and records["fine.txt"].stage == "indexed"
    for name in FOUND_BY_FUZZING:
        record = records[name]
        if name in damaged_docx:
            assert record.status is DocumentStatus.FAILED and record.error_kind == "corrupt", record
            assert record.error_message and "Error" not in record.error_message, record
        else:
            assert record.stage == "indexed" and record.chunk_count, record
            assert record.notes and TABLES_LOST in record.notes, record


def test_damaged_files_found_by_fuzzing_are_named_damaged_not_a_python_exception(tmp_path: Path) -> None:
    from app.core.kb.parsers import parse_document

    for name, build in FOUND_BY_FUZZING.items():
        path = tmp_path / name
        path.write_bytes(build())
        if name.endswith(".pdf"):  # only the tables are lost: the text of every page is read
            document = parse_document(path)
            assert len(document.pages) == 2 and all(page.text for page in document.pages), name
            assert [note for note in document.notes if note.startswith(TABLES_LOST)], (name, document.notes)
            continue
        with pytest.raises(DocumentError) as raised:  # a parser's own error (the reader's fallback is a bare one)
            parse_document(path)
        assert raised.value.kind == "corrupt", (name, raised.value)
        assert "Error" not in raised.value.message and "disk" not in str(raised.value.hint), (name, raised.value)


def test_the_reader_process_stays_warm_from_file_to_file_when_each_is_read_to_its_last_part(tmp_path: Path) -> None:
    """Found by the long load run: indexing stops reading a document at its last part (no ``resume_after``), and the
    reader process was then stopped as if midway, so every file cost a new process (and sometimes a broken pipe)."""
    with ParseWorker(LIMITS) as worker:
        for number in range(4):
            path = tmp_path / f"note{number}.txt"
            path.write_text(f"Note {number} about the harbour crane.", encoding="utf-8")
            parts = worker.parts(path)
            texts = []
            for part in parts:
                texts += [page.text for page in part.pages]
                if part.resume_after is None:
                    break
            parts.close()  # as indexing closes a document's stream once its last part is in
            assert texts == [f"Note {number} about the harbour crane."]
        assert worker.started == 1
