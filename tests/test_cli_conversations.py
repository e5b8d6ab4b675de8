"""``unidesk conversations list|export|import``, run as a user runs it: a real process over a real home."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.chat.store import ConversationStore
from app.core.config.paths import AppPaths
from tests.test_cli import assert_one_line_error, unidesk

QUESTION = "海底电缆有多长？"
ANSWER = "电缆长 **42 公里**。"


def _home_with_a_conversation(home: Path) -> str:
    with ConversationStore.open(AppPaths.resolve(str(home)).ensure().data_dir) as store:
        conversation = store.create_conversation("海底电缆")
        question = store.add_message(conversation.id, "user", QUESTION, None)
        store.add_message(conversation.id, "assistant", ANSWER, question.id, finish_reason="stop", model="tiny")
        return conversation.id


def test_list_export_markdown_and_json_then_import_into_another_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    conversation_id = _home_with_a_conversation(home)

    listed = unidesk(home, "conversations", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(item["id"], item["title"]) for item in json.loads(listed.stdout)] == [(conversation_id, "海底电缆")]

    markdown = unidesk(home, "conversations", "export", conversation_id)
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith("# 海底电缆") and QUESTION in markdown.stdout and ANSWER in markdown.stdout

    exported = tmp_path / "cable.json"
    written = unidesk(home, "conversations", "export", conversation_id, "--format", "json", "-o", str(exported))
    assert written.returncode == 0, written.stderr
    assert json.loads(exported.read_text(encoding="utf-8"))["conversation"]["id"] == conversation_id

    other = tmp_path / "other"
    imported = unidesk(other, "conversations", "import", str(exported), "--json")
    assert imported.returncode == 0, imported.stderr
    outcome = json.loads(imported.stdout)
    assert outcome == {"id": conversation_id, "title": "海底电缆", "messages": 2}
    with ConversationStore.open(AppPaths.resolve(str(other)).data_dir) as store:
        assert [(message.role, message.text) for message in store.branch(conversation_id)] == [
            ("user", QUESTION), ("assistant", ANSWER)]

    again = unidesk(other, "conversations", "import", str(exported))  # the same file twice: a copy, new ids
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("imported ") and conversation_id not in again.stdout
    with ConversationStore.open(AppPaths.resolve(str(other)).data_dir) as store:
        assert len(store.conversations()) == 2


def test_bad_input_gets_one_clear_line_and_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    conversation_id = _home_with_a_conversation(home)
    not_json = tmp_path / "notes.json"
    not_json.write_text("just some notes", encoding="utf-8")

    refused = unidesk(home, "conversations", "import", str(not_json))
    assert_one_line_error(refused, "not a UniDesk conversation export")
    missing = unidesk(home, "conversations", "import", str(tmp_path / "nowhere.json"))
    assert_one_line_error(missing, "could not be read")
    unknown = unidesk(home, "conversations", "export", "no-such-id")
    assert_one_line_error(unknown, "no-such-id")
    listed = unidesk(home, "conversations", "list", "--json")
    assert [item["id"] for item in json.loads(listed.stdout)] == [conversation_id]
