"""The model manager over a real model library: fit badges on small and large machines, local models, first run."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.core.config import Settings
from app.core.config.declarations import spec_for
from app.core.models.fit import badge_request_from_settings
from app.ui.i18n import LanguageSwitcher
from app.ui.models.model_texts import fit_badge_text
from tests.ui.conftest import fake_machine
from tests.ui.models_support import LARGE_MACHINE, SMALL_MACHINE, UsedModels, make_library, open_dialog

pytestmark = pytest.mark.gui
Shot = Callable[[QWidget, str], Path]
TINY = ("qwen2.5-0.5b-instruct", "q4_k_m")
MEDIUM = ("qwen2.5-7b-instruct", "q4_k_m")
LARGE = ("qwen2.5-32b-instruct", "q4_k_m")
HF_VARIANT = ("qwen2.5-7b-instruct", "hf-awq")
WAIT_MS = 20_000  # fits, files and the library are read on worker threads: generous for a slow, loaded machine


def test_fit_badges_on_a_small_and_a_large_machine(qtbot: Any, tmp_path: Path, screenshot: Shot) -> None:
    library = make_library(tmp_path)
    request = badge_request_from_settings(Settings.defaults())
    small = open_dialog(qtbot, library, SMALL_MACHINE, UsedModels())
    large = open_dialog(qtbot, library, LARGE_MACHINE, UsedModels())

    for dialog, machine in ((small, SMALL_MACHINE), (large, LARGE_MACHINE)):
        tree = dialog.catalog_page.tree
        expected = library.fit_badges(machine, dataclasses.replace(request, context_length=8192))
        assert len(expected) == sum(len(model.variants) for model in library.catalog)
        for fit in expected:  # every row shows the planner's verdict for this machine
            assert tree.badge_of((fit.model_id, fit.variant_id)) == fit_badge_text(fit)
    small_tree, large_tree = small.catalog_page.tree, large.catalog_page.tree
    assert small_tree.badge_of(TINY) == "Fits" and large_tree.badge_of(TINY) == "Fits"
    assert small_tree.badge_of(MEDIUM) == "Too big" and large_tree.badge_of(MEDIUM) == "Fits"
    assert small_tree.badge_of(LARGE) == "Too big" and large_tree.badge_of(LARGE) == "Fits"
    assert small_tree.badge_of(HF_VARIANT) == "Needs vLLM"  # no vLLM on a CPU-only machine
    assert "8.0 GiB memory (6.0 GiB free), no GPU" in small.catalog_page.machine_label.text()

    small_tree.select(MEDIUM)
    details = small.catalog_page.details.text()
    assert "Needs " in details and "8,192 tokens × 1 chat" in details
    assert "does not fit even with a short context" in details
    large_tree.select(MEDIUM)
    assert "Longest context that fits:" in large.catalog_page.details.text()
    screenshot(small, "models-01-small-machine")
    screenshot(large, "models-02-large-machine")

    small.catalog_page.hide_misfits.setChecked(True)
    assert small_tree.is_shown(TINY) and not small_tree.is_shown(MEDIUM) and not small_tree.is_shown(HF_VARIANT)


def test_more_context_and_parallel_chats_change_the_badges(qtbot: Any, tmp_path: Path) -> None:
    dialog = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, UsedModels())
    tree = dialog.catalog_page.tree
    assert tree.badge_of(TINY) == "Fits"

    dialog.catalog_page.context_spin.setValue(32768)
    dialog.catalog_page.chats_spin.setValue(8)

    def judged_for_the_new_request() -> bool:
        fit = tree.fit(TINY)
        return fit is not None and fit.context_length == 32768 and fit.parallel_chats == 8

    qtbot.waitUntil(judged_for_the_new_request, timeout=WAIT_MS)
    assert tree.badge_of(TINY) == "Too big"


def test_speed_beside_the_badge_marks_slow_models_and_a_capped_context_is_named(
    qtbot: Any, tmp_path: Path, screenshot: Shot
) -> None:
    """On a 2-core CPU machine (20 GB/s) a 14B model fits but writes ~2 tok/s: the speed says so, in red.
    At 131,072 tokens a 32K model is judged at its maximum and the badge says it, beside a 128K model's."""
    machine = fake_machine(ram_total_gib=32.0, ram_available_gib=24.0, bandwidth_gb_s=20.0)
    dialog = open_dialog(qtbot, make_library(tmp_path), machine, UsedModels())
    page, tree = dialog.catalog_page, dialog.catalog_page.tree
    fourteen, tiny = ("qwen2.5-14b-instruct", "q4_k_m"), TINY
    assert tree.badge_of(fourteen) == "Fits"
    assert tree.speed_of(fourteen).startswith("≤ ") and tree.speed_of(fourteen).endswith("tok/s · slow")
    assert tree.is_marked_slow(fourteen)
    assert not tree.speed_of(tiny).endswith("slow") and not tree.is_marked_slow(tiny)
    fit = tree.fit(fourteen)
    assert fit is not None and fit.decode_tok_s is not None
    assert tree.speed_of(fourteen) == f"≤ {fit.decode_tok_s:.1f} tok/s · slow"
    assert tree.speed_of(HF_VARIANT) == ""  # it cannot run here at all
    tree.select(fourteen)
    assert "Slower than people read" in page.details.text()
    screenshot(dialog, "models-speed-slow-14b")

    page.context_spin.setValue(131072)
    page.chats_spin.setValue(1)
    qtbot.waitUntil(lambda: (tree.fit(MEDIUM) or fit).context_length == 32768, timeout=WAIT_MS)
    three = ("llama-3.2-3b-instruct", "q4_k_m")
    assert tree.badge_of(MEDIUM) == "Fits at its 32K maximum"
    assert "maximum" not in tree.badge_of(three)  # trained for 128K: judged at the full length
    tree.select(MEDIUM)
    assert "trained for at most 32,768 tokens" in page.details.text()
    tree.scrollToItem(tree.topLevelItem(0))
    screenshot(dialog, "models-capped-context")


