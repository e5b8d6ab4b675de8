"""Greedy decode with llama.cpp's backend sampling vs sampling on the host, in the minimal loop, same run.

    python -m tests.benchmarks.bench_backend_sampling --model M.gguf [--gpu-layers -1] [--threads 4]
        [--seqs 1,16] [--prompt-tokens 128] [--new-tokens 128] [--repeats 3]

Both contenders are the minimal llama-cpp-python loop (``reference_loops``): one ``llama_decode`` per step
and ``llama_sampler_sample`` with a greedy chain per sequence. The host contender copies every sequence's
logits out and picks on the CPU (a pass over the vocabulary per chat); the backend contender attaches the
chains to the context ([EXPERIMENTAL] ``llama_context_params.samplers``), so the graph picks the token where
the logits are and ``llama_sampler_sample`` returns it. The difference is what a real vocabulary (128k-152k
tokens) costs the host per step; on a GPU that is time the GPU waits. Rounds alternate; medians.
Prints one JSON document: per chat count, both decode rates, backend ÷ host, and whether both picked the
same first tokens.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_support import median
from tests.benchmarks.reference_loops import ContextSettings, ReferenceModel


def log(message: str) -> None:
    print(f"[backend-sampling] {message}", file=sys.stderr, flush=True)


def prompts(model: ReferenceModel, count: int, length: int) -> list[list[int]]:
    """``count`` distinct prompts of exactly ``length`` tokens (BOS plus words)."""
    words = "the model answers a question about the local knowledge base on this desktop machine".split()
    result = []
    for index in range(count):
        text = " ".join(words[(index + step) % len(words)] for step in range(length * 2))
        tokens = model.tokenize(text)[:length]
        if len(tokens) < length:
            raise RuntimeError(f"the vocabulary makes only {len(tokens)} tokens of the prompt text, not {length}")
        result.append(tokens)
    return result


def measure(model: ReferenceModel, arguments: argparse.Namespace, chats: int) -> dict[str, Any]:
    n_ctx = chats * (arguments.prompt_tokens + arguments.new_tokens + 16)
    base = ContextSettings(n_ctx=n_ctx, n_seq_max=chats, kv_unified=chats == 1, threads=arguments.threads,
                           flash_attention="auto", gpu_layers=arguments.gpu_layers)
    contenders = {"host": base, "backend": dataclasses.replace(base, backend_sampling=True)}
    contexts = {name: model.new_context(settings) for name, settings in contenders.items()}
    chat_prompts = prompts(model, chats, arguments.prompt_tokens)
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    first_tokens: dict[str, tuple[int, ...]] = {}
    in_graph: dict[str, bool] = {}
    try:
        for context in contexts.values():  # warm-up: graphs, allocations
            context.run(chat_prompts, 8)
        for round_index in range(arguments.repeats):
            for name, context in contexts.items():
                result = context.run(chat_prompts, arguments.new_tokens)
                rates[name].append(round(result.decode_tokens_per_s, 2))
                first_tokens[name] = result.first_tokens
                in_graph[name] = context.sampled_in_graph()
            log(f"{chats} chats round {round_index + 1}: host {rates['host'][-1]} tok/s, "
                f"backend {rates['backend'][-1]} tok/s")
    finally:
        for context in contexts.values():
            context.close()
    host, backend = median(rates["host"]), median(rates["backend"])
    return {
        "host_decode_tok_s": {"median": host, "runs": rates["host"]},
        "backend_decode_tok_s": {"median": backend, "runs": rates["backend"]},
        "backend_over_host": round(backend / host, 4) if host else None,
        "same_first_tokens": first_tokens["host"] == first_tokens["backend"],
        "sampled_in_graph": in_graph,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--gpu-layers", type=int, default=-1, help="layers on the GPU (negative: all)")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seqs", default="1,16")
    parser.add_argument("--prompt-tokens", type=int, default=128)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args(argv)
    model = ReferenceModel(arguments.model, gpu_layers=999 if arguments.gpu_layers < 0 else arguments.gpu_layers)
    results: dict[str, Any] = {}
    try:
        for chats in (int(part) for part in arguments.seqs.split(",")):
            try:
                results[str(chats)] = measure(model, arguments, chats)
            except RuntimeError as error:  # e.g. a build whose backend cannot sample: say so, go on
                results[str(chats)] = {"error": str(error)}
    finally:
        model.close()
    report = {"benchmark": "backend_sampling", "model": str(arguments.model), "arguments": vars(arguments)}
    print(json.dumps({**report, "results": results}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
