"""The llama.cpp engine against the real llama.cpp, with tiny generated GGUF models."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.core.engines.backends.llamacpp import WARM_UP_MESSAGE, LlamaCppEngine
from app.core.engines.backends.llamacpp_slots import common_prefix_length
from app.core.engines.base import EngineConfig, EngineError, ModelLoadError, NoModelLoadedError
from app.core.engines.requests import GREEDY, ChatMessage, ChatRequest, SamplingParams
from app.core.engines.stream import RequestStream
from app.core.util.translatable import Text
from tests.fixtures.gguf_models import SLOW_DECODE_SHAPE
from tests.fixtures.models import GgufFactory, ModelShape
from tests.integration.answering_support import finished_first, wait_until
from tests.integration.crafted_gguf import (
    byte_token,
    piece_token,
    scripted_vocabulary,
    write_peaked_gguf,
    write_scripted_gguf,
    write_unknown_architecture_gguf,
)
from tests.integration.llamacpp_reference import reference_greedy_pieces

pytestmark = pytest.mark.integration

EngineFactory = Callable[..., LlamaCppEngine]
PROMPTS = (
    "hello world, please answer the question about the local knowledge base",
    "the model memory and speed of this desktop machine",
    "你好世界 中文 模型 知识 问题",
    "write a test for the stream of tokens in python",
    "people call water from the long day",
)


def greedy(max_tokens: int) -> SamplingParams:
    return dataclasses.replace(GREEDY, max_tokens=max_tokens)


def user(text: str) -> tuple[ChatMessage, ...]:
    return (ChatMessage("user", text),)


def run(engine: LlamaCppEngine, request: ChatRequest, timeout: float = 30.0) -> RequestStream:
    stream = engine.submit(request)
    assert stream.wait(timeout), "request did not finish"
    return stream


@contextmanager
def joining_together(engine: LlamaCppEngine) -> Iterator[None]:
    """Hold the engine thread between two steps while the block submits: its requests all join in one step.

    Otherwise the engine may start on the first request before the test thread submits the next ones
    (more likely on a busy machine), and tests that count steps or expect overlap would measure the stagger.
    """
    scheduler = engine._scheduler
    assert scheduler is not None
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        holding.set()
        release.wait(60)

    holder = threading.Thread(target=scheduler.call, args=(hold, 90), name="engine-holder")
    holder.start()
    try:
        assert holding.wait(30), "the engine thread never took the hold"
        yield
    finally:
        release.set()
        holder.join(30)


@pytest.fixture
def engine_factory() -> Iterator[EngineFactory]:
    """Loads engines with test defaults (2 threads, 512-token chats); unloads them afterwards."""
    engines: list[LlamaCppEngine] = []

    def load(model_path: Path, **overrides: Any) -> LlamaCppEngine:
        settings: dict[str, Any] = {"context_length": 512, "parallel_chats": 4, "threads": 2}
        settings.update(overrides)
        engine = LlamaCppEngine()
        engines.append(engine)
        engine.load(EngineConfig(model_path=model_path, **settings))
        return engine

    yield load
    for engine in engines:
        engine.unload()


@pytest.fixture(scope="session")
def deep_model(tiny_gguf_factory: GgufFactory) -> Path:
    """llama-deep f32: 4 layers, varied greedy output; f32 so batched and single decode agree."""
    return tiny_gguf_factory("llama-deep", "f32")


@pytest.fixture(scope="session")
def slow_model(tiny_gguf_factory: GgufFactory) -> Path:
    """~100 MB: one thread decodes a few hundred tokens a second, so long answers are still running when acted on."""
    return tiny_gguf_factory(SLOW_DECODE_SHAPE, "f32")


@pytest.fixture(scope="session")
def peaked_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random weights with confident logits: greedy output is exact however tokens are batched.

    With the near-uniform logits of the standard tiny models, the float rounding of a token
    computed in a different llama.cpp micro-batch (a joining prompt's first tokens are split
    off per KV stream) can flip a near-tie; equality tests across batchings use this model.
    """
    return write_peaked_gguf(tmp_path_factory.mktemp("peaked") / "peaked.gguf")


@pytest.fixture(scope="session")
def chinese_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Greedy output is "中文" repeated, one byte token at a time (each character spans 3 tokens)."""
    vocabulary = scripted_vocabulary()
    chain = [byte_token(vocabulary, 0x0A)] + [byte_token(vocabulary, value) for value in "中文".encode()]
    successors = {chain[index]: chain[index + 1] for index in range(len(chain) - 1)}
    successors[chain[-1]] = chain[1]
    return write_scripted_gguf(tmp_path_factory.mktemp("scripted") / "chinese.gguf", successors)


@pytest.fixture(scope="session")
def hello_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Greedy output is " hello world" then the end-of-sequence token (then " hello" again)."""
    vocabulary = scripted_vocabulary()
    hello, world = piece_token(vocabulary, "\u2581hello"), piece_token(vocabulary, "\u2581world")
    successors = {byte_token(vocabulary, 0x0A): hello, hello: world, world: vocabulary.eos_id, vocabulary.eos_id: hello}
    return write_scripted_gguf(tmp_path_factory.mktemp("scripted") / "hello.gguf", successors)


