"""Export to JSON and Markdown, import from JSON: round trip through real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.chat.errors import ImportFormatError
from app.core.chat.export import export_json, export_markdown, import_json
from app.core.chat.records import Citation, KnowledgeScope
from app.core.chat.store import ConversationStore


def build_conversation(store: ConversationStore) -> str:
    preset = store.create_preset("Terse", "Answer in one sentence.")
    conversation = store.create_conversation(
        kb_scope=KnowledgeScope(document_ids=(4,), folders=("/docs",)), preset_id=preset.id, model="tiny"
    )
    question = store.add_message(conversation.id, "user", "蜜蜂怎么找到花？", None)
    store.add_message(conversation.id, "assistant", "By dancing [1].", question.id,
                      citations=(Citation(1, "/docs/bees.pdf", 2, "Communication", 4, True, "waggle"),),
                      model="tiny", settings={"temperature": 0.0}, prompt_tokens=40, completion_tokens=6,
                      timings={"total_time_s": 0.25}, finish_reason="stop")
    cut = store.add_message(conversation.id, "assistant", "They use the su", question.id, finished=False)
    store.set_pinned(conversation.id, True)
    store.select_branch(conversation.id, cut.id)
    return conversation.id


def test_json_round_trip_into_a_fresh_file_is_exact(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "a.db") as source:
        conversation_id = build_conversation(source)
        exported = export_json(source, conversation_id)
    text = json.dumps(exported, ensure_ascii=False)
    with ConversationStore(tmp_path / "b.db") as target:
        imported = import_json(target, json.loads(text))
        assert imported.id == conversation_id
        again = export_json(target, imported.id)
        assert again == exported
        assert target.preset(imported.preset_id or "").text == "Answer in one sentence."
        assert [m.text for m in target.branch(imported.id)] == ["蜜蜂怎么找到花？", "They use the su"]
        assert target.search("蜜蜂")[0].conversation_id == imported.id


def test_importing_twice_gives_new_ids_and_keeps_the_tree(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "a.db") as store:
        conversation_id = build_conversation(store)
        exported = export_json(store, conversation_id)
        copy = import_json(store, exported)
        assert copy.id != conversation_id
        original_ids = {m.id for m in store.messages(conversation_id)}
        copied = store.messages(copy.id)
        assert original_ids.isdisjoint({m.id for m in copied})
        assert [m.text for m in copied] == [m.text for m in store.messages(conversation_id)]
        assert [m.text for m in store.branch(copy.id)] == ["蜜蜂怎么找到花？", "They use the su"]
        assert len(store.conversations()) == 2


def test_markdown_shows_the_branch_on_show_with_sources(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "a.db") as store:
        conversation_id = build_conversation(store)
        store.select_branch(conversation_id, store.children(conversation_id, None)[0].id)
        store.rename(conversation_id, "Bees")
        first_answer = store.children(conversation_id, store.children(conversation_id, None)[0].id)[0]
        store.select_branch(conversation_id, first_answer.id)
        markdown = export_markdown(store, conversation_id)
    assert markdown.startswith("# Bees\n")
    assert "## You\n\n蜜蜂怎么找到花？" in markdown
    assert "## Assistant (tiny)\n\nBy dancing [1]." in markdown
    assert "1. bees.pdf, p. 2, Communication" in markdown
    assert "They use the su" not in markdown  # the other branch


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "JSON object"),
        ({"format": "something-else"}, "format"),
        ({"format": "unidesk-conversation", "version": 99}, "newer"),
        ({"format": "unidesk-conversation", "version": 1, "conversation": {"id": "c"}, "messages": [
            {"id": "m2", "parent_id": "m1", "role": "user", "text": "x"}]}, "later or is missing"),
        ({"format": "unidesk-conversation", "version": 1, "conversation": {"id": "c"}, "messages": [
            {"id": "m1", "role": "robot", "text": "x"}]}, "damaged message"),
    ],
)
def test_bad_imports_are_refused_and_nothing_is_written(tmp_path: Path, document: object, message: str) -> None:
    with ConversationStore(tmp_path / "a.db") as store:
        with pytest.raises(ImportFormatError, match=message):
            import_json(store, document)
        assert store.conversations() == []
