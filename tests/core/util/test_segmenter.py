"""One segmenter for conversation search and knowledge-base search: one query splits one way in both."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from app.core.chat.search import match_expression as chat_expression
from app.core.chat.store import ConversationStore
from app.core.kb.catalog import IndexedFacts, insert_pending, mark_indexed, mark_indexing
from app.core.kb.chunk_store import insert_chunks, keyword_search
from app.core.kb.database import open_database
from app.core.kb.documents import Chunk
from app.core.kb.keyword_query import query_terms
from app.core.util.segmenter import Piece, index_terms, pieces
from app.core.util.sqlite import transaction

# Each query holds characters that one of the two former segmenters did not count as CJK:
# 〆 (closing mark), half-width katakana, small katakana ㇰ, a supplementary-plane Han character 𠮷.
QUERIES = ["〆切 GPU", "ｶﾀｶﾅ", "ㇰㇱ", "𠮷野家", "中文模型的显存", "Don’t PANIC"]


def _chat_terms(query: str) -> list[str]:
    expression = chat_expression(query)
    assert expression is not None
    return [term for phrase in re.findall(r'"([^"]*)"', expression) for term in phrase.split()]


@pytest.mark.parametrize("query", QUERIES)
def test_one_query_splits_one_way_in_chat_and_knowledge_base_search(query: str) -> None:
    assert _chat_terms(query) == query_terms(query)


def test_pieces_cover_every_cjk_range_and_keep_words_whole() -> None:
    assert pieces("〆切 GPU") == [Piece("〆切", True), Piece("gpu", False)]
    assert pieces("ｶﾀｶﾅ と 𠮷野家") == [Piece("ｶﾀｶﾅ", True), Piece("と", True), Piece("𠮷野家", True)]
    assert pieces("Don’t stop, GPU-memory!") == [
        Piece("don't", False), Piece("stop", False), Piece("gpu", False), Piece("memory", False)]
    assert Piece("中文模型", True).terms() == ["中文", "文模", "模型"]
    assert Piece("茶", True).terms() == ["茶"]
    assert index_terms("Hi 量子计算") == "hi 量 子 计 算 量子 子计 计算"


def _kb_chunk_ids(tmp_path: Path, text: str, query: str) -> list[int]:
    connection = open_database(tmp_path / "kb.sqlite3")
    try:
        with transaction(connection):
            document_id = insert_pending(connection, "/docs/a.txt", 10, 1, None)
            mark_indexing(connection, document_id)
            insert_chunks(connection, document_id, [Chunk(0, text, 1, (), 0, len(text), 5)])
            mark_indexed(connection, document_id, IndexedFacts("f" * 64, 10, 1, "txt", "a", 1, 1))
        match = " OR ".join(f'"{term}"' for term in query_terms(query))
        return [chunk_id for chunk_id, _ in keyword_search(connection, match, 5)]
    finally:
        connection.close()


@pytest.mark.parametrize("query", ["〆切", "ｶﾀｶﾅ", "𠮷野", "显存"])
def test_both_real_indexes_find_the_same_text_for_the_same_query(tmp_path: Path, query: str) -> None:
    text = "提出の〆切は明日; ｶﾀｶﾅ も 𠮷野家 も OK; 中文模型的显存"
    with ConversationStore(tmp_path / "chat.db") as store:
        conversation = store.create_conversation("t")
        message = store.add_message(conversation.id, "user", text, None)
        assert [match.message_id for match in store.search(query)] == [message.id]
    assert len(_kb_chunk_ids(tmp_path, text, query)) == 1


def test_transaction_commits_together_or_not_at_all(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    connection.execute("CREATE TABLE t (x INTEGER)")
    with transaction(connection):
        connection.execute("INSERT INTO t VALUES (1)")
        connection.execute("INSERT INTO t VALUES (2)")
    with pytest.raises(KeyboardInterrupt), transaction(connection):
        connection.execute("INSERT INTO t VALUES (3)")
        raise KeyboardInterrupt
    assert [row[0] for row in connection.execute("SELECT x FROM t ORDER BY x")] == [1, 2]
    assert not connection.in_transaction
    connection.close()