# ---- loading ---------------------------------------------------------------------------------
def test_load_reports_the_model_settings_and_progress(deep_model: Path) -> None:
    engine = LlamaCppEngine()
    progress: list[tuple[float, str]] = []
    try:
        loaded = engine.load(
            EngineConfig(model_path=deep_model, context_length=256, parallel_chats=3, threads=1),
            lambda fraction, step: progress.append((fraction, step)),
        )
        build = engine.describe_build()
    finally:
        engine.unload()
    assert loaded.backend == "llamacpp"
    assert loaded.model_name == "unidesk-test-llama-4x128"
    assert loaded.load_time_s > 0
    assert "Threads: 1" in loaded.notes
    assert any(note.startswith("Flash attention:") for note in loaded.notes)
    fractions = [fraction for fraction, _ in progress]
    assert fractions == sorted(fractions) and fractions[-1] >= 0.9
    assert any(step == "Loading weights" for _, step in progress)
    # Steps are the core's translatable words, and none says "Ready": the manager may still warm the model up.
    assert all(isinstance(step, Text) and "Ready" not in step for _, step in progress)
    assert build["n_ctx_per_sequence"] == 256 and build["n_ctx"] == 3 * 256
    assert isinstance(build["gpu_offload"], bool) and "CPU" in build["system_info"]


@pytest.mark.parametrize(
    ("fixture_name", "cause", "phrase"),
    [
        ("not_a_model_file", "not_a_model", "not a GGUF"),
        ("empty_file", "not_a_model", "empty"),
        ("truncated_gguf", "not_a_model", "damaged or incomplete"),
        ("unknown_architecture", "unsupported", "frobnicator"),
        ("missing_file", "other", "not found"),
    ],
)
def test_load_failures_name_their_cause(
    request: pytest.FixtureRequest, tmp_path: Path, fixture_name: str, cause: str, phrase: str
) -> None:
    if fixture_name == "unknown_architecture":
        path = write_unknown_architecture_gguf(tmp_path / "frob.gguf")
    elif fixture_name == "missing_file":
        path = tmp_path / "missing.gguf"
    else:
        path = request.getfixturevalue(fixture_name)
    engine = LlamaCppEngine()
    with pytest.raises(ModelLoadError) as caught:
        engine.load(EngineConfig(model_path=path, context_length=256))
    assert caught.value.cause == cause
    assert phrase in caught.value.message
    assert "\n" not in caught.value.message and caught.value.hint
    assert engine.metrics().model_name == ""


def test_after_a_failed_load_a_good_model_loads(
    engine_factory: EngineFactory, truncated_gguf: Path, deep_model: Path
) -> None:
    with pytest.raises(ModelLoadError):
        engine_factory(truncated_gguf)
    engine = engine_factory(deep_model)
    assert run(engine, ChatRequest(user("hello"), greedy(3))).finish_reason == "length"


