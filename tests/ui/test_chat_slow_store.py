"""The chat view and the conversations sidebar never wait on the conversation store: with a store whose every
call blocks (a slow disk), the window keeps drawing and taking input, and once the store answers, what was
written shows, in the order it was asked (a rename, then a read of the same conversation)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from app.context import AppContext
from app.core.chat.database import database_path
from app.core.chat.store import ConversationStore
from app.core.services.answering import Answerer
from app.core.services.chat_session import ChatSession
from app.ui.main_window import MainWindow
from app.ui.state.gui_services import ChatServices
from tests.ui.chat_support import chat_of, settled
from tests.ui.conftest import fake_machine, make_services

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000
GATE_TIMEOUT_S = 60.0


class GatedLock:
    """The store's lock, behind a gate: while ``gate`` is clear, a worker thread waits at it before every call.
    A call on the GUI thread while ``watching`` never waits: it is recorded (an old window fails, not hangs)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.gate.set()
        self.watching = False
        self.gui_calls = 0
        self.held_back = threading.Event()
        """Set once a worker's call has waited at the closed gate."""
        self._inner = threading.RLock()

    def __enter__(self) -> GatedLock:
        if threading.current_thread() is threading.main_thread():
            if self.watching:
                self.gui_calls += 1
        elif not self.gate.is_set():
            self.held_back.set()
            self.gate.wait(GATE_TIMEOUT_S)
        self._inner.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._inner.release()


@pytest.fixture
def gated(app_context: AppContext) -> Iterator[tuple[ChatServices, GatedLock]]:
    """Chat services over a real SQLite store whose lock is a :class:`GatedLock`."""
    services = make_services(app_context, fake_machine())
    store = ConversationStore(database_path(app_context.paths.data_dir))
    lock = GatedLock()
    store._lock = lock  # type: ignore[assignment]  # every store call takes this lock
    answerer = Answerer(services.engine_manager, None, services.live_settings.get)
    chat = ChatServices(store, ChatSession(store, answerer), answerer, app_context.paths, services.live_settings)
    yield chat, lock
    lock.gate.set()
    chat.close()


def test_a_slow_store_never_stops_the_window_and_its_writes_show_in_order(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow],
    gated: tuple[ChatServices, GatedLock], screenshot: Shot
) -> None:
    chat, lock = gated
    store = chat.store
    garden = store.create_conversation("Garden")
    question = store.add_message(garden.id, "user", "When do I plant beans?", None)
    store.add_message(garden.id, "assistant", "After the last frost.", question.id)
    bread = store.create_conversation("Bread")
    services = dataclasses.replace(make_services(app_context, fake_machine()), chat=chat)
    window = open_window(app_context, services)
    view, sidebar, _store = chat_of(window)
    settled(qtbot, view)
    assert sidebar.selected_id == bread.id == view.conversation_id  # the newest, chosen at start

    lock.gate.clear()  # from here on every store call waits until the test opens the gate
    lock.watching = True
    sidebar.ask_title = lambda _current: "Sourdough"
    sidebar.rename_action.trigger()  # a write ...
    sidebar.select(garden.id)  # ... then reads: the list, and the conversation to show
    qtbot.waitUntil(lock.held_back.is_set, timeout=WAIT_MS)
    ticks: list[int] = []
    timer = QTimer(window)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=WAIT_MS)  # the event loop runs on
    timer.stop()
    qtbot.keyClicks(view.composer.editor, "still typing")
    assert view.composer.text() == "still typing"
    assert view.calls.busy() and "Bread" in sidebar.list.item(0).text()  # nothing has come back yet
    screenshot(window, "chat-43-slow-store-waiting")
    assert lock.gui_calls == 0, "the GUI thread called the store"

    lock.gate.set()
    settled(qtbot, view)
    assert sidebar.selected_id == garden.id == view.conversation_id and view.title.text() == "Garden"
    assert [widget.text for widget in view.messages.ordered_widgets()] == [
        "When do I plant beans?", "After the last frost."]
    assert any("Sourdough" in sidebar.list.item(row).text() for row in range(sidebar.list.count()))

    # A write to the conversation on show, then its read: the view shows what was written.
    lock.gate.clear()
    lock.held_back.clear()
    sidebar.ask_title = lambda _current: "Vegetable garden"
    sidebar.rename_action.trigger()
    view.reload()
    qtbot.waitUntil(lock.held_back.is_set, timeout=WAIT_MS)
    assert view.title.text() == "Garden"
    lock.gate.set()
    settled(qtbot, view)
    assert view.title.text() == "Vegetable garden"
    assert lock.gui_calls == 0, "the GUI thread called the store"
    lock.watching = False
    assert store.conversation(garden.id).title == "Vegetable garden"
    assert store.conversation(bread.id).title == "Sourdough"
