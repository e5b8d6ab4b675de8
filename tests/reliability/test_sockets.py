"""`unidesk serve` listens on exactly one socket, on 127.0.0.1 (asserted with psutil); the window's sockets
are checked in test_window_process.py and the headless app's in test_crash_safety.py (none at all)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil

from tests.reliability.conftest import REPO_ROOT


def test_serve_listens_on_loopback_only(tmp_path: Path, tiny_gguf: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "UNIDESK_HOME"}
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--home", str(tmp_path / "home"), "serve", "--model", str(tiny_gguf),
         "--port", "0", "--ctx", "512"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert " on http://127.0.0.1:" in first, first + (process.stderr.read() if process.stderr else "")
        port = int(first.rsplit(":", 1)[1].split("/")[0])
        processes = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
        listening = [(c.laddr.ip, c.laddr.port) for p in processes for c in p.net_connections(kind="inet")
                     if c.status == psutil.CONN_LISTEN]
        assert listening == [("127.0.0.1", port)]
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
