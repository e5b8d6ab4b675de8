"""ConversationStore on real SQLite files: conversations, message trees, presets, pragmas, migrations."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat.database import SCHEMA_VERSION, open_database, schema_version
from app.core.chat.errors import ChatDatabaseError, ChatError, ConversationNotFoundError
from app.core.chat.records import Citation, KnowledgeScope
from app.core.chat.store import ConversationStore


class Clock:
    """A clock the test moves by hand, so ordering by time is deterministic."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    opened = ConversationStore(tmp_path / "chat" / "conversations.db", clock=Clock())
    yield opened
    opened.close()


def test_the_file_uses_wal_and_foreign_keys_and_is_at_the_latest_schema(store: ConversationStore) -> None:
    connection = sqlite3.connect(store.path)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        connection.close()
    with pytest.raises(ConversationNotFoundError):  # foreign key: a message needs its conversation
        store.add_message("nope", "user", "hi", None)


def test_open_puts_the_file_under_the_data_folder(tmp_path: Path) -> None:
    with ConversationStore.open(tmp_path / "data") as opened:
        opened.create_conversation("x")
    assert (tmp_path / "data" / "chat" / "conversations.db").is_file()


def test_first_question_titles_the_conversation_and_rename_pin_reorder(store: ConversationStore) -> None:
    first = store.create_conversation()
    second = store.create_conversation()
    store.add_message(first.id, "user", "\n  How do bees find flowers?\nmore detail", None)
    assert store.conversation(first.id).title == "How do bees find flowers?"
    # first was updated last, so it comes first; pinning second moves it to the top
    assert [c.id for c in store.conversations()] == [first.id, second.id]
    store.set_pinned(second.id, True)
    assert [c.id for c in store.conversations()] == [second.id, first.id]
    renamed = store.rename(first.id, "  Bees ")
    assert renamed.title == "Bees"
    long_title = store.create_conversation()
    store.add_message(long_title.id, "user", "x" * 200, None)
    assert len(store.conversation(long_title.id).title) == 60


def test_knowledge_settings_preset_and_model_are_stored(store: ConversationStore) -> None:
    conversation = store.create_conversation("c")
    assert conversation.kb_enabled and conversation.kb_scope.everything
    scope = KnowledgeScope(document_ids=(3, 5), folders=("/docs/a",))
    updated = store.set_knowledge(conversation.id, True, scope)
    assert updated.kb_scope == scope
    assert not store.set_knowledge(conversation.id, False).kb_enabled
    assert store.conversation(conversation.id).kb_scope == scope
    preset = store.create_preset("Pirate", "Talk like a pirate.")
    assert store.set_preset(conversation.id, preset.id).preset_id == preset.id
    assert store.system_prompt(store.conversation(conversation.id)) == "Talk like a pirate."
    assert store.set_model(conversation.id, "tiny").model == "tiny"
    with pytest.raises(ConversationNotFoundError):
        store.set_preset(conversation.id, "missing")


def test_presets_default_cannot_be_deleted_and_deleted_user_preset_falls_back(store: ConversationStore) -> None:
    presets = store.presets()
    assert [p.id for p in presets] == ["default"] and presets[0].builtin
    default_text = presets[0].text
    with pytest.raises(ChatError):
        store.delete_preset("default")
    mine = store.create_preset("Short", "Be brief.")
    store.update_preset(mine.id, name="Brief", text="Be very brief.")
    assert store.preset(mine.id).name == "Brief" and store.preset(mine.id).text == "Be very brief."
    conversation = store.create_conversation(preset_id=mine.id)
    store.delete_preset(mine.id)
    reloaded = store.conversation(conversation.id)
    assert reloaded.preset_id is None
    assert store.system_prompt(reloaded) == default_text
    with pytest.raises(ChatError):
        store.create_preset("  ", "text")


def test_messages_form_a_tree_with_a_current_branch(store: ConversationStore) -> None:
    conversation = store.create_conversation()
    question = store.add_message(conversation.id, "user", "q1", None)
    answer_a = store.add_message(conversation.id, "assistant", "a1", question.id)
    answer_b = store.add_message(conversation.id, "assistant", "a1 again", question.id)  # regenerate
    assert [m.id for m in store.branch(conversation.id)] == [question.id, answer_b.id]
    assert [m.id for m in store.children(conversation.id, question.id)] == [answer_a.id, answer_b.id]
    follow_up = store.add_message(conversation.id, "user", "q2", answer_a.id)
    assert [m.text for m in store.branch(conversation.id)] == ["q1", "a1", "q2"]
    store.select_branch(conversation.id, answer_b.id)
    assert [m.text for m in store.branch(conversation.id)] == ["q1", "a1 again"]
    store.select_branch(conversation.id, question.id)  # newest reply chain below q1: a1 again
    assert store.conversation(conversation.id).current_leaf_id == answer_b.id
    store.select_branch(conversation.id, answer_a.id)
    assert store.conversation(conversation.id).current_leaf_id == follow_up.id
    other = store.create_conversation()
    with pytest.raises(ConversationNotFoundError):  # a parent from another conversation
        store.add_message(other.id, "user", "x", question.id)


