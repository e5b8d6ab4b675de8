"""Full-text search across conversations, Chinese included, on a real SQLite FTS5 index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat.search import match_expression, snippet
from app.core.chat.store import ConversationStore
from app.core.util.segmenter import index_terms


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    opened = ConversationStore(tmp_path / "conversations.db")
    conversations = {
        "中文": ["我们讨论了中文模型的显存占用", "模型需要多少内存？"],
        "English": ["How much memory does the model need?", "Modelling memory bandwidth"],
        "Mixed": ["在GPU上运行vLLM很快", "日本語のテキストも検索できる"],
    }
    for title, texts in conversations.items():
        conversation = opened.create_conversation(title)
        parent = None
        for index, text in enumerate(texts):
            parent = opened.add_message(conversation.id, "user" if index % 2 == 0 else "assistant", text, parent).id
    yield opened
    opened.close()


def texts(store: ConversationStore, query: str) -> set[str]:
    return {store.message(match.message_id).text for match in store.search(query)}


def test_two_character_chinese_query_finds_it_inside_longer_runs(store: ConversationStore) -> None:
    assert texts(store, "模型") == {"我们讨论了中文模型的显存占用", "模型需要多少内存？"}
    assert texts(store, "显存") == {"我们讨论了中文模型的显存占用"}


def test_one_character_and_longer_chinese_queries(store: ConversationStore) -> None:
    assert texts(store, "存") == {"我们讨论了中文模型的显存占用", "模型需要多少内存？"}
    assert texts(store, "中文模型") == {"我们讨论了中文模型的显存占用"}
    # all characters present, but not next to each other: a phrase query must not match
    assert texts(store, "模存") == set()


def test_english_words_case_insensitive_with_prefix_on_the_last_word(store: ConversationStore) -> None:
    assert texts(store, "MEMORY") == {"How much memory does the model need?", "Modelling memory bandwidth"}
    assert texts(store, "memory mod") == {"How much memory does the model need?", "Modelling memory bandwidth"}
    assert texts(store, "memory need") == {"How much memory does the model need?"}
    assert texts(store, "mod memory") == set()  # only the last word is a prefix


def test_mixed_scripts_and_japanese(store: ConversationStore) -> None:
    assert texts(store, "GPU 运行") == {"在GPU上运行vLLM很快"}
    assert texts(store, "vllm") == {"在GPU上运行vLLM很快"}
    assert texts(store, "テキスト") == {"日本語のテキストも検索できる"}


def test_results_carry_the_conversation_and_a_snippet(store: ConversationStore) -> None:
    [match] = store.search("显存")
    assert match.conversation_title == "中文" and match.role == "user"
    assert "显存" in match.snippet


def test_queries_without_searchable_text_and_fts_syntax_are_harmless(store: ConversationStore) -> None:
    assert store.search("") == []
    assert store.search("  ?!  ") == []
    assert store.search('memory" OR "x') == store.search("memory x")
    assert store.search("NEAR(memory model)") == []


def test_segmentation_shapes() -> None:
    assert index_terms("Hi 中文模型") == "hi 中 文 模 型 中文 文模 模型"
    assert match_expression("中文模型 GPU") == '"中文 文模 模型" AND "gpu"*'
    assert match_expression("字") == '"字"'
    assert match_expression("...") is None
    long_text = "a" * 200 + " 关键 " + "b" * 200
    piece = snippet(long_text, "关键")
    assert "关键" in piece and piece.startswith("…") and piece.endswith("…") and len(piece) < 100
