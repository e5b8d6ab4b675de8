"""``unidesk bench`` on a real llama.cpp model: figures defined as llama.cpp's tools define them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from app.core.services.engine_bench import ChatSpan, all_decoding_tokens_per_s

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_aggregate_counts_from_the_moment_every_chat_decodes() -> None:
    # Chat A decodes from t=0, chat B (prefilled later) from t=1; both end at t=11.
    spans = [ChatSpan(0.0, 11.0, 12, 1.0), ChatSpan(1.0, 11.0, 11, 1.0)]
    assert all_decoding_tokens_per_s(spans) == (11 + 10) / 10.0


def test_bench_json_reports_settings_rounds_and_the_peer_command(tiny_gguf: Path, tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "app", "--home", str(tmp_path / "home"), "bench", str(tiny_gguf), "--seqs", "2",
         "--prompt-tokens", "24", "--max-tokens", "6", "--json"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads(completed.stdout)
    assert result["generated_tokens"] == 6
    assert result["parallel_chats"] == 2
    assert result["rounds"] == len(result["decode_runs"]) == len(result["aggregate_runs"]) == 3
    assert result["decode_tokens_per_s"] > 0 and result["aggregate_decode_tokens_per_s"] > 0
    assert result["settings"]["kv_cache_dtype"] and result["settings"]["threads"] >= 1
    assert "llama-batched-bench" in result["peer_command"] and "-npl 1,2" in result["peer_command"]
    assert f"-npp {result['prompt_tokens']} -ntg 6" in result["peer_command"]
