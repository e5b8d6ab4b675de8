"""Measurement 6: the engine against llama.cpp's own `llama-server -np 4` and `llama-batched-bench` (1 and 8 chats)."""

from __future__ import annotations

from typing import Any

from tests.benchmarks.bench_support import (
    aggregate_decode_tokens_per_s,
    aggregate_including_staggered_prefill,
    figure,
    median,
    verdict,
)
from tests.benchmarks.engine_measurements import (
    BenchPlan,
    SharedResults,
    engine_chats,
    loaded_engine,
    log,
    prompt_maker,
    reference_context,
    reference_settings,
)
from tests.benchmarks.llamacpp_peers import (
    LlamaServer,
    run_batched_bench,
    server_aggregate_decode_tokens_per_s,
    server_sampling_fields,
)
from tests.benchmarks.llamacpp_tools import ensure_tools


def measure_server(plan: BenchPlan, shared: SharedResults, sequences: int = 4) -> dict[str, Any]:
    """Aggregate decode of 4 chats: engine vs llama-server with 4 slots serving 4 concurrent streams."""
    tools = ensure_tools()
    config = plan.engine_config(sequences)
    settings = reference_settings(config)
    engine_rates: list[float] = []
    engine_staggered: list[float] = []
    server_rates: list[float] = []
    server_own: list[float] = []
    ratios: list[float] = []
    with loaded_engine(config) as engine, LlamaServer(tools.server, plan.model_path, settings, sequences) as server:
        maker = prompt_maker(engine)
        for round_index in range(plan.repeats + 1):  # round 0 warms both up and is discarded
            chats = [maker.user_chat(600 + 10 * round_index + s, plan.prompt_tokens) for s in range(sequences)]
            prompts = [maker.prompt_tokens(messages) for messages in chats]
            engine_first = round_index % 2 == 0
            if not engine_first:
                streams = server.concurrent_completions(prompts, plan.new_tokens, plan.chat_sampling())
            observed = engine_chats(engine, chats, plan)
            if engine_first:
                streams = server.concurrent_completions(prompts, plan.new_tokens, plan.chat_sampling())
            if any(stream.tokens_predicted != plan.new_tokens for stream in streams):
                raise RuntimeError(f"llama-server predicted {[s.tokens_predicted for s in streams]} tokens")
            if round_index == 0:
                continue
            engine_rates.append(aggregate_decode_tokens_per_s(observed))
            engine_staggered.append(aggregate_including_staggered_prefill(observed))
            server_rates.append(server_aggregate_decode_tokens_per_s(streams))
            server_own.append(sum(stream.server_decode_tokens_per_s or 0.0 for stream in streams))
            ratios.append(engine_rates[-1] / server_rates[-1])
            log(f"llama-server round {round_index}: engine {engine_rates[-1]:.1f} tok/s, "
                f"server {server_rates[-1]:.1f} tok/s")
        command = server.command
    return {
        **verdict(median(ratios), 1.05, higher_is_better=True),
        "ratio_runs": [round(r, 4) for r in ratios],
        "sequences": sequences,
        "engine_aggregate_decode_tok_s": figure(engine_rates, 2),
        "engine_aggregate_including_staggered_prefill_tok_s": figure(engine_staggered, 2),
        "server_aggregate_decode_tok_s": figure(server_rates, 2),
        "server_sum_of_slot_decode_tok_s_own_timings": figure(server_own, 2),
        "prompt_tokens": len(prompts[0]),
        "new_tokens": plan.new_tokens,
        "server_command": " ".join(command),
        "sampling": plan.sampling,
        "server_sampling": server_sampling_fields(plan.chat_sampling()),
    }


def measure_batched_bench(plan: BenchPlan, shared: SharedResults, sequences: int = 8) -> dict[str, Any]:
    """Aggregate decode of N chats: engine vs llama-batched-bench (-npp/-ntg/-npl N, same context)."""
    tools = ensure_tools()
    config = plan.engine_config(sequences)
    settings = reference_settings(config)
    engine_rates: list[float] = []
    engine_staggered: list[float] = []
    bench_rates: list[float] = []
    reference_rates: list[float] = []
    ratios: list[float] = []
    with loaded_engine(config) as engine, reference_context(plan.model_path, settings) as reference:
        maker = prompt_maker(engine)
        for round_index in range(plan.repeats + 1):
            chats = [maker.user_chat(700 + 10 * round_index + s, plan.prompt_tokens) for s in range(sequences)]
            prompts = [maker.prompt_tokens(messages) for messages in chats]
            engine_first = round_index % 2 == 0
            if not engine_first:
                row, command = run_batched_bench(
                    tools.batched_bench, plan.model_path, settings, len(prompts[0]), plan.new_tokens, sequences
                )
            observed = engine_chats(engine, chats, plan)
            if engine_first:
                row, command = run_batched_bench(
                    tools.batched_bench, plan.model_path, settings, len(prompts[0]), plan.new_tokens, sequences
                )
            loop = reference.run(prompts, plan.new_tokens)
            if round_index == 0:
                continue
            engine_rates.append(aggregate_decode_tokens_per_s(observed))
            engine_staggered.append(aggregate_including_staggered_prefill(observed))
            bench_rates.append(row.decode_tokens_per_s)
            reference_rates.append(loop.decode_tokens_per_s)
            ratios.append(engine_rates[-1] / row.decode_tokens_per_s)
            log(f"batched-bench round {round_index}: engine {engine_rates[-1]:.1f} tok/s, "
                f"llama-batched-bench {row.decode_tokens_per_s:.1f}, reference loop {loop.decode_tokens_per_s:.1f}")
    return {
        **verdict(median(ratios), 0.95, higher_is_better=True),
        "ratio_runs": [round(r, 4) for r in ratios],
        "sequences": sequences,
        "engine_aggregate_decode_tok_s": figure(engine_rates, 2),
        "engine_aggregate_including_staggered_prefill_tok_s": figure(engine_staggered, 2),
        "batched_bench_s_tg_tok_s": figure(bench_rates, 2),
        "reference_loop_aggregate_decode_tok_s": figure(reference_rates, 2),
        "reference_loop_vs_batched_bench": round(median(reference_rates) / median(bench_rates), 4),
        "prompt_tokens": len(prompts[0]),
        "new_tokens": plan.new_tokens,
        "sampling": f"engine: {plan.sampling}; the tools do not sample",
        "batched_bench_command": " ".join(command),
        "context_settings": settings.to_dict(),
    }
