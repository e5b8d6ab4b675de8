"""The Help menu on a real window: About lists the parts, the report goes to the clipboard without secrets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QMessageBox

from app.core.config import Settings
from app.ui.help_menu import HelpMenu


def _menu(qtbot: Any, tmp_path: Path, settings: Settings) -> tuple[QMainWindow, HelpMenu]:
    window = QMainWindow()
    qtbot.addWidget(window)
    log_file = tmp_path / "logs" / "unidesk.log"
    log_file.parent.mkdir()
    log_file.write_text("INFO app.main: UniDesk 0.1.0 starting (command: gui)\n", encoding="utf-8")
    return window, HelpMenu(window, log_file=log_file, hardware=lambda: None, settings=lambda: settings)


def test_help_menu_has_its_three_items_in_the_menu_bar(qtbot: Any, tmp_path: Path) -> None:
    window, menu = _menu(qtbot, tmp_path, Settings.defaults())
    titles = [action.text() for action in window.menuBar().actions()]
    assert "&Help" in titles
    assert [action.objectName() for action in menu.menu.actions()] == [
        "aboutAction", "openLogFolderAction", "copyReportAction"]


def test_about_names_the_version_and_each_part_with_its_licence(qtbot: Any, tmp_path: Path) -> None:
    _, menu = _menu(qtbot, tmp_path, Settings.defaults())
    text = menu.about_text()
    assert "UniDesk 0.1.0" in text
    assert "llama_cpp_python" in text and "MIT" in text and "PySide6-Essentials" in text


def test_copy_report_puts_it_on_the_clipboard_without_the_api_key(qtbot: Any, tmp_path: Path) -> None:
    settings = Settings.defaults().with_changes({"engine.remote_api_key": "sk-do-not-leak"})
    window, menu = _menu(qtbot, tmp_path, settings)
    menu.report_action.trigger()
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("UniDesk ") and "UniDesk 0.1.0 starting" in copied
    assert "sk-do-not-leak" not in copied
    assert "clipboard" in window.statusBar().currentMessage()


def test_log_folder_says_where_it_is_when_the_system_cannot_open_it(
    qtbot: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    shown: list[str] = []
    monkeypatch.setattr("app.ui.help_menu.QDesktopServices.openUrl", lambda url: False)
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: shown.append(text))
    _, menu = _menu(qtbot, tmp_path, Settings.defaults())
    assert menu.open_log_folder() is False
    assert shown and str(tmp_path / "logs") in shown[0]
