"""ChatView: the conversation on show, the answers being written (in any conversation), and the input."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSize, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.core.chat.errors import ConversationNotFoundError, QuestionTooLongError
from app.core.chat.prompt import ContextBudget
from app.core.chat.records import Citation, Conversation, Message
from app.core.chat.store import ConversationStore, new_id
from app.core.engines.base import NoModelLoadedError
from app.core.engines.manager import ManagerState
from app.core.engines.requests import SamplingParams
from app.core.services.answer_job import AnswerJob
from app.core.services.chat_session import ChatSession
from app.core.util.errors import UserFacingError
from app.ui.chat.chat_notice import ChatNotice
from app.ui.chat.citation_chip import CitationChip, source_url
from app.ui.chat.composer import Composer
from app.ui.chat.context_meter import ContextMeter
from app.ui.chat.context_preview import ContextPreview
from app.ui.chat.knowledge_scope_button import KnowledgeScopeButton
from app.ui.chat.link_check import LinkConfirmer, ask_before_opening, open_checked
from app.ui.chat.message_entries import entries_for, first_sent_id
from app.ui.chat.message_list import MessageList
from app.ui.chat.passage_popup import PassagePopup
from app.ui.chat.running_answers import FinishedAnswer, RunningAnswers
from app.ui.conversations.store_calls import StoreCalls
from app.ui.i18n import follow_language, render

log = logging.getLogger(__name__)

UrlOpener = Callable[[QUrl], bool]
SHOW_LANE = "chat-view-show"
Snapshot = tuple[Conversation, list[Message], list[Message]]
"""What the view reads to show a conversation: it, its branch on show, and all its messages."""


class ChatView(QWidget):
    """Shows one conversation (``show_conversation``) while any number of conversations generate.

    Answers run as :class:`AnswerJob` threads registered in ``running``; one timer drains them once
    per frame, and switching conversations never stops one. Every store call goes through ``calls``
    (:class:`StoreCalls`, shared with the sidebar): reads and writes run on its worker in order, and what
    they return is shown when it arrives. Signals: ``load_model_requested``,
    ``settings_requested``, ``answer_finished(FinishedAnswer)``, ``conversation_created(id)`` (a first
    message without a conversation made one), ``conversations_changed()`` (titles, order),
    ``running_changed(frozenset of ids)``.
    """

    load_model_requested = Signal()
    settings_requested = Signal()
    answer_finished = Signal(object)
    conversation_created = Signal(str)
    conversations_changed = Signal()
    running_changed = Signal(object)

    def __init__(self, calls: StoreCalls, session: ChatSession, parent: QWidget | None = None,
                 *, open_url: UrlOpener = QDesktopServices.openUrl) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.calls = calls
        self.session = session
        self.open_url = open_url
        self.confirm_link: LinkConfirmer = ask_before_opening(self)
        self.sampling: SamplingParams | None = None
        """Sampling for new answers (None: from the settings)."""
        self.conversation_id: str | None = None
        self.model_state = ManagerState.EMPTY
        self._model_detail = ""
        self._conversation_title = ""
        self._deleting: set[str] = set()
        self._sending: set[str] = set()
        """Conversations whose question is being stored and answer started (not yet in ``running``)."""
        self.running = RunningAnswers(self)
        self.running.text_arrived.connect(self._text_arrived)
        self.running.finished.connect(self._answer_finished)
        self.running.running_changed.connect(lambda: self.running_changed.emit(self.running.conversations()))
        self.preview = ContextPreview(session, self)
        self.preview.ready.connect(self._show_budget)
        self.preview.failed.connect(self._preview_failed)

        self.title = QLabel(self)
        self.title.setObjectName("chatTitle")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.messages = MessageList(self)
        self.messages.regenerate_requested.connect(self.regenerate)
        self.messages.continue_requested.connect(self.continue_answer)
        self.messages.edit_submitted.connect(self.edit_and_resend)
        self.messages.branch_requested.connect(self.show_alternative)
        self.messages.citation_open_requested.connect(self.open_citation)
        self.messages.citation_passage_requested.connect(self.show_passage)
        self.messages.link_activated.connect(self._open_link)
        self.notice = ChatNotice(self)
        self.notice.action_triggered.connect(self._notice_action)
        self.notice.dismissed.connect(lambda _kind: self._show_model_notice())
        self.meter = ContextMeter(self)
        self.composer = Composer(self)
        self.knowledge_scope = KnowledgeScopeButton(calls, lambda: session.answerer.knowledge_base, self)
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop)
        self.composer.draft_changed.connect(lambda draft: self.preview.request(self.conversation_id, draft))
        self.passage_popup: PassagePopup | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 8)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.messages, 1)
        bottom = QVBoxLayout()
        bottom.setContentsMargins(16, 0, 16, 0)
        bottom.setSpacing(4)
        bottom.addWidget(self.notice)
        meter_row = QHBoxLayout()
        meter_row.addWidget(self.meter, 1)
        meter_row.addWidget(self.knowledge_scope)
        bottom.addLayout(meter_row)
        bottom.addWidget(self.composer)
        layout.addLayout(bottom)
        self.title.setContentsMargins(16, 0, 16, 0)
        self.set_model_state(ManagerState.EMPTY)
        self.show_conversation(None)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Texts in the current language; notices, meter and messages rewrite their own."""
        self.messages.set_empty_hint(self.tr("Ask anything. Answers are written on this computer; nothing leaves it."))
        self._show_title()
        self.composer.set_placeholder(self._placeholder())

    # ---- what is on show -------------------------------------------------------------------
    def show_conversation(self, conversation_id: str | None) -> None:
        """Show a conversation (None or "": nothing chosen yet; the first message creates one)."""
        chosen = conversation_id or None
        changed = chosen != self.conversation_id
        self.conversation_id = chosen
        self._clear_notice("error")
        self.reload(scroll_to_end=changed)
        self.preview.request(chosen, self.composer.text())
        self.knowledge_scope.show_conversation(chosen)

    def is_answering(self, conversation_id: str) -> bool:
        """True while the conversation's answer is being started or written."""
        return conversation_id in self._sending or self.running.is_running(conversation_id)

    def reload(self, *, scroll_to_end: bool = False) -> None:
        """Read the conversation on show from the store (on the store's worker) and redraw it when the read
        arrives; a running answer shows the text streamed so far."""
        conversation_id = self.conversation_id
        if conversation_id is None:
            self.calls.drop(SHOW_LANE)
            self._conversation_title = ""
            self._show_title()
            self.messages.show_entries([], {})
            self.composer.set_busy(False)
            return

        def read(store: ConversationStore) -> Snapshot:
            return store.conversation(conversation_id), store.branch(conversation_id), store.messages(conversation_id)

        self.calls.latest(SHOW_LANE, read, lambda snapshot: self._show_snapshot(snapshot, scroll_to_end),
                          lambda error: self._read_failed(conversation_id, error))

    def _show_snapshot(self, snapshot: Snapshot, scroll_to_end: bool) -> None:
        conversation, branch, messages = snapshot
        if conversation.id != self.conversation_id:
            return  # another conversation was chosen meanwhile
        self._conversation_title = conversation.title
        self._show_title()
        streaming = self.running.streaming_message(conversation.id)
        streamed = {streaming[0]: streaming[1]} if streaming is not None else {}
        entries = entries_for(branch, messages, streaming[0] if streaming is not None else None)
        self.messages.show_entries(entries, streamed, first_sent_id(branch))
        self.composer.set_busy(self.is_answering(conversation.id))
        if scroll_to_end:
            self.messages.scroll_to_end()

    def _read_failed(self, conversation_id: str, error: Exception) -> None:
        """The conversation on show is gone (deleted elsewhere): show none."""
        if conversation_id != self.conversation_id:
            return
        if not isinstance(error, ConversationNotFoundError):
            log.warning("could not read conversation %s: %s", conversation_id, error)
        if not self.is_answering(conversation_id):
            self.show_conversation(None)

    def _show_title(self) -> None:
        self.title.setText(self._conversation_title or self.tr("New chat"))

    # ---- model state -----------------------------------------------------------------------
    def set_model_state(self, state: ManagerState, detail: str = "") -> None:
        """The window's engine state (``detail``: the model's name, or the failure when FAILED)."""
        self.model_state = state
        self._model_detail = detail
        if state is ManagerState.READY:
            self.notice.clear("model")
        else:
            self._show_budget(None)  # at once: the last model's budget no longer holds
        self.composer.set_placeholder(self._placeholder())
        self._show_model_notice()
        self.preview.request(self.conversation_id, self.composer.text())

    def _placeholder(self) -> str:
        """The composer's placeholder for the model state, in the current language."""
        state, detail = self.model_state, self._model_detail
        if state is ManagerState.READY:
            return (self.tr("Message {0} (Enter sends, Shift+Enter new line)").format(detail)
                    if detail else self.tr("Message (Enter sends, Shift+Enter new line)"))
        if state is ManagerState.LOADING:  # the same words as the notice above it
            return self.tr("Loading {0}… You can type meanwhile.").format(detail or self.tr("the model"))
        if state is ManagerState.FAILED:
            return self.tr("The model could not be loaded. Use Load model… to choose one.")
        return self.tr("No model loaded. Use Load model… to choose one.")

    def _clear_notice(self, kind: str) -> None:
        self.notice.clear(kind)
        self._show_model_notice()

    def _show_model_notice(self) -> None:
        """While no model is ready, the notice line says so (unless another notice is up)."""
        state, detail = self.model_state, self._model_detail
        if state is ManagerState.READY or self.notice.kind not in ("", "model"):
            return  # ready, or another notice is up (also before showing)
        if state is ManagerState.LOADING:
            self.notice.show_notice("model", lambda: self.tr("Loading {0}… You can type meanwhile.").format(
                detail or self.tr("the model")), level="info", dismissable=False)
            return
        text = (lambda: self.tr("No model is loaded: load one to chat.")) if state is ManagerState.EMPTY else (
            lambda: self.tr("The model could not be loaded: {0}").format(render(detail)))
        self.notice.show_notice("model", text, level="warning" if state is ManagerState.EMPTY else "error",
                                action="load_model", action_text=lambda: self.tr("Load model…"), dismissable=False)

    # ---- answering -------------------------------------------------------------------------
    def send(self, text: str | None = None) -> bool:
        """Ask ``text`` (default: the draft) in the conversation on show; False if it cannot start (empty, an
        answer still running, no model). The question is stored and the answer started on the store's worker;
        if that fails, the notice says why and the draft comes back."""
        question = self.composer.text() if text is None else text
        if not question.strip():
            return False
        conversation_id = self.conversation_id
        if conversation_id is not None and self.is_answering(conversation_id):
            return False
        try:
            self.session.answerer.model_name()  # no model: say so now, before anything is written
        except UserFacingError as error:
            self.show_error(error)
            return False
        created = conversation_id is None
        if conversation_id is None:
            conversation_id = new_id()
            self.conversation_id = conversation_id
        enabled, scope = self.knowledge_scope.new_chat_choice(conversation_id) if created else (True, None)
        session, sampling = self.session, self.sampling

        def store_and_start(store: ConversationStore) -> AnswerJob:
            if created:
                store.create_conversation(conversation_id=conversation_id, kb_enabled=enabled, kb_scope=scope)
            try:
                return session.send(conversation_id, question, sampling=sampling)
            except UserFacingError:
                if created:
                    store.delete_conversation(conversation_id)  # leave no empty conversation behind
                raise

        self._sending.add(conversation_id)
        self.composer.set_busy(True)
        if text is None or text == self.composer.text():
            self.composer.clear()
        self.calls.call(store_and_start, lambda job: self._sent(conversation_id, job, created),
                        lambda error: self._send_failed(conversation_id, question, created, error))
        return True

    def _sent(self, conversation_id: str, job: AnswerJob, created: bool) -> None:
        self._sending.discard(conversation_id)
        self._started(conversation_id, job)
        if conversation_id in self._deleting:
            job.cancel()  # deleted while it was being started: it is deleted once it has ended
        if created:
            self.conversation_created.emit(conversation_id)
        else:
            self.conversations_changed.emit()

    def _send_failed(self, conversation_id: str, question: str, created: bool, error: Exception) -> None:
        self._sending.discard(conversation_id)
        if conversation_id in self._deleting:  # deleted while it was being started
            self._deleting.discard(conversation_id)
            self._delete_now(conversation_id)
        if conversation_id != self.conversation_id:
            return
        if not self.composer.text():
            self.composer.set_text(question)  # the draft is kept
        self.composer.set_busy(False)
        if created:
            self.conversation_id = None
            self.reload()
        self.show_error(error)

    def stop(self) -> None:
        """Stop the answer of the conversation on show (its text so far is kept)."""
        if self.conversation_id is not None:
            self.running.cancel(self.conversation_id)

    def regenerate(self, answer_id: str) -> bool:
        return self._run_action(lambda: self.session.regenerate(answer_id, sampling=self.sampling))

    def continue_answer(self, answer_id: str) -> bool:
        return self._run_action(lambda: self.session.continue_answer(answer_id, sampling=self.sampling))

    def edit_and_resend(self, question_id: str, text: str) -> bool:
        return self._run_action(lambda: self.session.edit_and_resend(question_id, text, sampling=self.sampling))

    def show_alternative(self, message_id: str) -> None:
        """Show the branch through ``message_id`` (flipping between regenerated or edited alternatives)."""
        conversation_id = self.conversation_id
        if conversation_id is None or self.is_answering(conversation_id):
            return

        def shown(_conversation: object) -> None:
            self.reload()
            self.preview.request(conversation_id, self.composer.text())

        self.calls.call(lambda store: store.select_branch(conversation_id, message_id), shown, self.show_error)

    def _run_action(self, start: Callable[[], AnswerJob]) -> bool:
        """Start an answer with ``start`` (it stores its messages) on the store's worker; False if the
        conversation on show is already answering."""
        conversation_id = self.conversation_id
        if conversation_id is None or self.is_answering(conversation_id):
            return False
        self._sending.add(conversation_id)
        self.composer.set_busy(True)

        def started(job: AnswerJob) -> None:
            self._sending.discard(conversation_id)
            self._started(conversation_id, job)
            if conversation_id in self._deleting:
                job.cancel()

        def failed(error: Exception) -> None:
            self._sending.discard(conversation_id)
            if conversation_id in self._deleting:
                self._deleting.discard(conversation_id)
                self._delete_now(conversation_id)
            if conversation_id == self.conversation_id:
                self.composer.set_busy(False)
                self.show_error(error)

        self.calls.call(lambda _store: start(), started, failed)
        return True

    def _started(self, conversation_id: str, job: AnswerJob) -> None:
        self._clear_notice("error")
        self.running.add(conversation_id, job)
        if conversation_id == self.conversation_id:
            self.reload(scroll_to_end=True)

    def _text_arrived(self, conversation_id: str, message_id: str, piece: str) -> None:
        if conversation_id == self.conversation_id:
            self.messages.append(message_id, piece)

    def _answer_finished(self, outcome: FinishedAnswer) -> None:
        conversation_id = outcome.conversation_id
        if conversation_id in self._deleting:
            self._deleting.discard(conversation_id)
            self._delete_now(conversation_id)
            return
        if conversation_id == self.conversation_id:
            self.reload()
            if outcome.error is not None:
                self.show_error(outcome.error)
            self.preview.request(conversation_id, self.composer.text())
        self.answer_finished.emit(outcome)
        self.conversations_changed.emit()

    # ---- conversations ---------------------------------------------------------------------
    def conversation_updated(self, conversation_id: str) -> None:
        """A conversation was renamed or pinned elsewhere: redraw it if it is on show."""
        if conversation_id == self.conversation_id:
            self.reload()

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation; one still answering is stopped first and deleted once it has ended."""
        if self.is_answering(conversation_id):
            self._deleting.add(conversation_id)
            self.running.cancel(conversation_id)
        else:
            self._delete_now(conversation_id)
        if conversation_id == self.conversation_id:
            self.show_conversation(None)

    def _delete_now(self, conversation_id: str) -> None:
        def delete(store: ConversationStore) -> None:
            with contextlib.suppress(ConversationNotFoundError):  # already gone
                store.delete_conversation(conversation_id)

        self.calls.call(delete, lambda _none: self.conversations_changed.emit())

    # ---- context meter ---------------------------------------------------------------------
    def _show_budget(self, budget: ContextBudget | None) -> None:
        self._clear_notice("too_long")
        if budget is None and self.model_state is ManagerState.LOADING:
            self.meter.set_unavailable(lambda: self.tr("Context: counted once the model has loaded"))
        elif budget is None:
            self.meter.set_unavailable(lambda: self.tr("Context: no model loaded"))
        else:
            self.meter.set_budget(budget)

    def _preview_failed(self, error: Exception) -> None:
        if isinstance(error, QuestionTooLongError):
            self.meter.set_overflow(error.needed_tokens, error.context_tokens)
            self.notice.show_notice("too_long", str(error), level="warning", action="settings",
                                    action_text=lambda: self.tr("Settings…"))
        elif not isinstance(error, ConversationNotFoundError):
            self.meter.set_unavailable(lambda: self.tr("Context: unknown"))
            log.info("context preview failed: %s", error)

    # ---- errors and links ------------------------------------------------------------------
    def show_error(self, error: BaseException) -> None:
        """One line above the input: what went wrong and what to do."""
        if isinstance(error, NoModelLoadedError):
            self.notice.show_notice("model", lambda: self.tr("No model is loaded. Load one, then send again."),
                                    action="load_model", action_text=lambda: self.tr("Load model…"))
        elif isinstance(error, QuestionTooLongError):
            self.notice.show_notice("error", str(error), action="settings", action_text=lambda: self.tr("Settings…"))
        elif isinstance(error, UserFacingError):
            self.notice.show_notice("error", str(error))
        else:
            reason = str(error) or type(error).__name__
            self.notice.show_notice("error", lambda: self.tr("The answer failed: {0}").format(reason))

    def _notice_action(self, action: str) -> None:
        if action == "load_model":
            self.load_model_requested.emit()
        elif action == "settings":
            self.settings_requested.emit()

    def open_citation(self, citation: Citation) -> None:
        """Open the cited file (at its page, for PDFs); if it is gone or the system cannot open it, show the
        passage instead, saying why."""
        if Path(citation.path).is_file() and self.open_url(source_url(citation)):
            return
        self.show_passage(citation, self._chip_rect(citation), open_failed=Path(citation.path).is_file())

    def show_passage(self, citation: Citation, anchor: QRect, *, open_failed: bool = False) -> None:
        """The passage of ``citation`` in a popup next to ``anchor`` (its chip, in global coordinates)."""
        if self.passage_popup is None:
            self.passage_popup = PassagePopup(lambda chosen: self.open_url(source_url(chosen)), self)
        self.passage_popup.show_citation(citation, anchor, open_failed=open_failed)

    def _chip_rect(self, citation: Citation) -> QRect:
        """Where the chip of ``citation`` is on screen (the view's top-left corner if it is not shown)."""
        for widget in self.messages.findChildren(CitationChip):
            if widget.citation == citation and widget.isVisible():
                return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())
        return QRect(self.mapToGlobal(QPoint(24, 24)), QSize(0, 0))

    def _open_link(self, url: QUrl) -> None:
        """A link in an answer (written by a model, perhaps from an injected document): web links only, and
        only once the user has seen the address."""
        open_checked(url, self.confirm_link, self.open_url)

    # ---- shutdown --------------------------------------------------------------------------
    def shutdown(self, timeout_s: float = 3.0) -> None:
        """Stop every answer (their text is saved as stopped) and wait a little for them to end."""
        self.preview.stop()
        self.knowledge_scope.shutdown()
        self.running.cancel_all()
        if not self.running.wait_all(timeout_s):
            log.warning("some answers did not stop within %.1f s", timeout_s)
        self.preview.wait(int(timeout_s * 1000))
        self.calls.stop(int(timeout_s * 1000))
