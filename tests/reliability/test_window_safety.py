"""The window's safety parts with real Qt widgets: links in answers, a damaged conversations file, uncaught
errors, the Local API switch and the second-launch channel."""

from __future__ import annotations

import socket
import sqlite3
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWidgets import QMainWindow, QWidget

from app.cli.home_access import ask_window_to_front
from app.core.chat.database import database_path
from app.core.chat.store import ConversationStore
from app.core.config import Settings
from app.core.config.home_lock import window_channel_path
from app.core.config.paths import AppPaths
from app.core.engines.manager import EngineManager
from app.ui.chat.link_check import exact_address, is_web_link, open_checked
from app.ui.damaged_database import open_or_recover
from app.ui.error_dialog import UncaughtErrorDialogs
from app.ui.local_api_switch import LocalApiSwitch
from app.ui.state.live_settings import LiveSettings
from app.ui.window_channel import WindowChannel
from tests.core.planner.fake_hardware import cpu_only

pytestmark = pytest.mark.gui


class Recorder:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.seen: list[str] = []

    def __call__(self, url: QUrl) -> bool:
        self.seen.append(url.toString())
        return self.answer


@pytest.mark.parametrize("address", ["file:///etc/passwd", "smb://server/share", "javascript:alert(1)",
                                     "ftp://example.com/x", "/home/me/notes.txt", "http:///nohost",
                                     "\\\\server\\share\\x.exe"])
def test_only_web_links_may_open(address: str) -> None:
    confirm, opened = Recorder(True), Recorder(True)
    assert not open_checked(QUrl(address), confirm, opened)
    assert confirm.seen == [] and opened.seen == []  # not even asked


def test_a_web_link_opens_only_after_the_user_saw_and_accepted_the_address() -> None:
    url = QUrl("https://example.com/page?q=1")
    declined, opened = Recorder(False), Recorder(True)
    assert not open_checked(url, declined, opened)
    assert declined.seen == [url.toString()] and opened.seen == []
    accepted = Recorder(True)
    assert open_checked(url, accepted, opened)
    assert opened.seen == [url.toString()]
    assert is_web_link(QUrl("HTTP://EXAMPLE.COM"))


def test_the_address_shown_reveals_look_alike_hosts_and_hidden_user_names() -> None:
    assert "xn--" in exact_address(QUrl("https://аpple.com/"))  # a Cyrillic "а"
    assert exact_address(QUrl("https://trusted.com@evil.example/")).startswith("https://trusted.com@evil.example")


def test_a_damaged_conversations_file_is_moved_aside_after_asking_and_a_fresh_one_starts(
    qtbot: Any, tmp_path: Path
) -> None:
    paths = AppPaths.under_home(tmp_path).ensure()
    path = database_path(paths.data_dir)
    path.parent.mkdir(parents=True)
    damaged = b"SQLite format 3\x00" + bytes(range(256)) * 40
    path.write_bytes(damaged)
    asked: list[Path] = []

    refused = open_or_recover(lambda: ConversationStore.open(paths.data_dir), paths,
                              ask=lambda where, reason: asked.append(where) or False, tell=pytest.fail)
    assert refused is None and asked == [path] and path.read_bytes() == damaged  # untouched when declined

    store = open_or_recover(lambda: ConversationStore.open(paths.data_dir), paths,
                            ask=lambda where, reason: True, tell=pytest.fail)
    assert store is not None
    try:
        assert store.conversations() == []
        kept = [item for item in path.parent.iterdir() if item.name.startswith("conversations.db.damaged-")]
        assert [item.read_bytes() for item in kept] == [damaged]  # nothing deleted
    finally:
        store.close()


def test_a_file_that_is_not_damaged_is_never_moved_and_the_reason_is_shown(qtbot: Any, tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path).ensure()
    ConversationStore.open(paths.data_dir).close()
    path = database_path(paths.data_dir)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA user_version = 999")  # written by a newer UniDesk
    connection.close()
    told: list[str] = []
    result = open_or_recover(lambda: ConversationStore.open(paths.data_dir), paths,
                             ask=lambda where, reason: pytest.fail("must not offer to move it"), tell=told.append)
    assert result is None and len(told) == 1 and "newer UniDesk" in told[0]
    assert path.exists()


