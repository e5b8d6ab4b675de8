"""Export and import of one conversation (Markdown or JSON out, JSON back in)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from app.core.chat.errors import ChatError, ConversationNotFoundError, ImportFormatError
from app.core.chat.records import Citation, Conversation, KnowledgeScope, Message
from app.core.chat.rows import check_finish_reason, check_role
from app.core.chat.store import ConversationStore, new_id
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

EXPORT_FORMAT = "unidesk-conversation"
EXPORT_VERSION = 1
_ROLE_HEADINGS = {"user": "You", "assistant": "Assistant", "system": "System"}
ExportFormat = Literal["markdown", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("markdown", "json")
EXPORT_SUFFIXES: dict[ExportFormat, str] = {"markdown": ".md", "json": ".json"}


def export_text(store: ConversationStore, conversation_id: str, export_format: ExportFormat) -> str:
    """The conversation as Markdown (the branch on show) or as JSON (everything, for import)."""
    if export_format == "markdown":
        return export_markdown(store, conversation_id)
    return json.dumps(export_json(store, conversation_id), ensure_ascii=False, indent=2) + "\n"


def export_to_file(store: ConversationStore, conversation_id: str, path: Path, export_format: ExportFormat) -> Path:
    """Write the export to ``path`` whole or not at all (a temporary file beside it is renamed); returns ``path``."""
    text = export_text(store, conversation_id, export_format)
    temporary = path.with_name(f".{path.name}.part")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "The conversation could not be written to {0}: {1}."),
                              str(path), str(error.strerror or error)),
                        _said(QT_TRANSLATE_NOOP("ChatErrors", "Choose another folder or file name."))) from error
    return path


def import_from_file(store: ConversationStore, path: Path) -> Conversation:
    """Add the conversation exported as JSON in ``path``; a file that is not one changes nothing."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "{0} could not be read: {1}."), str(path),
                              str(error.strerror or error)),
                        _said(QT_TRANSLATE_NOOP("ChatErrors", "Check the file and try again."))) from error
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        not_json = _said(QT_TRANSLATE_NOOP("ChatErrors", "{0} is not a UniDesk conversation export: it is not JSON "
                                                         "text ({1})."), path.name, str(error))
        raise ImportFormatError(not_json, _NOT_AN_EXPORT) from error
    return import_json(store, document)


def export_json(store: ConversationStore, conversation_id: str) -> dict[str, Any]:
    """Everything about a conversation (all branches, its preset) as a JSON-ready document."""
    conversation = store.conversation(conversation_id)
    preset: dict[str, Any] | None = None
    if conversation.preset_id is not None:
        chosen = store.preset(conversation.preset_id)
        preset = {"id": chosen.id, "name": chosen.name, "text": chosen.text}
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "conversation": {
            "id": conversation.id, "title": conversation.title, "created_at": conversation.created_at,
            "updated_at": conversation.updated_at, "pinned": conversation.pinned,
            "kb_enabled": conversation.kb_enabled, "kb_scope": conversation.kb_scope.to_dict(),
            "preset": preset, "model": conversation.model, "current_leaf_id": conversation.current_leaf_id,
        },
        "messages": [_message_document(message) for message in store.messages(conversation_id)],
    }


def _message_document(message: Message) -> dict[str, Any]:
    return {
        "id": message.id, "parent_id": message.parent_id, "role": message.role, "text": message.text,
        "citations": [citation.to_dict() for citation in message.citations], "model": message.model,
        "settings": message.settings, "prompt_tokens": message.prompt_tokens,
        "completion_tokens": message.completion_tokens, "timings": message.timings,
        "finished": message.finished, "finish_reason": message.finish_reason, "created_at": message.created_at,
    }


def export_markdown(store: ConversationStore, conversation_id: str) -> str:
    """The branch on show as Markdown: a heading per message, sources listed under answers."""
    conversation = store.conversation(conversation_id)
    exported = time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.updated_at))
    lines = [f"# {conversation.title or 'Untitled conversation'}", "", f"*UniDesk conversation, {exported}*", ""]
    for message in store.branch(conversation_id):
        heading = _ROLE_HEADINGS[message.role]
        if message.role == "assistant" and message.model:
            heading += f" ({message.model})"
        lines += [f"## {heading}", "", message.text.rstrip() or "*(empty)*", ""]
        if not message.finished:
            lines += ["*(this answer was interrupted)*", ""]
        if message.citations:
            lines.append("Sources:")
            lines += [f"{citation.number}. {citation.label}" for citation in message.citations]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def import_json(store: ConversationStore, document: Any) -> Conversation:
    """Add an exported conversation. Ids already taken (e.g. the same file imported twice) are renewed."""
    conversation, messages, preset = _parse(document)
    if preset is not None and conversation.preset_id is not None:
        try:
            store.preset(conversation.preset_id)
        except ConversationNotFoundError:
            store.create_preset(preset["name"], preset["text"], preset_id=conversation.preset_id)
    taken = store.has_conversation(conversation.id) or any(store.has_message(message.id) for message in messages)
    if taken:
        conversation, messages = _renew_ids(conversation, messages)
    return store.insert_copy(conversation, messages)


