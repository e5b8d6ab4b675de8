"""The SQLite side: schema and settings, documents status, chunks with their keyword rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.core.kb.catalog import (
    DocumentStatus,
    IndexedFacts,
    delete_document,
    find_document,
    get_document,
    insert_pending,
    list_documents,
    mark_failed,
    mark_indexed,
    mark_indexing,
)
from app.core.kb.chunk_store import chunks_by_ids, chunks_by_position, insert_chunks, keyword_search
from app.core.kb.database import SCHEMA_VERSION, knowledge_base_id, open_database
from app.core.kb.documents import Chunk
from app.core.kb.errors import KnowledgeBaseError
from app.core.kb.keyword_query import match_expression, query_terms
from app.core.util.sqlite import transaction


@pytest.fixture
def connection(tmp_path: Path) -> sqlite3.Connection:
    return open_database(tmp_path / "kb" / "kb.sqlite3")


def _chunks(*texts: str) -> list[Chunk]:
    chunks, offset = [], 0
    for ordinal, text in enumerate(texts):
        chunks.append(Chunk(ordinal, text, 1, ("Guide", "Part"), offset, offset + len(text), len(text.split())))
        offset += len(text) + 2
    return chunks


def _index(connection: sqlite3.Connection, path: str, *texts: str) -> int:
    with transaction(connection):
        document_id = insert_pending(connection, path, 10, 1, None)
        mark_indexing(connection, document_id)
        insert_chunks(connection, document_id, _chunks(*texts))
        mark_indexed(connection, document_id, IndexedFacts("f" * 64, 10, 1, "txt", "t", 1, len(texts)))
    return document_id


def test_database_uses_wal_foreign_keys_and_records_its_schema_version(connection: sqlite3.Connection) -> None:
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert connection.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert len(knowledge_base_id(connection)) == 32


def test_reopening_keeps_the_id_and_data(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite3"
    first = open_database(path)
    identity = knowledge_base_id(first)
    _index(first, "/docs/a.txt", "alpha")
    first.close()
    second = open_database(path)
    assert knowledge_base_id(second) == identity
    assert [record.path for record in list_documents(second)] == ["/docs/a.txt"]


def test_a_database_from_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite3"
    open_database(path).execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(KnowledgeBaseError, match="newer UniDesk"):
        open_database(path)


def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(KnowledgeBaseError, match="cannot be opened"):
        open_database(path)


def test_status_moves_and_only_indexed_documents_keep_chunks(connection: sqlite3.Connection) -> None:
    document_id = _index(connection, "/docs/a.txt", "alpha beta", "gamma delta")
    record = get_document(connection, document_id)
    assert record is not None and record.status is DocumentStatus.INDEXED and record.chunk_count == 2
    assert connection.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == 2
    with transaction(connection):
        mark_indexing(connection, document_id)
    assert connection.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    assert connection.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == 0
    # It had vectors: it is queued for vector cleanup.
    assert connection.execute("SELECT document_id FROM vector_cleanup").fetchall()[0][0] == document_id
    with transaction(connection):
        mark_failed(connection, document_id, "corrupt", "/docs/a.txt: broken")
    record = find_document(connection, "/docs/a.txt")
    assert record is not None
    assert (record.status, record.error_kind, record.error_message) == (
        DocumentStatus.FAILED, "corrupt", "/docs/a.txt: broken")


def test_a_new_pending_document_needs_no_vector_cleanup(connection: sqlite3.Connection) -> None:
    with transaction(connection):
        document_id = insert_pending(connection, "/docs/new.txt", 1, 1, None)
        mark_indexing(connection, document_id)
    assert connection.execute("SELECT count(*) FROM vector_cleanup").fetchone()[0] == 0


def test_deleting_a_document_deletes_its_chunks_and_keyword_rows(connection: sqlite3.Connection) -> None:
    keep = _index(connection, "/docs/keep.txt", "keep this")
    gone = _index(connection, "/docs/gone.txt", "remove that", "and this")
    with transaction(connection):
        delete_document(connection, gone)
    assert get_document(connection, gone) is None
    remaining = connection.execute("SELECT document_id FROM chunks").fetchall()
    assert [row[0] for row in remaining] == [keep]
    assert connection.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == 1


def test_a_failed_transaction_leaves_nothing_behind(connection: sqlite3.Connection) -> None:
    with pytest.raises(RuntimeError), transaction(connection):
        document_id = insert_pending(connection, "/docs/a.txt", 1, 1, None)
        insert_chunks(connection, document_id, _chunks("half written"))
        raise RuntimeError("crash before the commit point")
    assert list_documents(connection) == []
    assert connection.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == 0


def test_keyword_search_ranks_by_bm25_and_reads_chinese(connection: sqlite3.Connection) -> None:
    first = _index(connection, "/docs/en.txt", "the borrow checker prevents data races",
                   "ownership moves values")
    second = _index(connection, "/docs/zh.txt", "量子计算机使用量子比特进行计算", "大熊猫吃竹子")
    found = keyword_search(connection, match_expression(query_terms("What does the borrow checker do?")), 5)
    hits = chunks_by_ids(connection, [chunk_id for chunk_id, _ in found])
    assert hits[found[0][0]].document_id == first and "borrow" in hits[found[0][0]].text
    found = keyword_search(connection, match_expression(query_terms("什么是量子比特")), 5)
    top = chunks_by_ids(connection, [found[0][0]])[found[0][0]]
    assert top.document_id == second and "量子比特" in top.text
    assert found[0][1] > 0, "scores are flipped so that higher is better"


def test_headings_are_searchable(connection: sqlite3.Connection) -> None:
    _index(connection, "/docs/a.txt", "nothing relevant here")
    assert keyword_search(connection, match_expression(["guide"]), 5)


def test_chunk_lookups_skip_documents_that_are_not_searchable(connection: sqlite3.Connection) -> None:
    document_id = _index(connection, "/docs/a.txt", "alpha", "beta")
    chunk_ids = [row[0] for row in connection.execute("SELECT id FROM chunks ORDER BY ordinal")]
    assert set(chunks_by_ids(connection, chunk_ids)) == set(chunk_ids)
    found = chunks_by_position(connection, [(document_id, 1), (document_id, 7)])
    assert list(found) == [(document_id, 1)] and found[(document_id, 1)].text == "beta"
    assert found[(document_id, 1)].heading == "Guide > Part" and found[(document_id, 1)].page == 1
    # A document being read in parts: the chunks of its committed parts are found already.
    connection.execute("UPDATE documents SET status = 'indexing' WHERE id = ?", (document_id,))
    assert set(chunks_by_ids(connection, chunk_ids)) == set(chunk_ids)
    connection.execute("UPDATE documents SET status = 'pending' WHERE id = ?", (document_id,))
    assert chunks_by_ids(connection, chunk_ids) == {}
    assert chunks_by_position(connection, [(document_id, 1)]) == {}