def test_the_catalog_boxes_take_the_declared_limits_and_automatic_chats(qtbot: Any, tmp_path: Path) -> None:
    page = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, UsedModels()).catalog_page
    context, chats = spec_for("engine.context_length"), spec_for("engine.parallel_chats")
    assert (page.context_spin.minimum(), page.context_spin.maximum()) == (context.minimum, context.maximum)
    assert (page.chats_spin.minimum(), page.chats_spin.maximum()) == (0, chats.maximum)
    assert page.chats_spin.value() == 0 and page.chats_spin.text() == "Automatic"  # the settings' default
    assert page.current_request().parallel_chats is None
    page.chats_spin.setValue(3)
    assert page.current_request().parallel_chats == 3


def test_adding_using_and_deleting_a_local_model(
    qtbot: Any, tmp_path: Path, tiny_gguf: Path, not_a_model_file: Path
) -> None:
    used = UsedModels()
    library = make_library(tmp_path)
    dialog = open_dialog(qtbot, library, SMALL_MACHINE, used)
    page = dialog.local_page
    dialog.show_local()
    assert page.empty_label.isVisible()

    dialog.ask_model_file = lambda: not_a_model_file
    page.add_file_button.click()
    qtbot.waitUntil(lambda: "is not a model UniDesk can load" in dialog.message.text(), timeout=WAIT_MS)
    assert page.models() == []

    dialog.ask_model_file = lambda: tiny_gguf
    page.add_file_button.click()
    qtbot.waitUntil(lambda: len(page.models()) == 1, timeout=WAIT_MS)
    model = page.models()[0]
    assert model.path == str(tiny_gguf.resolve()) and not model.managed
    assert page.selected_model() == model and not page.empty_label.isVisible()

    page.use_button.click()
    assert used.paths == [tiny_gguf.resolve()]
    assert not dialog.isVisible()  # loading goes on in the window

    dialog.open_manager()
    dialog.show_local()
    qtbot.waitUntil(lambda: len(page.models()) == 1, timeout=WAIT_MS)
    page.select(model.id)
    dialog.confirm_delete = lambda chosen: chosen.id == model.id
    page.delete_button.click()
    qtbot.waitUntil(lambda: page.models() == [], timeout=WAIT_MS)
    assert tiny_gguf.exists()  # the user's own file is never deleted
    assert library.local.models() == ()


