"""Answers from the knowledge base with the real llama.cpp engine, MiniLM, chromadb and SQLite.

The models are tiny and random (or scripted), so the answers' words mean nothing: the tests
check what the engine was given, the budget, the citation mapping and what was stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat.errors import ChatError, QuestionTooLongError
from app.core.chat.prompt import CONTINUE_INSTRUCTION
from app.core.chat.records import KnowledgeScope
from app.core.chat.store import ConversationStore
from app.core.config import Settings
from app.core.engines.base import NoModelLoadedError
from app.core.engines.manager import EngineManager
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.services.answering import Answerer
from app.core.services.chat_session import ChatSession
from tests.core.planner.fake_hardware import cpu_only
from tests.fixtures.gguf_models import SLOW_DECODE_SHAPE
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.fixtures.models import GgufFactory
from tests.integration.answering_support import (
    ENGINE_SETTINGS,
    GENERATION_PROMPT,
    Corpus,
    document_id,
    greedy,
    index_corpus,
    load_manager,
    wait_until,
    write_citing_model,
    write_corpus,
)

pytestmark = pytest.mark.integration
TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def corpus_and_kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Corpus, KnowledgeBase]]:
    root = tmp_path_factory.mktemp("answering")
    corpus = write_corpus(root / "docs")
    with open_knowledge_base(root / "kb", kb__chunk_tokens=64, kb__chunk_overlap_tokens=8) as knowledge_base:
        index_corpus(knowledge_base, corpus)
        yield corpus, knowledge_base


@pytest.fixture(scope="module")
def citing_manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EngineManager]:
    """llama.cpp with a model that always answers "[2]"."""
    manager = load_manager(write_citing_model(tmp_path_factory.mktemp("citing") / "cite.gguf"), 2048)
    yield manager
    manager.unload()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    with ConversationStore(tmp_path / "chat" / "conversations.db") as opened:
        yield opened


def session_for(store: ConversationStore, manager: EngineManager, knowledge_base: KnowledgeBase | None,
                **settings: object) -> ChatSession:
    chosen = Settings({key.replace("__", "."): value for key, value in settings.items()})
    return ChatSession(store, Answerer(manager, knowledge_base, lambda: chosen), save_interval_s=0.2)


def test_multi_turn_answers_cite_the_right_file_and_page(
    corpus_and_kb: tuple[Corpus, KnowledgeBase], citing_manager: EngineManager, store: ConversationStore
) -> None:
    corpus, knowledge_base = corpus_and_kb
    session = session_for(store, citing_manager, knowledge_base, kb__top_k=3)
    engine = citing_manager.engine
    assert engine is not None
    conversation = store.create_conversation()

    first = session.send(conversation.id, "Which project connects the two islands?", sampling=greedy(16))
    result = first.wait(TIMEOUT_S)
    assert first.prepared is not None
    passages = first.prepared.assembled.passages
    assert (Path(passages[0].path), passages[0].page) == (corpus.report.resolve(), 2)
    sent = first.prepared.request.messages
    assert [message.role for message in sent] == ["system", "user"]
    assert sent[-1].content.startswith("Sources:\n[1] report.pdf, p. 2\nThe submarine cable project")
    assert sent[-1].content.endswith("Question: Which project connects the two islands?")
    assert f"[2] {passages[1].label}\n" in sent[-1].content
    assert result.text == "[2]" and result.finish_reason == "stop"

    stored = store.message(first.message_id or "")
    assert stored.finished and stored.finish_reason == "stop" and stored.text == "[2]"
    assert [citation.number for citation in stored.citations] == [1, 2, 3]  # all sources listed
    assert [citation.cited for citation in stored.citations] == [False, True, False]
    cited = stored.citations[1]
    assert (cited.path, cited.page, cited.heading, cited.document_id) == (
        passages[1].path, passages[1].page, passages[1].heading, passages[1].document_id)
    assert stored.citations[0].page == 2 and Path(stored.citations[0].path) == corpus.report.resolve()
    assert stored.prompt_tokens and stored.completion_tokens == 4  # "[", "2", "]" and end-of-sequence
    assert stored.settings["budget"]["prompt"] == first.prepared.assembled.budget.prompt

    second = session.send(conversation.id, "How does a forager tell her sisters where the flowers are?",
                          sampling=greedy(16))
    second_result = second.wait(TIMEOUT_S)
    assert second.prepared is not None
    top = second.prepared.assembled.passages[0]
    assert Path(top.path) == corpus.bees.resolve() and top.heading == "Honeybee colonies > Communication"
    sent_again = second.prepared.request.messages
    assert [message.role for message in sent_again] == ["system", "user", "assistant", "user"]
    assert sent_again[1].content == "Which project connects the two islands?"  # old turns keep no sources
    assert sent_again[2].content == "[2]"
    # The prompt so far is the start of this turn's prompt: both engines' prefix caches can hit.
    earlier = engine.render_prompt(sent[:1])
    assert earlier.endswith(GENERATION_PROMPT)
    assert engine.render_prompt(sent_again).startswith(earlier.removesuffix(GENERATION_PROMPT))
    assert second_result.metrics.reused_prompt_tokens >= citing_manager.count_tokens(
        earlier.removesuffix(GENERATION_PROMPT))
    assert [citation.cited for citation in store.message(second.message_id or "").citations][1] is True

    store.set_knowledge(conversation.id, False)
    third = session.send(conversation.id, "Thanks!", sampling=greedy(16))
    third_result = third.wait(TIMEOUT_S)
    assert third.prepared is not None and third.prepared.assembled.passages == ()
    assert third.prepared.request.messages[-1].content == "Thanks!"
    assert third_result.citations == ()  # "[2]" with no sources cites nothing
    assert [message.role for message in store.branch(conversation.id)] == ["user", "assistant"] * 3


def test_a_conversation_limited_to_some_documents_only_gets_their_passages(
    corpus_and_kb: tuple[Corpus, KnowledgeBase], citing_manager: EngineManager, store: ConversationStore
) -> None:
    corpus, knowledge_base = corpus_and_kb
    session = session_for(store, citing_manager, knowledge_base, kb__top_k=3)
    bees = document_id(knowledge_base, corpus.bees)
    conversation = store.create_conversation(kb_scope=KnowledgeScope(document_ids=(bees,)))
    job = session.send(conversation.id, "Which project connects the two islands?", sampling=greedy(8))
    result = job.wait(TIMEOUT_S)
    assert result.citations and {citation.document_id for citation in result.citations} == {bees}
    folder_scope = KnowledgeScope(folders=(str(corpus.folder.resolve()),))
    store.set_knowledge(conversation.id, True, folder_scope)
    job = session.send(conversation.id, "大熊猫吃什么？", sampling=greedy(8))
    result = job.wait(TIMEOUT_S)
    assert Path(result.citations[0].path) == corpus.panda.resolve()


def test_small_context_trims_history_and_sources_and_the_budget_is_exact(
    corpus_and_kb: tuple[Corpus, KnowledgeBase], tiny_gguf: Path, store: ConversationStore
) -> None:
    _, knowledge_base = corpus_and_kb
    manager = load_manager(tiny_gguf, 512, parallel_chats=1)
    try:
        session = session_for(store, manager, knowledge_base, kb__top_k=8)
        conversation = store.create_conversation()
        parent = None
        for turn in range(6):
            question = store.add_message(conversation.id, "user", f"Question {turn}: " + "tell me more " * 15, parent)
            parent = store.add_message(conversation.id, "assistant", f"Answer {turn}: " + "it is so " * 15,
                                       question.id).id
        job = session.send(conversation.id, "What do worker bees do as they age?", sampling=greedy(64))
        result = job.wait(TIMEOUT_S)
        prepared = job.prepared
        assert prepared is not None
        assembled, budget = prepared.assembled, prepared.assembled.budget
        engine = manager.engine
        assert engine is not None
        assert budget.prompt == manager.count_tokens(engine.render_prompt(prepared.request.messages))
        assert budget.context == 512 and budget.reserved_for_answer == 64
        assert budget.prompt + budget.reserved_for_answer <= 512 and budget.free >= 0
        assert budget.system + budget.sources + budget.history + budget.question + budget.reserved_for_answer \
            + budget.free == 512
        assert assembled.dropped_passages > 0 and len(assembled.passages) >= 1
        assert assembled.passages == prepared.retrieval.passages[: len(assembled.passages)]  # best ones kept
        assert assembled.history_dropped > 0
        sent = prepared.request.messages
        stored_history = store.branch(conversation.id)[:-2]
        kept = [message.content for message in sent[1:-1]]
        assert kept == [message.text for message in stored_history[len(stored_history) - len(kept):]]
        assert not kept or sent[1].role == "user"
        assert sent[-1].content.endswith("Question: What do worker bees do as they age?")
        assert any("sources did not fit" in note for note in result.notes)
        assert any("earlier messages were left out" in note for note in result.notes)
        assert result.error is None and result.finish_reason in ("stop", "length")
        assert result.prepared is not None and result.prepared.request.sampling.max_tokens <= 512 - budget.prompt
        preview = session.preview(conversation.id, "And the queen?")  # the context meter while typing
        assert preview.budget.context == 512 and preview.budget.sources == 0 and preview.budget.question > 0
        assert preview.history_dropped > 0 and preview.budget.free >= 0
    finally:
        manager.unload()


def test_a_question_too_long_for_the_context_is_refused_with_numbers(
    tiny_gguf: Path, store: ConversationStore
) -> None:
    manager = load_manager(tiny_gguf, 512, parallel_chats=1)
    try:
        session = session_for(store, manager, None)
        conversation = store.create_conversation(kb_enabled=False)
        job = session.send(conversation.id, "why " * 600, sampling=greedy(64))
        with pytest.raises(QuestionTooLongError, match=r"takes \d+ tokens.*64 more.*holds 512 tokens"):
            job.wait(TIMEOUT_S)
        answer = store.message(job.message_id or "")
        assert answer.finished and answer.finish_reason == "error" and answer.text == ""
        assert "does not fit" in answer.settings["error"]
    finally:
        manager.unload()


def test_regenerate_continue_and_edit_make_branches(tiny_gguf: Path, store: ConversationStore) -> None:
    manager = load_manager(tiny_gguf, 1024)
    try:
        session = session_for(store, manager, None)
        conversation = store.create_conversation(kb_enabled=False)
        first = session.send(conversation.id, "Tell me a story.", sampling=greedy(8))
        first_result = first.wait(TIMEOUT_S)
        answer_a = store.message(first.message_id or "")
        assert first_result.finish_reason == "length" and answer_a.finish_reason == "length"
        question = store.message(answer_a.parent_id or "")

        again = session.regenerate(answer_a.id, sampling=greedy(8))
        again.wait(TIMEOUT_S)
        assert again.prepared is not None and first.prepared is not None
        assert again.prepared.request.messages == first.prepared.request.messages
        answer_b = store.message(again.message_id or "")
        assert answer_b.text == answer_a.text  # greedy: the same prompt gives the same answer
        assert [m.id for m in store.children(conversation.id, question.id)] == [answer_a.id, answer_b.id]
        assert store.conversation(conversation.id).current_leaf_id == answer_b.id

        more = session.continue_answer(answer_b.id, sampling=greedy(8))
        more_result = more.wait(TIMEOUT_S)
        assert more.message_id == answer_b.id and more.prepared is not None
        sent = more.prepared.request.messages
        assert (sent[-2].role, sent[-2].content) == ("assistant", answer_b.text)
        assert (sent[-1].role, sent[-1].content) == ("user", CONTINUE_INSTRUCTION)
        continued = store.message(answer_b.id)
        assert continued.text == more_result.text and continued.text.startswith(answer_b.text)
        assert len(continued.text) > len(answer_b.text) and continued.finished
        assert more_result.metrics.generated_tokens == 8

        edited = session.edit_and_resend(question.id, "Tell me a poem instead.", sampling=greedy(8))
        edited.wait(TIMEOUT_S)
        roots = store.children(conversation.id, None)
        assert [m.text for m in roots] == ["Tell me a story.", "Tell me a poem instead."]
        assert store.branch(conversation.id)[0].text == "Tell me a poem instead."
        assert edited.prepared is not None
        assert edited.prepared.request.messages[-1].content == "Tell me a poem instead."
        assert len(edited.prepared.request.messages) == 2  # system + the edited question: no old branch

        huge = store.add_message(conversation.id, "assistant", "blah " * 1500, roots[1].id, finish_reason="length")
        too_long = session.continue_answer(huge.id, sampling=greedy(8))
        with pytest.raises(ChatError, match="too long to continue"):
            too_long.wait(TIMEOUT_S)
        assert store.message(huge.id).text == huge.text  # nothing lost

        done = store.add_message(conversation.id, "assistant", "complete", roots[1].id, finish_reason="stop")
        with pytest.raises(ChatError, match="complete"):
            session.continue_answer(done.id)
        with pytest.raises(ChatError):
            session.regenerate(question.id)
    finally:
        manager.unload()


def test_without_a_model_nothing_is_written(store: ConversationStore) -> None:
    settings = Settings(ENGINE_SETTINGS)
    session = session_for(store, EngineManager(lambda: cpu_only(), lambda: settings), None)
    conversation = store.create_conversation()
    with pytest.raises(NoModelLoadedError):
        session.send(conversation.id, "Hello?")
    assert store.messages(conversation.id) == []


def test_stopping_an_answer_keeps_and_saves_its_text(
    tiny_gguf_factory: GgufFactory, store: ConversationStore, pushed_pieces: dict[str, list[str]]
) -> None:
    # A model that decodes a few hundred tokens a second: 1900 tokens take seconds, so it is stopped mid-way.
    manager = load_manager(tiny_gguf_factory(SLOW_DECODE_SHAPE), 2048, parallel_chats=1, threads=1)
    try:
        session = session_for(store, manager, None)
        conversation = store.create_conversation(kb_enabled=False)
        job = session.send(conversation.id, "Go on forever.", sampling=greedy(1900, ignore_eos=True))

        def pieces_pushed() -> int:
            prepared = job.prepared
            return len(pushed_pieces[prepared.request.request_id]) if prepared is not None else 0

        wait_until(lambda: pieces_pushed() >= 8, "8 pieces of the answer",
                   give_up=lambda: "the answer finished first" if job.done else None)
        job.cancel()
        iterated = "".join(job)
        result = job.wait(TIMEOUT_S)
        assert result.finish_reason == "cancelled"
        assert 8 <= result.metrics.generated_tokens < 1900 // 2, "the answer went on long after it was stopped"
        assert job.prepared is not None
        assert iterated == "".join(pushed_pieces[job.prepared.request.request_id]) == result.text
        stored = store.message(job.message_id or "")
        assert stored.text == result.text == job.text and stored.finished and stored.finish_reason == "cancelled"
        assert stored.can_continue
    finally:
        manager.unload()
