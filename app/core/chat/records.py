"""Plain records of the chat layer: conversations, messages, presets, passages and citations."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

Role = Literal["system", "user", "assistant"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant")
FinishReason = Literal["stop", "length", "cancelled", "error"]
DEFAULT_PRESET_ID = "default"


@dataclass(frozen=True)
class KnowledgeScope:
    """Which knowledge-base documents a conversation may draw on.

    Both tuples empty means every document. Otherwise a document is allowed when its id is in
    ``document_ids`` or its path lies under one of ``folders`` (the folders added to the
    knowledge base act as document sets).
    """

    document_ids: tuple[int, ...] = ()
    folders: tuple[str, ...] = ()

    @property
    def everything(self) -> bool:
        return not self.document_ids and not self.folders

    def allows(self, document_id: int | None, path: str) -> bool:
        if self.everything:
            return True
        if document_id is not None and document_id in self.document_ids:
            return True
        return any(path == folder or path.startswith(folder.rstrip("/\\") + os.sep) for folder in self.folders)

    def to_dict(self) -> dict[str, Any]:
        return {"document_ids": list(self.document_ids), "folders": list(self.folders)}

    @classmethod
    def from_dict(cls, data: Any) -> KnowledgeScope:
        if not isinstance(data, dict):
            return cls()
        return cls(
            tuple(int(value) for value in data.get("document_ids") or ()),
            tuple(str(value) for value in data.get("folders") or ()),
        )


@dataclass(frozen=True)
class Conversation:
    """One conversation; its messages form a tree and ``current_leaf_id`` marks the branch shown."""

    id: str
    title: str
    created_at: float
    updated_at: float
    pinned: bool = False
    kb_enabled: bool = True
    kb_scope: KnowledgeScope = field(default_factory=KnowledgeScope)
    preset_id: str | None = None
    model: str | None = None
    current_leaf_id: str | None = None


def source_label(path: str, page: int | None, heading: str) -> str:
    """How a source is named to the model and the user: "file, p. N, heading" (a Text: the window translates
    "p." and the commas; the model's prompt gets the English)."""
    label = os.path.basename(path) or path
    if page is not None:
        label = Text("Citations", QT_TRANSLATE_NOOP("Citations", "{0}, p. {1}"), (label, page))
    if heading.strip():
        label = Text("Citations", QT_TRANSLATE_NOOP("Citations", "{0}, {1}"), (label, heading.strip()))
    return label


@dataclass(frozen=True)
class Passage:
    """A piece of a document given to the model as a source (chat's own view of a search hit)."""

    text: str
    path: str
    page: int | None = None
    heading: str = ""
    document_id: int | None = None

    @property
    def label(self) -> str:
        return source_label(self.path, self.page, self.heading)


@dataclass(frozen=True)
class Citation:
    """Source ``number`` ([n] in the prompt) of an answer; ``cited`` if the answer mentions it."""

    number: int
    path: str
    page: int | None
    heading: str
    document_id: int | None
    cited: bool
    excerpt: str = ""

    @property
    def label(self) -> str:
        return source_label(self.path, self.page, self.heading)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number, "path": self.path, "page": self.page, "heading": self.heading,
            "document_id": self.document_id, "cited": self.cited, "excerpt": self.excerpt, "label": self.label,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Citation:
        page = data.get("page")
        document_id = data.get("document_id")
        return cls(
            number=int(data["number"]),
            path=str(data.get("path", "")),
            page=int(page) if page is not None else None,
            heading=str(data.get("heading", "")),
            document_id=int(document_id) if document_id is not None else None,
            cited=bool(data.get("cited", False)),
            excerpt=str(data.get("excerpt", "")),
        )


@dataclass(frozen=True)
class Message:
    """One message. Assistant messages carry what produced them (model, settings, counts, timings).

    ``finished`` stays False while the answer streams; one left False after a restart was cut
    off by a crash. ``finish_reason`` says how a finished answer ended.
    """

    id: str
    conversation_id: str
    parent_id: str | None
    role: Role
    text: str
    created_at: float
    citations: tuple[Citation, ...] = ()
    model: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    timings: dict[str, Any] = field(default_factory=dict)
    finished: bool = True
    finish_reason: FinishReason | None = None

    @property
    def can_continue(self) -> bool:
        """An assistant answer that did not end by itself (cut, stopped, crashed) can be continued."""
        return self.role == "assistant" and self.finish_reason != "stop"


@dataclass(frozen=True)
class SystemPreset:
    """A named system prompt the user can pick per conversation."""

    id: str
    name: str
    text: str
    builtin: bool
    created_at: float


@dataclass(frozen=True)
class SearchMatch:
    """A message that matched a full-text search, with a snippet around the match."""

    conversation_id: str
    conversation_title: str
    message_id: str
    role: Role
    snippet: str
    created_at: float