def test_a_refused_load_says_why(qtbot: Any, tmp_path: Path, tiny_gguf: Path) -> None:
    library = make_library(tmp_path)
    library.add_local(tiny_gguf)
    dialog = open_dialog(qtbot, library, SMALL_MACHINE, UsedModels(accept=False))
    dialog.show_local()
    qtbot.waitUntil(lambda: len(dialog.local_page.models()) == 1, timeout=WAIT_MS)
    dialog.local_page.select(dialog.local_page.models()[0].id)
    dialog.local_page.use_button.click()
    assert dialog.isVisible()
    assert "Another model is loading" in dialog.message.text()


def test_first_run_says_nothing_leaves_the_machine_and_offers_both_ways(
    qtbot: Any, tmp_path: Path, tiny_gguf: Path, screenshot: Shot
) -> None:
    used = UsedModels()
    dialog = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, used, first_run=True)
    page = dialog.first_run
    assert dialog.stack.currentWidget() is page
    assert "Nothing you type, ask or add leaves this machine" in page.privacy.text()
    assert "works offline" in page.offline.text()
    screenshot(dialog, "models-03-first-run")

    page.browse_button.click()
    assert dialog.stack.currentWidget() is dialog.tabs and dialog.tabs.currentWidget() is dialog.catalog_page

    dialog.stack.setCurrentWidget(page)
    dialog.ask_model_file = lambda: tiny_gguf
    page.own_file_button.click()
    qtbot.waitUntil(lambda: used.paths == [tiny_gguf.resolve()], timeout=WAIT_MS)


def test_the_word_after_the_chats_box_agrees_with_its_number(qtbot: Any, tmp_path: Path) -> None:
    page = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, UsedModels()).catalog_page
    page.chats_spin.setValue(1)
    assert page.chats_label.text() == "parallel chat"  # "× 1 parallel chat", not "× 1 parallel chats"
    page.chats_spin.setValue(4)
    assert page.chats_label.text() == "parallel chats"


