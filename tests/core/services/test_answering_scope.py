"""Retrieval for a conversation limited to some documents or folders (real MiniLM, chromadb and SQLite):
the scope goes down into the search, so a small top-k still finds the allowed documents' passages."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat.records import KnowledgeScope
from app.core.config import Settings
from app.core.engines.manager import EngineManager
from app.core.kb.document_filter import DocumentFilter
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.kb.retrieval import NO_DOCUMENTS_IN_FILTER
from app.core.services.answering import Answerer, document_filter
from tests.core.planner.fake_hardware import cpu_only
from tests.fixtures.knowledge_base import FAKE_READERS, open_knowledge_base

OTTER_NOTES = 12  # more documents that match better than top_k times any over-fetch factor
QUESTION = "What do otters eat?"


def otter_note(index: int) -> str:
    return f"Otter note {index}: sea otters eat sea urchins, crabs and clams.\n\nOtters eat while floating."


@pytest.fixture(scope="module")
def animals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KnowledgeBase, Path]]:
    docs = tmp_path_factory.mktemp("answering-scope") / "docs"
    (docs / "rivers").mkdir(parents=True)
    for index in range(OTTER_NOTES):
        folder = docs / "rivers" if index % 2 else docs
        (folder / f"otters-{index:02}.txt").write_text(otter_note(index))
    (docs / "beavers.txt").write_text("Beavers build dams of wood.\n\nBeavers eat bark and water plants.")
    with open_knowledge_base(docs.parent / "kb") as knowledge_base:
        knowledge_base.indexer(**FAKE_READERS).run(  # type: ignore[arg-type]
            [docs], ProgressTracker(), threading.Event())
        yield knowledge_base, docs


def answerer(knowledge_base: KnowledgeBase, top_k: int = 2) -> Answerer:
    settings = Settings({"kb.top_k": top_k})
    return Answerer(EngineManager(cpu_only, lambda: settings), knowledge_base, lambda: settings)


def path_id(knowledge_base: KnowledgeBase, path: Path) -> int:
    return next(record.id for record in knowledge_base.documents() if record.path == str(path.resolve()))


def test_a_scope_of_one_document_never_returns_another_even_when_others_match_better(
    animals: tuple[KnowledgeBase, Path],
) -> None:
    knowledge_base, docs = animals
    beavers = path_id(knowledge_base, docs / "beavers.txt")
    unscoped = answerer(knowledge_base).retrieve(QUESTION, KnowledgeScope())
    assert len(unscoped.passages) == 2 and beavers not in {passage.document_id for passage in unscoped.passages}
    everything = knowledge_base.search(QUESTION, k=OTTER_NOTES)
    assert beavers not in {hit.document_id for hit in everything.hits}, "every otter note ranks above beavers"

    scoped = answerer(knowledge_base).retrieve(QUESTION, KnowledgeScope(document_ids=(beavers,)))
    assert scoped.passages, "the allowed document's passages are found, not lost behind better matches"
    assert {passage.document_id for passage in scoped.passages} == {beavers}
    assert "Beavers eat bark" in " ".join(passage.text for passage in scoped.passages)


def test_a_folder_scope_gives_passages_from_that_folder_only(animals: tuple[KnowledgeBase, Path]) -> None:
    knowledge_base, docs = animals
    rivers = docs / "rivers"
    retrieval = answerer(knowledge_base, top_k=4).retrieve(QUESTION, KnowledgeScope(folders=(str(rivers),)))
    assert len(retrieval.passages) == 4
    assert {Path(passage.path).parent for passage in retrieval.passages} == {rivers.resolve()}
    mixed = KnowledgeScope(document_ids=(path_id(knowledge_base, docs / "beavers.txt"),), folders=(str(rivers),))
    found = answerer(knowledge_base, top_k=OTTER_NOTES).retrieve("beavers and otters eat", mixed)
    assert {Path(passage.path).parent for passage in found.passages} == {rivers.resolve(), docs.resolve()}
    assert all(passage.path.endswith("beavers.txt") for passage in found.passages
               if Path(passage.path).parent == docs.resolve())


def test_a_scope_whose_documents_are_gone_gives_no_passages_and_says_why(
    animals: tuple[KnowledgeBase, Path],
) -> None:
    knowledge_base, _docs = animals
    retrieval = answerer(knowledge_base).retrieve(QUESTION, KnowledgeScope(document_ids=(99999,)))
    assert retrieval.passages == ()
    assert NO_DOCUMENTS_IN_FILTER in retrieval.notes
    assert "No passage in the knowledge base matched the question." in retrieval.notes


def test_the_search_filter_follows_the_scope() -> None:
    assert document_filter(KnowledgeScope()) is None
    assert document_filter(KnowledgeScope((3, 4), ("/data/notes",))) == DocumentFilter((3, 4), ("/data/notes",))
