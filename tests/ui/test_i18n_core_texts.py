"""The core's own words speak Chinese in the window (issue #8): setting tooltips and refusals, the memory verdict,
the machine summary on the welcome page, a citation chip's page and a user-facing error notice, and switching back
shows the very English the CLI prints."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

import tests.core.hardware.hardware_machines as machines
from app.context import AppContext
from app.core.chat.records import Citation
from app.core.engines.base import ModelLoadError
from app.core.engines.selection import select_backend
from app.core.hardware import format_report, probe_hardware
from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.ui.chat.chat_notice import ChatNotice
from app.ui.chat.citation_chip import CitationChip
from app.ui.i18n import LanguageSwitcher, render
from app.ui.settings.memory_verdict_view import MemoryVerdictView
from app.ui.settings.path_field import PathField
from app.ui.settings.setting_double_spin_box import SettingDoubleSpinBox
from app.ui.settings.setting_editor import SettingEditor
from app.ui.settings.setting_spin_box import SettingSpinBox
from app.ui.settings.settings_dialog import SettingsDialog
from app.ui.settings.verdict_planning import Verdict
from app.ui.welcome.welcome_page import WelcomePage
from tests.ui.conftest import fake_machine, make_services
from tests.ui.core_texts_support import data_in, english_words_left
from tests.ui.test_i18n_main_views import TECHNICAL_NAMES

pytestmark = pytest.mark.gui

PROBE_NAMES = ["NVML", "CUDA", "/sys/class/drm", "NVIDIA", "AMD", "Apple"]
"""A library, a driver, a folder and makers the machine's evidence names in every language."""
WAIT_MS = 20_000
"""Generous for a slow, loaded machine: retranslating every widget, and the verdict's worker thread."""


def switch(qtbot: Any, switcher: LanguageSwitcher, language: str, written: Callable[[], bool]) -> None:
    """Switch to ``language`` and wait until Qt's LanguageChange events have rewritten the widgets."""
    assert switcher.apply(language) == language
    qtbot.waitUntil(written, timeout=WAIT_MS)


def type_into(qtbot: Any, editor: SettingEditor, text: str) -> None:
    control = editor.control
    field = control.lineEdit() if isinstance(control, (SettingSpinBox, SettingDoubleSpinBox)) else (
        control.line_edit if isinstance(control, PathField) else control)
    assert isinstance(field, QLineEdit)
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, text)


def test_setting_tooltips_and_refusals_speak_chinese(
    qtbot: Any, app_context: AppContext, switcher: LanguageSwitcher
) -> None:
    dialog = SettingsDialog(make_services(app_context, fake_machine()), lambda _settings: "Saved.")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.panel.show_advanced(True)
    chats, overlap = dialog.panel.editor("engine.parallel_chats"), dialog.panel.editor("kb.chunk_overlap_tokens")
    type_into(qtbot, chats, "70")
    type_into(qtbot, overlap, "600")  # more than the chunk size: a rule between two settings
    english = {key: editor.control.toolTip() for key, editor in dialog.panel.editors.items()}
    assert english["engine.parallel_chats"].endswith("\nAllowed: a whole number from 1 to 64, or 0 for automatic.")
    assert chats.error_label.text() == ("70 is above the maximum 64 (or 0 for automatic). "
                                        "Allowed: a whole number from 1 to 64, or 0 for automatic.")
    assert overlap.error_label.text().startswith("600 is not smaller than kb.chunk_tokens = 512. Change one of: ")

    switch(qtbot, switcher, "zh_CN", lambda: dialog.windowTitle() == "设置")

    assert chats.control.toolTip().endswith("\n允许的值：1 到 64 之间的整数，或 0 表示自动。")
    assert chats.error_label.text() == ("70 高于最大值 64（或 0 表示自动）。"
                                        "允许的值：1 到 64 之间的整数，或 0 表示自动。")
    assert overlap.error_label.text().startswith("600 不小于 kb.chunk_tokens = 512。请修改其中之一：")
    names = [*TECHNICAL_NAMES, "kb.chunk_tokens", "kb.chunk_overlap_tokens"]
    for key, editor in dialog.panel.editors.items():
        assert english_words_left([editor.control.toolTip(), editor.error_label.text()], names) == [], key

    switch(qtbot, switcher, "en", lambda: dialog.windowTitle() == "Settings")
    assert {key: editor.control.toolTip() for key, editor in dialog.panel.editors.items()} == english
    assert chats.error_label.text() == ("70 is above the maximum 64 (or 0 for automatic). "
                                        "Allowed: a whole number from 1 to 64, or 0 for automatic.")
    dialog.calculator.wait(WAIT_MS)


