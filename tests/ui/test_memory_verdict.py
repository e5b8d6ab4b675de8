"""The live memory verdict: follows edits on a (faked) small machine, suggests settings that really fit,
and only the newest edit's verdict is shown."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from app.context import AppContext
from app.core.config import Settings
from app.core.planner import plan_memory, read_model_metadata
from app.core.planner.from_settings import plan_request_from_settings
from app.ui.settings.path_field import PathField
from app.ui.settings.setting_editor import SettingEditor
from app.ui.settings.setting_spin_box import SettingSpinBox
from app.ui.settings.settings_dialog import SettingsDialog
from app.ui.settings.verdict_calculator import DEBOUNCE_MS
from app.ui.settings.verdict_planning import format_tokens
from tests.fixtures.models import GgufFactory, ModelShape
from tests.ui.conftest import GIB, fake_machine, make_services

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
LONG_CONTEXT = 131072
LONG_CONTEXT_SHAPE = ModelShape(n_layers=2, n_embd=64, n_heads=4, n_kv_heads=2, n_ff=128, n_ctx_train=LONG_CONTEXT)
RESERVE_GIB = 4.0  # engine.os_reserve_gib's default
WAIT_MS = 20_000  # planning runs on a worker thread: generous for a slow, loaded machine


@pytest.fixture(scope="module")
def long_context_model(tiny_gguf_factory: GgufFactory) -> Path:
    """A tiny model trained for 128K tokens: its KV cache (32 MiB per chat at full context) decides the fit."""
    return tiny_gguf_factory(LONG_CONTEXT_SHAPE, "f32")


def _available_between(model: Path, fits_chats: int, short_chats: int) -> float:
    """RAM available (GiB) on a machine where ``fits_chats`` chats at 128K fit and ``short_chats`` do not,
    worked out with the planner itself."""
    metadata = read_model_metadata(model)
    roomy = fake_machine(ram_total_gib=64, ram_available_gib=60)
    settings = Settings({"engine.context_length": LONG_CONTEXT})
    requests = [plan_request_from_settings(settings, "llamacpp", parallel_chats=chats)
                for chats in (fits_chats, short_chats)]
    totals = [plan_memory(metadata, roomy, request).total_bytes for request in requests]
    return RESERVE_GIB + (totals[0] + totals[1]) / 2 / GIB


@pytest.fixture
def small_machine_dialog(
    qtbot: Any, app_context: AppContext, long_context_model: Path
) -> Iterator[tuple[SettingsDialog, float]]:
    available_gib = _available_between(long_context_model, fits_chats=4, short_chats=16)
    services = make_services(app_context, fake_machine(ram_total_gib=8, ram_available_gib=available_gib))
    dialog = SettingsDialog(services, lambda _settings: "Saved.")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    yield dialog, available_gib
    dialog.calculator.wait(WAIT_MS)


def _type(qtbot: Any, editor: SettingEditor, text: str) -> None:
    control = editor.control
    field = control.lineEdit() if isinstance(control, SettingSpinBox) else (
        control.line_edit if isinstance(control, PathField) else control
    )
    assert isinstance(field, QLineEdit)
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, text)


def _wait_for_verdict(qtbot: Any, dialog: SettingsDialog, check: Callable[[Any], bool]) -> Any:
    def ready() -> bool:
        verdict = dialog.verdict_view.verdict
        return verdict is not None and verdict.plan is not None and check(verdict)

    qtbot.waitUntil(ready, timeout=WAIT_MS)
    return dialog.verdict_view.verdict


def test_verdict_follows_edits_and_suggests_settings_that_fit(
    qtbot: Any, small_machine_dialog: tuple[SettingsDialog, float], long_context_model: Path, screenshot: Shot
) -> None:
    dialog, _ = small_machine_dialog
    panel = dialog.panel
    _type(qtbot, panel.editor("model.path"), str(long_context_model))
    _type(qtbot, panel.editor("engine.context_length"), str(LONG_CONTEXT))
    _type(qtbot, panel.editor("engine.parallel_chats"), "4")
    verdict = _wait_for_verdict(qtbot, dialog, lambda v: v.plan.parallel_chats == 4)
    assert verdict.plan.fits and dialog.verdict_view.fits is True
    assert dialog.verdict_view.headline.text().startswith("Fits: ")
    panel.section_list.setCurrentRow(1)
    screenshot(dialog, "05-settings-verdict-fits")

    _type(qtbot, panel.editor("engine.parallel_chats"), "16")
    verdict = _wait_for_verdict(qtbot, dialog, lambda v: v.plan.parallel_chats == 16)
    assert not verdict.plan.fits and dialog.verdict_view.fits is False
    headline = dialog.verdict_view.headline.text()
    assert headline.startswith("Needs ")
    assert verdict.context_alternative is not None and verdict.chats_alternative is not None
    assert f"lower context to {format_tokens(verdict.context_alternative)}" in headline
    assert f"parallel chats to {verdict.chats_alternative}" in headline
    # The suggestions are real: each fits on this machine, and the setting asked for does not.
    metadata = read_model_metadata(long_context_model)
    hardware = verdict.hardware
    edited = panel.settings_for_planning()
    request = plan_request_from_settings(edited, "llamacpp")
    assert not plan_memory(metadata, hardware, request).fits
    shorter = dataclasses.replace(request, context_length=verdict.context_alternative)
    fewer = dataclasses.replace(request, parallel_chats=verdict.chats_alternative)
    assert plan_memory(metadata, hardware, shorter).fits
    assert verdict.context_alternative < LONG_CONTEXT
    assert plan_memory(metadata, hardware, fewer).fits
    assert 4 <= verdict.chats_alternative < 16
    screenshot(dialog, "06-settings-verdict-does-not-fit")


def test_only_the_newest_edit_is_planned_and_shown(
    qtbot: Any, small_machine_dialog: tuple[SettingsDialog, float], long_context_model: Path
) -> None:
    dialog, _ = small_machine_dialog
    panel = dialog.panel
    _type(qtbot, panel.editor("model.path"), str(long_context_model))
    chats = panel.editor("engine.parallel_chats").control
    assert isinstance(chats, SettingSpinBox)
    changes = range(2, 11)
    started = dialog.calculator.requests_started
    began = time.monotonic()
    for count in changes:  # no event processing in between: the debounce timer cannot fire mid-loop
        chats.setValue(count)
    edited_for_ms = (time.monotonic() - began) * 1000
    verdict = _wait_for_verdict(qtbot, dialog, lambda v: v.model_path == long_context_model)
    assert verdict.plan.parallel_chats == 10
    runs = dialog.calculator.requests_started - started
    # Not one plan per edit: at most one per debounce interval the edits spanned (plus the last one),
    # however fast or slow the machine ran the loop, and far fewer than the edits.
    assert 1 <= runs <= edited_for_ms / DEBOUNCE_MS + 2
    assert runs * 3 <= len(changes)
    qtbot.wait(400)
    assert dialog.verdict_view.verdict is verdict  # nothing older arrived afterwards


def test_a_file_that_is_not_a_model_gets_a_reason_not_a_verdict(
    qtbot: Any, small_machine_dialog: tuple[SettingsDialog, float], not_a_model_file: Path
) -> None:
    dialog, _ = small_machine_dialog
    _type(qtbot, dialog.panel.editor("model.path"), str(not_a_model_file))
    qtbot.waitUntil(lambda: dialog.verdict_view.verdict is not None
                    and dialog.verdict_view.verdict.model_path == not_a_model_file, timeout=WAIT_MS)
    assert dialog.verdict_view.fits is False
    assert "not a GGUF file" in dialog.verdict_view.detail.text()