def test_a_mixture_of_experts_says_its_active_parameters_in_chinese(
    qtbot: Any, tmp_path: Path, switcher: LanguageSwitcher
) -> None:
    tree = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, UsedModels()).catalog_page.tree
    row = next(tree.topLevelItem(index) for index in range(tree.topLevelItemCount())
               if "30B-A3B" in tree.topLevelItem(index).text(0))
    assert row.text(0).endswith("30.5B (3.3B active) parameters")
    assert switcher.apply("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: "active" not in row.text(0), timeout=WAIT_MS)
    assert "3.3B" in row.text(0) and "激活" in row.text(0)


def test_the_installed_list_marks_the_loaded_model(
    qtbot: Any, tmp_path: Path, tiny_gguf: Path, switcher: LanguageSwitcher
) -> None:
    from app.ui.models.model_manager_dialog import ModelManagerDialog

    used = UsedModels()
    library = make_library(tmp_path)
    dialog = ModelManagerDialog(library, lambda: SMALL_MACHINE, Settings.defaults, used,
                                loaded_model=lambda: tiny_gguf)
    qtbot.addWidget(dialog)
    dialog.open_manager()
    qtbot.waitExposed(dialog)
    dialog.show_local()
    dialog.ask_model_file = lambda: tiny_gguf
    dialog.local_page.add_file_button.click()
    qtbot.waitUntil(lambda: len(dialog.local_page.models()) == 1, timeout=WAIT_MS)
    row = dialog.local_page.list.topLevelItem(0)
    assert row.text(0).endswith("(loaded)") and row.font(0).bold()
    assert switcher.apply("zh_CN") == "zh_CN"  # the mark was dropped when the list was rewritten in Chinese
    qtbot.waitUntil(lambda: dialog.local_page.use_button.text() == "使用此模型", timeout=WAIT_MS)
    row = dialog.local_page.list.topLevelItem(0)
    assert row.text(0).endswith("（已加载）") and row.font(0).bold()


def test_every_built_in_machine_has_a_translatable_title() -> None:
    from app.core.hardware.machine_profiles import machine_profiles
    from app.ui.models.model_texts import MACHINE_TITLES

    assert {profile.title for profile in machine_profiles()} <= set(MACHINE_TITLES)


def test_the_catalog_judges_the_settings_as_the_engine_would_load_them_gpu_layers_included(
    qtbot: Any, tmp_path: Path
) -> None:
    """The dialog's badges come from the one settings -> plan request function the engine manager uses:
    8 GPU layers in the settings leave the rest of a 4B model on the CPU, and the badge says so."""
    from app.core.models import variant_metadata
    from app.core.planner import plan_memory
    from app.core.planner.from_settings import plan_request_from_settings
    from tests.core.planner.fake_hardware import rtx4090

    settings = Settings.defaults().with_changes({"engine.gpu_layers": 8, "engine.context_length": 8192,
                                                 "engine.parallel_chats": 2})
    machine = rtx4090()
    dialog = open_dialog(qtbot, make_library(tmp_path), machine, UsedModels(), settings)
    key = ("qwen3-4b", "q4_k_m")
    fit = dialog.catalog_page.tree.fit(key)
    model, variant = dialog.library.catalog.find(*key)
    engine_request = plan_request_from_settings(settings, "llamacpp")
    engine_plan = plan_memory(variant_metadata(model, variant), machine, engine_request)
    assert fit is not None and fit.badge == "tight" and "only 8 of" in fit.reason
    assert (fit.needed_bytes, fit.parallel_chats, fit.context_length) == (
        engine_plan.total_bytes, engine_plan.parallel_chats, engine_plan.context_length)
    assert dialog.catalog_page.tree.badge_of(key) == "Tight"
    assert fit.decode_tok_s == engine_plan.decode_tok_s_roofline_empty
    dialog.catalog_page.tree.select(key)
    assert f"{fit.cpu_layers} of its layers stay in system memory" in dialog.catalog_page.details.text()
    assert dialog.catalog_page.tree.speed_of(key).endswith("tok/s · part on CPU")


def test_the_model_manager_fits_a_900_pixel_wide_screen(
    qtbot: Any, tmp_path: Path, switcher: LanguageSwitcher, screenshot: Shot
) -> None:
    """The catalog's controls sat on one row with the machine box as wide as its longest title: the dialog
    needed about 1,190 pixels. The machine is on a row of its own and its box sized for a short title."""
    dialog = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, UsedModels())
    for language, title in (("en", "Models"), ("zh_CN", "模型")):
        assert switcher.apply(language) == language
        qtbot.waitUntil(lambda title=title: dialog.windowTitle() == title, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: dialog.minimumSizeHint().width() <= 900, timeout=WAIT_MS)
        dialog.resize(900, 600)
        qtbot.waitUntil(lambda: dialog.width() == 900, timeout=WAIT_MS)
        page = dialog.catalog_page
        assert page.machine_combo.isVisible() and page.hide_misfits.isVisible()
        combo_right = page.machine_combo.mapTo(dialog, page.machine_combo.rect().topRight()).x()
        hide_right = page.hide_misfits.mapTo(dialog, page.hide_misfits.rect().topRight()).x()
        assert combo_right < dialog.width() and hide_right < dialog.width()
        screenshot(dialog, f"models-900-{language}")
