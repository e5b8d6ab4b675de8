"""Prompt assembly within the model's context budget, counted with the model's own tokenizer.

Layout, chosen so that prefix caches keep hitting::

    system prompt            (stable: identical in every turn of every conversation using it)
    history, oldest first    (stable: grows at the end only, until trimming starts)
    latest user turn         (changes every turn)
        Sources: [1] file, p. N, heading / passage text ... [k] ...
        Question: ...

Passages go into the latest user turn, right before the question, not into the system
prompt and not into history. Everything before that turn is then byte-identical to the
previous turn's prompt (minus its sources), so llama.cpp's per-conversation KV reuse and
vLLM's automatic prefix caching recompute only the new turn; passages in the system prompt
would change the very first tokens each turn and defeat both caches. Old turns are stored
without their passages, so history stays short and stable.

Nothing is cut silently: the question and the system prompt are never trimmed (if they do not
fit, :class:`QuestionTooLongError` says by how much); sources are dropped whole, lowest-ranked
first, and history whole messages, oldest first, and the result reports both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.core.chat.errors import QuestionTooLongError
from app.core.chat.records import Message, Passage, Role
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

SOURCES_HEADER = "Sources:"
QUESTION_HEADER = "Question:"
CONTINUE_INSTRUCTION = (
    "Continue your previous answer exactly where it stopped. Do not repeat what you already wrote."
)


class TokenCounter(Protocol):
    """How many tokens a text takes with the model's tokenizer."""

    def __call__(self, text: str) -> int: ...


@dataclass(frozen=True)
class PromptMessage:
    """One chat message of an assembled prompt (chat's own type; services convert it for engines)."""

    role: Role
    content: str


PromptRenderer = Callable[[Sequence[PromptMessage]], str]
"""The model's chat template: messages -> the prompt text the model reads (with the generation prompt)."""


def plain_render(messages: Sequence[PromptMessage]) -> str:
    """A simple template for when no model is at hand (tests, estimates)."""
    return "".join(f"<|{message.role}|>\n{message.content}\n" for message in messages) + "<|assistant|>\n"


@dataclass(frozen=True)
class ContextBudget:
    """Where the context goes, in tokens (for the context meter). The parts add up to ``context``."""

    context: int
    system: int
    sources: int
    history: int
    question: int
    reserved_for_answer: int

    @property
    def prompt(self) -> int:
        return self.system + self.sources + self.history + self.question

    @property
    def free(self) -> int:
        return self.context - self.prompt - self.reserved_for_answer

    def to_dict(self) -> dict[str, int]:
        return {
            "context": self.context, "system": self.system, "sources": self.sources, "history": self.history,
            "question": self.question, "reserved_for_answer": self.reserved_for_answer, "free": self.free,
            "prompt": self.prompt,
        }


@dataclass(frozen=True)
class AssembledPrompt:
    """The messages to send, the numbered sources they show, and what had to be left out."""

    messages: tuple[PromptMessage, ...]
    passages: tuple[Passage, ...]
    budget: ContextBudget
    dropped_passages: int = 0
    history_kept: int = 0
    history_dropped: int = 0

    @property
    def answer_token_limit(self) -> int:
        """The most tokens the answer can take: the reserve plus whatever is free."""
        return self.budget.context - self.budget.prompt

    @property
    def notes(self) -> tuple[str, ...]:
        notes = []
        if self.dropped_passages:
            total = len(self.passages) + self.dropped_passages
            notes.append(f"{self.dropped_passages} of {total} sources did not fit in the context and were left out.")
        if self.history_dropped:
            notes.append(f"{self.history_dropped} earlier messages were left out to fit the context.")
        return tuple(notes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget.to_dict(), "sources": len(self.passages),
            "dropped_sources": self.dropped_passages, "history_kept": self.history_kept,
            "history_dropped": self.history_dropped, "notes": list(self.notes),
        }


def enters_prompt(message: Message) -> bool:
    """Whether a stored message becomes a turn of the prompt history (user turns, and answers with text)."""
    return message.role != "system" and (bool(message.text.strip()) or message.role == "user")


def history_messages(messages: Sequence[Message]) -> list[PromptMessage]:
    """A stored branch as prompt history: user and assistant turns with text (failed empty answers skipped)."""
    return [PromptMessage(message.role, message.text) for message in messages if enters_prompt(message)]