OOM_SCRIPT = """
import json, resource, sys
from pathlib import Path
from app.core.engines.backends.llamacpp import WARM_UP_MESSAGE, LlamaCppEngine
from app.core.engines.backends.llamacpp_slots import common_prefix_length
from app.core.engines.base import EngineConfig, ModelLoadError
import llama_cpp.llama_cpp
vm = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (vm + 1536 * 2**20, resource.getrlimit(resource.RLIMIT_AS)[1]))
try:
    LlamaCppEngine().load(EngineConfig(model_path=Path(sys.argv[1]), context_length=16 * 2**20))
    print(json.dumps({"cause": None}))
except ModelLoadError as error:
    print(json.dumps({"cause": error.cause, "message": error.message}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses RLIMIT_AS and /proc")
def test_a_kv_cache_that_does_not_fit_is_an_out_of_memory_failure(tiny_gguf: Path) -> None:
    """16M tokens of KV (4 GiB) in a process allowed 1.5 GiB more than it has: allocation fails."""
    result = subprocess.run(
        [sys.executable, "-c", OOM_SCRIPT, str(tiny_gguf)],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr[-2000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["cause"] == "out_of_memory"
    assert "context length" in outcome["message"] or "memory" in outcome["message"].lower()


HEAD_DIM_32 = ModelShape(n_layers=2, n_embd=64, n_heads=2, n_kv_heads=1, n_ff=128)


@pytest.mark.parametrize("kv_cache_dtype", ["q8_0", "q4_0"])
def test_quantized_kv_cache_generates(
    engine_factory: EngineFactory, tiny_gguf_factory: GgufFactory, kv_cache_dtype: str
) -> None:
    engine = engine_factory(tiny_gguf_factory(HEAD_DIM_32, "f32"), kv_cache_dtype=kv_cache_dtype)
    stream = run(engine, ChatRequest(user("hello world"), greedy(8)))
    assert stream.finish_reason == "length" and stream.metrics.generated_tokens == 8
    assert any(f"KV cache: {kv_cache_dtype}" in note for note in engine.loaded_model.notes)  # type: ignore[union-attr]


def test_quantized_v_cache_without_flash_attention_is_refused(
    engine_factory: EngineFactory, tiny_gguf_factory: GgufFactory
) -> None:
    with pytest.raises(ModelLoadError, match="flash attention"):
        engine_factory(tiny_gguf_factory(HEAD_DIM_32, "f32"), kv_cache_dtype="q8_0", flash_attention="off")


def test_quantized_kv_cache_that_does_not_fit_the_head_size_is_explained(
    engine_factory: EngineFactory, tiny_gguf: Path
) -> None:
    with pytest.raises(ModelLoadError, match="head size") as caught:
        engine_factory(tiny_gguf, kv_cache_dtype="q8_0")
    assert "f16" in (caught.value.hint or "")


# ---- streaming, stopping, limits ------------------------------------------------------------
def test_streamed_pieces_join_to_the_text_and_the_counts_add_up(
    engine_factory: EngineFactory, deep_model: Path
) -> None:
    engine = engine_factory(deep_model)
    stream = engine.submit(ChatRequest(user(PROMPTS[0]), greedy(20)))
    pieces = list(stream)
    metrics = stream.metrics
    prompt_tokens = len(engine.tokenize(engine.render_prompt(user(PROMPTS[0]))))
    assert "".join(pieces) == stream.text and stream.text
    assert stream.finish_reason == "length" == metrics.finish_reason
    assert metrics.generated_tokens == 20
    assert metrics.prompt_tokens == metrics.prefilled_tokens == prompt_tokens
    assert metrics.reused_prompt_tokens == 0
    assert metrics.time_to_first_token_s is not None and metrics.time_to_first_token_s > 0
    assert metrics.decode_tokens_per_s and metrics.prefill_tokens_per_s
    snapshot = engine.metrics()
    assert snapshot.kv_cells_used == prompt_tokens + 20 - 1
    assert snapshot.kv_cells_capacity == 4 * 512
    assert (snapshot.running_requests, snapshot.waiting_requests) == (0, 0)
    assert (snapshot.requests_finished, snapshot.tokens_generated) == (1, 20)
    assert snapshot.decode_tokens_per_s and snapshot.last_time_to_first_token_s


class RecordingStream(RequestStream):
    """A RequestStream that remembers every piece the engine pushed, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pushed: list[str] = []

    def push(self, text: str, wake: bool = True) -> None:
        if text:
            self.pushed.append(text)
        super().push(text, wake)


