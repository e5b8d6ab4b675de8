"""The vLLM guard starts before the engine: an app killed while its engine process is still starting (a long
model load) takes that process with it; a clean unload kills nothing. The engine stands in as a sleeping
child process here; tests/integration/test_vllm_lifecycle.py kills a real vLLM engine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.engines.backends.vllm_guard import ProcessIdentity, is_alive

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = """
import os, subprocess, sys, time
from app.core.engines.backends.vllm_guard import engine_child_processes, start_guard
before = frozenset(child.pid for child in engine_child_processes(os.getpid()))
guard = start_guard(adopt_children_of=os.getpid(), existing=before)  # as VllmEngine.load does, first
engine = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # the "engine core"
print(engine.pid, guard.pid, flush=True)
if sys.argv[1] == "unload":
    sys.stdin.readline()
    guard.release()
    print("released", flush=True)
time.sleep(600)
"""
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the guard reads /proc (Linux, as vLLM)")


def identity(pid: int) -> ProcessIdentity:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return ProcessIdentity(pid, int(fields[19]))


def wait_gone(target: ProcessIdentity, timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not is_alive(target):
            return True
        time.sleep(0.05)
    return False


def start_app(mode: str) -> tuple[subprocess.Popen[str], ProcessIdentity, int]:
    app = subprocess.Popen([sys.executable, "-c", APP, mode], cwd=REPO_ROOT, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    assert app.stdout is not None
    engine_pid, guard_pid = map(int, app.stdout.readline().split())
    return app, identity(engine_pid), guard_pid


def test_an_app_killed_while_the_engine_starts_takes_the_engine_with_it() -> None:
    app, engine, _ = start_app("kill")
    try:
        time.sleep(0.5)  # the guard adopts new children every 0.1 s
        app.send_signal(signal.SIGKILL)
        app.wait(30)
        assert wait_gone(engine), "the engine process outlived the app"
    finally:
        if is_alive(engine):
            os.kill(engine.pid, signal.SIGKILL)


def test_a_clean_unload_kills_nothing() -> None:
    app, engine, _ = start_app("unload")
    try:
        time.sleep(0.5)
        assert app.stdin is not None and app.stdout is not None
        app.stdin.write("\n")
        app.stdin.flush()
        assert app.stdout.readline().strip() == "released"
        app.send_signal(signal.SIGKILL)  # the app dies after a clean release: the engine is its own business
        app.wait(30)
        time.sleep(1.0)
        assert is_alive(engine)
    finally:
        os.kill(engine.pid, signal.SIGKILL)
