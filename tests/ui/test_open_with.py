""""Open with UniDesk": files named on the command line go to the knowledge base, also through a running window."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.cli.home_access import ask_window_to_front
from app.cli.open_files import split_open_files
from app.core.config.home_lock import window_channel_path
from app.core.config.paths import AppPaths
from app.main import build_parser, command_names
from app.ui.window_channel import WindowChannel

COMMANDS = {"kb", "chat", "settings"}


def test_files_instead_of_a_command_are_taken_out(tmp_path: Path) -> None:
    pdf, notes = tmp_path / "a.pdf", tmp_path / "notes.md"
    pdf.write_bytes(b"%PDF-1.4")
    notes.write_text("# notes")
    assert split_open_files([str(pdf), str(notes)], COMMANDS) == ([], [pdf.resolve(), notes.resolve()])
    kept, files = split_open_files(["--home", str(tmp_path), "-v", str(pdf)], COMMANDS)
    assert kept == ["--home", str(tmp_path), "-v"] and files == [pdf.resolve()]


def test_commands_and_unknown_words_are_left_to_the_parser(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()  # a folder named like a command is still the command
    assert split_open_files(["kb", "add", str(tmp_path)], COMMANDS) == (["kb", "add", str(tmp_path)], [])
    assert split_open_files([str(tmp_path / "missing.pdf")], COMMANDS) == ([str(tmp_path / "missing.pdf")], [])
    assert split_open_files(["--home", str(tmp_path)], COMMANDS) == (["--home", str(tmp_path)], [])
    assert split_open_files([], COMMANDS) == ([], [])


def test_the_parser_names_its_commands() -> None:
    names = command_names(build_parser())
    assert {"kb", "chat", "settings", "models", "report"} <= names


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
def test_a_second_launch_hands_its_files_to_the_running_window(qtbot: Any, tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path / "home").ensure()
    document = tmp_path / "report 2026 报告.md"
    document.write_text("# 报告", encoding="utf-8")
    window = QWidget()
    qtbot.addWidget(window)
    window.showMinimized()
    opened: list[list[Path]] = []
    channel = WindowChannel(window, window_channel_path(paths), opened.append)
    try:
        answers: list[bool] = []
        asker = threading.Thread(target=lambda: answers.append(
            ask_window_to_front(paths, [document, tmp_path / "gone.pdf"])))
        asker.start()
        qtbot.waitUntil(lambda: bool(answers), timeout=10_000)
        asker.join(10)
        assert answers == [True]
        assert opened == [[document.resolve()]]  # the file that no longer exists is left out
        assert window.isVisible() and not window.isMinimized()
    finally:
        channel.close()


def test_the_main_window_adds_opened_files_to_the_knowledge_base(
    app_context: Any, open_window: Any, tmp_path: Path
) -> None:
    from tests.ui.conftest import fake_machine, make_services

    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.knowledge_dock.hide()
    document = tmp_path / "opened.md"
    document.write_text("# Opened with UniDesk\n\nThe answer is forty-two.", encoding="utf-8")
    added: list[list[Path]] = []
    window.knowledge_panel.add_paths = added.append  # the panel's own indexing is tested elsewhere
    window.add_documents([document])
    assert added == [[document]]
    assert window.knowledge_dock.isVisible()


def test_the_help_menu_is_in_the_window(app_context: Any, open_window: Any) -> None:
    from tests.ui.conftest import fake_machine, make_services

    window = open_window(app_context, make_services(app_context, fake_machine()))
    assert window.menuBar().actions()[-1].text() == "&Help"
    assert window.help_menu.report_action.isEnabled()