def answer_reserve(context_length: int, max_answer_tokens: int) -> int:
    """Tokens kept free for the answer: the answer limit, at most half the context (0: a quarter)."""
    if max_answer_tokens <= 0:
        return max(1, context_length // 4)
    return max(1, min(max_answer_tokens, context_length // 2))


def sources_block(passages: Sequence[Passage]) -> str:
    """The numbered sources as the model sees them; empty without passages."""
    if not passages:
        return ""
    entries = [f"[{number}] {passage.label}\n{passage.text.strip()}" for number, passage in enumerate(passages, 1)]
    return SOURCES_HEADER + "\n" + "\n\n".join(entries) + "\n\n"


def user_turn(question: str, passages: Sequence[Passage]) -> str:
    """The latest user message: sources first, then the question (unchanged when there are no sources)."""
    if not passages:
        return question
    return sources_block(passages) + f"{QUESTION_HEADER} {question}"


class _Measure:
    """Token counts of candidate prompts, rendered with the model's template."""

    def __init__(self, count_tokens: TokenCounter, render: PromptRenderer, system: PromptMessage | None) -> None:
        self._count = count_tokens
        self._render = render
        self._system = system

    def messages(
        self, history: Sequence[PromptMessage], question: str, passages: Sequence[Passage]
    ) -> list[PromptMessage]:
        head = [self._system] if self._system is not None else []
        return [*head, *history, PromptMessage("user", user_turn(question, passages))]

    def total(self, messages: Sequence[PromptMessage]) -> int:
        return self._count(self._render(messages)) if messages else 0


def assemble_prompt(
    *,
    system_prompt: str,
    history: Sequence[PromptMessage],
    question: str,
    passages: Sequence[Passage],
    context_length: int,
    reserve_for_answer: int,
    count_tokens: TokenCounter,
    render: PromptRenderer = plain_render,
) -> AssembledPrompt:
    """Fit system prompt, sources (best first), history (newest first) and question into the context.

    Sources take precedence over old history: they answer the question being asked.
    """
    if not 0 < reserve_for_answer < context_length:
        raise ValueError(f"the answer reserve {reserve_for_answer} must be within the context {context_length}")
    system = PromptMessage("system", system_prompt) if system_prompt.strip() else None
    measure = _Measure(count_tokens, render, system)
    available = context_length - reserve_for_answer

    def fits(kept_history: Sequence[PromptMessage], kept_passages: Sequence[Passage]) -> bool:
        return measure.total(measure.messages(kept_history, question, kept_passages)) <= available

    if not fits((), ()):
        _raise_question_too_long(measure, question, context_length, reserve_for_answer)
    kept_passages = _longest_prefix(len(passages), lambda size: fits((), passages[:size]))
    chosen_passages = tuple(passages[:kept_passages])
    start = _first_kept_message(history, lambda first: fits(history[first:], chosen_passages))
    kept_history = tuple(history[start:])
    messages = tuple(measure.messages(kept_history, question, chosen_passages))
    budget = _breakdown(measure, count_tokens, kept_history, question, chosen_passages, context_length,
                        reserve_for_answer)
    return AssembledPrompt(
        messages=messages, passages=chosen_passages, budget=budget,
        dropped_passages=len(passages) - len(chosen_passages),
        history_kept=len(kept_history), history_dropped=len(history) - len(kept_history),
    )


def _longest_prefix(count: int, fits: Callable[[int], bool]) -> int:
    """The largest n <= count with fits(n) (fits(0) holds; longer prefixes only cost more)."""
    low, high = 0, count
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _first_kept_message(history: Sequence[PromptMessage], fits: Callable[[int], bool]) -> int:
    """Index of the oldest history message kept; the kept part starts with a user message."""
    start = len(history) - _longest_prefix(len(history), lambda size: fits(len(history) - size))
    while start < len(history) and history[start].role != "user":
        start += 1  # never open the history with a half turn (an answer without its question)
    return start


def _breakdown(
    measure: _Measure,
    count_tokens: TokenCounter,
    history: Sequence[PromptMessage],
    question: str,
    passages: Sequence[Passage],
    context_length: int,
    reserve: int,
) -> ContextBudget:
    """Split the exact prompt size into parts: each part is what adding it to the prompt costs."""
    full = measure.messages(history, question, passages)
    system_tokens = measure.total(full[:1]) if full[0].role == "system" else 0
    head = 1 if system_tokens else 0
    with_history = measure.total(full[: head + len(history)]) if history else system_tokens
    total = measure.total(full)
    last_turn = max(0, total - with_history)
    sources = min(last_turn, count_tokens(sources_block(passages))) if passages else 0
    return ContextBudget(
        context=context_length,
        system=system_tokens,
        sources=sources,
        history=max(0, with_history - system_tokens),
        question=last_turn - sources,
        reserved_for_answer=reserve,
    )


def _raise_question_too_long(measure: _Measure, question: str, context_length: int, reserve: int) -> None:
    needed = measure.total(measure.messages((), question, ()))
    raise QuestionTooLongError(
        Text("ChatErrors", QT_TRANSLATE_NOOP(
            "ChatErrors", "The question does not fit: with the system prompt it takes {0} tokens, and "
                          "{1} more are kept for the answer, but the model's context holds {2} tokens."),
             (needed, reserve, context_length)),
        Text("ChatErrors", QT_TRANSLATE_NOOP(
            "ChatErrors", "Shorten the question, or raise the context length in Settings and reload the model.")),
        needed_tokens=needed + reserve,
        context_tokens=context_length,
    )
