"""System prompt presets in the conversations file: the built-in default plus the user's own."""

from __future__ import annotations

import sqlite3

from app.core.chat.database import DEFAULT_SYSTEM_PROMPT
from app.core.chat.errors import ChatError, ConversationNotFoundError
from app.core.chat.records import DEFAULT_PRESET_ID, SystemPreset
from app.core.chat.rows import preset_from_row
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

_COLUMNS = "id, name, text, builtin, created_at"


def all_presets(connection: sqlite3.Connection) -> list[SystemPreset]:
    """Built-in presets first, then the user's in the order they were made."""
    rows = connection.execute(f"SELECT {_COLUMNS} FROM presets ORDER BY builtin DESC, created_at, id").fetchall()
    return [preset_from_row(row) for row in rows]


def get_preset(connection: sqlite3.Connection, preset_id: str) -> SystemPreset:
    row = connection.execute(f"SELECT {_COLUMNS} FROM presets WHERE id = ?", (preset_id,)).fetchone()
    if row is None:
        raise ConversationNotFoundError("system prompt preset", preset_id)
    return preset_from_row(row)


def _check_name(name: str) -> str:
    if not name.strip():
        raise ChatError(Text("ChatErrors", QT_TRANSLATE_NOOP("ChatErrors", "A system prompt preset needs a name.")),
                        Text("ChatErrors", QT_TRANSLATE_NOOP("ChatErrors", "Type a name for it.")))
    return name.strip()


def insert_preset(connection: sqlite3.Connection, preset_id: str, name: str, text: str, now: float) -> str:
    connection.execute(
        "INSERT INTO presets (id, name, text, builtin, created_at) VALUES (?, ?, ?, 0, ?)",
        (preset_id, _check_name(name), text, now),
    )
    return preset_id


def update_preset(connection: sqlite3.Connection, preset_id: str, name: str | None, text: str | None) -> None:
    get_preset(connection, preset_id)
    if name is not None:
        connection.execute("UPDATE presets SET name = ? WHERE id = ?", (_check_name(name), preset_id))
    if text is not None:
        connection.execute("UPDATE presets SET text = ? WHERE id = ?", (text, preset_id))


def delete_preset(connection: sqlite3.Connection, preset_id: str) -> None:
    if get_preset(connection, preset_id).builtin:
        raise ChatError(Text("ChatErrors", QT_TRANSLATE_NOOP(
            "ChatErrors", "Built-in system prompt presets cannot be deleted.")),
                        Text("ChatErrors", QT_TRANSLATE_NOOP("ChatErrors", "Edit its text instead.")))
    connection.execute("DELETE FROM presets WHERE id = ?", (preset_id,))


def system_prompt_for(connection: sqlite3.Connection, preset_id: str | None) -> str:
    """The text of ``preset_id``, falling back to the default preset (and its original text)."""
    for candidate in (preset_id, DEFAULT_PRESET_ID):
        if candidate is None:
            continue
        row = connection.execute("SELECT text FROM presets WHERE id = ?", (candidate,)).fetchone()
        if row is not None:
            return str(row[0])
    return DEFAULT_SYSTEM_PROMPT
