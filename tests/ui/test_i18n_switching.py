"""Switching the language at runtime: the knowledge-base panel and the model manager speak Chinese (no English
left but names of files, models and formats) and back, without losing what they show."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication, QWidget

from app.ui.i18n import LanguageSwitcher, resolve_language, translation_file
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from app.ui.knowledge.knowledge_dock import KnowledgeDock
from app.ui.knowledge.knowledge_texts import failure_detail
from app.ui.models.model_manager_dialog import ModelManagerDialog
from tests.fixtures.documents import write_corrupt_pdf, write_pdf
from tests.ui.i18n_support import english_left, has_cjk_font, visible_texts
from tests.ui.knowledge_support import knowledge_access, wait_until_indexed
from tests.ui.models_support import SMALL_MACHINE, UsedModels, make_library, open_dialog

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # worker threads (fits, local models) and posted LanguageChange events: generous for a loaded machine


@pytest.fixture
def access(tmp_path: Path) -> Iterator[KnowledgeAccess]:
    opened = knowledge_access(tmp_path / "kb")
    yield opened
    opened.close()


def test_the_system_language_decides_and_explicit_choices_win() -> None:
    assert resolve_language("system", QLocale("zh_CN")) == "zh_CN"
    assert resolve_language("system", QLocale("zh_TW")) == "zh_CN"  # the only Chinese translation there is
    assert resolve_language("system", QLocale("en_GB")) == "en"
    assert resolve_language("system", QLocale("de_DE")) == "en"
    assert resolve_language("en", QLocale("zh_CN")) == "en"
    assert resolve_language("zh_CN", QLocale("en_US")) == "zh_CN"
    assert translation_file("zh_CN").is_file()


def test_switching_to_chinese_and_back_keeps_state(
    qtbot: Any, tmp_path: Path, switcher: LanguageSwitcher, access: KnowledgeAccess, tiny_gguf: Path,
    screenshot: Shot,
) -> None:
    pdf = write_pdf(tmp_path / "docs" / "harbour-notes.pdf", [["Ships enter the harbour at high tide."]])
    broken = write_corrupt_pdf(tmp_path / "docs" / "broken-scan.pdf")
    panel = KnowledgeBasePanel(access)
    dock = KnowledgeDock(panel)
    dock.resize(520, 640)
    qtbot.addWidget(dock)
    dock.show()
    panel.start()
    panel.add_paths([pdf, broken])
    wait_until_indexed(qtbot, panel, [pdf, broken])
    panel.table.select_path(str(broken))
    library = make_library(tmp_path / "library")
    own_model = library.add_local(tiny_gguf)
    dialog = open_dialog(qtbot, library, SMALL_MACHINE, UsedModels())
    key = ("qwen2.5-0.5b-instruct", "q4_k_m")
    dialog.catalog_page.tree.select(key)
    dialog.catalog_page.chats_spin.setValue(2)
    qtbot.waitUntil(lambda: (fit := dialog.catalog_page.tree.fit(key)) is not None and fit.parallel_chats == 2,
                    timeout=WAIT_MS)
    first_run = ModelManagerDialog(library, lambda: SMALL_MACHINE, dialog._settings, UsedModels())
    qtbot.addWidget(first_run)
    first_run.open_manager(first_run=True)
    rows_before = [record.id for record in panel.table.records()]
    failed = next(record for record in panel.table.records() if record.path == str(broken))

    assert switcher.apply("zh_CN") == "zh_CN"

    # Qt posts the LanguageChange events, one to each window (the dock and the two dialogs)
    qtbot.waitUntil(lambda: panel.add_files_button.text() != "Add files…" and dialog.windowTitle() != "Models"
                    and first_run.windowTitle() != "Models", timeout=WAIT_MS)
    assert dock.windowTitle() == "知识库" and panel.add_files_button.text() == "添加文件…"
    assert panel.table.status_of(str(broken)) == "失败：文件已损坏"
    assert dialog.windowTitle() == "模型" and dialog.catalog_page.tree.badge_of(key) == "合适"
    assert "1 个对话" not in dialog.catalog_page.details.text() and "2 个并行对话" in dialog.catalog_page.details.text()
    assert first_run.first_run.privacy.text().startswith("你输入、提问或添加的任何内容都不会离开本机")
    data = [str(pdf.parent), str(tmp_path), pdf.name, broken.name, failure_detail(failed)]
    data += [text for model in library.catalog for text in (model.name, model.license, model.parameters, model.summary)]
    data += [variant.quantization for model in library.catalog for variant in model.variants]
    data += [own_model.name, own_model.path]
    for widget in (dock, dialog, first_run):
        assert english_left(visible_texts(widget), data) == [], widget.objectName()
    dialog.show_local()
    qtbot.waitUntil(lambda: len(dialog.local_page.models()) == 1, timeout=WAIT_MS)
    assert english_left(visible_texts(dialog), data) == []
    if has_cjk_font():
        screenshot(dialog, "zh-04-local-models")
    dialog.show_catalog()
    if has_cjk_font():
        screenshot(dock, "zh-01-knowledge-base")
        screenshot(dialog, "zh-02-model-manager")
        screenshot(first_run, "zh-03-first-run")

    assert switcher.apply("en") == "en"

    qtbot.waitUntil(lambda: panel.add_files_button.text() != "添加文件…" and dialog.windowTitle() == "Models",
                    timeout=WAIT_MS)
    assert panel.add_files_button.text() == "Add files…" and dock.windowTitle() == "Knowledge base"
    assert panel.table.status_of(str(broken)) == "Failed: damaged file"
    assert [record.id for record in panel.table.records()] == rows_before
    assert [record.path for record in panel.table.selected_records()] == [str(broken)]
    assert "Not indexed: damaged file." in panel.details.text()
    assert dialog.catalog_page.tree.selected_key() == key and dialog.catalog_page.chats_spin.value() == 2
    assert dialog.catalog_page.tree.badge_of(key) == "Fits"
    assert english_left(visible_texts(dialog), data)  # English again
    panel.shutdown()


def test_a_missing_translation_file_keeps_english(qapp: Any, tmp_path: Path) -> None:
    switcher = LanguageSwitcher(qapp, translations_dir=tmp_path)
    try:
        assert switcher.apply("zh_CN") == "en"
        assert QApplication.translate("KnowledgeBasePanel", "Add files…") == "Add files…"
    finally:
        switcher.deleteLater()
