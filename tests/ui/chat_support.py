"""Helpers for the chat window tests: real main windows with conversations over a real tiny GGUF model."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.context import AppContext
from app.core.chat.records import Message
from app.core.chat.store import ConversationStore
from app.core.engines.manager import ManagerState
from app.core.engines.requests import GREEDY, SamplingParams
from app.core.util.jobs import Job
from app.ui.chat.chat_view import ChatView
from app.ui.conversations.conversation_sidebar import ConversationSidebar
from app.ui.main_window import MainWindow
from app.ui.state.gui_services import ChatServices
from tests.fixtures.gguf_models import SLOW_DECODE_SHAPE
from tests.ui.conftest import fake_machine, make_services

LOAD_TIMEOUT_MS = 60_000
STREAMING_SHAPE = SLOW_DECODE_SHAPE
"""A long answer is still running when a test acts on it; STREAMING_CONTEXT leaves room for such answers."""
STREAMING_CONTEXT = 8192
ANSWER_TIMEOUT_MS = 180_000  # a long answer on a loaded CI machine (seen > 60 s at a load of 14 on 2 cores)


def greedy(max_tokens: int, *, ignore_eos: bool = False) -> SamplingParams:
    """Deterministic sampling; ``ignore_eos`` keeps an answer going for exactly ``max_tokens`` tokens."""
    return dataclasses.replace(GREEDY, max_tokens=max_tokens, ignore_eos=ignore_eos)


class ChatWindows:
    """Opens main windows with the chat half (as the composition root builds it) and cleans up after them:
    windows are closed (which stops their answers) before their conversation stores are closed."""

    def __init__(self, qtbot: Any, context: AppContext, open_window: Callable[..., MainWindow]) -> None:
        self._qtbot = qtbot
        self._context = context
        self._open_window = open_window
        self._opened: list[tuple[MainWindow, ChatServices]] = []

    def open(self, model: Path | None = None, *, parallel_chats: int = 1, context_length: int = 0,
             save_interval_s: float = 1.0, **window_options: Any) -> MainWindow:
        """A window with the chat half (``window_options`` go to MainWindow), with ``model`` loaded if given."""
        services = make_services(self._context, fake_machine())
        services.live_settings.replace(self._context.settings.with_changes({
            "engine.parallel_chats": parallel_chats, "engine.context_length": context_length,
            "engine.warmup": False, "engine.threads": 1,  # one thread: no spin-waiting on a busy machine
        }))
        services = services.with_chat(self._context.paths, save_interval_s=save_interval_s)
        assert services.chat is not None
        window = self._open_window(self._context, services, **window_options)
        self._opened.append((window, services.chat))
        if model is not None:
            assert window.load_model(model)
            self._qtbot.waitUntil(lambda: window.model_status.state is not ManagerState.LOADING,
                                  timeout=LOAD_TIMEOUT_MS)
            assert window.model_status.state is ManagerState.READY, window.model_status.text.text()
        return window

    def close(self) -> None:
        for window, chat in self._opened:
            window.close()
            chat.close()
        self._opened.clear()


def chat_of(window: MainWindow) -> tuple[ChatView, ConversationSidebar, ConversationStore]:
    """The window's chat view, sidebar and conversations store."""
    assert window.chat_view is not None and window.sidebar is not None and window.services.chat is not None
    return window.chat_view, window.sidebar, window.services.chat.store


def streaming_id(view: ChatView, conversation_id: str) -> str:
    streaming = view.running.streaming_message(conversation_id)
    assert streaming is not None, "no answer is running in that conversation"
    return streaming[0]


def streamed_text(view: ChatView, conversation_id: str) -> str:
    """What the running answer of the conversation has written so far ("" when none runs)."""
    streaming = view.running.streaming_message(conversation_id)
    return streaming[1] if streaming is not None else ""


def wait_until_done(qtbot: Any, view: ChatView, conversation_id: str) -> None:
    """Until the conversation's answer has ended and the view has shown what the store then holds."""
    qtbot.waitUntil(lambda: not view.is_answering(conversation_id) and not view.calls.busy(),
                    timeout=ANSWER_TIMEOUT_MS)


def wait_until_streaming(qtbot: Any, view: ChatView) -> str:
    """Until the answer just asked for runs and the view shows it (it is started on the store's worker);
    the conversation's id."""

    def streaming() -> bool:
        shown = view.conversation_id
        return shown is not None and view.running.is_running(shown) and not view.calls.busy()

    qtbot.waitUntil(streaming, timeout=ANSWER_TIMEOUT_MS)
    assert view.conversation_id is not None
    return view.conversation_id


def settled(qtbot: Any, part: ChatView | ConversationSidebar) -> None:
    """Until every store call the chat view and sidebar made has run and been shown (they share one worker)."""
    qtbot.waitUntil(lambda: not part.calls.busy(), timeout=ANSWER_TIMEOUT_MS)


def roles_and_texts(messages: list[Message]) -> list[tuple[str, str]]:
    return [(message.role, message.text) for message in messages]


MARKDOWN_PIECES = (
    "Here is a plan", " with **bold** steps", " and `inline code`.\n\n", "- first item", " of the list\n",
    "- second item\n\n", "```python\n", "def answer(question):\n", "    # think hard\n",
    "    return 42  # the answer\n", "```\n\n", "Some more prose", " that keeps going", " for a while.\n\n",
)


def markdown_tokens(count: int) -> list[str]:
    """``count`` token-sized pieces of Markdown (prose, lists, code fences), as a model would stream them."""
    words = [word for piece in MARKDOWN_PIECES for word in re.findall(r"\s*\S+|\s+", piece)]
    return [words[index % len(words)] for index in range(count)]


class FakeAnswer(Job[Any, str]):
    """An AnswerJob stand-in fed by its worker at ``tokens_per_s`` (unit tests and the streaming benchmark).

    A real :class:`Job` (start, done, error, cancel, join, wait) plus what the chat view reads of an
    answer: ``message_id``, ``prefix``, ``drain``. ``save_result(text)`` runs on its thread before it is
    done (the real job saves the answer there).
    """

    def __init__(self, tokens: list[str], tokens_per_s: float, message_id: str = "fake-answer",
                 prefix: str = "", save_result: Callable[[str], None] | None = None) -> None:
        import threading

        super().__init__("fake-answer")
        self.message_id: str | None = message_id
        self.prefix = prefix
        self.tokens = tokens
        self.tokens_per_s = tokens_per_s
        self._save_result = save_result
        self.pushes = 0
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self.started_at = 0.0
        self.finished_at = 0.0

    def _run(self) -> Any:
        import time

        from app.core.engines.metrics import RequestMetrics

        self.started_at = time.perf_counter()
        for index, token in enumerate(self.tokens):
            if self.cancelled:
                break
            due = self.started_at + index / self.tokens_per_s
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            with self._lock:
                self._pending.append(token)
                self.pushes += 1
        self.finished_at = time.perf_counter()
        if self._save_result is not None:  # like AnswerJob: saved before it counts as done
            self._save_result(self.prefix + "".join(self.tokens[: self.pushes]))
        span = max(1e-9, self.finished_at - self.started_at)
        metrics = RequestMetrics(generated_tokens=self.pushes, decode_tokens_per_s=self.pushes / span,
                                 total_time_s=span, finish_reason="stop")
        return type("FakeResult", (), {"metrics": metrics, "finish_reason": "stop"})()

    def progress(self) -> str:
        return self.prefix + "".join(self.tokens[: self.pushes])

    def drain(self) -> str:
        with self._lock:
            pending, self._pending = self._pending, []
        return "".join(pending)
