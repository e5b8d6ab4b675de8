"""Conversations with the model: send, regenerate, edit-and-resend, continue; answers saved as they stream."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.chat.errors import ChatError
from app.core.chat.prompt import CONTINUE_INSTRUCTION, AssembledPrompt, PromptMessage, history_messages
from app.core.chat.records import Conversation, Message
from app.core.chat.store import ConversationStore
from app.core.engines.requests import SamplingParams
from app.core.services.answer_job import SAVE_INTERVAL_S, AnswerJob, AnswerResult
from app.core.services.answering import Answerer, PreparedAnswer
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text


def _said(template: str, *args: object) -> Text:
    """A chat refusal or its hint: ``template`` marked with ``QT_TRANSLATE_NOOP("ChatErrors", ...)``."""
    return Text("ChatErrors", template, args)


def _empty_message() -> ChatError:
    return ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "The message is empty.")),
                     _said(QT_TRANSLATE_NOOP("ChatErrors", "Type a question first.")))


@dataclass(frozen=True)
class _Turn:
    """What one answer is generated from."""

    conversation: Conversation
    history: tuple[Message, ...]
    question: Message
    answer_id: str
    prefix: str = ""


class ChatSession:
    """Runs answers for stored conversations; each answer is an :class:`AnswerJob` on its own thread.

    Every operation first writes the messages it creates (the question and an empty, unfinished
    answer), so the window can show them at once; the answer's text is then saved at least
    every ``save_interval_s`` while it streams, and once more when it ends or is stopped.
    """

    def __init__(self, store: ConversationStore, answerer: Answerer, *, save_interval_s: float = SAVE_INTERVAL_S):
        self.store = store
        self.answerer = answerer
        self._save_interval_s = save_interval_s

    # ---- operations ------------------------------------------------------------------------
    def send(self, conversation_id: str, text: str, *, sampling: SamplingParams | None = None) -> AnswerJob:
        """Ask ``text`` after the branch on show."""
        if not text.strip():
            raise _empty_message()
        self.answerer.model_name()  # no model: fail now, before anything is written
        conversation = self.store.conversation(conversation_id)
        history = self.store.branch(conversation_id)
        parent = conversation.current_leaf_id
        question = self.store.add_message(conversation_id, "user", text, parent)
        return self._answer(conversation, history, question, sampling)

    def regenerate(self, answer_id: str, *, sampling: SamplingParams | None = None) -> AnswerJob:
        """A new answer to the same question, as a sibling of ``answer_id`` (the old one stays)."""
        answer = self.store.message(answer_id)
        question = self._question_of(answer)
        self.answerer.model_name()
        history = self._history_before(question)
        return self._answer(self.store.conversation(answer.conversation_id), history, question, sampling)

    def edit_and_resend(self, question_id: str, text: str, *, sampling: SamplingParams | None = None) -> AnswerJob:
        """Ask an edited question in place of ``question_id``: a new branch from the same point."""
        original = self.store.message(question_id)
        if original.role != "user":
            raise ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "Only your own messages can be edited.")),
                            _said(QT_TRANSLATE_NOOP("ChatErrors", "Pick one of your questions.")))
        if not text.strip():
            raise _empty_message()
        self.answerer.model_name()
        history = self._history_before(original)
        question = self.store.add_message(original.conversation_id, "user", text, original.parent_id)
        return self._answer(self.store.conversation(original.conversation_id), history, question, sampling)

    def continue_answer(self, answer_id: str, *, sampling: SamplingParams | None = None) -> AnswerJob:
        """Append to an answer that was cut off (length limit, stopped, interrupted)."""
        answer = self.store.message(answer_id)
        if not answer.can_continue:
            raise ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "This answer is complete.")),
                            _said(QT_TRANSLATE_NOOP("ChatErrors", "Regenerate it for a different answer.")))
        question = self._question_of(answer)
        self.answerer.model_name()
        self.store.select_branch(answer.conversation_id, answer.id)
        self.store.save_partial(answer.id, answer.text)  # unfinished again while it grows
        turn = _Turn(self.store.conversation(answer.conversation_id), tuple(self._history_before(question)),
                     question, answer.id, prefix=answer.text)
        return self._start(turn, sampling)

    def preview(self, conversation_id: str, draft: str) -> AssembledPrompt:
        """The context budget a draft question would get now (sources not counted: no search is run)."""
        conversation = self.store.conversation(conversation_id)
        return self.answerer.assemble(
            self.store.system_prompt(conversation), history_messages(self.store.branch(conversation_id)), draft, ()
        )

    # ---- internals -------------------------------------------------------------------------
    def _question_of(self, answer: Message) -> Message:
        if answer.role != "assistant" or answer.parent_id is None:
            raise ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "Only answers can be regenerated or continued.")),
                            _said(QT_TRANSLATE_NOOP("ChatErrors", "Pick an answer of the assistant.")))
        question = self.store.message(answer.parent_id)
        if question.role != "user":
            raise ChatError(_said(QT_TRANSLATE_NOOP("ChatErrors", "This answer does not follow a question.")),
                            _said(QT_TRANSLATE_NOOP("ChatErrors", "Ask the question again.")))
        return question

    def _history_before(self, message: Message) -> list[Message]:
        if message.parent_id is None:
            return []
        return self.store.branch(message.conversation_id, message.parent_id)

    def _answer(
        self, conversation: Conversation, history: Sequence[Message], question: Message,
        sampling: SamplingParams | None,
    ) -> AnswerJob:
        answer = self.store.add_message(
            conversation.id, "assistant", "", question.id, finished=False, model=self._model_or_none()
        )
        return self._start(_Turn(conversation, tuple(history), question, answer.id), sampling)

    def _model_or_none(self) -> str | None:
        loaded = self.answerer.manager.status().loaded
        return loaded.model_name if loaded is not None else None

    def _start(self, turn: _Turn, sampling: SamplingParams | None) -> AnswerJob:
        store, answer_id = self.store, turn.answer_id

        def prepare() -> PreparedAnswer:
            history: list[PromptMessage] = history_messages(turn.history)
            question_text = turn.question.text
            if turn.prefix:
                history += [PromptMessage("user", turn.question.text), PromptMessage("assistant", turn.prefix)]
                question_text = CONTINUE_INSTRUCTION
            prepared = self.answerer.prepare(
                system_prompt=store.system_prompt(turn.conversation),
                history=history,
                question=question_text,
                retrieval_question=turn.question.text,
                use_knowledge_base=turn.conversation.kb_enabled,
                scope=turn.conversation.kb_scope,
                sampling=sampling,
                conversation_id=turn.conversation.id,
            )
            sent = prepared.assembled.messages
            if turn.prefix and (len(sent) < 2 or sent[-2] != PromptMessage("assistant", turn.prefix)):
                budget = prepared.assembled.budget
                raise ChatError(
                    _said(QT_TRANSLATE_NOOP("ChatErrors", "The answer is too long to continue: it no longer fits in "
                                                          "the {0}-token context with room for more."), budget.context),
                    _said(QT_TRANSLATE_NOOP("ChatErrors", "Regenerate it, or raise the context length in Settings "
                                                          "and reload the model.")),
                )
            return prepared

        def finish(result: AnswerResult) -> None:
            settings = dict(result.prepared.settings_used) if result.prepared is not None else {}
            if result.error is not None:
                settings["error"] = result.error
            if result.notes:
                settings["notes"] = list(result.notes)
            store.finish_message(
                answer_id, text=result.text, finish_reason=result.finish_reason, citations=result.citations,
                model=result.prepared.model if result.prepared is not None else None, settings=settings,
                prompt_tokens=result.metrics.prompt_tokens or None,
                completion_tokens=result.metrics.generated_tokens or None, timings=result.timings,
            )

        job = AnswerJob(
            self.answerer.manager, prepare, prefix=turn.prefix,
            save_partial=lambda text: store.save_partial(answer_id, text), save_result=finish,
            save_interval_s=self._save_interval_s, message_id=answer_id,
        )
        return job.start()