def test_the_memory_verdict_speaks_chinese(qtbot: Any, switcher: LanguageSwitcher, tiny_gguf: Path) -> None:
    model = read_model_metadata(tiny_gguf)
    roomy, starved = fake_machine(), fake_machine(ram_total_gib=8, ram_available_gib=4.001)
    views = []
    for machine in (roomy, starved):
        plan = plan_memory(model, machine, PlanRequest("llamacpp", 512, 2))
        view = MemoryVerdictView()
        qtbot.addWidget(view)
        view.show_verdict(Verdict(tiny_gguf, select_backend(tiny_gguf, "auto", machine), None, plan,
                                  hardware=machine))
        assert view.detail.text() == plan.explanation  # the CLI's English
        views.append((view, plan))
    assert [plan.fits for _, plan in views] == [True, False]

    switch(qtbot, switcher, "zh_CN", lambda: all(view.detail.text() != plan.explanation for view, plan in views))

    fitting, short = (view.detail.text() for view, _ in views)
    assert fitting.startswith("512 词元 × 2 个对话可以装下") and "空闲" in fitting
    assert short.startswith("即使是") and "本机装不下这个模型" in short
    for view, plan in views:
        assert english_words_left([view.headline.text(), view.detail.text()], data_in(plan.explanation)) == []

    switch(qtbot, switcher, "en", lambda: all(view.detail.text() == plan.explanation for view, plan in views))


def test_the_machine_summary_on_the_welcome_page_speaks_chinese(
    qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path
) -> None:
    report = probe_hardware(machines.cpu_only_server(tmp_path).sources, measure_bandwidth=False)
    summary = format_report(report)
    page = WelcomePage()
    qtbot.addWidget(page)
    page.set_machine_summary(summary)
    assert page.machine_summary.text() == summary

    switch(qtbot, switcher, "zh_CN", lambda: page.machine_title.text() == "本机")

    shown = page.machine_summary.text().splitlines()
    assert [line.split()[0] for line in shown if not line.startswith(" ")] == [
        "操作系统", "CPU", "内存", "GPU", "统一内存", "带宽", "后端"]
    assert "4 核 / 8 线程" in shown[1]
    assert "- 结论：无 GPU；模型在 CPU 上使用系统内存运行" in [line.strip() for line in shown]
    assert shown[-1].endswith("llamacpp（无 GPU：llama.cpp 在 CPU 上运行模型。）")
    assert english_words_left(shown, [*data_in(summary), *PROBE_NAMES]) == []

    switch(qtbot, switcher, "en", lambda: page.machine_title.text() == "This machine")
    assert page.machine_summary.text() == summary


def test_a_citation_chip_names_the_page_in_chinese(qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path) -> None:
    citation = Citation(2, str(tmp_path / "report.pdf"), 3, "Intro", 7, True, "The cable is 42 km long.")
    chip = CitationChip(citation)
    qtbot.addWidget(chip)
    assert chip.text() == "[2] report.pdf, p. 3, Intro" == f"[2] {citation.label}"

    switch(qtbot, switcher, "zh_CN", lambda: chip.open_action.text() == "打开文件")

    assert chip.text() == "[2] report.pdf，第 3 页，Intro"
    assert "[2] report.pdf，第 3 页，Intro" in chip.toolTip() and "(第 3 页)" in chip.toolTip()

    switch(qtbot, switcher, "en", lambda: chip.open_action.text() == "Open the file")
    assert chip.text() == "[2] report.pdf, p. 3, Intro"


