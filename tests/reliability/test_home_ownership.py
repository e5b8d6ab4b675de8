"""Who may use a home: commands that need the data are refused clearly while another process owns it,
read-only ones still run, and a second window asks the first to come to the front over a local socket."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.cli.home_access import ask_window_to_front
from app.core.config.home_lock import WINDOW_ROLE, window_channel_path
from app.core.config.paths import AppPaths
from tests.reliability.conftest import REPO_ROOT
from tests.test_cli import assert_one_line_error, unidesk

HOLDER = """
import sys, time
from pathlib import Path
from app.core.config.home_lock import HomeLock
from app.core.config.paths import AppPaths
lock = HomeLock(AppPaths.under_home(Path(sys.argv[1])), sys.argv[2]).acquire()
print("held", flush=True)
time.sleep(600)
"""


@contextmanager
def held_home(home: Path, role: str) -> Iterator[int]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(home), role], cwd=REPO_ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait(30)


@contextmanager
def fake_window_channel(paths: AppPaths) -> Iterator[list[bytes]]:
    """A listener on the window socket that answers "ok" (what the real window does)."""
    received: list[bytes] = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = window_channel_path(paths)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    server.bind(str(path))
    server.listen(1)

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            received.append(connection.recv(64))
            connection.sendall(b"ok\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.close()
        thread.join(10)


@pytest.mark.parametrize("command", [("kb", "list"), ("models", "remove", "x"), ("settings", "set", "kb.top_k", "7"),
                                     ("serve", "--model", "x.gguf"), ("conversations", "import", "x.json")])
def test_commands_that_need_the_data_are_refused_while_the_window_owns_it(tmp_path: Path,
                                                                         command: tuple[str, ...]) -> None:
    with held_home(tmp_path, WINDOW_ROLE) as pid:
        refused = unidesk(tmp_path, *command)
    assert_one_line_error(refused, "The UniDesk window", f"process {pid}", "close the window")
    assert "kb.top_k = 7" not in unidesk(tmp_path, "settings", "show").stdout  # nothing was changed


def test_read_only_commands_run_beside_the_owner_and_a_command_owner_is_named(tmp_path: Path) -> None:
    with held_home(tmp_path, "kb") as pid:
        assert unidesk(tmp_path, "settings", "show").returncode == 0
        assert unidesk(tmp_path, "models", "list", "--json").returncode == 0
        assert unidesk(tmp_path, "conversations", "list").returncode == 0
        assert unidesk(tmp_path, "report", "--no-measure").returncode == 0
        refused = unidesk(tmp_path, "kb", "list")
    assert_one_line_error(refused, "`unidesk kb`", f"process {pid}")
    assert unidesk(tmp_path, "kb", "list").returncode == 0  # free again once the owner is gone


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
def test_a_second_window_asks_the_first_to_come_to_the_front_and_exits(tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path)
    with held_home(tmp_path, WINDOW_ROLE), fake_window_channel(paths) as received:
        second = subprocess.run([sys.executable, "-m", "app", "--home", str(tmp_path)], cwd=REPO_ROOT,
                                capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert "already open" in second.stderr
    assert received == [b"front\n"]


def test_a_window_that_does_not_answer_is_reported(tmp_path: Path) -> None:
    with held_home(tmp_path, WINDOW_ROLE) as pid:  # holds the lock but has no channel (a hung window)
        second = subprocess.run([sys.executable, "-m", "app", "--home", str(tmp_path)], cwd=REPO_ROOT,
                                capture_output=True, text=True, timeout=120)
    assert_one_line_error(second, "The UniDesk window", f"process {pid}")
    assert not ask_window_to_front(AppPaths.under_home(tmp_path))

