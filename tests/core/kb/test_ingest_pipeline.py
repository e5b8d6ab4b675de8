"""Incremental, crash-safe ingestion with the real embedder and chromadb, and fake file readers.

The fake parser/chunker (one chunk per paragraph) keep these tests about the indexing logic;
tests/integration/test_kb_*.py run the same paths with the real parsers and chunker.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.kb.catalog import DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.indexer import IndexingOptions, IndexingSummary
from app.core.kb.ingest_plan import FoundFile
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.kb.vector_store import VectorStore
from tests.fixtures.knowledge_base import (
    FAKE_READERS,
    open_knowledge_base,
    paragraph_chunk,
    paragraph_parse,
    walk_discover,
)

TEXTS = {
    "bees.txt": "Bees perform a waggle dance.\n\nThe queen lays eggs in spring.",
    "volcano.txt": "Iceland has many volcanoes.\n\nAsh clouds close airspace.",
    "bread.txt": "Sourdough needs a starter culture.\n\nHydration is water over flour.",
}
SMALL_BATCHES = IndexingOptions(batch_chunks=4)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        yield knowledge_base


def run(kb: KnowledgeBase, *paths: Path, cancel: threading.Event | None = None, **readers: object) -> IndexingSummary:
    chosen = {**FAKE_READERS, **readers}
    indexer = kb.indexer(SMALL_BATCHES, **chosen)  # type: ignore[arg-type]
    return indexer.run(paths, ProgressTracker(), cancel or threading.Event())


def consistent(kb: KnowledgeBase, *, orphans_allowed: bool = False) -> None:
    report = check_consistency(open_database(kb.database_path), kb.vector_store)
    assert report.ok, report.problems
    if not orphans_allowed:
        assert report.orphan_vectors == 0


def statuses(kb: KnowledgeBase) -> dict[str, str]:
    """Each document's stage: "indexed" (embedded too), "keywords" (read, vectors to come), "pending", "failed"."""
    return {Path(record.path).name: record.stage for record in kb.documents()}


def test_a_folder_is_indexed_completely_and_is_searchable(kb: KnowledgeBase, docs: Path) -> None:
    summary = run(kb, docs)
    assert (summary.files_indexed, summary.files_failed, summary.chunks) == (3, 0, 6)
    assert summary.chunk_tokens == 254 and not summary.cancelled
    assert statuses(kb) == dict.fromkeys(TEXTS, "indexed")
    records = {Path(record.path).name: record for record in kb.documents()}
    assert records["bees.txt"].chunk_count == 2 and records["bees.txt"].source_folder == str(docs)
    assert records["bees.txt"].content_hash and len(records["bees.txt"].content_hash) == 64
    consistent(kb)
    hits = kb.search("how do bees dance", k=2).hits
    assert Path(hits[0].path).name == "bees.txt" and "waggle" in hits[0].text
    assert kb.watched_folders() == [str(docs)]


def test_what_was_read_only_in_part_is_noted(kb: KnowledgeBase, docs: Path) -> None:
    (docs / "partial.txt").write_text("NOTE: part of this file could not be read.")
    run(kb, docs)
    record = next(r for r in kb.documents() if r.path.endswith("partial.txt"))
    assert record.status is DocumentStatus.INDEXED and record.notes == "a line was unreadable"
    assert next(r for r in kb.documents() if r.path.endswith("bees.txt")).notes is None


def test_re_adding_unchanged_files_reads_nothing(kb: KnowledgeBase, docs: Path) -> None:
    run(kb, docs)
    read: list[Path] = []

    def counting_parse(path: Path) -> object:
        read.append(path)
        return paragraph_parse(path)

    summary = run(kb, docs, parse=counting_parse)
    assert (summary.files_indexed, summary.files_skipped, summary.chunks) == (0, 3, 0)
    assert read == []


def test_touched_but_identical_file_is_hashed_not_parsed(kb: KnowledgeBase, docs: Path) -> None:
    run(kb, docs)
    target = docs / "bees.txt"
    os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 5_000_000_000))
    read: list[Path] = []
    summary = run(kb, docs, parse=lambda path: read.append(path) or paragraph_parse(path))
    assert read == [] and summary.files_skipped == 3 and summary.files_indexed == 0
    record = next(r for r in kb.documents() if r.path == str(target))
    assert record.mtime_ns == target.stat().st_mtime_ns, "the new mtime is remembered"
    assert run(kb, docs).files_skipped == 3


