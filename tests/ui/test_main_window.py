"""The main window: appears with no model and shows the probe, loads a real model in the background,
shows it in the status bar and the gauges, and remembers its layout under the app's config dir."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QWidget

from app.context import AppContext
from app.core.engines.base import EngineConfig, LoadedModel, ProgressCallback
from app.core.engines.manager import EngineManager, ManagerState
from app.core.hardware import probe_hardware
from app.main import build_context
from app.ui.main_window import MainWindow
from app.ui.state.gui_services import GuiServices
from app.ui.state.live_settings import LiveSettings
from app.ui.state.machine_facts import MachineFacts
from app.ui.theme import apply_theme
from tests.core.engines.fake_engine import EngineLog, FakeEngine
from tests.ui.conftest import fake_machine, make_services

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
LOAD_TIMEOUT_MS = 60_000


def test_window_opens_without_a_model_and_shows_the_probe(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], screenshot: Shot
) -> None:
    window = open_window(app_context, make_services(app_context, probe_hardware))
    assert window.model_status.state is ManagerState.EMPTY
    assert "No model loaded" in window.model_status.text.text()
    assert window.sidebar is None and window.chat_view is None  # no conversations: the welcome page alone
    assert window.chat_slot.currentWidget() is window.welcome and window.welcome.isVisible()
    assert window.splitter.count() == 1
    assert window.gauges_dock.isVisible()
    qtbot.waitUntil(lambda: window.hardware_report is not None, timeout=30_000)
    summary = window.welcome.machine_summary.text()
    assert "GiB" in summary and "Backend" in summary
    qtbot.waitUntil(lambda: window.sampler.latest is not None, timeout=10_000)
    snapshot = window.sampler.latest
    assert snapshot is not None and not snapshot.model_loaded
    assert snapshot.bars[0].segment_bytes("free") > 0
    assert snapshot.bars[0].segment_bytes("app") > 0  # this process's own memory, measured
    assert window.settings_dialog is None  # nothing opened by itself
    screenshot(window, "01-window-no-model")


def test_window_names_the_bad_setting(qtbot: Any, isolated_environment: Path,
                                      open_window: Callable[..., MainWindow]) -> None:
    settings_file = isolated_environment / "config" / "settings.toml"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text('version = 2\n[ui]\ntheme = "purple"\n', encoding="utf-8")
    context = build_context(str(isolated_environment), verbose=False)
    window = open_window(context, make_services(context, fake_machine()))
    assert window.welcome.settings_banner.isVisible()
    assert "ui.theme" in window.welcome.settings_banner.text()


def test_loading_a_real_model_shows_it_in_the_status_bar_and_the_gauges(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path, screenshot: Shot
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    assert window.load_model(tiny_gguf)
    assert window.model_status.state is ManagerState.LOADING
    assert not window.load_action.isEnabled()  # one load at a time
    assert not window.load_model(tiny_gguf)  # refused while the first load runs
    qtbot.waitUntil(lambda: window.model_status.state is not ManagerState.LOADING, timeout=LOAD_TIMEOUT_MS)
    assert window.model_status.state is ManagerState.READY, window.model_status.text.text()
    status = window.services.engine_manager.status()
    assert status.state is ManagerState.READY and status.plan is not None
    text = window.model_status.text.text()
    assert "llama.cpp" in text and status.loaded is not None and status.loaded.model_name in text
    assert status.selection is not None and status.selection.reason in text  # why this backend
    assert window.unload_action.isEnabled()
    # The model chosen from the menu becomes the one loaded next time.
    assert window.services.live_settings.get().str_value("model.path") == str(tiny_gguf)
    assert str(tiny_gguf) in app_context.settings_store.path.read_text(encoding="utf-8")

    def loaded_snapshot() -> bool:
        latest = window.sampler.latest
        return latest is not None and latest.model_loaded

    qtbot.waitUntil(loaded_snapshot, timeout=10_000)
    snapshot = window.sampler.latest
    assert snapshot is not None
    bar = snapshot.bars[0]
    assert bar.segment_bytes("weights") == status.plan.weights_bytes > 0
    assert bar.segment_bytes("kv_used") + bar.segment_bytes("kv_reserved") == status.plan.kv_bytes_total > 0
    assert sum(segment.bytes for segment in bar.segments) <= bar.total_bytes
    legend = window.gauges.memory_gauge.legends[0]
    assert legend.value_text("weights") not in (None, "0 MiB")
    assert legend.value_text("kv_reserved") is not None
    assert window.gauges.speed_gauge.values["roofline"].text() != "–"  # the bandwidth ceiling of this model
    screenshot(window, "02-window-model-loaded")


def test_a_model_that_fails_to_load_is_reported_and_the_window_keeps_working(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], not_a_model_file: Path
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.load_model(not_a_model_file)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.FAILED, timeout=LOAD_TIMEOUT_MS)
    assert "GGUF" in window.model_status.text.text()
    assert window.load_action.isEnabled()
    assert window.services.engine_manager.status().state is ManagerState.FAILED


def test_layout_is_remembered_in_the_config_dir(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow]
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.resize(760, 560)  # within the offscreen screen (800 x 600)
    window.gauges_dock.setVisible(False)
    window.close()
    layout_file = app_context.paths.config_dir / "window.ini"
    assert layout_file.is_file()
    second = open_window(app_context, make_services(app_context, fake_machine()))
    assert not second.gauges_dock.isVisible()
    assert (second.width(), second.height()) == (760, 560)
    assert not second.sampler.is_running()  # hidden gauges are not sampled
    second.gauges_dock.setVisible(True)
    qtbot.waitUntil(second.sampler.is_running, timeout=10_000)


class HeldLoadingEngine(FakeEngine):
    """A scripted engine whose load reports half its progress, then waits until the test releases it."""

    def __init__(self, log: EngineLog, release: threading.Event) -> None:
        super().__init__(log)
        self._release = release

    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        if progress is not None:
            progress(0.5, "Reading weights")
        if not self._release.wait(LOAD_TIMEOUT_MS / 1000):
            raise TimeoutError("the test never released the load")
        return super().load(config, None)


def max_gap_s(ticks: list[float]) -> float:
    return max(later - earlier for earlier, later in itertools.pairwise(ticks))


def test_a_slow_load_shows_progress_in_the_status_bar_and_the_window_stays_responsive(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path, screenshot: Shot
) -> None:
    live_settings = LiveSettings(app_context.settings)
    report = fake_machine()
    machine = MachineFacts(lambda: report, available_memory=lambda: None)
    release = threading.Event()
    manager = EngineManager(machine.current, live_settings.get,
                            lambda _backend: HeldLoadingEngine(EngineLog(), release))
    window = open_window(app_context, GuiServices(manager, live_settings, machine))
    ticks: list[float] = []
    timer = QTimer(window)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    try:
        window.load_model(tiny_gguf)
        assert window.model_status.state is ManagerState.LOADING and not window.model_status.progress.isVisible()
        qtbot.waitUntil(window.model_status.progress.isVisible, timeout=30_000)  # after the ~0.5 s delay
        assert window.model_status.progress.value() == 50  # the load is held at half way
        assert "Reading weights" in window.model_status.text.text()
        assert not window.welcome.load_button.isEnabled()
        ticks_until_shown = list(ticks)
        screenshot(window, "02a-window-loading")
        # The load is still held: the event loop keeps turning meanwhile (measured after the screenshot,
        # which itself runs on the GUI thread).
        ticks.clear()
        qtbot.waitUntil(lambda: len(ticks) >= 15, timeout=30_000)
        assert window.model_status.state is ManagerState.LOADING and not release.is_set()
        ticks_while_held = list(ticks)
    finally:
        release.set()
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    timer.stop()
    assert not window.model_status.progress.isVisible()
    # Gaps generous enough for a loaded machine; a load on the GUI thread would have blocked it throughout.
    assert len(ticks_until_shown) >= 2 and max_gap_s(ticks_until_shown) < 1.0
    assert max_gap_s(ticks_while_held) < 1.0


def test_choosing_the_dark_theme_applies_it_at_once(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path, screenshot: Shot
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=60_000)
    dark = window.services.live_settings.get().with_changes({"ui.theme": "dark"})
    try:
        assert window.apply_settings(dark) == "Saved."
        assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 80
        assert app_context.settings_store.load().settings.str_value("ui.theme") == "dark"
        qtbot.waitUntil(lambda: window.sampler.latest is not None and window.sampler.latest.model_loaded,
                        timeout=20_000)
        screenshot(window, "07-window-dark-theme")
    finally:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        apply_theme(app, "light")
