"""The engine benchmark's measurements: each runs the engine and its yardstick in one run, paired."""

from __future__ import annotations

import dataclasses
import sys
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.engines.backends.llamacpp_native import llamacpp_plan
from app.core.engines.base import EngineConfig
from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams
from app.core.planner.engine_plan import LlamaCppPlan
from tests.benchmarks.bench_support import (
    Consumer,
    ObservedChat,
    PromptMaker,
    aggregate_decode_tokens_per_s,
    aggregate_including_staggered_prefill,
    check_lengths,
    figure,
    greedy,
    median,
    run_chats,
    sum_of_request_rates,
    verdict,
)
from tests.benchmarks.decode_clock import decode_clock
from tests.benchmarks.reference_loops import ContextSettings
from tests.benchmarks.reference_worker import ReferenceProcess


@dataclass(frozen=True)
class BenchPlan:
    """Sizes and repeats of one benchmark run (``--quick`` shrinks them)."""

    model_path: Path
    threads: int
    repeats: int
    prompt_tokens: int
    new_tokens: int
    context_length: int
    reuse_history_tokens: int
    kv_cache_dtype: str = "f16"
    gpu_layers: int = -1  # all layers, as the app offloads when the GPU has room
    parallel_sequences: tuple[int, ...] = (4,)
    peer_sequences: tuple[int, ...] = (1, 8)
    sampling: str = "greedy"  # or "default": the app's chat sampling (SamplingParams())
    graph_sampling: bool | None = None  # None: the app's rule (LLAMACPP_GRAPH_SAMPLING_ON_GPU)

    def chat_sampling(self) -> SamplingParams:
        """Sampling of the throughput chats: greedy, or the app's defaults; exactly ``new_tokens`` each."""
        if self.sampling == "default":
            return SamplingParams(max_tokens=self.new_tokens, ignore_eos=True)
        return greedy(self.new_tokens)

    def engine_config(self, sequences: int, warm_up: bool = True) -> EngineConfig:
        return EngineConfig(
            model_path=self.model_path,
            context_length=self.context_length,
            parallel_chats=sequences,
            kv_cache_dtype=self.kv_cache_dtype,
            threads=self.threads,
            warm_up=warm_up,
            llamacpp=dataclasses.replace(
                LlamaCppPlan.for_chats(self.context_length, sequences, n_gpu_layers=self.gpu_layers),
                graph_sampling=self.graph_sampling,
            ),
        )


@dataclass
class SharedResults:
    """Figures one measurement can hand to a later one in the same run (roofline reuses overhead)."""

    engine_single_decode: list[float] = field(default_factory=list)
    reference_single_decode: list[float] = field(default_factory=list)


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def reference_settings(config: EngineConfig) -> ContextSettings:
    """The llama_context parameters the engine uses for ``config``: the plan's llama.cpp part
    (``llamacpp_plan``: padded n_ctx, a shared KV stream for one chat, one per chat otherwise,
    n_batch = n_ubatch = 512), as llamacpp_native.context_params applies it.
    """
    plan = llamacpp_plan(config)
    return ContextSettings(
        n_ctx=plan.n_ctx,
        n_seq_max=config.parallel_chats,
        kv_unified=plan.kv_unified,
        threads=config.threads,
        n_batch=plan.n_batch,
        n_ubatch=min(plan.n_batch, plan.n_ubatch),
        kv_cache_dtype=config.kv_cache_dtype,
        flash_attention=config.flash_attention,
        gpu_layers=plan.n_gpu_layers,
    )


def check_engine_context(engine: Any, settings: ContextSettings) -> None:
    """Fail loudly if the engine's context differs from what the reference loops mirror."""
    described = engine.describe_build() if hasattr(engine, "describe_build") else {}
    expected = {"n_ctx": settings.n_ctx, "n_batch": settings.n_batch, "parallel_chats": settings.n_seq_max}
    differing = {key: (described[key], value) for key, value in expected.items()
                 if key in described and described[key] != value}
    if differing:
        raise RuntimeError(f"the engine's context differs from reference_settings() (engine, reference): {differing}")