def test_a_changed_file_alone_is_indexed_again(kb: KnowledgeBase, docs: Path) -> None:
    run(kb, docs)
    before = {r.path: r for r in kb.documents()}
    (docs / "volcano.txt").write_text("Geysers erupt hot water.\n\nMore text.\n\nAnd a third paragraph.")
    read: list[str] = []
    summary = run(kb, docs, parse=lambda path: read.append(path.name) or paragraph_parse(path))
    assert read == ["volcano.txt"] and summary.files_indexed == 1 and summary.files_skipped == 2
    after = {r.path: r for r in kb.documents()}
    volcano = str(docs / "volcano.txt")
    assert after[volcano].id == before[volcano].id and after[volcano].chunk_count == 3
    assert after[volcano].content_hash != before[volcano].content_hash
    consistent(kb)
    texts = [hit.text for hit in kb.search("volcanoes in Iceland", k=5).hits]
    assert "Iceland has many volcanoes." not in texts, "the old version is gone"
    assert any("Geysers" in text for text in kb.search("geysers erupting", k=3).hits[0].text.split("\n"))


def test_files_deleted_from_an_added_folder_are_removed(kb: KnowledgeBase, docs: Path) -> None:
    run(kb, docs)
    (docs / "bread.txt").unlink()
    summary = run(kb, docs)
    assert summary.files_removed == 1
    assert set(statuses(kb)) == {"bees.txt", "volcano.txt"}
    consistent(kb)
    assert all("Sourdough" not in hit.text for hit in kb.search("sourdough starter", k=5).hits)


def test_a_bad_file_fails_alone_with_its_own_error(kb: KnowledgeBase, docs: Path) -> None:
    (docs / "broken.txt").write_text("FAIL\n\nthis one cannot be parsed")
    (docs / "blank.txt").write_text("   \n\n  ")
    summary = run(kb, docs)
    assert summary.files_indexed == 3 and summary.files_failed == 2
    records = {Path(r.path).name: r for r in kb.documents()}
    assert records["broken.txt"].status is DocumentStatus.FAILED
    assert records["broken.txt"].error_kind == "corrupt" and "broken.txt" in (records["broken.txt"].error_message or "")
    assert records["blank.txt"].error_kind == "empty"
    assert {problem.kind for problem in summary.problems} == {"corrupt", "empty"}
    consistent(kb)
    # Unchanged failed files are not retried; fixed ones are.
    assert run(kb, docs).files_failed == 0
    (docs / "broken.txt").write_text("Now it is fine.")
    assert run(kb, docs).files_indexed == 1
    assert statuses(kb)["broken.txt"] == "indexed"


def test_a_file_that_disappears_mid_way_fails_as_missing(kb: KnowledgeBase, docs: Path) -> None:
    ghost = docs / "ghost.txt"

    def discover_with_ghost(paths: object, on_problem: object) -> Iterator[FoundFile]:
        yield from walk_discover(paths, on_problem)  # type: ignore[arg-type]
        yield FoundFile(ghost, 10, 1)  # listed, then gone before it is read

    summary = run(kb, docs, discover=discover_with_ghost)
    assert summary.files_indexed == 3 and summary.files_failed == 1
    record = next(r for r in kb.documents() if r.path == str(ghost))
    assert record.error_kind == "missing" and "gone" in (record.error_message or "")


def test_re_adding_a_file_that_is_gone_marks_it_missing(kb: KnowledgeBase, docs: Path) -> None:
    target = docs / "bees.txt"
    run(kb, target)
    target.unlink()
    summary = run(kb, target)
    assert [problem.kind for problem in summary.problems] == ["missing"]
    record = kb.documents()[0]
    assert record.status is DocumentStatus.FAILED and record.error_kind == "missing"
    consistent(kb)


def test_cancel_keeps_finished_documents_and_the_next_run_resumes(kb: KnowledgeBase, docs: Path) -> None:
    for index in range(6):
        (docs / f"extra{index}.txt").write_text(f"Extra document {index}.\n\nSecond paragraph {index}.")
    cancel = threading.Event()
    parsed: list[str] = []

    def cancel_after_three(path: Path) -> object:
        parsed.append(path.name)
        if len(parsed) == 3:
            cancel.set()
        return paragraph_parse(path)

    summary = run(kb, docs, cancel=cancel, parse=cancel_after_three)
    assert summary.cancelled and summary.files_indexed < 9
    consistent(kb, orphans_allowed=True)
    left = [name for name, status in statuses(kb).items() if status != "indexed"]
    assert left, "cancelled before the end"
    resumed = run(kb)  # no paths: only finish earlier work
    assert resumed.files_indexed == len(left) and not resumed.cancelled
    assert set(statuses(kb).values()) == {"indexed"}
    consistent(kb)


class FailingVectorStore(VectorStore):
    """A vector store that dies (like a killed process) on its n-th write."""

    def __init__(self, real: VectorStore, fail_on_write: int) -> None:
        super().__init__(real.persist_dir, real.server_url)
        self.writes = 0
        self.fail_on_write = fail_on_write

    def upsert(self, collection: str, keys: object, vectors: object) -> None:
        self.writes += 1
        if self.writes == self.fail_on_write:
            super().upsert(collection, keys, vectors)  # type: ignore[arg-type]
            raise RuntimeError("simulated crash after writing vectors")
        super().upsert(collection, keys, vectors)  # type: ignore[arg-type]


