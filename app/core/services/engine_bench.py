"""Measure a loaded engine the way llama.cpp's own tools do, so the figures compare directly.

* Decode excludes prefill: a chat's decode rate is its tokens after the first over the time
  from its first token to its last (``llama-batched-bench``'s S_TG at one sequence).
* Parallel decode counts only while every chat decodes: all chats' decoded tokens over the
  span from the moment the *last* chat got its first token (every prompt prefilled) to the
  last token, as ``llama-batched-bench`` does with B sequences (S_TG). The old figure, the
  sum of each chat's own rate, counted the steps in which later chats were still being
  prefilled and read ~20% low at 16 chats on a GPU; it is kept as ``sum_of_chat_rates``.
* Every figure is the median of several rounds after an untimed warm-up round (GPU clocks
  ramp up and the first steps build graphs), and the context settings are reported with the
  ``llama-batched-bench`` command line that measures the same thing.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams
from app.core.engines.stream import RequestStream
from app.core.hardware.report import BandwidthEstimate
from app.core.planner import MemoryPlan, decode_tokens_per_second_bound

# Words with no shared long prefix between chats, so parallel chats do not reuse each other's cache.
_FILLER = (
    "river stone lantern orbit meadow copper violin harbor pepper glacier canyon velvet "
    "thunder maple signal compass ember falcon quartz saddle tunnel walnut zephyr beacon"
).split()
DEFAULT_ROUNDS = 3


@dataclass(frozen=True)
class ChatSpan:
    """One finished chat on a common clock: when its first and last tokens came."""

    first_token_at: float
    last_token_at: float
    generated_tokens: int
    decode_tokens_per_s: float


@dataclass(frozen=True)
class BenchResult:
    backend: str
    model: str
    context_length: int
    prompt_tokens: int
    generated_tokens: int
    time_to_first_token_s: float
    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    parallel_chats: int
    aggregate_decode_tokens_per_s: float
    parallel_speedup: float
    roofline_decode_tokens_per_s: float | None
    roofline_fraction: float | None
    bandwidth_source: str
    rounds: int = 1
    decode_runs: tuple[float, ...] = ()
    aggregate_runs: tuple[float, ...] = ()
    sum_of_chat_rates: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)
    peer_command: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def all_decoding_tokens_per_s(spans: list[ChatSpan]) -> float:
    """Aggregate decode of chats run together, counted once every chat decodes (batched-bench's S_TG)."""
    start = max(span.first_token_at for span in spans)
    end = max(span.last_token_at for span in spans)
    decoded = sum(span.generated_tokens - 1 for span in spans)
    return decoded / (end - start) if end > start else 0.0


def _prompt_overhead(manager: EngineManager) -> int:
    """Tokens the chat template adds around one user message (0 if the engine cannot say)."""
    render = getattr(manager.engine, "render_prompt", None)
    if render is None:
        return 0
    try:
        return max(0, manager.count_tokens(render((ChatMessage("user", ""),))))
    except Exception:  # an engine without a local tokenizer/template
        return 0


def make_prompt(manager: EngineManager, target_tokens: int, variant: int, overhead: int = 0) -> str:
    """A message of about ``target_tokens - overhead`` tokens; ``variant`` changes it from the first word on."""
    words: list[str] = []
    index = variant * 7
    goal = max(1, target_tokens - overhead)
    while True:
        words.extend(_FILLER[(index + step) % len(_FILLER)] for step in range(4))
        index += 5
        text = f"[{variant}] " + " ".join(words)
        if manager.count_tokens(text) >= goal:
            return text


def _submit(manager: EngineManager, prompt: str, max_tokens: int) -> tuple[float, RequestStream]:
    sampling = SamplingParams(temperature=0.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=max_tokens, ignore_eos=True)
    submitted = time.perf_counter()
    return submitted, manager.submit(ChatRequest.single_prompt(prompt, sampling))


def _span(submitted: float, stream: RequestStream) -> ChatSpan:
    stream.wait()
    if stream.error is not None:
        raise stream.error
    metrics = stream.metrics
    rate = metrics.decode_tokens_per_s or 0.0
    first = submitted + (metrics.time_to_first_token_s or 0.0)
    last = first + (metrics.generated_tokens - 1) / rate if rate else first
    return ChatSpan(first, last, metrics.generated_tokens, rate)


def _run_chats(manager: EngineManager, prompts: list[str], max_tokens: int) -> list[ChatSpan]:
    submitted = [_submit(manager, prompt, max_tokens) for prompt in prompts]
    return [_span(at, stream) for at, stream in submitted]


def _settings(manager: EngineManager) -> dict[str, Any]:
    """What the engine runs with, as it reports it (context, batch, KV type, threads, offload)."""
    engine = manager.engine
    loaded = manager.status().loaded
    describe = getattr(engine, "describe_build", None)
    described: dict[str, Any] = describe() if describe is not None else {}
    wanted = ("n_ctx", "n_ctx_per_sequence", "n_batch", "flash_attention", "gpu_offload")
    settings: dict[str, Any] = {key: described[key] for key in wanted if key in described}
    if loaded is not None:
        settings["kv_cache_dtype"] = loaded.config.kv_cache_dtype
        settings["notes"] = list(loaded.notes)
        for note in loaded.notes:
            if note.startswith("Threads: "):
                settings["threads"] = int(note.removeprefix("Threads: "))
            if note.startswith("GPU layers: "):
                settings["gpu_layers"] = note.removeprefix("GPU layers: ")
    return settings


def batched_bench_command(model_path: str, settings: dict[str, Any], prompt: int, new: int, chats: int) -> str:
    """The ``llama-batched-bench`` line that measures what this benchmark measures, with its settings."""
    gpu = settings.get("gpu_layers")
    parts = [
        "llama-batched-bench", "-m", model_path, "-c", str(settings.get("n_ctx", 0)),
        "-b", str(settings.get("n_batch", 512)), "-ub", str(settings.get("n_batch", 512)),
        "-npp", str(prompt), "-ntg", str(new), "-npl", f"1,{chats}" if chats > 1 else "1",
        "-ctk", str(settings.get("kv_cache_dtype", "f16")), "-ctv", str(settings.get("kv_cache_dtype", "f16")),
        "-fa", "on" if settings.get("flash_attention") == "enabled" else "off",
        "-ngl", "999" if gpu == "all" else str(gpu or 0), "-no-kvu",
    ]
    if "threads" in settings:
        parts += ["-t", str(settings["threads"])]
    return " ".join(parts)


def run_engine_benchmark(
    manager: EngineManager,
    plan: MemoryPlan,
    bandwidth: BandwidthEstimate,
    *,
    parallel_chats: int,
    prompt_tokens: int = 256,
    max_tokens: int = 128,
    rounds: int = DEFAULT_ROUNDS,
) -> BenchResult:
    """One chat, then ``parallel_chats`` at once, ``rounds`` times after an untimed warm-up round."""
    loaded = manager.status().loaded
    if loaded is None:
        raise RuntimeError("load a model before benchmarking")
    overhead = _prompt_overhead(manager)
    singles: list[ChatSpan] = []
    single_metrics = []
    aggregates: list[float] = []
    sums: list[float] = []
    for round_index in range(rounds + 1):
        base = 100 * round_index
        single_stream = _submit(manager, make_prompt(manager, prompt_tokens, base, overhead), max_tokens)
        single = _span(*single_stream)
        prompts = [make_prompt(manager, prompt_tokens, base + 1 + n, overhead) for n in range(parallel_chats)]
        spans = _run_chats(manager, prompts, max_tokens)
        if round_index == 0:
            continue  # warm-up: clocks, graphs, caches
        singles.append(single)
        single_metrics.append(single_stream[1].metrics)
        aggregates.append(all_decoding_tokens_per_s(spans))
        sums.append(sum(span.decode_tokens_per_s for span in spans))

    decode_runs = tuple(span.decode_tokens_per_s for span in singles)
    single_decode = statistics.median(decode_runs)
    aggregate = statistics.median(aggregates)
    metrics = single_metrics[len(single_metrics) // 2]
    context = metrics.prompt_tokens + metrics.generated_tokens // 2
    roofline = decode_tokens_per_second_bound(plan.model, bandwidth.bytes_per_second, plan.kv_cache_dtype, context)
    settings = _settings(manager)
    return BenchResult(
        backend=loaded.backend,
        model=loaded.model_name,
        context_length=loaded.config.context_length,
        prompt_tokens=metrics.prompt_tokens,
        generated_tokens=metrics.generated_tokens,
        time_to_first_token_s=statistics.median(m.time_to_first_token_s or 0.0 for m in single_metrics),
        prefill_tokens_per_s=statistics.median(m.prefill_tokens_per_s or 0.0 for m in single_metrics),
        decode_tokens_per_s=single_decode,
        parallel_chats=parallel_chats,
        aggregate_decode_tokens_per_s=aggregate,
        parallel_speedup=aggregate / single_decode if single_decode else 0.0,
        roofline_decode_tokens_per_s=roofline,
        roofline_fraction=single_decode / roofline if roofline else None,
        bandwidth_source=f"{bandwidth.source}: {bandwidth.detail}".rstrip(": "),
        rounds=rounds,
        decode_runs=decode_runs,
        aggregate_runs=tuple(aggregates),
        sum_of_chat_rates=statistics.median(sums),
        settings=settings,
        peer_command=batched_bench_command(str(loaded.config.model_path), settings, metrics.prompt_tokens,
                                           max_tokens, parallel_chats)
        if loaded.backend == "llamacpp" else "",
    )
