"""Every place that shows the engine's state tells the truth: the chat input (as painted, not only as set), the notice
above it, the status bar, the welcome page and the model manager's footer, through loading, ready and failure, on a
first load and on a relaunch with a remembered model; in English and in Chinese. Real llama.cpp, real windows."""

from __future__ import annotations

import dataclasses
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from app.context import AppContext
from app.core.engines.manager import EngineManager, ManagerState
from app.core.hardware import HardwareReport
from app.core.hardware.backend import recommend_backend
from app.core.models.library import ModelLibrary
from app.ui.bridge import PROGRESS_DELAY_S
from app.ui.i18n import LanguageSwitcher
from app.ui.main_window import MainWindow
from app.ui.state.gui_services import GuiServices
from app.ui.state.live_settings import LiveSettings
from app.ui.state.machine_facts import MachineFacts
from tests.ui.chat_support import ChatWindows, chat_of
from tests.ui.conftest import fake_machine
from tests.ui.i18n_support import english_left
from tests.ui.models_support import make_library

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
LOAD_TIMEOUT_MS = 60_000
QUICK_SETTINGS = {"engine.warmup": False, "engine.threads": 1, "engine.parallel_chats": 1}


class PaintedPlaceholder(QObject):
    """Records the placeholder the input's viewport last painted in full (a cursor blink repaints only a sliver)."""

    def __init__(self, editor: QPlainTextEdit) -> None:
        super().__init__(editor)
        self._editor = editor
        self.painted: list[str] = []
        editor.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(event, QPaintEvent):
            viewport = self._editor.viewport()
            first_line = QRect(0, 0, viewport.width(), self._editor.fontMetrics().height() + 4)
            if event.region().contains(first_line) and not self._editor.toPlainText():
                self.painted.append(self._editor.placeholderText())
        return False

    @property
    def last(self) -> str:
        return self.painted[-1] if self.painted else ""


def wait_painted(qtbot: Any, painted: PaintedPlaceholder, editor: QPlainTextEdit, *words: str) -> None:
    """Until the input has painted its current placeholder, which holds ``words``."""
    def shown() -> bool:
        text = editor.placeholderText()
        return painted.last == text and all(word in text for word in words)

    qtbot.waitUntil(shown, timeout=10_000)


@pytest.fixture
def held_probe() -> Iterator[tuple[threading.Event, MachineFacts]]:
    """A machine whose probe waits until the test releases it (a slow first look at the machine); the engine
    manager plans from the probe, so a load waits with it."""
    release = threading.Event()
    report = fake_machine()

    def probe() -> HardwareReport:
        release.wait(LOAD_TIMEOUT_MS / 1000)
        return report

    yield release, MachineFacts(probe, available_memory=lambda: None)
    release.set()


def remembered_model_window(app_context: AppContext, open_window: Callable[..., MainWindow], machine: MachineFacts,
                            model: Path, **options: Any) -> MainWindow:
    """A relaunch: the settings remember ``model``, the window opens with the chat half."""
    live = LiveSettings(app_context.settings.with_changes({**QUICK_SETTINGS, "model.path": str(model)}))
    services = GuiServices(EngineManager(machine.current, live.get), live, machine).with_chat(app_context.paths)
    window = open_window(app_context, services, **options)
    return window