def test_a_crash_while_embedding_keeps_documents_findable_and_resumes_from_the_last_batch(
        kb: KnowledgeBase, docs: Path) -> None:
    for index in range(5):
        (docs / f"more{index}.txt").write_text(f"Paragraph one of {index}.\n\nParagraph two.\n\nThree.")
    kb.vector_store = FailingVectorStore(kb.vector_store, fail_on_write=3)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(kb, docs)
    report = check_consistency(open_database(kb.database_path), kb.vector_store)
    assert report.ok, report.problems
    assert report.awaiting_vectors > 0, "documents read but not embedded yet"
    stages = statuses(kb)
    assert set(stages.values()) <= {"indexed", "keywords"} and "keywords" in stages.values()
    waiting = [name for name, stage in stages.items() if stage == "keywords"]
    hits = kb.search(f"Paragraph one of {waiting[0].removeprefix('more').removesuffix('.txt')}", k=20).hits
    assert any(Path(hit.path).name in waiting for hit in hits), "read documents are found by keywords at once"
    total = sum(record.chunk_count for record in kb.documents())
    with_vectors = report.vectors
    kb.vector_store = VectorStore(kb.vector_store.persist_dir)
    summary = run(kb)  # no paths: finish earlier work
    assert set(statuses(kb).values()) == {"indexed"} and summary.files_failed == 0
    assert summary.chunks == total - with_vectors, "vectors written before the crash are not computed again"
    consistent(kb)


def test_changing_the_embedding_model_re_embeds_then_switches(tmp_path: Path, docs: Path) -> None:
    from app.core.kb.embedder import resolve_embedding_model

    with open_knowledge_base(tmp_path / "kb") as first:
        run(first, docs)
        old_collection = first.vector_store.collection_names()
    # The same weights through their folder path count as a different model (another key).
    folder = resolve_embedding_model("all-MiniLM-L6-v2").location
    with open_knowledge_base(tmp_path / "kb", kb__embedding_model=folder) as second:
        assert second.stats().active_model == "all-MiniLM-L6-v2", "the old space serves until switched"
        summary = run(second, docs)
        assert summary.switched_model and summary.files_skipped == 3
        stats = second.stats()
        assert stats.active_model == folder and stats.building_model is None
        assert second.vector_store.collection_names() != old_collection
        assert len(second.vector_store.collection_names()) == 1, "the old collection was dropped"
        consistent(second)
        assert Path(second.search("waggle dance of bees", k=1).hits[0].path).name == "bees.txt"


def test_removing_a_document_removes_its_vectors(kb: KnowledgeBase, docs: Path) -> None:
    run(kb, docs)
    record = next(r for r in kb.documents() if r.path.endswith("bees.txt"))
    removed = kb.remove(record.id)
    assert removed.path == record.path and (docs / "bees.txt").exists(), "the file itself stays"
    consistent(kb)
    assert all(hit.document_id != record.id for hit in kb.search("waggle dance", k=5).hits)


def test_parse_and_chunk_fakes_agree_with_offsets(docs: Path) -> None:
    document = paragraph_parse(docs / "bees.txt")
    for chunk in paragraph_chunk(document, len, 100, 0):
        assert document.pages[0].text[chunk.char_start : chunk.char_end] == chunk.text


def test_chunks_are_embedded_in_batches_of_similar_length(kb: KnowledgeBase, docs: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks from several documents are pooled and sorted by length, so a batch pads to little."""
    for index in range(12):
        long_paragraph = " ".join(f"word{index}x{n}" for n in range(40))
        (docs / f"mixed{index}.txt").write_text(f"Short {index}.\n\n{long_paragraph}\n\nTiny.")
    embedder = kb.embedders.get(kb.settings.str_value("kb.embedding_model"))
    batches: list[list[int]] = []
    real_embed = embedder.embed_documents

    def recording_embed(texts: list[str]) -> object:
        batches.append([embedder.count_tokens(text) for text in texts])
        return real_embed(texts)

    monkeypatch.setattr(embedder, "embed_documents", recording_embed)
    indexer = kb.indexer(IndexingOptions(batch_chunks=4, gather_seconds=600.0), **FAKE_READERS)  # type: ignore[arg-type]
    summary = indexer.run([docs], ProgressTracker(), threading.Event())
    assert summary.files_indexed == 15 and set(statuses(kb).values()) == {"indexed"}
    lengths = [length for batch in batches for length in batch]
    assert len(lengths) == 6 + 12 * 3
    assert lengths[:4 * 8] == sorted(lengths[:4 * 8], reverse=True)  # the first pool, longest first
    long_batches = [batch for batch in batches if max(batch) >= 40]
    assert all(min(batch) >= 40 for batch in long_batches[:2]), "long chunks share batches with long chunks"
    consistent(kb)
