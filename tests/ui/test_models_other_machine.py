"""The catalog's "will it fit on ...": the badges judged on a built-in machine, then on this computer again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.core.hardware.machine_profiles import find_profile
from app.ui.models.model_texts import fit_badge_text
from tests.ui.models_support import SMALL_MACHINE, UsedModels, make_library, open_dialog

pytestmark = pytest.mark.gui
Shot = Callable[[QWidget, str], Path]
MEDIUM = ("qwen2.5-7b-instruct", "q4_k_m")
HF_VARIANT = ("qwen2.5-7b-instruct", "hf-awq")
WAIT_MS = 20_000


def test_the_catalog_judges_the_fit_on_a_dgx_spark_and_back_on_this_computer(
    qtbot: Any, tmp_path: Path, screenshot: Shot
) -> None:
    library = make_library(tmp_path)
    dialog = open_dialog(qtbot, library, SMALL_MACHINE, UsedModels())
    page, tree = dialog.catalog_page, dialog.catalog_page.tree
    assert page.machine_combo.currentData() is None and page.machine_combo.currentText() == "this computer"
    assert tree.badge_of(MEDIUM) == "Too big" and tree.badge_of(HF_VARIANT) == "Needs vLLM"

    page.machine_combo.setCurrentIndex(page.machine_combo.findData("dgx-spark"))
    qtbot.waitUntil(lambda: tree.badge_of(MEDIUM) == "Fits", timeout=WAIT_MS)
    spark = find_profile("dgx-spark")
    assert spark is not None and page.chosen_profile_report() == spark.report
    request = page.current_request()
    for fit in library.fit_badges(spark.report, request):  # every row is the planner's verdict for the Spark
        assert tree.badge_of((fit.model_id, fit.variant_id)) == fit_badge_text(fit)
    assert tree.badge_of(HF_VARIANT) != "Needs vLLM"  # vLLM runs Hugging Face models there
    assert page.machine_label.text().startswith(spark.title)
    screenshot(dialog, "models-fit-on-dgx-spark")

    page.machine_combo.setCurrentIndex(0)
    qtbot.waitUntil(lambda: tree.badge_of(MEDIUM) == "Too big", timeout=WAIT_MS)
    assert "8.0 GiB memory (6.0 GiB free), no GPU" in page.machine_label.text()
