"""The real window as a process (offscreen): one owner of the home, a second launch raises the first, commands
that need the data say the window has it, and sockets: none listening on the network unless the Local API
setting is on, then only on loopback (asserted with psutil)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from tests.reliability.conftest import REPO_ROOT
from tests.test_cli import assert_one_line_error, unidesk

LAUNCH_TIMEOUT_S = 180.0


def environment() -> dict[str, str]:
    values = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    values.pop("UNIDESK_HOME", None)
    return values


def log_text(home: Path) -> str:
    path = home / "logs" / "unidesk.log"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def wait_for_log(home: Path, text: str, process: subprocess.Popen[str], timeout_s: float = LAUNCH_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in log_text(home):
        if process.poll() is not None:
            raise AssertionError(f"the window exited ({process.returncode}): {process.communicate()[1][-3000:]}")
        assert time.monotonic() < deadline, f"waited {timeout_s:.0f} s for {text!r} in the log"
        time.sleep(0.1)


@contextmanager
def running_window(home: Path) -> Iterator[subprocess.Popen[str]]:
    window = subprocess.Popen([sys.executable, "-m", "app", "--home", str(home)], cwd=REPO_ROOT,
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_log(home, "window shown", window)
        yield window
    finally:
        window.kill()
        window.communicate(timeout=60)


def listening(pid: int) -> list[tuple[str, int]]:
    """The network (IPv4/IPv6) addresses the process and its children listen on."""
    processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    return [
        (connection.laddr.ip, connection.laddr.port)
        for process in processes
        for connection in process.net_connections(kind="inet")
        if connection.status == psutil.CONN_LISTEN
    ]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_one_window_per_home_and_no_network_socket_while_the_api_is_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_window(home) as window:
        assert listening(window.pid) == []  # the window channel is a local socket, not a network one
        second = subprocess.run([sys.executable, "-m", "app", "--home", str(home)], cwd=REPO_ROOT,
                                env=environment(), capture_output=True, text=True, timeout=LAUNCH_TIMEOUT_S)
        assert second.returncode == 0, second.stderr
        assert "already open" in second.stderr
        wait_for_log(home, "brought to the front", window)

        refused = unidesk(home, "kb", "list")  # needs the knowledge base, which the window owns
        assert_one_line_error(refused, "The UniDesk window", f"process {window.pid}")
        shown = unidesk(home, "settings", "show")  # reading settings needs no lock
        assert shown.returncode == 0, shown.stderr
        assert window.poll() is None


def test_the_local_api_setting_starts_a_loopback_only_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = free_port()
    for key, value in (("api.enabled", "true"), ("api.port", str(port))):
        changed = unidesk(home, "settings", "set", key, value)
        assert changed.returncode == 0, changed.stderr
    with running_window(home) as window:
        wait_for_log(home, "local API listening", window)
        addresses = listening(window.pid)
        assert addresses == [("127.0.0.1", port)]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert client.recv(64).startswith(b"HTTP/1.1 401")  # the token is needed


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="the window channel is a Unix socket here")
def test_a_window_killed_hard_leaves_the_home_free(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_window(home):
        pass  # killed with SIGKILL on leaving
    with running_window(home) as again:  # the stale socket file and the dead lock do not block it
        assert again.poll() is None
