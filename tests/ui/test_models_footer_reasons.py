"""The model manager's footer gives a failed download's reason in the window's language (it showed the core's
English inside a Chinese sentence)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.ui.i18n import LanguageSwitcher
from tests.ui.i18n_support import english_left
from tests.ui.models_support import NOWHERE, SMALL_MACHINE, UsedModels, make_library, open_dialog

pytestmark = pytest.mark.gui
Shot = Callable[[QWidget, str], Path]
KEY = ("qwen2.5-0.5b-instruct", "q4_k_m")


def test_a_failed_download_says_why_in_chinese(
        qtbot: Any, tmp_path: Path, switcher: LanguageSwitcher, screenshot: Shot) -> None:
    dialog = open_dialog(qtbot, make_library(tmp_path, NOWHERE), SMALL_MACHINE, UsedModels())
    switcher.apply("zh_CN")
    qtbot.waitUntil(lambda: dialog.windowTitle() != "Models", timeout=5_000)
    dialog.catalog_page.tree.select(KEY)
    dialog.catalog_page.download_box.download_button.click()
    qtbot.waitUntil(lambda: dialog.message.isVisible() and "下载失败" in dialog.message.text(), timeout=60_000)
    footer = dialog.message.text()
    host = NOWHERE.split("//", 1)[1]
    assert english_left([footer], [host, "Qwen2.5-0.5B-Instruct", "Qwen2.5", "Instruct", "Q4_K_M", "q4_k_m",
                                   "model.download_source", "ModelScope"]) == [], footer
    screenshot(dialog, "models-footer-download-failed-zh")
