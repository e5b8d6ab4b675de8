"""Sentences put one after another in the window read as Chinese in Chinese (no ASCII space after "。") and keep
their space in English: the catalog's fit and speed details, a gated download's note, a plan and its automatic
number of chats, the settings' "saved, reloading" line (issue 15, item 7)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.context import AppContext
from app.core.engines.manager import ManagerState
from app.core.models.fit import VariantFit
from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.ui.i18n import LanguageSwitcher, render
from app.ui.main_window import MainWindow
from app.ui.models.download_box import DownloadBox
from app.ui.models.model_texts import fit_reason, speed_detail
from tests.ui.conftest import fake_machine, make_services
from tests.ui.test_i18n_core_texts import type_into

pytestmark = pytest.mark.gui


def capped_tight_slow_fit() -> VariantFit:
    """A badge with every sentence its details can hold: capped, tight, slow, layers left in system memory."""
    return VariantFit("qwen", "q4_k_m", "tight", "llamacpp", 32_768, 1, 9 << 30, 10 << 30, 0.1, 32_768, "",
                      capped=True, decode_bytes_per_token=4 << 30, decode_tok_s=2.5, cpu_layers=3)


def test_the_catalog_details_join_their_sentences_by_language(switcher: LanguageSwitcher) -> None:
    fit = capped_tight_slow_fit()
    english = [fit_reason(fit), speed_detail(fit)]
    assert all(". " in text for text in english), english  # English keeps the space between sentences

    assert switcher.apply("zh_CN") == "zh_CN"
    chinese = [fit_reason(fit), speed_detail(fit)]

    assert all("。" in text and "。 " not in text for text in chinese), chinese
    assert chinese[0].count("。") == 4  # needs, trained length, little left, longest context


def test_a_gated_download_note_joins_its_sentences_by_language(qtbot: Any, switcher: LanguageSwitcher) -> None:
    box = DownloadBox()
    qtbot.addWidget(box)
    box.show_available(gated=True)
    assert box.state_label.text().startswith("Not on this computer yet. Its publisher")

    assert switcher.apply("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: "HF_TOKEN" in box.state_label.text() and "Not on" not in box.state_label.text(),
                    timeout=10_000)

    assert "。 " not in box.state_label.text(), box.state_label.text()


def test_a_plan_and_its_automatic_chats_read_as_two_chinese_sentences(
        switcher: LanguageSwitcher, tiny_gguf: Path) -> None:
    plan = plan_memory(read_model_metadata(tiny_gguf), fake_machine(), PlanRequest("llamacpp", parallel_chats=None))
    assert plan.parallel_chats_reason is not None
    assert ". 1 chat at a time, chosen automatically" in plan.explanation  # English: two sentences, one space

    assert switcher.apply("zh_CN") == "zh_CN"
    shown = render(plan.explanation)

    assert "。一次一个对话，自动选择" in shown and "。，" not in shown and "。 " not in shown, shown


def test_applying_reload_settings_says_so_in_chinese_sentences(
        qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
        switcher: LanguageSwitcher, screenshot: Any) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=60_000)
    assert switcher.apply("zh_CN") == "zh_CN"
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    type_into(qtbot, dialog.panel.editor("engine.parallel_chats"), "2")
    type_into(qtbot, dialog.panel.editor("engine.context_length"), "1024")

    assert dialog.apply()

    said = dialog.apply_result.text()
    assert said.startswith("已保存。正在重新加载模型以应用：") and "。 " not in said, said
    assert "并行对话" in said and "上下文长度" in said and "、" in said, said  # the names listed the Chinese way
    screenshot(dialog, "settings-applied-reload-zh")
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=60_000)
