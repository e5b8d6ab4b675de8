"""Sampling a step's chats: the engine's paths against one llama.cpp chain call per chat, same logits.

Decodes one token in each of N sequences (every one with logits), then times, over those logits,
wall-clock per step (median of ``--repeats`` rounds of ``--steps`` steps):

- ``default``: the app's chat sampling (``SamplingParams()``: temperature 0.7, top-k 40, top-p 0.95,
  min-p 0.05): one ``llama_sampler_sample`` per chat (before) vs the engine's numpy top-k path;
- ``api``: the HTTP API's (temperature 0.7, top-p 0.95, no top-k): one call per chat on this
  thread vs the engine's numpy path, and vs the engine's helper threads running the chains
  (``--helpers``, default: the cores idle beside one llama.cpp thread, as the engine sizes them;
  what chats that still need a chain, such as penalised ones, get);
- ``greedy``: one argmax over the rows, for scale;
- with helpers, the greedy argmax split by rows over them, as the engine runs it, and the top-k pass split the
  same way, which the engine does not do (``..._split_over_one_pass``: 2 blocks took 1.27 of one pass).

    python -m tests.benchmarks.bench_llamacpp_sampling --model M.gguf [--seqs 1,8,16] [--helpers N]

Use a model with a real vocabulary (``llamacpp_vocab_models qwen3 M.gguf``); prints one JSON document.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.engines.backends.llamacpp_native import cpu_repacking_crashes, preload_library
from app.core.engines.requests import SamplingParams

API_SAMPLING = SamplingParams(temperature=0.7, top_p=0.95, top_k=0, min_p=0.0, seed=1)
DEFAULT_SAMPLING = SamplingParams(seed=1)


def per_step_us(step: Callable[[], object], steps: int, repeats: int) -> list[float]:
    """Microseconds per call of ``step``: one figure per round (after one warm-up round)."""
    rounds = []
    for round_index in range(repeats + 1):
        started = time.perf_counter()
        for _ in range(steps):
            step()
        if round_index:
            rounds.append(1e6 * (time.perf_counter() - started) / steps)
    return rounds


def llama_chain(library: Any, params: SamplingParams) -> Any:
    """A llama.cpp sampler chain for ``params`` (top-k, top-p, min-p, temperature, dist), as the engine
    built one for every sampled chat before its numpy paths.
    """
    chain = library.llama_sampler_chain_init(library.llama_sampler_chain_default_params())
    samplers = [library.llama_sampler_init_top_k(params.top_k)] if params.top_k > 0 else []
    if params.top_p < 1.0:
        samplers.append(library.llama_sampler_init_top_p(params.top_p, 1))
    if params.min_p > 0.0:
        samplers.append(library.llama_sampler_init_min_p(params.min_p, 1))
    samplers += [library.llama_sampler_init_temp(params.temperature), library.llama_sampler_init_dist(params.seed or 1)]
    for sampler in samplers:
        library.llama_sampler_chain_add(chain, sampler)
    return chain


class DecodedStep:
    """A model and a context after one decode of ``sequences`` tokens, each with logits."""

    def __init__(self, library: Any, model_path: Path, sequences: int) -> None:
        self.library = library
        params = library.llama_model_default_params()
        params.use_extra_bufts = not cpu_repacking_crashes(library)
        self.model = library.llama_model_load_from_file(str(model_path).encode(), params)
        if not self.model:
            raise SystemExit(f"llama.cpp could not load {model_path}")
        self.n_vocab = int(library.llama_vocab_n_tokens(library.llama_model_get_vocab(self.model)))
        context_params = library.llama_context_default_params()
        context_params.n_ctx, context_params.n_batch, context_params.n_seq_max = 64 * sequences, 512, sequences
        context_params.n_threads = context_params.n_threads_batch = 1
        self.context = library.llama_init_from_model(self.model, context_params)
        batch = library.llama_batch_init(sequences, 0, 1)
        for index in range(sequences):
            batch.token[index], batch.pos[index], batch.n_seq_id[index] = 3 + index, 0, 1
            batch.seq_id[index][0], batch.logits[index] = index, 1
        batch.n_tokens = sequences
        if library.llama_decode(self.context, batch) != 0:
            raise SystemExit("llama_decode failed")
        library.llama_batch_free(batch)
        import numpy as np

        pointer = library.llama_get_logits(self.context)
        buffer = (ctypes.c_float * (sequences * self.n_vocab)).from_address(
            ctypes.cast(pointer, ctypes.c_void_p).value or 0)
        self.matrix = np.ctypeslib.as_array(buffer).reshape(sequences, self.n_vocab)

    def close(self) -> None:
        self.library.llama_free(self.context)
        self.library.llama_model_free(self.model)


def measure(library: Any, model: Path, sequences: int, helpers: int, steps: int, repeats: int) -> dict[str, Any]:
    from app.core.engines.backends.llamacpp_batch import greedy_tokens
    from app.core.engines.backends.llamacpp_chains import ParallelChains
    from app.core.engines.backends.llamacpp_sampling import SamplerChain
    from app.core.engines.backends.llamacpp_topk import TopKSampling, sample_top_k

    step = DecodedStep(library, model, sequences)
    context, matrix, rows = step.context, step.matrix, list(range(sequences))
    default_chains = [SamplerChain(library, DEFAULT_SAMPLING, step.n_vocab) for _ in rows]
    # the old way: a llama.cpp chain per chat (what SamplerChain built before the numpy paths)
    old_default = [llama_chain(library, DEFAULT_SAMPLING) for _ in rows]
    api_chains = [llama_chain(library, API_SAMPLING) for _ in rows]
    parallel = ParallelChains(library, step.n_vocab, helpers)
    settings = [TopKSampling.of(DEFAULT_SAMPLING)] * sequences
    api_settings = [TopKSampling.of(API_SAMPLING)] * sequences
    sample = library.llama_sampler_sample
    try:
        figures = {
            "greedy_argmax": per_step_us(lambda: matrix.argmax(axis=1), steps, repeats),
            "default_chain_per_chat": per_step_us(
                lambda: [sample(chain, context, row) for row, chain in zip(rows, old_default, strict=True)],
                steps, repeats),
            "default_numpy_top_k": per_step_us(
                lambda: sample_top_k(matrix, None, settings, [chain.draw() for chain in default_chains]),  # type: ignore[arg-type]
                steps, repeats),
            "api_numpy": per_step_us(
                lambda: sample_top_k(matrix, None, api_settings, [chain.draw() for chain in default_chains]),  # type: ignore[arg-type]
                steps, repeats),
            "api_chain_per_chat": per_step_us(
                lambda: [sample(chain, context, row) for row, chain in zip(rows, api_chains, strict=True)],
                steps, repeats),
        }
        if parallel.pays(sequences):
            jobs = list(zip(rows, api_chains, strict=True))
            figures["api_chains_on_helpers"] = per_step_us(lambda: parallel.sample(matrix, jobs), steps, repeats)
        if parallel.helpers:  # the numpy passes split by rows over the helpers, as the engine runs them
            figures["greedy_argmax_split"] = per_step_us(
                lambda: parallel.by_rows(sequences, lambda a, b: greedy_tokens(matrix[a:b])), steps, repeats)
            figures["default_numpy_top_k_split"] = per_step_us(
                lambda: parallel.by_rows(sequences, lambda a, b: sample_top_k(
                    matrix[a:b], None, settings[a:b], [chain.draw() for chain in default_chains[a:b]])),  # type: ignore[arg-type]
                steps, repeats)
    finally:
        parallel.close()
        for chain in default_chains:
            chain.free()
        for pointer in (*old_default, *api_chains):
            library.llama_sampler_free(pointer)
        step.close()
    medians = {name: statistics.median(values) for name, values in figures.items()}
    result: dict[str, Any] = {name: {"median_us": round(value, 1), "runs_us": [round(v, 1) for v in figures[name]]}
                              for name, value in medians.items()}
    result["default_numpy_over_chain"] = round(medians["default_numpy_top_k"] / medians["default_chain_per_chat"], 3)
    result["default_numpy_over_greedy"] = round(medians["default_numpy_top_k"] / medians["greedy_argmax"], 3)
    result["api_numpy_over_chain"] = round(medians["api_numpy"] / medians["api_chain_per_chat"], 3)
    for name in ("greedy_argmax", "default_numpy_top_k"):
        if f"{name}_split" in medians:
            result[f"{name}_split_over_one_pass"] = round(medians[f"{name}_split"] / medians[name], 3)
    if "api_chains_on_helpers" in medians:
        on_helpers = medians["api_chains_on_helpers"]
        result["api_helpers_over_one_thread"] = round(on_helpers / medians["api_chain_per_chat"], 3)
    result["helpers"] = parallel.helpers
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--seqs", default="1,8,16")
    parser.add_argument("--helpers", type=int, default=None, help="helper threads for the api chains")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args(argv)
    if not preload_library():
        raise SystemExit("llama-cpp-python is not installed")
    import llama_cpp._logger as llama_logger
    import llama_cpp.llama_cpp as library

    from app.core.engines.backends.llamacpp_chains import idle_cores

    llama_logger.set_verbose(False)
    helpers = idle_cores(1, offloaded=False) if arguments.helpers is None else arguments.helpers
    report: dict[str, Any] = {"benchmark": "llamacpp_sampling", "command": " ".join(sys.argv),
                              "model": str(arguments.model), "cpus": os.cpu_count(),
                              "load_average": list(os.getloadavg()), "results": {}}
    for sequences in (int(n) for n in arguments.seqs.split(",")):
        report["results"][str(sequences)] = measure(library, arguments.model, sequences, helpers,
                                                    arguments.steps, arguments.repeats)
        print(f"[sampling] {sequences} chats done", file=sys.stderr, flush=True)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