@pytest.mark.qt_no_exception_capture
def test_uncaught_errors_in_threads_and_slots_are_logged_and_shown(
    qtbot: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    dialogs = UncaughtErrorDialogs(parent, tmp_path / "unidesk.log").install()
    try:
        worker = threading.Thread(target=lambda: 1 / 0, name="worker-under-test")
        worker.start()
        worker.join(10)
        qtbot.waitUntil(lambda: dialogs.box is not None and dialogs.box.isVisible(), timeout=10_000)
        assert dialogs.shown[0].thread == "worker-under-test"
        assert "ZeroDivisionError" in dialogs.box.text()
        assert "ZeroDivisionError" in dialogs.box.detailedText()

        def failing_slot() -> None:
            raise RuntimeError("a slot failed")

        QTimer.singleShot(0, failing_slot)
        qtbot.waitUntil(lambda: len(dialogs.shown) == 2, timeout=10_000)
        assert dialogs.shown[1].summary == "RuntimeError: a slot failed"
        assert "1 more" in dialogs.box.informativeText()  # one dialog, the later error counted in it
        logged = [record for record in caplog.records if record.name == "unidesk.uncaught"]
        assert len(logged) == 2 and "a slot failed" in logged[1].getMessage()
    finally:
        dialogs.uninstall()
        if dialogs.box is not None:
            dialogs.box.close()


def listening_ports() -> set[tuple[str, int]]:
    return {(c.laddr.ip, c.laddr.port) for c in psutil.Process().net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_local_api_switch_starts_and_stops_the_server_and_shows_its_state(qtbot: Any, tmp_path: Path) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    port = free_port()
    live = LiveSettings(Settings({"api.port": port}))
    manager = EngineManager(cpu_only, live.get)
    switch = LocalApiSwitch(window, manager, live, AppPaths.under_home(tmp_path).ensure())
    try:
        assert switch.server is None and "off" in switch.label.text()
        assert ("127.0.0.1", port) not in listening_ports()
        switch.follow(Settings({"api.enabled": True, "api.port": port}))
        assert switch.server is not None and switch.server.running
        assert f"127.0.0.1:{port}" in switch.label.text()
        assert ("127.0.0.1", port) in listening_ports()
        switch.follow(Settings({"api.enabled": False, "api.port": port}))
        assert switch.server is None and "off" in switch.label.text()
        assert ("127.0.0.1", port) not in listening_ports()
        with socket.socket() as squatter:  # a port taken by another program: said so, nothing crashes
            squatter.bind(("127.0.0.1", port))
            squatter.listen(1)
            switch.follow(Settings({"api.enabled": True, "api.port": port}))
            assert switch.server is None and "not running" in switch.label.text()
            assert "already in use" in switch.label.toolTip()
    finally:
        switch.shutdown()


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
def test_the_window_channel_brings_the_window_to_the_front(qtbot: Any, tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path).ensure()
    window = QWidget()
    qtbot.addWidget(window)
    window.showMinimized()
    window_channel_path(paths).write_text("left by a killed window")  # stale: removed before listening
    channel = WindowChannel(window, window_channel_path(paths))
    try:
        assert channel.listening
        answers: list[bool] = []
        asker = threading.Thread(target=lambda: answers.append(ask_window_to_front(paths)))
        asker.start()
        qtbot.waitUntil(lambda: bool(answers), timeout=10_000)
        asker.join(10)
        assert answers == [True]
        assert window.isVisible() and not window.isMinimized()
    finally:
        channel.close()


def test_a_startup_error_is_shown_in_a_dialog(qtbot: Any) -> None:
    from PySide6.QtWidgets import QApplication, QMessageBox

    from app.ui.startup_error import show_startup_error, stderr_is_read

    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            seen.append(box.text())
            box.accept()
        else:
            QTimer.singleShot(50, read_and_close)

    QTimer.singleShot(50, read_and_close)
    show_startup_error("`unidesk serve` (process 42) is using the data in /home/x.")
    assert seen == ["`unidesk serve` (process 42) is using the data in /home/x."]
    assert stderr_is_read()  # under pytest stderr is a pipe, a file or a terminal: no dialog for a console user
