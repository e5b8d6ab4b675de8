"""Measure a loaded engine: time to first token, prefill and decode speed, parallel throughput, roofline."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatRequest, SamplingParams
from app.core.engines.stream import RequestStream
from app.core.hardware.report import BandwidthEstimate
from app.core.planner import MemoryPlan, decode_tokens_per_second_bound

# Words with no shared long prefix between chats, so parallel chats do not reuse each other's cache.
_FILLER = (
    "river stone lantern orbit meadow copper violin harbor pepper glacier canyon velvet "
    "thunder maple signal compass ember falcon quartz saddle tunnel walnut zephyr beacon"
).split()


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_prompt(manager: EngineManager, target_tokens: int, variant: int) -> str:
    """A prompt of about ``target_tokens`` tokens; ``variant`` changes it from the first word on."""
    words: list[str] = []
    index = variant * 7
    while True:
        words.extend(_FILLER[(index + step) % len(_FILLER)] for step in range(16))
        index += 5
        text = f"[{variant}] " + " ".join(words)
        if manager.count_tokens(text) >= target_tokens:
            return text


def _run(manager: EngineManager, prompt: str, max_tokens: int) -> RequestStream:
    sampling = SamplingParams(temperature=0.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=max_tokens, ignore_eos=True)
    return manager.submit(ChatRequest.single_prompt(prompt, sampling))


def _finished(stream: RequestStream) -> RequestStream:
    stream.wait()
    if stream.error is not None:
        raise stream.error
    return stream


def run_engine_benchmark(
    manager: EngineManager,
    plan: MemoryPlan,
    bandwidth: BandwidthEstimate,
    *,
    parallel_chats: int,
    prompt_tokens: int = 256,
    max_tokens: int = 128,
) -> BenchResult:
    """Run one chat, then ``parallel_chats`` at once, through the loaded engine."""
    loaded = manager.status().loaded
    if loaded is None:
        raise RuntimeError("load a model before benchmarking")
    # One untimed request first, so the figures are steady state even with warm-up off.
    _finished(_run(manager, make_prompt(manager, 16, 99), 4))
    single = _finished(_run(manager, make_prompt(manager, prompt_tokens, 0), max_tokens)).metrics

    streams = [_run(manager, make_prompt(manager, prompt_tokens, 1 + n), max_tokens) for n in range(parallel_chats)]
    results = [_finished(stream).metrics for stream in streams]
    aggregate = sum(result.decode_tokens_per_s or 0.0 for result in results)
    single_decode = single.decode_tokens_per_s or 0.0

    context = single.prompt_tokens + single.generated_tokens // 2
    roofline = decode_tokens_per_second_bound(
        plan.model, bandwidth.bytes_per_second, plan.kv_cache_dtype, context
    )
    return BenchResult(
        backend=loaded.backend,
        model=loaded.model_name,
        context_length=loaded.config.context_length,
        prompt_tokens=single.prompt_tokens,
        generated_tokens=single.generated_tokens,
        time_to_first_token_s=single.time_to_first_token_s or 0.0,
        prefill_tokens_per_s=single.prefill_tokens_per_s or 0.0,
        decode_tokens_per_s=single_decode,
        parallel_chats=parallel_chats,
        aggregate_decode_tokens_per_s=aggregate,
        parallel_speedup=aggregate / single_decode if single_decode else 0.0,
        roofline_decode_tokens_per_s=roofline,
        roofline_fraction=single_decode / roofline if roofline else None,
        bandwidth_source=f"{bandwidth.source}: {bandwidth.detail}".rstrip(": "),
    )