@contextmanager
def loaded_engine(config: EngineConfig) -> Iterator[Any]:
    """The engine loaded (and warmed up when the config says so, as the manager does)."""
    from app.core.engines.backends.llamacpp import LlamaCppEngine

    engine = LlamaCppEngine()
    engine.load(config)
    check_engine_context(engine, reference_settings(config))
    if config.warm_up:
        engine.warm_up()
    try:
        yield engine
    finally:
        engine.unload()


@contextmanager
def reference_context(model_path: Path, settings: ContextSettings) -> Iterator[ReferenceProcess]:
    """The reference loop, in its own process (see reference_worker: never share one with the engine)."""
    reference = ReferenceProcess(model_path, settings)
    try:
        yield reference
    finally:
        reference.close()


def prompt_maker(engine: Any) -> PromptMaker:
    return PromptMaker(engine.render_prompt, engine.tokenize)


def _chat(messages: tuple[ChatMessage, ...], new_tokens: int, conversation_id: str | None = None) -> ChatRequest:
    return ChatRequest(messages=messages, sampling=greedy(new_tokens), conversation_id=conversation_id)


def engine_chats(
    engine: Any, chats: list[tuple[ChatMessage, ...]], plan: BenchPlan, consumer: Consumer = "frame"
) -> list[ObservedChat]:
    """The chats run together, ``plan.new_tokens`` each, sampled the plan's way."""
    sampling = plan.chat_sampling()
    observed = run_chats(engine, [ChatRequest(messages=messages, sampling=sampling) for messages in chats],
                         consumer=consumer)
    check_lengths(observed, plan.new_tokens)
    return observed


def _run_contender(
    contender: str,
    plan: BenchPlan,
    engine: Any,
    reference: ReferenceProcess,
    chats: list[tuple[ChatMessage, ...]],
    prompts: list[list[int]],
) -> dict[str, float]:
    """One contender's decode tokens/s for these chats: ``frame``/``token`` (the engine) or ``reference``;
    for ``frame`` and ``reference`` also milliseconds per ``llama_decode`` spent inside it and around it."""
    if contender == "reference":
        rate = reference.run(prompts, plan.new_tokens).decode_tokens_per_s
        tally = reference.last_decode
        return {"reference": rate, "reference_inside_decode_ms": tally.inside_ms_per_call,
                "reference_outside_decode_ms": tally.outside_ms_per_call}
    if contender == "frame":
        with decode_clock() as tally:
            observed = engine_chats(engine, chats, plan, "frame")
        return {
            "engine": aggregate_decode_tokens_per_s(observed),
            "engine_including_staggered_prefill": aggregate_including_staggered_prefill(observed),
            "engine_inside_decode_ms": tally.inside_ms_per_call,
            "engine_outside_decode_ms": tally.outside_ms_per_call,
        }
    observed = engine_chats(engine, chats, plan, "token")
    return {
        "engine_token_consumer": aggregate_decode_tokens_per_s(observed),
        "engine_token_consumer_own_metric": sum_of_request_rates(observed),
    }


def decode_rounds(
    plan: BenchPlan, engine: Any, reference: ReferenceProcess, sequences: int, seed: int, name: str
) -> tuple[dict[str, list[float]], int]:
    """Paired rounds of N-chat decode: the engine read the GUI way (``frame``) and the CLI way
    (``token``) and the reference loop, in an order that rotates every round; round 0 is discarded.
    Returns every contender's tokens/s per round (plus the engine's own metric) and the prompt length.
    """
    maker = prompt_maker(engine)
    figures: dict[str, list[float]] = defaultdict(list)
    prompt_length = 0
    for round_index in range(plan.repeats + 1):
        chats = [maker.user_chat(seed + 10 * round_index + s, plan.prompt_tokens) for s in range(sequences)]
        prompts = [maker.prompt_tokens(messages) for messages in chats]
        prompt_length = len(prompts[0])
        measured: dict[str, float] = {}
        contenders = ["frame", "token", "reference"]
        shift = round_index % len(contenders)
        for contender in contenders[shift:] + contenders[:shift]:
            measured.update(_run_contender(contender, plan, engine, reference, chats, prompts))
        if round_index == 0:
            continue
        for key, value in measured.items():
            figures[key].append(value)
        log(f"{name} round {round_index}: engine {measured['engine']:.1f} tok/s (token consumer "
            f"{measured['engine_token_consumer']:.1f}), reference {measured['reference']:.1f}")
    return figures, prompt_length


