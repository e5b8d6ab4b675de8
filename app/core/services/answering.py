"""Answers grounded in the knowledge base: retrieval, prompt budget with the model's tokenizer, request."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.core.chat.prompt import (
    AssembledPrompt,
    PromptMessage,
    answer_reserve,
    assemble_prompt,
)
from app.core.chat.records import KnowledgeScope, Passage
from app.core.config import Settings
from app.core.engines.base import NoModelLoadedError
from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams
from app.core.kb.document_filter import DocumentFilter

if TYPE_CHECKING:
    from app.core.kb.knowledge_base import KnowledgeBase
    from app.core.kb.retrieval import SearchHit

FALLBACK_CONTEXT_LENGTH = 4096  # when a remote server does not say how long its context is


@dataclass(frozen=True)
class Retrieval:
    """Passages found for a question (best first), how long the search took, and why it found little."""

    passages: tuple[Passage, ...]
    seconds: float
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PreparedAnswer:
    """Everything decided before generation: the request, its prompt budget and its sources."""

    request: ChatRequest
    assembled: AssembledPrompt
    retrieval: Retrieval
    model: str
    settings_used: dict[str, Any]


def document_filter(scope: KnowledgeScope) -> DocumentFilter | None:
    """The knowledge-base search filter for a conversation's scope (None: every document)."""
    return None if scope.everything else DocumentFilter(scope.document_ids, scope.folders)


def passages_from_hits(hits: Sequence[SearchHit], scope: KnowledgeScope, limit: int) -> tuple[Passage, ...]:
    """The best ``limit`` hits the scope allows, as chat passages (rank order kept; the search itself is
    already limited to the scope, so this only guards against a document moved in the meantime)."""
    allowed = [hit for hit in hits if scope.allows(hit.document_id, hit.path)]
    return tuple(
        Passage(text=hit.text, path=hit.path, page=hit.page, heading=hit.heading, document_id=hit.document_id)
        for hit in allowed[:limit]
    )


def engine_messages(messages: Sequence[PromptMessage]) -> tuple[ChatMessage, ...]:
    return tuple(ChatMessage(message.role, message.content) for message in messages)


class Answerer:
    """Turns a question (with history and a system prompt) into an engine request that fits the context.

    Token counts come from the loaded model's own tokenizer and chat template, through the
    engine manager; retrieval from the knowledge base (None: answers without sources).
    """

    def __init__(
        self,
        manager: EngineManager,
        knowledge_base: KnowledgeBase | None,
        settings: Callable[[], Settings],
    ) -> None:
        self.manager = manager
        self.knowledge_base = knowledge_base
        self._settings = settings

    # ---- model facts -----------------------------------------------------------------------
    def context_length(self) -> int:
        loaded = self.manager.status().loaded
        if loaded is None:
            raise NoModelLoadedError()
        length = loaded.config.context_length
        return length if length > 0 else FALLBACK_CONTEXT_LENGTH

    def model_name(self) -> str:
        loaded = self.manager.status().loaded
        if loaded is None:
            raise NoModelLoadedError()
        return loaded.model_name

    def count_tokens(self, text: str) -> int:
        return self.manager.count_tokens(text)

    def render(self, messages: Sequence[PromptMessage]) -> str:
        engine = self.manager.engine
        if engine is None:
            raise NoModelLoadedError()
        return engine.render_prompt(engine_messages(messages))

    # ---- steps -----------------------------------------------------------------------------
    def retrieve(self, question: str, scope: KnowledgeScope, top_k: int | None = None) -> Retrieval:
        """Search the knowledge base for ``question`` among the documents the scope allows."""
        started = time.perf_counter()
        if self.knowledge_base is None:
            return Retrieval((), 0.0, ("The knowledge base is not available.",))
        wanted = top_k if top_k is not None else self._settings().int_value("kb.top_k")
        result = self.knowledge_base.search(question, k=wanted, documents=document_filter(scope))
        passages = passages_from_hits(result.hits, scope, wanted)
        notes = list(result.notes)
        if not passages:
            notes.append("No passage in the knowledge base matched the question.")
        return Retrieval(passages, time.perf_counter() - started, tuple(notes))

    def assemble(
        self,
        system_prompt: str,
        history: Sequence[PromptMessage],
        question: str,
        passages: Sequence[Passage],
        *,
        max_answer_tokens: int | None = None,
    ) -> AssembledPrompt:
        """Fit everything into the loaded model's context (see :func:`assemble_prompt`)."""
        context = self.context_length()
        limit = self._settings().int_value("sampling.max_answer_tokens") if max_answer_tokens is None \
            else max_answer_tokens
        return assemble_prompt(
            system_prompt=system_prompt, history=history, question=question, passages=passages,
            context_length=context, reserve_for_answer=answer_reserve(context, limit),
            count_tokens=self.count_tokens, render=self.render,
        )

    def sampling(self, assembled: AssembledPrompt, requested: SamplingParams | None = None) -> SamplingParams:
        """Sampling from settings (or ``requested``), with the answer limited to the room left."""
        room = max(1, assembled.answer_token_limit - 1)  # one token of slack for a BOS the template omits
        if requested is not None:
            return dataclasses.replace(requested, max_tokens=min(requested.max_tokens, room))
        settings = self._settings()
        limit = settings.int_value("sampling.max_answer_tokens")
        return SamplingParams(
            temperature=settings.float_value("sampling.temperature"),
            top_p=settings.float_value("sampling.top_p"),
            max_tokens=min(limit, room) if limit > 0 else room,
        )

    def prepare(
        self,
        *,
        system_prompt: str,
        history: Sequence[PromptMessage],
        question: str,
        retrieval_question: str | None = None,
        use_knowledge_base: bool,
        scope: KnowledgeScope | None = None,
        sampling: SamplingParams | None = None,
        conversation_id: str | None = None,
    ) -> PreparedAnswer:
        """Retrieve (if asked), assemble within the budget, and build the engine request."""
        retrieval = (
            self.retrieve(retrieval_question or question, scope or KnowledgeScope())
            if use_knowledge_base else Retrieval((), 0.0)
        )
        max_answer = sampling.max_tokens if sampling is not None else None
        assembled = self.assemble(system_prompt, history, question, retrieval.passages, max_answer_tokens=max_answer)
        chosen = self.sampling(assembled, sampling)
        request = ChatRequest(
            messages=engine_messages(assembled.messages), sampling=chosen, conversation_id=conversation_id
        )
        settings_used: dict[str, Any] = {
            "temperature": chosen.temperature, "top_p": chosen.top_p, "max_tokens": chosen.max_tokens,
            "seed": chosen.seed, "knowledge_base": use_knowledge_base, "sources": len(assembled.passages),
            "dropped_sources": assembled.dropped_passages, "history_dropped": assembled.history_dropped,
            "budget": assembled.budget.to_dict(),
        }
        return PreparedAnswer(request, assembled, retrieval, self.model_name(), settings_used)
