"""The knowledge base's keyword query over the shared segmenter's index terms, on a real FTS5 table."""

from __future__ import annotations

import sqlite3

from app.core.kb.keyword_query import match_expression, query_terms
from app.core.util.segmenter import index_terms


def test_cjk_runs_become_characters_and_overlapping_bigrams() -> None:
    assert index_terms("量子计算") == "量 子 计 算 量子 子计 计算"


def test_latin_words_are_lowercased_and_punctuation_dropped() -> None:
    assert index_terms("Hello, World! GPU-memory") == "hello world gpu memory"


def test_mixed_text_keeps_both_scripts_in_order() -> None:
    assert index_terms("用 Python 写代码") == "用 python 写 代 码 写代 代码"


def test_japanese_kana_and_korean_are_segmented_like_chinese() -> None:
    assert "カタ" in index_terms("カタカナ").split()
    assert "한국" in index_terms("한국어").split()


def test_query_uses_bigrams_for_runs_and_the_character_for_a_single_one() -> None:
    assert query_terms("量子计算") == ["量子", "子计", "计算"]
    assert query_terms("茶") == ["茶"]


def test_query_drops_english_stop_words_unless_nothing_else_is_left() -> None:
    assert query_terms("What is the borrow checker?") == ["borrow", "checker"]
    assert query_terms("What is it") == ["what", "is", "it"]


def test_query_terms_are_unique_and_quoted_safely() -> None:
    assert query_terms("cat cat CAT") == ["cat"]
    assert match_expression(['say"hi', "b"]) == '"say""hi" OR "b"'


def test_fts5_finds_two_character_chinese_words_inside_longer_runs() -> None:
    """The reason for segmenting: a plain unicode61 index cannot find 计算 inside 量子计算机."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE plain USING fts5(body)")
    connection.execute("CREATE VIRTUAL TABLE terms USING fts5(body, tokenize = 'porter unicode61')")
    text = "量子计算机使用量子比特"
    connection.execute("INSERT INTO plain VALUES (?)", (text,))
    connection.execute("INSERT INTO terms VALUES (?)", (index_terms(text),))
    query = match_expression(query_terms("计算"))
    assert connection.execute("SELECT count(*) FROM plain WHERE plain MATCH ?", (query,)).fetchone()[0] == 0
    assert connection.execute("SELECT count(*) FROM terms WHERE terms MATCH ?", (query,)).fetchone()[0] == 1


def test_porter_stemming_matches_english_word_forms() -> None:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE terms USING fts5(body, tokenize = 'porter unicode61')")
    connection.execute("INSERT INTO terms VALUES (?)", (index_terms("Runners were tapering their training"),))
    query = match_expression(query_terms("taper run"))
    assert connection.execute("SELECT count(*) FROM terms WHERE terms MATCH ?", (query,)).fetchone()[0] == 1