def decode_split(figures: dict[str, list[float]]) -> dict[str, Any]:
    """Milliseconds per decode step inside ``llama_decode`` and around it, engine and reference loop."""
    return {
        f"{who}_{where}_decode_ms_per_step": figure(figures[f"{who}_{where}_decode_ms"], 3)
        for who in ("engine", "reference") for where in ("inside", "outside")
    }


def _ratios(numerators: list[float], denominators: list[float]) -> list[float]:
    return [top / bottom for top, bottom in zip(numerators, denominators, strict=True)]


def measure_overhead(plan: BenchPlan, shared: SharedResults) -> dict[str, Any]:
    """1. Single-chat decode through the engine vs the minimal single-sequence loop."""
    config = plan.engine_config(1)
    settings = reference_settings(config)
    with loaded_engine(config) as engine, reference_context(plan.model_path, settings) as reference:
        figures, prompt_length = decode_rounds(plan, engine, reference, 1, 100, "overhead")
    shared.engine_single_decode = figures["engine"]
    shared.reference_single_decode = figures["reference"]
    ratios = _ratios(figures["engine"], figures["reference"])
    token_ratios = _ratios(figures["engine_token_consumer"], figures["reference"])
    return {
        **verdict(median(ratios), 0.97, higher_is_better=True),
        "ratio_runs": [round(r, 4) for r in ratios],
        "engine_decode_tok_s": figure(figures["engine"], 2),
        "reference_decode_tok_s": figure(figures["reference"], 2),
        "token_consumer_ratio": figure(token_ratios),
        **decode_split(figures),
        "engine_token_consumer_decode_tok_s": figure(figures["engine_token_consumer"], 2),
        "engine_token_consumer_decode_tok_s_own_metric": figure(figures["engine_token_consumer_own_metric"], 2),
        "prompt_tokens": prompt_length,
        "new_tokens": plan.new_tokens,
        "context_settings": settings.to_dict(),
    }


def measure_parallel(plan: BenchPlan, shared: SharedResults, sequences: int = 4) -> dict[str, Any]:
    """2. Aggregate decode of N chats through the engine vs the minimal N-sequence batched loop;
    also the same engine with one chat (N chats vs 1 chat).
    """
    config = plan.engine_config(sequences)
    settings = reference_settings(config)
    with loaded_engine(config) as engine, reference_context(plan.model_path, settings) as reference:
        figures, prompt_length = decode_rounds(plan, engine, reference, sequences, 200, "parallel")
        singles, _ = decode_rounds(plan, engine, reference, 1, 250, "parallel, 1 chat")
    ratios = _ratios(figures["engine"], figures["reference"])
    return {
        **verdict(median(ratios), 0.95, higher_is_better=True),
        "ratio_runs": [round(r, 4) for r in ratios],
        "sequences": sequences,
        "engine_aggregate_decode_tok_s": figure(figures["engine"], 2),
        "reference_aggregate_decode_tok_s": figure(figures["reference"], 2),
        "engine_aggregate_including_staggered_prefill_tok_s": figure(
            figures["engine_including_staggered_prefill"], 2
        ),
        "token_consumer_ratio": figure(_ratios(figures["engine_token_consumer"], figures["reference"])),
        "engine_token_consumer_aggregate_decode_tok_s": figure(figures["engine_token_consumer"], 2),
        "engine_token_consumer_sum_of_request_rates_own_metric": figure(
            figures["engine_token_consumer_own_metric"], 2
        ),
        **decode_split(figures),
        "engine_single_chat_same_engine_tok_s": figure(singles["engine"], 2),
        f"engine_{sequences}_chats_vs_1_chat": round(median(figures["engine"]) / median(singles["engine"]), 3),
        f"reference_{sequences}_sequences_vs_1": round(median(figures["reference"]) / median(singles["reference"]), 3),
        "prompt_tokens": prompt_length,
        "new_tokens": plan.new_tokens,
        "context_settings": settings.to_dict(),
    }