@pytest.mark.parametrize("model_name", ["chinese_model", "deep_model", "peaked_model"])
def test_streamed_text_equals_a_reference_loop_decoding_all_bytes_at_once(
    request: pytest.FixtureRequest, engine_factory: EngineFactory, model_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_path: Path = request.getfixturevalue(model_name)
    engine = engine_factory(model_path, parallel_chats=1)
    monkeypatch.setattr("app.core.engines.backends.llamacpp.RequestStream", RecordingStream)
    messages = user("你好, " + PROMPTS[1])
    stream = engine.submit(ChatRequest(messages, greedy(30)))
    assert isinstance(stream, RecordingStream)
    iterated = "".join(stream)
    reference = reference_greedy_pieces(model_path, engine.tokenize(engine.render_prompt(messages)), 30)
    assert iterated == "".join(stream.pushed) == b"".join(reference).decode("utf-8", errors="replace")
    assert len(stream.pushed) > 1, "text arrives piece by piece"
    if model_name == "chinese_model":
        assert all(len(piece) == 1 for piece in reference), "every byte is its own token"
        assert stream.pushed == list("中文" * 5), "each character is pushed once it is complete"


def test_stop_string_spanning_tokens_is_cut_and_never_shown(engine_factory: EngineFactory, chinese_model: Path) -> None:
    engine = engine_factory(chinese_model)
    sampling = dataclasses.replace(GREEDY, max_tokens=60, stop=("文中",))
    stream = run(engine, ChatRequest(user("hi"), sampling))
    assert (stream.text, stream.finish_reason) == ("中", "stop")
    assert stream.metrics.generated_tokens == 9  # 中文中: the stop shows only once the second 中 is whole
    never = run(engine, ChatRequest(user("hi"), dataclasses.replace(GREEDY, max_tokens=9, stop=("xyz",))))
    assert (never.text, never.finish_reason) == ("中文中", "length")


def test_end_of_generation_stops_unless_ignored(engine_factory: EngineFactory, hello_model: Path) -> None:
    engine = engine_factory(hello_model)
    stopped = run(engine, ChatRequest(user("hi"), greedy(50)))
    assert (stopped.text, stopped.finish_reason, stopped.metrics.generated_tokens) == (" hello world", "stop", 3)
    ignoring = dataclasses.replace(GREEDY, max_tokens=7, ignore_eos=True)
    continued = run(engine, ChatRequest(user("hi"), ignoring))
    assert (continued.text, continued.finish_reason) == (" hello world hello world hello", "length")


def test_a_prompt_longer_than_the_context_ends_with_an_error(engine_factory: EngineFactory, deep_model: Path) -> None:
    engine = engine_factory(deep_model, context_length=256)
    stream = run(engine, ChatRequest(user("word " * 400), greedy(5)))
    assert stream.finish_reason == "error" and isinstance(stream.error, EngineError)
    prompt_tokens = len(engine.tokenize(engine.render_prompt(user("word " * 400))))
    assert f"{prompt_tokens} tokens" in stream.error.message and "256" in stream.error.message
    with pytest.raises(EngineError):
        list(stream)
    assert run(engine, ChatRequest(user("short"), greedy(2))).finish_reason == "length"


def test_generation_stops_at_the_chat_context_limit(engine_factory: EngineFactory, chinese_model: Path) -> None:
    engine = engine_factory(chinese_model, context_length=256, parallel_chats=2)
    stream = run(engine, ChatRequest(user("hi"), greedy(10_000)))
    assert stream.finish_reason == "length"
    assert stream.metrics.prompt_tokens + stream.metrics.generated_tokens == 256 + 1
    assert engine.metrics().kv_cells_used == 256


def test_an_empty_request_ends_with_an_error(engine_factory: EngineFactory, deep_model: Path) -> None:
    stream = run(engine_factory(deep_model), ChatRequest((), greedy(5)))
    assert stream.finish_reason == "error" and isinstance(stream.error, EngineError)


def test_tokens_and_prompt_helpers(engine_factory: EngineFactory, deep_model: Path) -> None:
    engine = engine_factory(deep_model)
    prompt = engine.render_prompt(user("hello"))
    assert prompt == "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"
    tokens = engine.tokenize(prompt)
    assert tokens[0] == 1 and tokens.count(1) == 1, "exactly one BOS"
    assert engine.count_tokens("hello world") == len(engine.tokenize("hello world")) - 1


# ---- sampling ----------------------------------------------------------------------------------
def test_sampling_settings_apply_per_request(engine_factory: EngineFactory, deep_model: Path) -> None:
    engine = engine_factory(deep_model, prefix_caching=False)  # every run prefills the same way
    messages = user(PROMPTS[4])

    def text(sampling: SamplingParams) -> str:
        return run(engine, ChatRequest(messages, sampling)).text

    plain = text(greedy(24))
    creative = SamplingParams(temperature=1.5, top_k=0, top_p=1.0, min_p=0.0, max_tokens=24, seed=11)
    assert text(creative) == text(creative), "same seed, same text"
    assert text(creative) != text(dataclasses.replace(creative, seed=12))
    assert text(dataclasses.replace(creative, top_k=1)) == plain, "top-k 1 is greedy"
    penalised = text(dataclasses.replace(greedy(24), repetition_penalty=1.5))
    assert penalised != plain


# ---- cancel, parallel chats, waiting -----------------------------------------------------------
def test_cancel_mid_stream_keeps_the_partial_text(
    engine_factory: EngineFactory, slow_model: Path, pushed_pieces: dict[str, list[str]]
) -> None:
    engine = engine_factory(slow_model, context_length=4096, parallel_chats=1, threads=1)
    max_tokens = 4000  # many seconds on this model
    stream = engine.submit(ChatRequest(user(PROMPTS[0]), dataclasses.replace(greedy(max_tokens), ignore_eos=True)))
    pushed = pushed_pieces[stream.request_id]
    wait_until(lambda: len(pushed) >= 3, "3 pieces of text", give_up=finished_first(stream))
    seen = "".join(pushed[:3])
    cancelled_at = time.perf_counter()
    stream.cancel()
    assert stream.wait(10.0), "cancel did not stop the request"
    assert time.perf_counter() - cancelled_at < 5.0
    assert stream.finish_reason == "cancelled" == stream.metrics.finish_reason
    assert stream.text.startswith(seen) and stream.text == "".join(pushed)
    # it stopped within a few decode steps, not after the thousands of tokens still to go
    assert 3 <= stream.metrics.generated_tokens < max_tokens // 4
    assert run(engine, ChatRequest(user("again"), greedy(4))).finish_reason == "length"


def test_a_waiting_request_can_be_cancelled_and_waiting_is_reported(
    engine_factory: EngineFactory, deep_model: Path
) -> None:
    engine = engine_factory(deep_model, context_length=2048, parallel_chats=2)
    long_run = dataclasses.replace(greedy(2000), ignore_eos=True)
    streams = [engine.submit(ChatRequest(user(prompt), long_run)) for prompt in PROMPTS[:3]]
    deadline = time.monotonic() + 10
    while (engine.metrics().running_requests, engine.metrics().waiting_requests) != (2, 1):
        assert time.monotonic() < deadline, f"never saw 2 running and 1 waiting: {engine.metrics()}"
        time.sleep(0.002)
    streams[2].cancel()
    assert streams[2].wait(5.0) and streams[2].finish_reason == "cancelled"
    assert streams[2].metrics.generated_tokens == 0 and streams[2].text == ""
    for stream in streams[:2]:
        stream.cancel()
        assert stream.wait(5.0) and stream.finish_reason == "cancelled"
    snapshot = engine.metrics()
    assert (snapshot.running_requests, snapshot.waiting_requests, snapshot.requests_finished) == (0, 0, 2)


def _one_at_a_time(model_path: Path, requests: list[ChatRequest], context_length: int = 512) -> list[str]:
    engine = LlamaCppEngine()
    engine.load(EngineConfig(model_path=model_path, context_length=context_length, parallel_chats=1, threads=2))
    try:
        return [run(engine, request).text for request in requests]
    finally:
        engine.unload()


@pytest.mark.parametrize(
    "sampling",
    [
        dataclasses.replace(greedy(40), ignore_eos=True),
        SamplingParams(temperature=0.9, max_tokens=40, seed=5, ignore_eos=True),
    ],
)
def test_parallel_chats_equal_the_same_chats_run_one_at_a_time(
    engine_factory: EngineFactory, peaked_model: Path, sampling: SamplingParams
) -> None:
    requests = [ChatRequest(user(prompt), sampling) for prompt in PROMPTS]
    expected = _one_at_a_time(peaked_model, requests)
    assert len(set(expected)) > 1, "the prompts should lead to different answers"
    engine = engine_factory(peaked_model, parallel_chats=4)
    with joining_together(engine):
        streams = [engine.submit(request) for request in requests]
    for stream in streams:
        assert stream.wait(30)
    assert [stream.text for stream in streams] == expected
    first_four = [stream.metrics for stream in streams[:4]]
    latest_start = max(metrics.time_to_first_token_s or 0 for metrics in first_four)
    assert latest_start < min(metrics.total_time_s for metrics in first_four), "the four chats overlapped"


def test_a_long_prompt_prefilled_in_chunks_beside_a_decoding_chat(
    engine_factory: EngineFactory, peaked_model: Path
) -> None:
    """A 550-token prompt takes two steps of n_batch=512, sharing them with another chat's decoding."""
    long_prompt = " ".join(PROMPTS) * 10
    requests = [
        ChatRequest(user(PROMPTS[1]), dataclasses.replace(greedy(200), ignore_eos=True)),
        ChatRequest(user(long_prompt), greedy(12)),
    ]
    engine = engine_factory(peaked_model, context_length=2048, parallel_chats=2)
    decoding = engine.submit(requests[0])
    next(iter(decoding))
    joining = engine.submit(requests[1])
    assert decoding.wait(30) and joining.wait(30)
    assert joining.metrics.prompt_tokens > 512
    assert joining.metrics.time_to_first_token_s < decoding.metrics.total_time_s  # type: ignore[operator]
    prompt_tokens = engine.tokenize(engine.render_prompt(requests[1].messages))
    reference = reference_greedy_pieces(peaked_model, prompt_tokens, 12, n_ctx=2048)
    assert joining.text == b"".join(reference).decode("utf-8", errors="replace")
    assert [decoding.text, joining.text] == _one_at_a_time(peaked_model, requests, context_length=2048)


def test_submitting_from_many_threads_at_once(engine_factory: EngineFactory, peaked_model: Path) -> None:
    requests = [ChatRequest(user(f"{prompt} {index}"), greedy(16)) for index, prompt in enumerate(PROMPTS * 2)]
    expected = _one_at_a_time(peaked_model, requests)
    engine = engine_factory(peaked_model, parallel_chats=4)
    barrier = threading.Barrier(len(requests))
    streams: dict[int, RequestStream] = {}

    def submit(index: int) -> None:
        barrier.wait()
        streams[index] = engine.submit(requests[index])

    threads = [threading.Thread(target=submit, args=(index,)) for index in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(streams) == len(requests)
    for stream in streams.values():
        assert stream.wait(30) and stream.finish_reason == "length"
    assert [streams[index].text for index in range(len(requests))] == expected
    assert engine.metrics().requests_finished == len(requests)


# ---- prompt reuse and eviction -------------------------------------------------------------------
def test_second_turn_prefills_only_the_new_tokens(engine_factory: EngineFactory, hello_model: Path) -> None:
    engine = engine_factory(hello_model)
    first = run(engine, ChatRequest(user("hello there"), greedy(50), conversation_id="c"))
    assert first.text == " hello world"
    turn_two = (*user("hello there"), ChatMessage("assistant", first.text), ChatMessage("user", "and then?"))
    second = run(engine, ChatRequest(turn_two, greedy(50), conversation_id="c")).metrics
    in_cache = first.metrics.prompt_tokens + first.metrics.generated_tokens - 1  # the EOS was never decoded
    assert second.reused_prompt_tokens == in_cache
    assert second.prefilled_tokens == second.prompt_tokens - in_cache
    again = run(engine, ChatRequest(turn_two, greedy(50), conversation_id="c")).metrics
    assert (again.reused_prompt_tokens, again.prefilled_tokens) == (again.prompt_tokens - 1, 1)


def test_reused_prompt_gives_the_same_answer_as_a_full_prefill(
    engine_factory: EngineFactory, peaked_model: Path
) -> None:
    engine = engine_factory(peaked_model)
    first = run(engine, ChatRequest(user(PROMPTS[0]), greedy(12), conversation_id="talk"))
    turn_two = (*user(PROMPTS[0]), ChatMessage("assistant", first.text), ChatMessage("user", PROMPTS[1]))
    second = run(engine, ChatRequest(turn_two, greedy(24), conversation_id="talk"))
    assert second.metrics.reused_prompt_tokens >= first.metrics.prompt_tokens
    assert second.metrics.prefilled_tokens == second.metrics.prompt_tokens - second.metrics.reused_prompt_tokens
    cold_engine = engine_factory(peaked_model, prefix_caching=False)
    cold = run(cold_engine, ChatRequest(turn_two, greedy(24), conversation_id="talk"))
    assert cold.metrics.reused_prompt_tokens == 0
    assert second.text == cold.text
    assert engine.metrics().prefix_cache_hit_rate


def test_an_evicted_conversation_is_prefilled_again_and_answers_the_same(
    engine_factory: EngineFactory, peaked_model: Path
) -> None:
    engine = engine_factory(peaked_model, parallel_chats=2)
    first_turns = {name: user(prompt) for name, prompt in zip("abc", PROMPTS, strict=False)}
    replies = {name: run(engine, ChatRequest(first_turns[name], greedy(10), conversation_id=name)) for name in "abc"}

    def second_turn(name: str) -> tuple[ChatMessage, ...]:
        return (*first_turns[name], ChatMessage("assistant", replies[name].text), ChatMessage("user", PROMPTS[3]))

    evicted = run(engine, ChatRequest(second_turn("a"), greedy(16), conversation_id="a"))
    assert evicted.metrics.reused_prompt_tokens < replies["a"].metrics.prompt_tokens // 2
    assert evicted.metrics.prefilled_tokens == evicted.metrics.prompt_tokens - evicted.metrics.reused_prompt_tokens
    kept = run(engine, ChatRequest(second_turn("c"), greedy(16), conversation_id="c"))
    assert kept.metrics.reused_prompt_tokens >= replies["c"].metrics.prompt_tokens
    cold_engine = engine_factory(peaked_model, parallel_chats=1, prefix_caching=False)
    assert evicted.text == run(cold_engine, ChatRequest(second_turn("a"), greedy(16))).text


def test_a_conversation_whose_slot_would_split_the_step_moves_beside_the_running_chat(
    engine_factory: EngineFactory, peaked_model: Path
) -> None:
    # with a KV stream per chat, llama.cpp computes each run of consecutive ids of a step on its own
    engine = engine_factory(peaked_model, parallel_chats=4)
    first_a = run(engine, ChatRequest(user(PROMPTS[0]), greedy(8), conversation_id="a"))  # slot 0
    with joining_together(engine):
        anonymous = engine.submit(ChatRequest(user(PROMPTS[4]), greedy(8)))  # slot 1, then owned by nobody
        first_c = engine.submit(ChatRequest(user(PROMPTS[1]), greedy(8), conversation_id="c"))  # slot 2
    assert anonymous.wait(30) and first_c.wait(30)
    second_a = (*user(PROMPTS[0]), ChatMessage("assistant", first_a.text), ChatMessage("user", PROMPTS[3]))
    second_c = (*user(PROMPTS[1]), ChatMessage("assistant", first_c.text), ChatMessage("user", PROMPTS[3]))
    with joining_together(engine):  # a runs in slot 0; c's slot 2 would leave a gap: c moves to slot 1
        running_a = engine.submit(ChatRequest(second_a, greedy(24), conversation_id="a"))
        moved_c = engine.submit(ChatRequest(second_c, greedy(16), conversation_id="c"))
    assert running_a.wait(30) and moved_c.wait(30)
    assert engine.metrics().extra["slot_moves"] == 1
    assert moved_c.metrics.reused_prompt_tokens >= first_c.metrics.prompt_tokens  # its KV came along
    third_c = (*second_c, ChatMessage("assistant", moved_c.text), ChatMessage("user", PROMPTS[2]))
    after_move = run(engine, ChatRequest(third_c, greedy(8), conversation_id="c"))
    assert after_move.metrics.reused_prompt_tokens >= moved_c.metrics.prompt_tokens  # slot 1 is c's now
    cold = engine_factory(peaked_model, parallel_chats=1, prefix_caching=False)
    assert moved_c.text == run(cold, ChatRequest(second_c, greedy(16))).text
    assert running_a.text == run(cold, ChatRequest(second_a, greedy(24))).text


# ---- warm-up and unload -----------------------------------------------------------------------------
def test_warm_up_runs_a_real_request_and_leaves_only_the_template_opening(
    engine_factory: EngineFactory, deep_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = engine_factory(deep_model)
    warm_up_streams: list[RequestStream] = []
    real_submit = engine.submit

    def spy(request: ChatRequest) -> RequestStream:
        warm_up_streams.append(real_submit(request))
        return warm_up_streams[-1]

    monkeypatch.setattr(engine, "submit", spy)
    engine.warm_up()
    monkeypatch.undo()
    assert len(warm_up_streams) == 1
    warm = warm_up_streams[0]
    assert warm.finish_reason == "length" and warm.metrics.generated_tokens > 0 and warm.metrics.prefilled_tokens > 0
    # what the warm-up's prompt shares with any other chat: the template's opening, kept for the first chat
    warm_prompt = engine.tokenize(engine.render_prompt(user(WARM_UP_MESSAGE)))
    first_prompt = engine.tokenize(engine.render_prompt(user(PROMPTS[0])))
    opening = common_prefix_length(warm_prompt, first_prompt)
    assert 0 < opening < len(warm_prompt)
    snapshot = engine.metrics()
    assert (snapshot.requests_finished, snapshot.tokens_generated, snapshot.kv_cells_used) == (0, 0, opening)
    assert snapshot.last_time_to_first_token_s is None
    after = run(engine, ChatRequest(user(PROMPTS[0]), greedy(4)))
    assert after.metrics.reused_prompt_tokens == opening
    cold = engine_factory(deep_model, prefix_caching=False)
    assert after.text == run(cold, ChatRequest(user(PROMPTS[0]), greedy(4))).text


def _engine_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "llamacpp-engine"]


def test_unload_cancels_requests_frees_and_a_second_load_works(
    slow_model: Path, pushed_pieces: dict[str, list[str]]
) -> None:
    engine = LlamaCppEngine()
    config = EngineConfig(model_path=slow_model, context_length=2048, parallel_chats=2, threads=1)
    before = len(_engine_threads())
    engine.load(config)
    first_text = run(engine, ChatRequest(user(PROMPTS[2]), greedy(12))).text
    long_run = dataclasses.replace(greedy(2000), ignore_eos=True)  # many seconds each on this model
    running = engine.submit(ChatRequest(user(PROMPTS[0]), long_run))
    waiting = [engine.submit(ChatRequest(user(prompt), long_run)) for prompt in PROMPTS[1:4]]
    wait_until(lambda: bool(pushed_pieces[running.request_id]), "the first piece", give_up=finished_first(running))
    assert not any(stream.finished for stream in (running, *waiting)), "every request should still be unfinished"
    engine.unload()
    for stream in (running, *waiting):
        assert stream.finished and stream.finish_reason == "cancelled"
    assert running.text
    assert len(_engine_threads()) == before
    with pytest.raises(NoModelLoadedError):
        engine.submit(ChatRequest(user("hello"), greedy(3)))
    assert engine.metrics().model_name == ""
    engine.load(config)
    try:
        assert run(engine, ChatRequest(user(PROMPTS[2]), greedy(12))).text == first_text
    finally:
        engine.unload()


def test_parallel_decode_steps_reuse_the_compute_graph(engine_factory: EngineFactory, peaked_model: Path) -> None:
    """Chats batched in a fixed sequence order let llama.cpp skip rebuilding the graph each step."""
    engine = engine_factory(peaked_model, parallel_chats=4)
    new_tokens = 30
    sampling = dataclasses.replace(greedy(new_tokens), ignore_eos=True)
    for round_index in range(3):  # later rounds hand the slots out in another order than the first
        prompts = PROMPTS[round_index:] + PROMPTS[:round_index]
        requests = [ChatRequest(user(f"{prompt} {round_index}"), sampling) for prompt in prompts[:4]]
        before = engine.metrics().extra["graphs_reused"]
        with joining_together(engine):  # the four chats start in the same step, as the count assumes
            streams = [engine.submit(request) for request in requests]
        assert all(stream.wait(30) for stream in streams)
        reused = engine.metrics().extra["graphs_reused"] - before
        assert reused >= new_tokens - 6, f"round {round_index}: only {reused} of ~{new_tokens} decode steps reused"


# ---- the decode loop: text while the GPU computes, batched greedy sampling, reader wake-ups --------
@pytest.fixture
def gpu_step_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines loaded from here on run their steps as on a GPU: the text of the tokens fed in a step is
    made after ``llama_decode`` returns (there, while the GPU computes), so a stop string is seen a step later.
    """
    import app.core.engines.backends.llamacpp as backend

    real_load = backend.load_native_model

    def load_as_if_offloaded(*args: Any, **kwargs: Any) -> Any:
        native = real_load(*args, **kwargs)
        native.offloaded = True
        return native

    monkeypatch.setattr(backend, "load_native_model", load_as_if_offloaded)


@pytest.mark.usefixtures("gpu_step_order")
def test_in_gpu_step_order_stops_lengths_and_texts_are_unchanged(
    engine_factory: EngineFactory, chinese_model: Path, hello_model: Path, peaked_model: Path
) -> None:
    chinese = engine_factory(chinese_model)
    stopped = run(chinese, ChatRequest(user("hi"), dataclasses.replace(GREEDY, max_tokens=60, stop=("文中",))))
    assert (stopped.text, stopped.finish_reason, stopped.metrics.generated_tokens) == ("中", "stop", 9)
    never = run(chinese, ChatRequest(user("hi"), dataclasses.replace(GREEDY, max_tokens=9, stop=("xyz",))))
    assert (never.text, never.finish_reason) == ("中文中", "length")
    hello = engine_factory(hello_model)
    ended = run(hello, ChatRequest(user("hi"), greedy(50)))
    assert (ended.text, ended.finish_reason, ended.metrics.generated_tokens) == (" hello world", "stop", 3)
    requests = [ChatRequest(user(prompt), dataclasses.replace(greedy(30), ignore_eos=True)) for prompt in PROMPTS]
    expected = _one_at_a_time(peaked_model, requests)
    parallel = engine_factory(peaked_model, parallel_chats=4)
    with joining_together(parallel):
        streams = [parallel.submit(request) for request in requests]
    assert all(stream.wait(30) for stream in streams)
    assert [stream.text for stream in streams] == expected


@pytest.mark.usefixtures("gpu_step_order")
def test_in_gpu_step_order_a_stopped_chat_frees_its_slot_for_the_next_turn(
    engine_factory: EngineFactory, chinese_model: Path
) -> None:
    """The token that completed the stop string was decoded into the chat's KV; the next turn still
    reuses the prompt it shares and answers as a fresh engine does."""
    engine = engine_factory(chinese_model, parallel_chats=1)
    stop = dataclasses.replace(GREEDY, max_tokens=60, stop=("文中",))
    first = run(engine, ChatRequest(user("hi"), stop, conversation_id="c"))
    turn_two = (*user("hi"), ChatMessage("assistant", first.text), *user("again"))
    second = run(engine, ChatRequest(turn_two, greedy(6), conversation_id="c"))
    assert second.metrics.reused_prompt_tokens > 0
    fresh = engine_factory(chinese_model, parallel_chats=1)
    assert second.text == run(fresh, ChatRequest(turn_two, greedy(6))).text


def test_greedy_and_sampled_chats_in_one_step_answer_as_each_alone(
    engine_factory: EngineFactory, peaked_model: Path
) -> None:
    """Greedy chats are sampled together from the logits; the others keep their own llama.cpp chain."""
    samplings = [
        dataclasses.replace(greedy(30), ignore_eos=True),
        SamplingParams(temperature=0.9, max_tokens=30, seed=5, ignore_eos=True),
        dataclasses.replace(greedy(30), ignore_eos=True, repetition_penalty=1.3),
        dataclasses.replace(greedy(30), ignore_eos=True),
    ]
    requests = [ChatRequest(user(prompt), sampling) for prompt, sampling in zip(PROMPTS, samplings, strict=False)]
    expected = _one_at_a_time(peaked_model, requests)
    engine = engine_factory(peaked_model, parallel_chats=4)
    with joining_together(engine):
        streams = [engine.submit(request) for request in requests]
    assert all(stream.wait(30) for stream in streams)
    assert [stream.text for stream in streams] == expected


def test_a_reader_iterating_a_stream_is_woken_once_a_frame_not_once_a_token(
    engine_factory: EngineFactory, tiny_gguf: Path
) -> None:
    """Threads iterating streams (the CLI, the HTTP server) would otherwise take the interpreter from
    the engine thread once per token and chat; the text itself arrives whole and in order."""
    from app.core.engines.backends.llamacpp_scheduler import WAKE_INTERVAL_S

    engine = engine_factory(tiny_gguf, parallel_chats=1, threads=1)
    tokens = 300
    stream = engine.submit(ChatRequest(user(PROMPTS[0]), dataclasses.replace(greedy(tokens), ignore_eos=True)))
    started = time.perf_counter()
    pieces = list(stream)
    elapsed = time.perf_counter() - started
    assert stream.metrics.generated_tokens == tokens
    assert "".join(pieces) == stream.text
    # one wake for the first text, one per frame while decoding, one at the finish (and one of slack)
    allowed = 3 + elapsed / WAKE_INTERVAL_S
    assert len(pieces) <= allowed, f"{len(pieces)} wake-ups for {tokens} tokens in {elapsed:.3f} s"