def test_the_input_says_what_the_engine_does_when_a_model_loads_and_fails(
        qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, not_a_model_file: Path, switcher: LanguageSwitcher,
        screenshot: Shot) -> None:
    window = chat_windows.open()
    view, _, _ = chat_of(window)
    editor = view.composer.editor
    painted = PaintedPlaceholder(editor)
    window.resize(1100, 700)
    wait_painted(qtbot, painted, editor, "No model loaded")
    assert window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    name = window.engine_state.snapshot.model_name
    # Drawn on screen, not only set: Qt repaints a placeholder only when it appears or disappears.
    wait_painted(qtbot, painted, editor, "Message", name)
    assert "No model" not in painted.last
    qtbot.waitUntil(lambda: view.meter.budget is not None, timeout=30_000)
    screenshot(window, "engine-state-input-ready")
    switcher.apply("zh_CN")
    wait_painted(qtbot, painted, editor, "发消息", name)
    screenshot(window, "engine-state-input-ready-zh")
    assert window.load_model(not_a_model_file)
    assert view.meter.budget is None  # the last model's budget went with it
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.FAILED, timeout=LOAD_TIMEOUT_MS)
    assert view.meter.budget is None and view.meter.label.text() == "上下文：未加载模型"
    wait_painted(qtbot, painted, editor, "模型无法加载")
    assert "GGUF" in view.notice.full_text and "GGUF" in window.model_status.text.text()
    texts = [view.notice.full_text, editor.placeholderText(), window.model_status.text.text()]
    assert english_left(texts, [not_a_model_file.name, ".gguf", "config.json"]) == [], texts
    assert not window.unload_action.isEnabled() and window.load_action.isEnabled()
    screenshot(window, "engine-state-input-failed-zh")


def test_a_relaunch_shows_the_remembered_model_loading_from_the_first_frame(
        qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
        held_probe: tuple[threading.Event, MachineFacts], switcher: LanguageSwitcher, screenshot: Shot) -> None:
    release, machine = held_probe
    window = remembered_model_window(app_context, open_window, machine, tiny_gguf)
    view, _, _ = chat_of(window)
    editor = view.composer.editor
    painted = PaintedPlaceholder(editor)
    window.resize(1100, 700)
    # The machine check is still running: the model waits for it, and everything says it is loading.
    assert window.model_status.state is ManagerState.LOADING
    assert tiny_gguf.name in window.model_status.text.text()
    wait_painted(qtbot, painted, editor, "Loading", tiny_gguf.name, "type")
    assert view.notice.kind == "model" and tiny_gguf.name in view.notice.full_text
    assert editor.placeholderText() == view.notice.full_text  # the input and the banner say the same
    assert not window.load_action.isEnabled()
    qtbot.waitUntil(lambda: "once the model has loaded" in view.meter.label.text(), timeout=10_000)
    screenshot(window, "engine-state-relaunch-loading")
    switcher.apply("zh_CN")
    wait_painted(qtbot, painted, editor, "正在加载", tiny_gguf.name)
    assert editor.placeholderText() == view.notice.full_text
    assert window.model_status.text.text().startswith("正在加载")
    screenshot(window, "engine-state-relaunch-loading-zh")
    switcher.apply("en")
    release.set()
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    wait_painted(qtbot, painted, editor, "Message", window.engine_state.snapshot.model_name)
    assert window.model_status.text.text().startswith("Ready")
    assert window.unload_action.isEnabled()


def test_the_status_bar_says_loading_until_the_model_is_ready(
        qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
        held_probe: tuple[threading.Event, MachineFacts]) -> None:
    """Every line the status bar showed during a load (warm-up included) says it is loading, none "Ready"."""
    release, machine = held_probe
    live = LiveSettings(app_context.settings.with_changes({**QUICK_SETTINGS, "engine.warmup": True}))
    window = open_window(app_context, GuiServices(EngineManager(machine.current, live.get), live, machine))
    lines: list[str] = []
    window.engine_state.changed.connect(lambda _snapshot: lines.append(window.model_status.text.text()))
    started = time.monotonic()
    assert window.load_model(tiny_gguf)
    # The load waits for the probe; past the bridge's delay, every step it reports is shown as it comes.
    qtbot.waitUntil(lambda: time.monotonic() - started > PROGRESS_DELAY_S + 0.1, timeout=10_000)
    release.set()
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    while_loading = lines[:-1]
    assert any(":" in line for line in while_loading), lines  # the steps were shown
    assert all(line.startswith("Loading") and "Ready" not in line for line in while_loading), lines
    assert lines[-1].startswith("Ready")