def test_a_user_facing_error_notice_speaks_chinese(qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path) -> None:
    folder = tmp_path / "hf-model"
    folder.mkdir()
    with pytest.raises(ModelLoadError) as caught:
        select_backend(folder, "llamacpp", fake_machine())
    error = caught.value
    notice = ChatNotice()
    qtbot.addWidget(notice)
    notice.resize(1200, 40)
    notice.show_notice("error", str(error))
    assert notice.full_text == str(error) == (
        "hf-model is a Hugging Face model folder, which llama.cpp cannot load. "
        "Choose a .gguf file, or set the backend to auto or vLLM.")

    switch(qtbot, switcher, "zh_CN", lambda: notice.close_button.toolTip() == "关闭提示")

    assert notice.full_text.startswith("hf-model 是 Hugging Face 模型文件夹，llama.cpp 无法加载。请选择")
    assert "。 " not in notice.full_text  # Chinese takes no space after its full stop (English keeps its own)
    assert notice.label.toolTip() == notice.full_text == render(str(error))
    assert english_words_left([notice.full_text], ["hf-model", *TECHNICAL_NAMES]) == []

    switch(qtbot, switcher, "en", lambda: notice.close_button.toolTip() == "Dismiss")
    assert notice.full_text == str(error)


def test_a_failed_documents_reason_speaks_chinese(qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path) -> None:
    from app.core.kb.catalog import DocumentRecord, DocumentStatus
    from app.core.kb.parsers import parse_document
    from app.core.kb.parsers.errors import DocumentError
    from app.ui.knowledge.document_table import DocumentTable
    from app.ui.knowledge.knowledge_texts import failure_detail

    path = tmp_path / "data.txt"
    path.write_bytes(b"ab\x00cd" * 20)
    with pytest.raises(DocumentError) as caught:
        parse_document(path)
    stored = str(str(caught.value))  # the knowledge base keeps plain English
    record = DocumentRecord(1, str(path), None, None, 100, 0, None, None, 0, 0, DocumentStatus.FAILED, "binary",
                            stored, None, 0.0, 0.0)
    table = DocumentTable()
    qtbot.addWidget(table)
    table.show_documents([record])
    english = stored.removeprefix(f"{path}: ")
    assert failure_detail(record) == english and table.topLevelItem(0).toolTip(1) == english

    switch(qtbot, switcher, "zh_CN", lambda: failure_detail(record) != english)

    assert failure_detail(record) == ("这不是文本文件：其中含有 NUL 字节，而文本文件从不含有这种字节。"
                                      "只能添加文本类文档；如果它是文档，请另存为文本、PDF 或 DOCX。")
    assert english_words_left([failure_detail(record)], ["NUL", "PDF", "DOCX"]) == []

    switch(qtbot, switcher, "en", lambda: failure_detail(record) == english)


def test_a_model_download_error_speaks_chinese(qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path) -> None:
    from app.core.models.downloads import check_disk_space
    from app.core.models.errors import NotEnoughDiskSpaceError
    from app.core.models.progress import DownloadProgress
    from app.ui.models.model_texts import download_state_text

    with pytest.raises(NotEnoughDiskSpaceError) as caught:
        check_disk_space(tmp_path, 1 << 60, "Qwen3 8B", margin_bytes=0)
    progress = DownloadProgress(state="failed", message=str(caught.value))
    assert download_state_text(progress) == f"The download failed: {caught.value}"

    switch(qtbot, switcher, "zh_CN", lambda: download_state_text(progress).startswith("下载失败"))

    shown = download_state_text(progress)
    assert "磁盘空间不足，无法下载 Qwen3 8B：还需要 " in shown and "请释放磁盘空间" in shown
    assert english_words_left([shown], [*data_in(str(caught.value)), "model.folder"]) == []

    switch(qtbot, switcher, "en", lambda: download_state_text(progress) == f"The download failed: {caught.value}")