def test_partial_saves_then_finish(store: ConversationStore) -> None:
    conversation = store.create_conversation()
    question = store.add_message(conversation.id, "user", "q", None)
    answer = store.add_message(conversation.id, "assistant", "", question.id, finished=False)
    store.save_partial(answer.id, "half an ans")
    partial = store.message(answer.id)
    assert partial.text == "half an ans" and not partial.finished and partial.finish_reason is None
    assert partial.can_continue
    citation = Citation(1, "/docs/a.pdf", 3, "Intro", 7, True, "text")
    done = store.finish_message(
        answer.id, text="half an answer [1]", finish_reason="stop", citations=(citation,), model="tiny",
        settings={"temperature": 0.0}, prompt_tokens=12, completion_tokens=5, timings={"total_time_s": 0.5},
    )
    assert done.finished and done.finish_reason == "stop" and not done.can_continue
    assert done.citations == (citation,)
    assert (done.model, done.prompt_tokens, done.completion_tokens) == ("tiny", 12, 5)
    assert done.settings == {"temperature": 0.0} and done.timings == {"total_time_s": 0.5}
    assert store.search("answer")[0].message_id == answer.id


def test_delete_conversation_cascades_to_messages_and_search(store: ConversationStore) -> None:
    keep = store.create_conversation()
    store.add_message(keep.id, "user", "volcano question", None)
    gone = store.create_conversation()
    question = store.add_message(gone.id, "user", "volcano eruption", None)
    store.add_message(gone.id, "assistant", "lava", question.id)
    store.delete_conversation(gone.id)
    assert [m.conversation_id for m in store.search("volcano")] == [keep.id]
    connection = sqlite3.connect(store.path)
    try:
        assert connection.execute("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", (gone.id,)).fetchone() \
            == (0,)
        assert connection.execute("SELECT COUNT(*) FROM message_search").fetchone() == (1,)
    finally:
        connection.close()
    with pytest.raises(ConversationNotFoundError):
        store.delete_conversation(gone.id)


def test_delete_message_removes_its_subtree_and_moves_the_branch(store: ConversationStore) -> None:
    conversation = store.create_conversation()
    question = store.add_message(conversation.id, "user", "q", None)
    first = store.add_message(conversation.id, "assistant", "first", question.id)
    second = store.add_message(conversation.id, "assistant", "second", question.id)
    store.add_message(conversation.id, "user", "follow", second.id)
    updated = store.delete_message(second.id)
    assert [m.text for m in store.messages(conversation.id)] == ["q", "first"]
    assert updated.current_leaf_id == first.id


def test_threads_can_write_at_once(store: ConversationStore) -> None:
    conversation = store.create_conversation()
    errors: list[BaseException] = []

    def write(index: int) -> None:
        try:
            for step in range(20):
                store.add_message(conversation.id, "user", f"thread {index} step {step}", None, make_current=False)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert len(store.messages(conversation.id)) == 80


def test_migration_from_version_1_fills_the_search_index(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    connection = open_database(path, target_version=1)
    connection.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c', 't', 1, 1)")
    connection.execute(
        "INSERT INTO messages (id, conversation_id, role, text, created_at) VALUES ('m', 'c', 'user', '旧的消息', 1)"
    )
    assert schema_version(connection) == 1
    connection.close()
    with ConversationStore(path) as migrated:
        assert [m.message_id for m in migrated.search("消息")] == ["m"]
        assert migrated.conversation("c").title == "t"


def test_migration_from_version_2_remakes_the_search_terms_with_the_shared_segmenter(tmp_path: Path) -> None:
    """Version 2 read half-width katakana as one latin word; version 3 splits it like the knowledge base."""
    path = tmp_path / "v2.db"
    connection = open_database(path, target_version=2)
    connection.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c', 't', 1, 1)")
    connection.execute(
        "INSERT INTO messages (id, conversation_id, role, text, created_at) VALUES ('m', 'c', 'user', 'ｶﾀｶﾅ', 1)"
    )
    # the terms version 2 stored
    connection.execute("INSERT INTO message_search (rowid, terms) SELECT seq, 'ｶﾀｶﾅ' FROM messages")
    assert schema_version(connection) == 2
    connection.close()
    with ConversationStore(path) as migrated:
        assert [m.message_id for m in migrated.search("ﾀｶ")] == ["m"]
    with sqlite3.connect(path) as reopened:
        assert schema_version(reopened) == SCHEMA_VERSION == 3


def test_a_file_from_a_newer_version_or_a_damaged_file_is_refused_clearly(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    connection = sqlite3.connect(newer)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(ChatDatabaseError, match="newer UniDesk"):
        ConversationStore(newer)
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ChatDatabaseError, match="damaged or not a database"):
        ConversationStore(damaged)