def open_manager_with(window: MainWindow, library: ModelLibrary, model: Path) -> None:
    """The model manager open on the installed list, with ``model`` added as the user's own file."""
    library.add_local(model)
    window.open_models()
    window.model_manager.show_local()


def use_installed(qtbot: Any, window: MainWindow, path: Path) -> None:
    """Press "Use" on ``path`` in the model manager's installed list."""
    page = window.model_manager.local_page

    def listed() -> Any:
        return next((model for model in page.models() if Path(model.path).resolve() == path.resolve()), None)

    qtbot.waitUntil(lambda: listed() is not None, timeout=10_000)
    assert page.select(listed().id)
    qtbot.mouseClick(page.use_button, Qt.MouseButton.LeftButton)


def test_the_model_manager_footer_follows_the_load_to_ready_and_to_failure_in_chinese(
        qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
        tmp_path: Path, held_probe: tuple[threading.Event, MachineFacts], switcher: LanguageSwitcher,
        screenshot: Shot) -> None:
    release, machine = held_probe
    library = make_library(tmp_path / "library")
    live = LiveSettings(app_context.settings.with_changes(QUICK_SETTINGS))
    window = open_window(app_context, GuiServices(EngineManager(machine.current, live.get), live, machine),
                         library=library)
    manager = window.model_manager
    open_manager_with(window, library, tiny_gguf)
    use_installed(qtbot, window, tiny_gguf)
    assert manager.message.text() == f"Loading {tiny_gguf.name}…"  # held: the probe is not done
    release.set()
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    name = window.engine_state.snapshot.model_name
    assert manager.message.text() == f"{name} is loaded and ready."
    window.open_models()
    manager.show_local()
    screenshot(manager, "engine-state-manager-ready")
    # A file that stopped being a model (overwritten after it was added) fails to load; the reason is the core's
    # own words, shown in the language of the window.
    broken = tmp_path / "broken.gguf"
    shutil.copyfile(tiny_gguf, broken)
    window.open_models()
    open_manager_with(window, library, broken)
    broken.write_text("not a model any more\n", encoding="utf-8")
    switcher.apply("zh_CN")
    qtbot.waitUntil(lambda: manager.windowTitle() != "Models", timeout=5_000)
    use_installed(qtbot, window, broken)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.FAILED, timeout=LOAD_TIMEOUT_MS)
    footer = manager.message.text()
    assert "broken.gguf" in footer
    names = ["broken.gguf", ".gguf", "config.json"]
    assert english_left([footer, window.model_status.text.text()], names) == [], footer
    window.open_models()
    manager.show_local()
    screenshot(manager, "engine-state-manager-failed-zh")


def test_a_folder_that_is_no_model_fails_with_its_reason_in_chinese(
        qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tmp_path: Path,
        switcher: LanguageSwitcher) -> None:
    # The machine's backend reason as the real probe words it (a core Text), on a CPU-only machine.
    report = dataclasses.replace(fake_machine(), recommended_backend=recommend_backend(
        system="Linux", is_unified=False, has_gpu=False, vllm_importable=lambda: False))
    machine = MachineFacts(lambda: report, available_memory=lambda: None)
    live = LiveSettings(app_context.settings.with_changes(QUICK_SETTINGS))
    window = open_window(app_context, GuiServices(EngineManager(machine.current, live.get), live, machine)
                         .with_chat(app_context.paths))
    view, _, _ = chat_of(window)
    folder = tmp_path / "holiday-photos"
    folder.mkdir()
    switcher.apply("zh_CN")
    assert window.load_model(folder)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.FAILED, timeout=LOAD_TIMEOUT_MS)
    texts = [window.model_status.text.text(), view.notice.full_text, view.composer.editor.placeholderText()]
    assert all("holiday-photos" in text for text in texts[:2])
    assert english_left(texts, ["holiday-photos", "config.json", ".gguf"]) == [], texts
