"""Prompt assembly within a context budget (word-count tokenizer; the real one is in integration tests)."""

from __future__ import annotations

import pytest

from app.core.chat.errors import QuestionTooLongError
from app.core.chat.prompt import (
    PromptMessage,
    answer_reserve,
    assemble_prompt,
    history_messages,
    plain_render,
    sources_block,
)
from app.core.chat.records import Message, Passage


def words(text: str) -> int:
    return len(text.split())


PASSAGES = tuple(
    Passage(text=" ".join([f"fact{rank}"] * 20), path=f"/docs/file{rank}.pdf", page=rank, heading=f"Part {rank}",
            document_id=rank)
    for rank in range(1, 5)
)
HISTORY = tuple(
    PromptMessage("user" if index % 2 == 0 else "assistant", f"turn{index} " + "word " * 9)
    for index in range(8)
)  # 10 words each, plus 1 for the role tag when rendered


def assemble(context: int, reserve: int = 10, **changes: object) -> object:
    arguments: dict[str, object] = {
        "system_prompt": "You are helpful.", "history": HISTORY, "question": "What is fact1?",
        "passages": PASSAGES, "context_length": context, "reserve_for_answer": reserve, "count_tokens": words,
    }
    arguments.update(changes)
    return assemble_prompt(**arguments)  # type: ignore[arg-type]


def test_everything_fits_in_a_large_context_and_the_parts_add_up() -> None:
    result = assemble(1000)
    roles = [message.role for message in result.messages]
    assert roles == ["system", *(message.role for message in HISTORY), "user"]
    last = result.messages[-1].content
    assert last.startswith("Sources:\n[1] file1.pdf, p. 1, Part 1\nfact1")
    assert "[4] file4.pdf, p. 4, Part 4" in last and last.endswith("Question: What is fact1?")
    budget = result.budget
    assert budget.prompt == words(plain_render(result.messages))
    assert budget.system + budget.sources + budget.history + budget.question + budget.reserved_for_answer \
        + budget.free == budget.context == 1000
    assert budget.sources == words(sources_block(PASSAGES))
    assert budget.history == sum(words(message.content) + 1 for message in HISTORY)
    assert (result.dropped_passages, result.history_dropped, result.notes) == (0, 0, ())
    assert result.answer_token_limit == 1000 - budget.prompt


def test_small_context_trims_history_oldest_first_keeping_system_and_question() -> None:
    full = assemble(1000)
    context = full.budget.prompt + 10 - 25  # 25 tokens short: drop the 2 oldest turns (11 tokens each) and more
    result = assemble(context)
    assert result.messages[0].content == "You are helpful."
    assert result.messages[-1].content.endswith("Question: What is fact1?")
    kept = result.messages[1:-1]
    assert kept == HISTORY[-len(kept):] and kept[0].role == "user"
    assert result.history_dropped == len(HISTORY) - len(kept) == 4  # 3 would fit, but not start with a reply
    assert result.passages == PASSAGES
    assert result.budget.prompt + result.budget.reserved_for_answer <= context
    assert result.notes == ("4 earlier messages were left out to fit the context.",)


def test_sources_that_do_not_fit_are_dropped_whole_from_the_lowest_rank() -> None:
    without_sources = assemble(1000, passages=(), history=())
    one_passage = words(sources_block(PASSAGES[:2])) + without_sources.budget.prompt + 10
    result = assemble(one_passage + 5, history=())
    assert result.passages == PASSAGES[:2]
    assert result.dropped_passages == 2
    assert result.notes == ("2 of 4 sources did not fit in the context and were left out.",)
    assert "[3]" not in result.messages[-1].content
    assert result.budget.free >= 0


def test_sources_win_over_old_history() -> None:
    result = assemble(assemble(1000, history=()).budget.prompt + 10 + 12)
    assert result.passages == PASSAGES
    assert result.history_kept == 0 and result.history_dropped == len(HISTORY)


def test_a_question_that_cannot_fit_is_an_error_with_numbers() -> None:
    question = "long " * 300
    with pytest.raises(QuestionTooLongError) as caught:
        assemble(256, reserve=64, question=question)
    error = caught.value
    assert "holds 256 tokens" in error.message and "64 more are kept for the answer" in error.message
    needed = words(plain_render([PromptMessage("system", "You are helpful."), PromptMessage("user", question)]))
    assert f"takes {needed} tokens" in error.message
    assert (error.needed_tokens, error.context_tokens) == (needed + 64, 256)


def test_the_prompt_prefix_stays_the_same_from_one_turn_to_the_next() -> None:
    first = assemble(1000, history=HISTORY[:2], question="first question")
    second_history = (*HISTORY[:2], PromptMessage("user", "first question"), PromptMessage("assistant", "answer"))
    second = assemble(1000, history=second_history, question="second question")
    stable_part = plain_render(first.messages[:-1]).removesuffix("<|assistant|>\n")
    assert plain_render(second.messages).startswith(stable_part)
    assert second.messages[-2] == PromptMessage("assistant", "answer")
    assert second.messages[-3] == PromptMessage("user", "first question")  # no sources left in history


def test_no_system_prompt_and_no_sources() -> None:
    result = assemble(1000, system_prompt="  ", passages=(), history=())
    assert result.messages == (PromptMessage("user", "What is fact1?"),)
    assert result.budget.system == 0 and result.budget.sources == 0
    assert result.budget.question == words(plain_render(result.messages))


def test_answer_reserve_and_bad_reserve() -> None:
    assert answer_reserve(8192, 512) == 512
    assert answer_reserve(1024, 4096) == 512  # at most half the context
    assert answer_reserve(1000, 0) == 250  # no limit: a quarter
    with pytest.raises(ValueError):
        assemble(100, reserve=100)


def test_history_from_stored_messages_skips_empty_failed_answers() -> None:
    stored = [
        Message("1", "c", None, "user", "q", 0.0),
        Message("2", "c", "1", "assistant", "", 0.0, finished=True, finish_reason="error"),
        Message("3", "c", "2", "user", "q again", 0.0),
        Message("4", "c", "3", "assistant", "partial", 0.0, finished=False),
    ]
    assert history_messages(stored) == [
        PromptMessage("user", "q"), PromptMessage("user", "q again"), PromptMessage("assistant", "partial"),
    ]
