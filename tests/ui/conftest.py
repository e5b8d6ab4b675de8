"""GUI test setup: offscreen Qt, any Qt warning fails the test, fake machines, services and screenshots."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QWidget

from app.context import AppContext
from app.core.engines.manager import EngineManager
from app.core.hardware import (
    BackendRecommendation,
    BandwidthEstimate,
    HardwareReport,
    UnifiedMemoryVerdict,
)
from app.main import build_context
from app.ui.main_window import MainWindow
from app.ui.pyside_workarounds import protect_none_from_pyside
from app.ui.state.gui_services import GuiServices
from app.ui.state.live_settings import LiveSettings
from app.ui.state.machine_facts import MachineFacts
from app.ui.theme import apply_theme

if TYPE_CHECKING:
    from app.ui.i18n import LanguageSwitcher
    from tests.ui.chat_support import ChatWindows
    from tests.ui.i18n_support import MainViews

protect_none_from_pyside()  # PySide6 6.12.0 on Python 3.11 would abort the run after a few thousand Qt calls

GIB = 1024**3
SHOTS_FOR_THE_LEAD = Path("/tmp/ui-shots")
# The offscreen platform plugin cannot do these; a real desktop can. Everything else Qt warns about fails.
OFFSCREEN_LIMITATIONS = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
    "This plugin does not support grabbing the keyboard",
)
FAILING_TYPES = (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)


@pytest.fixture(scope="session", autouse=True)
def app_look(qapp: Any) -> None:
    """The look the app starts with (Fusion, light palette, the app's style sheet), so screenshots show it."""
    apply_theme(qapp, "light")


@pytest.fixture(autouse=True)
def fail_on_qt_warnings() -> Iterator[list[str]]:
    """Record every Qt warning (from any thread) and fail the test that caused one."""
    recorded: list[str] = []

    def handler(message_type: QtMsgType, context: Any, message: str) -> None:
        if message_type in FAILING_TYPES and message not in OFFSCREEN_LIMITATIONS:
            recorded.append(f"{message_type.name}: {message}")
        if callable(previous):
            previous(message_type, context, message)

    previous = qInstallMessageHandler(handler)
    yield recorded
    qInstallMessageHandler(previous if callable(previous) else None)
    if recorded:
        pytest.fail("Qt warned during the test:\n" + "\n".join(recorded))


def fake_machine(
    ram_total_gib: float = 24.0,
    ram_available_gib: float = 16.0,
    bandwidth_gb_s: float = 20.0,
) -> HardwareReport:
    """A CPU-only Linux machine with the given RAM (llama.cpp is its backend)."""
    return HardwareReport(
        os_name="Linux",
        os_release="test",
        arch="x86_64",
        cpu_model="Test CPU",
        cpu_cores_physical=2,
        cpu_cores_logical=2,
        ram_total_bytes=int(ram_total_gib * GIB),
        ram_available_bytes=int(ram_available_gib * GIB),
        unified=UnifiedMemoryVerdict(False, ("test machine",)),
        bandwidth=BandwidthEstimate(bandwidth_gb_s * 1e9, "table", "test"),
        recommended_backend=BackendRecommendation("llamacpp", "No GPU: llama.cpp runs the model on the CPU."),
    )


def make_services(context: AppContext, hardware: HardwareReport | Callable[[], HardwareReport]) -> GuiServices:
    """Services as the composition root builds them, with an injected machine (its RAM figures kept as given)."""
    live_settings = LiveSettings(context.settings)
    if isinstance(hardware, HardwareReport):
        report = hardware
        machine = MachineFacts(lambda: report, available_memory=lambda: None)
    else:
        machine = MachineFacts(hardware)
    return GuiServices(EngineManager(machine.current, live_settings.get), live_settings, machine)


@pytest.fixture
def app_context(isolated_environment: Path) -> AppContext:
    """A context over the test's own UNIDESK_HOME."""
    return build_context(str(isolated_environment), verbose=False)


@pytest.fixture
def open_window(qtbot: Any) -> Iterator[Callable[..., MainWindow]]:
    """Opens real main windows (shown, offscreen); closes them and unloads their models afterwards.

    ``options`` go to MainWindow (``library``, ``knowledge``, ``language``); the first-run guide stays off
    unless a test asks for it (``first_run_guide=True``): a fresh test home has no model."""
    windows: list[MainWindow] = []

    def open_one(context: AppContext, services: GuiServices, **options: Any) -> MainWindow:
        options.setdefault("first_run_guide", False)
        window = MainWindow(context, services, **options)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield open_one
    for window in windows:
        window.close()
        window.services.engine_manager.unload()


@pytest.fixture
def chat_windows(qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow]) -> Iterator[ChatWindows]:
    """Real windows with the chat half, closed (answers stopped, stores closed) after the test."""
    from tests.ui.chat_support import ChatWindows  # it imports this module's helpers

    windows = ChatWindows(qtbot, app_context, open_window)
    yield windows
    windows.close()


@pytest.fixture
def screenshot(tmp_path: Path, qtbot: Any) -> Callable[[QWidget, str], Path]:
    """Saves ``widget.grab()`` as NAME.png under the test's tmp output (and a copy in /tmp/ui-shots),
    after letting pending layout and paint events run."""
    folder = tmp_path / "screenshots"
    folder.mkdir(exist_ok=True)

    def save(widget: QWidget, name: str) -> Path:
        path = folder / f"{name}.png"
        qtbot.wait(150)
        assert widget.grab().save(str(path)), f"could not save {path}"
        try:
            SHOTS_FOR_THE_LEAD.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, SHOTS_FOR_THE_LEAD / path.name)
        except OSError:
            pass
        return path

    return save


@pytest.fixture
def switcher(qapp: Any) -> Iterator[LanguageSwitcher]:
    """A language switcher that puts English back afterwards (other tests expect it)."""
    from tests.ui.i18n_support import switched_language  # it imports this module's helpers

    with switched_language(qapp) as languages:
        yield languages


@pytest.fixture
def views(qtbot: Any, chat_windows: ChatWindows, app_context: AppContext, tmp_path: Path, tiny_gguf: Path,
          switcher: LanguageSwitcher) -> Iterator[MainViews]:
    """The main window with a conversation, the gauges, the settings dialog and a passage popup open."""
    from tests.ui.i18n_support import opened_main_views

    with opened_main_views(qtbot, chat_windows, app_context, tmp_path, tiny_gguf, switcher) as opened:
        yield opened