def _conversation(maker: PromptMaker, seed: int, history_tokens: int) -> tuple[ChatMessage, ...]:
    system = ChatMessage("system", f"You are a helpful assistant. Session {seed}.")
    return maker.user_chat(seed, history_tokens, prefix=(system,))


def measure_prompt_reuse(plan: BenchPlan, shared: SharedResults) -> dict[str, Any]:
    """3. TTFT of turn 2 of a long conversation (prefix reused) vs the same-length prompt computed fresh.

    The fresh prompt differs from turn 2 only in the system message's first word, so nothing
    in any cache matches it (the engine also reuses prefixes across conversations).
    """
    config = plan.engine_config(2)
    reuse_ttft: list[float] = []
    fresh_ttft: list[float] = []
    reused_tokens: list[int] = []
    fresh_reused_tokens: list[int] = []
    prefilled_tokens: list[int] = []
    prompt_lengths: list[tuple[int, int]] = []
    with loaded_engine(config) as engine:
        maker = prompt_maker(engine)
        for round_index in range(plan.repeats):
            history = _conversation(maker, 300 + round_index, plan.reuse_history_tokens)
            conversation_id = f"bench-reuse-{round_index}"
            [turn_one] = run_chats(engine, [_chat(history, 16, conversation_id)])
            turn_two_messages = (
                *history,
                ChatMessage("assistant", turn_one.text),
                ChatMessage("user", "Please summarise that in one short line."),
            )
            fresh_messages = (ChatMessage("system", "Be" + history[0].content[3:]), *turn_two_messages[1:])
            turn_two_request = _chat(turn_two_messages, 8, conversation_id)
            fresh_request = _chat(fresh_messages, 8, f"bench-fresh-{round_index}")
            order = [turn_two_request, fresh_request] if round_index % 2 == 0 else [fresh_request, turn_two_request]
            results = {request.request_id: run_chats(engine, [request])[0] for request in order}
            turn_two = results[turn_two_request.request_id]
            fresh = results[fresh_request.request_id]
            reuse_ttft.append(turn_two.metrics.time_to_first_token_s or 0.0)
            fresh_ttft.append(fresh.metrics.time_to_first_token_s or 0.0)
            reused_tokens.append(turn_two.metrics.reused_prompt_tokens)
            prefilled_tokens.append(turn_two.metrics.prefilled_tokens)
            fresh_reused_tokens.append(fresh.metrics.reused_prompt_tokens)
            prompt_lengths.append((turn_two.metrics.prompt_tokens, fresh.metrics.prompt_tokens))
            log(f"prompt reuse round {round_index}: turn 2 TTFT {reuse_ttft[-1] * 1000:.0f} ms "
                f"({prefilled_tokens[-1]} prefilled), fresh {fresh_ttft[-1] * 1000:.0f} ms")
    ratios = [reuse / fresh for reuse, fresh in zip(reuse_ttft, fresh_ttft, strict=True)]
    return {
        **verdict(median(ratios), 0.2, higher_is_better=False),
        "ratio_runs": [round(r, 4) for r in ratios],
        "turn2_ttft_s": figure(reuse_ttft),
        "fresh_prefill_ttft_s": figure(fresh_ttft),
        "turn2_prompt_tokens_and_fresh_prompt_tokens": prompt_lengths,
        "turn2_reused_tokens": reused_tokens,
        "turn2_prefilled_tokens": prefilled_tokens,
        "fresh_reused_tokens": fresh_reused_tokens,
        "ttft_source": "engine RequestMetrics.time_to_first_token_s",
    }


