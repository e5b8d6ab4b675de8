"""Searches limited to some documents (ids and folders) with the real MiniLM, chromadb and SQLite FTS5:
each retriever filters before it ranks, so a scoped search is exact, not a filtered top list."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.core.kb import vector_store as vector_store_module
from app.core.kb.chunk_store import keyword_search
from app.core.kb.database import open_database
from app.core.kb.document_filter import DocumentFilter, filtered_document_ids
from app.core.kb.keyword_query import match_expression, query_terms
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.kb.retrieval import NO_DOCUMENTS_IN_FILTER, SearchOptions
from app.core.kb.vector_store import VectorKey, VectorStore
from tests.fixtures.knowledge_base import FAKE_READERS, open_knowledge_base

OTTER_FACTS = [
    "Sea otters eat sea urchins, crabs and clams.",
    "Otters eat while floating on their backs and use stones to crack shells.",
    "A hungry otter eats a quarter of its body weight in food every day.",
    "Otters eat fish in rivers and sea urchins along the coast.",
    "Young otters learn what to eat by watching their mothers.",
    "Otters eat mussels and crack them open on their chests.",
    "River otters eat frogs, crayfish and small fish.",
    "Otters that eat many urchins protect kelp forests.",
]
BEAVER_TEXT = "Beavers build dams of wood.\n\nBeavers eat bark and water plants in the evening."
QUESTION = "what do otters eat"


def index(knowledge_base: KnowledgeBase, *paths: Path) -> None:
    knowledge_base.indexer(**FAKE_READERS).run(list(paths), ProgressTracker(), threading.Event())  # type: ignore[arg-type]


def document_id(knowledge_base: KnowledgeBase, path: Path) -> int:
    return next(record.id for record in knowledge_base.documents() if record.path == str(path.resolve()))


@pytest.fixture(scope="module")
def animals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KnowledgeBase, Path, Path]]:
    """A knowledge base where one document (otters) answers the question far better than the other."""
    root = tmp_path_factory.mktemp("scoped")
    otters, beavers = root / "docs" / "otters.txt", root / "docs" / "beavers.txt"
    otters.parent.mkdir()
    otters.write_text("\n\n".join(OTTER_FACTS))
    beavers.write_text(BEAVER_TEXT)
    with open_knowledge_base(root / "kb") as knowledge_base:
        index(knowledge_base, otters.parent)
        yield knowledge_base, otters, beavers


def test_a_scope_of_one_document_never_returns_another_even_when_that_one_matches_better(
    animals: tuple[KnowledgeBase, Path, Path],
) -> None:
    knowledge_base, otters, beavers = animals
    otters_id, beavers_id = document_id(knowledge_base, otters), document_id(knowledge_base, beavers)
    narrow = SearchOptions(k=2, candidates=4)  # fewer candidates than the otters document has chunks
    unscoped = knowledge_base.search(QUESTION, options=narrow)
    assert [hit.document_id for hit in unscoped.hits] == [otters_id, otters_id]
    scoped = knowledge_base.search(QUESTION, options=narrow, documents=DocumentFilter((beavers_id,)))
    assert scoped.hits, "the scoped document's best passage is found, not filtered away"
    assert {hit.document_id for hit in scoped.hits} == {beavers_id}
    assert "Beavers eat bark" in scoped.hits[0].text
    assert scoped.retrievers == ("vector", "keyword")


@pytest.mark.parametrize("retriever", ["vector", "keyword"])
def test_each_retriever_filters_on_its_own(animals: tuple[KnowledgeBase, Path, Path], retriever: str) -> None:
    knowledge_base, otters, beavers = animals
    beavers_id = document_id(knowledge_base, beavers)
    options = SearchOptions(k=3, candidates=2, use_vectors=retriever == "vector",
                            use_keywords=retriever == "keyword", documents=DocumentFilter((beavers_id,)))
    result = knowledge_base.search("otters eat sea urchins", options=options)
    assert result.retrievers == (retriever,)
    assert result.hits and {hit.document_id for hit in result.hits} == {beavers_id}
    assert document_id(knowledge_base, otters) not in {hit.document_id for hit in result.hits}


def test_keyword_search_ranks_only_the_given_documents(animals: tuple[KnowledgeBase, Path, Path]) -> None:
    knowledge_base, otters, beavers = animals
    connection = open_database(knowledge_base.database_path)
    try:
        match = match_expression(query_terms("otters eat"))
        everything = keyword_search(connection, match, 3)
        limited = keyword_search(connection, match, 3, {document_id(knowledge_base, beavers)})
        assert len(everything) == 3 and len(limited) == 1
        chunk_documents = dict(connection.execute("SELECT id, document_id FROM chunks").fetchall())
        assert {chunk_documents[chunk_id] for chunk_id, _ in everything} == {document_id(knowledge_base, otters)}
        assert chunk_documents[limited[0][0]] == document_id(knowledge_base, beavers)
        assert keyword_search(connection, match, 3, set()) == []
    finally:
        connection.close()


def test_a_filter_with_no_document_in_the_knowledge_base_finds_nothing_and_says_why(
    animals: tuple[KnowledgeBase, Path, Path], tmp_path: Path
) -> None:
    knowledge_base, _otters, _beavers = animals
    for documents in (DocumentFilter((987654,)), DocumentFilter(folders=(str(tmp_path),)), DocumentFilter()):
        result = knowledge_base.search(QUESTION, documents=documents)
        assert result.hits == () and result.notes == (NO_DOCUMENTS_IN_FILTER,)


def test_folders_are_resolved_when_the_search_runs(tmp_path: Path) -> None:
    wanted, sibling = tmp_path / "notes", tmp_path / "notes-old"  # a sibling whose name starts the same
    for folder in (wanted, sibling):
        folder.mkdir()
        (folder / "otters.txt").write_text("\n\n".join(OTTER_FACTS[:3]))
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        index(knowledge_base, wanted, sibling)
        in_folder = DocumentFilter(folders=(str(wanted.resolve()),))
        first = knowledge_base.search(QUESTION, k=10, documents=in_folder)
        assert first.hits and {Path(hit.path).parent for hit in first.hits} == {wanted.resolve()}

        late = wanted / "beavers.txt"
        late.write_text(BEAVER_TEXT)
        index(knowledge_base, late)
        again = knowledge_base.search("beavers eat bark", k=10, documents=in_folder)
        assert str(late.resolve()) in {hit.path for hit in again.hits}
        assert {Path(hit.path).parent for hit in again.hits} == {wanted.resolve()}
        connection = open_database(knowledge_base.database_path)
        try:
            resolved = filtered_document_ids(connection, in_folder)
            by_id = DocumentFilter(document_ids=(document_id(knowledge_base, sibling / "otters.txt"),))
            assert resolved == {document_id(knowledge_base, wanted / name) for name in ("otters.txt", "beavers.txt")}
            assert filtered_document_ids(connection, by_id) == set(by_id.document_ids)
        finally:
            connection.close()


def test_filtered_vector_queries_split_long_id_lists_and_keep_the_best(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = np.random.default_rng(7)
    vectors = generator.normal(size=(40, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = VectorStore(tmp_path / "chroma")
    store.upsert("kb-filter", [VectorKey(index, "a" * 64, 0) for index in range(40)], vectors)
    query = vectors[0]
    allowed = set(range(1, 40, 3))
    expected = sorted(allowed, key=lambda index: -float(vectors[index] @ query))[:5]
    monkeypatch.setattr(vector_store_module, "_FILTER_BATCH", 4)  # several chromadb queries for 13 ids
    matches = store.query("kb-filter", query, 5, allowed)
    assert [match.key.document_id for match in matches] == expected
    assert [match.similarity for match in matches] == pytest.approx(
        [float(vectors[index] @ query) for index in expected], abs=1e-4)
    assert store.query("kb-filter", query, 5, set()) == []
    assert store.query("kb-filter", query, 3)[0].key.document_id == 0
