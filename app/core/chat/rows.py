"""Conversions between SQLite rows of the conversations file and the chat records."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from app.core.chat.records import (
    ROLES,
    Citation,
    Conversation,
    FinishReason,
    KnowledgeScope,
    Message,
    Role,
    SystemPreset,
)

FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "length", "cancelled", "error")

CONVERSATION_COLUMNS = (
    "id, title, created_at, updated_at, pinned, kb_enabled, kb_scope, preset_id, model, current_leaf_id"
)
MESSAGE_COLUMNS = (
    "id, conversation_id, parent_id, role, text, citations, model, settings, prompt_tokens, "
    "completion_tokens, timings, finished, finish_reason, created_at"
)


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _json_object(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except json.JSONDecodeError:
        return []
    return value if isinstance(value, list) else []


def conversation_from_row(row: sqlite3.Row) -> Conversation:
    return Conversation(
        id=str(row["id"]),
        title=str(row["title"]),
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        pinned=bool(row["pinned"]),
        kb_enabled=bool(row["kb_enabled"]),
        kb_scope=KnowledgeScope.from_dict(_json_object(row["kb_scope"])),
        preset_id=row["preset_id"],
        model=row["model"],
        current_leaf_id=row["current_leaf_id"],
    )


def check_role(role: str) -> Role:
    if role not in ROLES:
        raise ValueError(f"unknown message role {role!r}")
    return role


def check_finish_reason(reason: str | None) -> FinishReason | None:
    if reason is None:
        return None
    if reason not in FINISH_REASONS:
        raise ValueError(f"unknown finish reason {reason!r}")
    return reason


def citations_to_json(citations: Sequence[Citation]) -> str:
    return to_json([citation.to_dict() for citation in citations])


def message_from_row(row: sqlite3.Row) -> Message:
    return Message(
        id=str(row["id"]),
        conversation_id=str(row["conversation_id"]),
        parent_id=row["parent_id"],
        role=check_role(str(row["role"])),
        text=str(row["text"]),
        created_at=float(row["created_at"]),
        citations=tuple(Citation.from_dict(item) for item in _json_list(row["citations"]) if isinstance(item, dict)),
        model=row["model"],
        settings=_json_object(row["settings"]),
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        timings=_json_object(row["timings"]),
        finished=bool(row["finished"]),
        finish_reason=check_finish_reason(row["finish_reason"]),
    )


def preset_from_row(row: sqlite3.Row) -> SystemPreset:
    return SystemPreset(
        id=str(row["id"]), name=str(row["name"]), text=str(row["text"]), builtin=bool(row["builtin"]),
        created_at=float(row["created_at"]),
    )