def _renew_ids(conversation: Conversation, messages: list[Message]) -> tuple[Conversation, list[Message]]:
    renamed = {message.id: new_id() for message in messages}
    conversation_id = new_id()
    leaf = renamed.get(conversation.current_leaf_id or "")
    return (
        replace(conversation, id=conversation_id, current_leaf_id=leaf),
        [
            replace(message, id=renamed[message.id], conversation_id=conversation_id,
                    parent_id=renamed[message.parent_id] if message.parent_id is not None else None)
            for message in messages
        ],
    )


def _said(template: str, *args: object) -> Text:
    """Why a file is no conversation export, or its hint: ``QT_TRANSLATE_NOOP("ChatErrors", ...)``."""
    return Text("ChatErrors", template, args)


_NOT_AN_EXPORT = _said(QT_TRANSLATE_NOOP("ChatErrors", "Choose a .json file exported from UniDesk."))


def _require(condition: bool, what: str) -> None:
    if not condition:
        problem = _said(QT_TRANSLATE_NOOP("ChatErrors", "This is not a UniDesk conversation export: {0}."), what)
        raise ImportFormatError(problem, _NOT_AN_EXPORT)


def _parse(document: Any) -> tuple[Conversation, list[Message], dict[str, str] | None]:
    _require(isinstance(document, dict), _said(QT_TRANSLATE_NOOP("ChatErrors", "the file does not hold a JSON object")))
    _require(document.get("format") == EXPORT_FORMAT,
             _said(QT_TRANSLATE_NOOP("ChatErrors", "its format field is missing or different")))
    _require(isinstance(document.get("version"), int) and document["version"] <= EXPORT_VERSION,
             _said(QT_TRANSLATE_NOOP("ChatErrors", "it comes from a newer UniDesk")))
    head = document.get("conversation")
    _require(isinstance(head, dict) and isinstance(head.get("id"), str),
             _said(QT_TRANSLATE_NOOP("ChatErrors", "it has no conversation")))
    raw_messages = document.get("messages")
    _require(isinstance(raw_messages, list), _said(QT_TRANSLATE_NOOP("ChatErrors", "it has no message list")))
    preset = head.get("preset")
    preset_fields = None
    if isinstance(preset, dict) and isinstance(preset.get("id"), str):
        preset_fields = {"name": str(preset.get("name") or "Imported"), "text": str(preset.get("text") or "")}
    conversation = Conversation(
        id=head["id"], title=str(head.get("title") or ""), created_at=float(head.get("created_at") or 0.0),
        updated_at=float(head.get("updated_at") or 0.0), pinned=bool(head.get("pinned")),
        kb_enabled=bool(head.get("kb_enabled", True)), kb_scope=KnowledgeScope.from_dict(head.get("kb_scope")),
        preset_id=preset["id"] if preset_fields is not None and isinstance(preset, dict) else None,
        model=head.get("model"), current_leaf_id=head.get("current_leaf_id"),
    )
    messages: list[Message] = []
    seen: set[str] = set()
    for item in raw_messages:
        try:
            message = _parse_message(item, conversation.id)
        except (KeyError, TypeError, ValueError) as error:
            damaged = _said(QT_TRANSLATE_NOOP("ChatErrors", "This conversation export has a damaged message ({0})."),
                            str(error))
            raise ImportFormatError(damaged, _said(QT_TRANSLATE_NOOP("ChatErrors", "Export the conversation again."))) \
                from error
        _require(message.id not in seen,
                 _said(QT_TRANSLATE_NOOP("ChatErrors", "message {0} appears twice"), message.id))
        _require(message.parent_id is None or message.parent_id in seen,
                 _said(QT_TRANSLATE_NOOP("ChatErrors", "message {0} answers a message that comes later or is missing"),
                       message.id))
        seen.add(message.id)
        messages.append(message)
    if conversation.current_leaf_id not in seen:
        conversation = replace(conversation, current_leaf_id=messages[-1].id if messages else None)
    return conversation, messages, preset_fields


def _parse_message(item: Any, conversation_id: str) -> Message:
    if not isinstance(item, dict):
        raise TypeError("a message is not an object")
    citations = item.get("citations") or []
    if not isinstance(citations, list):
        raise TypeError("citations are not a list")
    settings, timings = item.get("settings") or {}, item.get("timings") or {}
    if not isinstance(settings, dict) or not isinstance(timings, dict):
        raise TypeError("settings or timings are not objects")
    return Message(
        id=str(item["id"]),
        conversation_id=conversation_id,
        parent_id=str(item["parent_id"]) if item.get("parent_id") is not None else None,
        role=check_role(str(item["role"])),
        text=str(item.get("text") or ""),
        created_at=float(item.get("created_at") or 0.0),
        citations=tuple(Citation.from_dict(citation) for citation in citations),
        model=item.get("model"),
        settings=settings,
        prompt_tokens=_optional_int(item.get("prompt_tokens")),
        completion_tokens=_optional_int(item.get("completion_tokens")),
        timings=timings,
        finished=bool(item.get("finished", True)),
        finish_reason=check_finish_reason(item.get("finish_reason")),
    )


def _optional_int(value: Any) -> int | None:
    return int(value) if value is not None else None