def _first_and_steady_ttft(plan: BenchPlan, warm_up: bool, seed: int, steady_requests: int = 3) -> tuple[float, float]:
    """Load, (warm up,) then TTFT of the first request and the median TTFT of the next few."""
    config = plan.engine_config(1, warm_up=warm_up)
    with loaded_engine(config) as engine:
        maker = prompt_maker(engine)
        ttfts = []
        for index in range(1 + steady_requests):
            messages = maker.user_chat(seed + index, plan.prompt_tokens)
            [chat] = run_chats(engine, [_chat(messages, 4)])
            ttfts.append(chat.metrics.time_to_first_token_s or 0.0)
    return ttfts[0], median(ttfts[1:])


def measure_warmup(plan: BenchPlan, shared: SharedResults) -> dict[str, Any]:
    """4. TTFT of the first request after load (warm-up on) vs the steady-state TTFT."""
    firsts, steadies, cold_firsts, cold_steadies = [], [], [], []
    for round_index in range(plan.repeats):
        first, steady = _first_and_steady_ttft(plan, True, 400 + 10 * round_index)
        cold_first, cold_steady = _first_and_steady_ttft(plan, False, 500 + 10 * round_index)
        firsts.append(first)
        steadies.append(steady)
        cold_firsts.append(cold_first)
        cold_steadies.append(cold_steady)
        log(f"warm-up round {round_index}: first {first * 1000:.0f} ms, steady {steady * 1000:.0f} ms; "
            f"without warm-up first {cold_first * 1000:.0f} ms")
    ratios = [first / steady for first, steady in zip(firsts, steadies, strict=True)]
    cold_ratios = [first / steady for first, steady in zip(cold_firsts, cold_steadies, strict=True)]
    return {
        **verdict(median(ratios), 1.2, higher_is_better=False),
        "ratio_runs": [round(r, 4) for r in ratios],
        "first_ttft_s": figure(firsts),
        "steady_ttft_s": figure(steadies),
        "without_warmup_first_over_steady": figure(cold_ratios, 3),
        "without_warmup_first_ttft_s": figure(cold_firsts),
        "prompt_tokens": plan.prompt_tokens,
        "ttft_source": "engine RequestMetrics.time_to_first_token_s",
    }


def measure_roofline(plan: BenchPlan, shared: SharedResults) -> dict[str, Any]:
    """5. Single-chat decode as a fraction of bandwidth / bytes read per token (bandwidth measured now)."""
    from app.core.hardware.bandwidth import measure_copy_bandwidth
    from app.core.planner import decode_tokens_per_second_bound, kv_bytes_for_context, read_model_metadata

    if not shared.engine_single_decode:
        measure_overhead(plan, shared)
    bandwidths = [measure_copy_bandwidth().bytes_per_second for _ in range(3)]
    bandwidth = median(bandwidths)
    metadata = read_model_metadata(plan.model_path)
    context_tokens = plan.prompt_tokens + plan.new_tokens // 2  # average KV depth while decoding
    bound = decode_tokens_per_second_bound(metadata, bandwidth, plan.kv_cache_dtype, context_tokens)
    if bound is None:
        raise RuntimeError("the bandwidth measurement failed")
    engine_rate = median(shared.engine_single_decode)
    reference_rate = median(shared.reference_single_decode)
    return {
        "ratio": round(engine_rate / bound, 4),
        "target": "report (a raw loop reaches about 0.5-0.7 here); engine should match the reference's fraction",
        "passed": None,
        "reference_fraction": round(reference_rate / bound, 4),
        "roofline_tok_s": round(bound, 2),
        "engine_decode_tok_s": round(engine_rate, 2),
        "reference_decode_tok_s": round(reference_rate, 2),
        "bandwidth_bytes_per_s": figure(bandwidths, 0),
        "bandwidth_method": "app.core.hardware.bandwidth.measure_copy_bandwidth (numpy copy, read+write)",
        "weight_bytes_read_per_token": metadata.active_weight_bytes,
        "kv_bytes_read_per_token": kv_bytes_for_context(metadata, plan.kv_cache_dtype, context_tokens),
        "kv_context_tokens_assumed": context_tokens,
    }
