"""The memory guardian in the real window with a real llama.cpp model: the bar says why requests pause and which
memory ran short (the system's, or a discrete card's), its offers work (reload with half the context), and an
unload by the guardian shows as no model loaded; in English and in Chinese."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.context import AppContext
from app.core.engines.admission import RequestsPausedError
from app.core.engines.manager import ManagerState
from app.core.engines.requests import ChatRequest
from app.core.hardware.live_memory import MemoryView
from app.core.hardware.nvml_reader import GpuMemory
from app.core.hardware.report import GpuInfo, UnifiedMemoryVerdict
from app.core.services.memory_guardian import GuardianNotice
from app.ui.i18n import LanguageSwitcher
from app.ui.main_window import MainWindow
from tests.ui.conftest import fake_machine, make_services

pytestmark = pytest.mark.gui

GIB = 1024**3
LOAD_TIMEOUT_MS = 60_000
TOTAL = 24 * GIB  # the settings' reserve is 4 GiB: requests pause below 2 GiB free, the model goes below 1 GiB


def observe_on_another_thread(window: MainWindow, view: MemoryView) -> GuardianNotice | None:
    """Feed one sample to the guardian from a worker thread, as its own sampling thread would."""
    result: list[GuardianNotice | None] = []
    worker = threading.Thread(target=lambda: result.append(window.guardian.observe(view)))
    worker.start()
    worker.join(30)
    return result[0]


def test_low_memory_pauses_requests_offers_a_smaller_reload_and_unloads_below_the_floor(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
    screenshot: Callable[[QWidget, str], Path],
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    qtbot.waitUntil(lambda: window.guardian.running, timeout=10_000)  # started once the window is painted
    window.guardian.stop()  # from here the test feeds the samples (the real machine has plenty free)
    manager = window.services.engine_manager
    assert window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    status = manager.status()
    assert status.loaded is not None
    first_context = status.loaded.config.context_length
    assert not window.memory_notice.isVisible()

    notice = observe_on_another_thread(window, MemoryView(TOTAL, int(1.5 * GIB), page_cache_bytes=GIB // 4))
    assert notice is not None and notice.action == "stopped_admitting"
    qtbot.waitUntil(window.memory_notice.isVisible, timeout=10_000)
    bar = window.memory_notice
    assert "New requests are paused: only 1.5 GiB of system memory is free" in bar.label.text()
    assert bar.unload_button.isVisible() and bar.reload_button.isVisible()
    assert "Most memory:" in bar.label.toolTip()
    with pytest.raises(RequestsPausedError):
        manager.submit(ChatRequest.single_prompt("hello"))
    screenshot(window, "memory-guardian-paused")

    qtbot.mouseClick(bar.reload_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not bar.isVisible(), timeout=10_000)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY and manager.status().loaded is not None
                    and manager.status().loaded.config.context_length != first_context, timeout=LOAD_TIMEOUT_MS)
    reloaded = manager.status().loaded
    assert reloaded is not None and reloaded.config.context_length == first_context // 2

    notice = observe_on_another_thread(window, MemoryView(TOTAL, int(0.6 * GIB)))
    assert notice is not None and notice.action == "unloaded"
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.EMPTY, timeout=10_000)
    assert manager.engine is None and bar.isVisible()
    assert "The model was unloaded to keep the system responsive" in bar.label.text()
    assert not bar.unload_button.isVisible() and bar.reload_button.isVisible()
    assert not window.unload_action.isEnabled()
    screenshot(window, "memory-guardian-unloaded")


CARD = "NVIDIA GeForce RTX 4090"


def card_view(vram_free_gib: float) -> MemoryView:
    """Plenty of RAM; ``vram_free_gib`` left on the 24 GiB card."""
    return MemoryView(TOTAL, 12 * GIB, GIB, GpuMemory(CARD, int(vram_free_gib * GIB), 24 * GIB))


def test_a_card_filled_by_another_program_is_named_as_the_reason_in_both_languages(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
    screenshot: Callable[[QWidget, str], Path], switcher: LanguageSwitcher,
) -> None:
    desktop = dataclasses.replace(fake_machine(), unified=UnifiedMemoryVerdict(False, ("discrete card",)),
                                  gpus=(GpuInfo("nvidia", CARD, 24 * GIB, 20 * GIB, integrated=False),))
    window = open_window(app_context, make_services(app_context, desktop))
    qtbot.waitUntil(lambda: window.guardian.running, timeout=10_000)
    window.guardian.stop()  # the test feeds the samples
    manager = window.services.engine_manager
    assert window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    plan = manager.status().plan
    assert plan is not None and plan.memory_kind == "discrete" and plan.gpu_bytes > 0  # the model is planned on it

    assert observe_on_another_thread(window, card_view(3.0)) is None  # RAM and card both fine
    notice = observe_on_another_thread(window, card_view(0.4))
    assert notice is not None and notice.action == "stopped_admitting" and notice.headroom.signal == "gpu"
    bar = window.memory_notice
    qtbot.waitUntil(bar.isVisible, timeout=10_000)
    assert f"only 410 MiB of GPU memory ({CARD}) is free, less than the 512 MiB safety margin" in bar.label.text()
    with pytest.raises(RequestsPausedError):
        manager.submit(ChatRequest.single_prompt("hello"))
    screenshot(window, "memory-guardian-gpu-paused")

    switcher.apply("zh_CN")
    qtbot.waitUntil(lambda: CARD in bar.label.text() and "GPU 显存" in bar.label.text(), timeout=10_000)
    assert "新的请求已暂停" in bar.label.text() and "GPU memory" not in bar.label.text()
    assert "安全余量。请关闭" in bar.label.text()  # reason and hint joined without an ASCII space after "。"
    assert bar.unload_button.text() != "Unload the model"
    screenshot(window, "memory-guardian-gpu-paused-zh")

    notice = observe_on_another_thread(window, card_view(0.2))
    assert notice is not None and notice.action == "unloaded" and notice.headroom.signal == "gpu"
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.EMPTY, timeout=10_000)
    qtbot.waitUntil(lambda: "模型已被卸载" in bar.label.text(), timeout=10_000)
    assert f"GPU 显存（{CARD}）" in bar.label.text()
    screenshot(window, "memory-guardian-gpu-unloaded-zh")
    switcher.apply("en")
    qtbot.waitUntil(lambda: "The model was unloaded" in bar.label.text(), timeout=10_000)
    assert f"only 205 MiB of GPU memory ({CARD}) was free (the floor is 256 MiB)" in bar.label.text()
    assert manager.engine is None
    screenshot(window, "memory-guardian-gpu-unloaded")
