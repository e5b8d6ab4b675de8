"""What the engine's decode loop costs in Python per step, as CPU time: engine thread vs the minimal loop.

Wall-clock ratios need a quiet machine; CPU time of the thread that calls ``llama_decode`` does not
(other processes do not add to it). Both contenders run with one llama.cpp thread, so that thread
does all the work: its CPU time outside ``llama_decode`` is the loop's own cost (batch building,
sampling, detokenizing, streaming, bookkeeping). On a GPU that cost is what a step adds to the
GPU's time (minus what runs while the GPU computes), so a tiny model shows it best here.

    python -m tests.benchmarks.llamacpp_step_cost --model M.gguf [--seqs 1,8,16] [--new-tokens 256]
        [--sampling greedy,default,api] [--skip-reference] [--gpu-step-ms 2.5,10]

Prints one JSON document: per chat count, microseconds of CPU per step outside ``llama_decode`` for
the engine (GUI-style reader: one drain per frame) with each sampling (``greedy``: temperature 0;
``default``: the app's chat sampling, ``SamplingParams()``: temperature 0.7, top-k 40, top-p 0.95,
min-p 0.05; ``api``: the HTTP API's, the same without top-k and min-p) and for the minimal loop
(greedy, llama.cpp's sampler), and their differences. Sampling costs a pass over the vocabulary per
chat, so measure it on a model with a real vocabulary (``llamacpp_vocab_models``: Llama-3's 128,256
or Qwen's 151,936 tokens; ``--peaked`` for logits like a trained model's). ``gpu_step_share`` is what
that CPU time would be of a step on a GPU whose ``llama_decode`` takes the assumed ``--gpu-step-ms``
(H200: ~2.5 ms for 16 chats of a 1B model, ~10 ms of an 8B one): cost / (cost + GPU step), since
sampling waits for the step's logits and the next step waits for the sampled tokens.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.engines.requests import SamplingParams
from tests.benchmarks.bench_support import PromptMaker, greedy, median, run_chats

SAMPLINGS = ("greedy", "default", "api")
"""``greedy``: temperature 0; ``default``: the app's chat sampling (``SamplingParams()``' defaults);
``api``: the HTTP API's (the same temperature and top-p, no top-k, no min-p)."""


def sampling_params(kind: str, new_tokens: int, seed: int) -> SamplingParams:
    """Sampling of one benchmark chat: exactly ``new_tokens`` tokens (end of generation ignored)."""
    if kind == "greedy":
        return greedy(new_tokens)
    if kind == "default":
        return SamplingParams(max_tokens=new_tokens, ignore_eos=True, seed=seed)
    if kind == "api":
        return SamplingParams(top_k=0, min_p=0.0, max_tokens=new_tokens, ignore_eos=True, seed=seed)
    raise ValueError(f"unknown sampling {kind!r}: use one of {', '.join(SAMPLINGS)}")


@dataclass
class ThreadTally:
    """CPU seconds of the decoding thread: inside ``llama_decode`` and from its first to its last call."""

    calls: int = 0
    inside_s: float = 0.0
    first_s: float | None = None
    last_s: float = 0.0
    thread: int | None = None

    @property
    def outside_us_per_step(self) -> float:
        if self.first_s is None or self.calls < 2:
            return float("nan")
        # from the end of the first call to the end of the last: calls - 1 whole steps
        return 1e6 * (self.last_s - self.first_s - (self.inside_s - self.first_inside_s)) / (self.calls - 1)

    first_inside_s: float = 0.0


@contextmanager
def thread_clock() -> Iterator[ThreadTally]:
    """Count CPU time around and inside every ``llama_decode`` made in the block."""
    import llama_cpp
    import llama_cpp.llama_cpp as low_level

    tally = ThreadTally()
    real: Callable[..., Any] = low_level.llama_decode

    def timed(context: Any, batch: Any) -> Any:
        before = time.thread_time()
        try:
            return real(context, batch)
        finally:
            after = time.thread_time()
            tally.calls += 1
            tally.inside_s += after - before
            if tally.first_s is None:
                tally.first_s, tally.first_inside_s, tally.thread = after, after - before, threading.get_ident()
            tally.last_s = after

    low_level.llama_decode = timed
    llama_cpp.llama_decode = timed
    try:
        yield tally
    finally:
        low_level.llama_decode = real
        llama_cpp.llama_decode = real


def engine_cost(model: Path, sequences: int, prompt_tokens: int, new_tokens: int, repeats: int,
                sampling: str = "greedy") -> list[float]:
    from app.core.engines.requests import ChatRequest
    from tests.benchmarks.bench_support import check_lengths
    from tests.benchmarks.engine_measurements import BenchPlan, loaded_engine, prompt_maker

    plan = BenchPlan(model_path=model, threads=1, repeats=repeats, prompt_tokens=prompt_tokens,
                     new_tokens=new_tokens, context_length=max(1024, 2 * (prompt_tokens + new_tokens)),
                     reuse_history_tokens=0, gpu_layers=0)
    costs = []
    with loaded_engine(plan.engine_config(sequences)) as engine:
        maker: PromptMaker = prompt_maker(engine)
        for round_index in range(repeats + 1):
            chats = [maker.user_chat(1000 + 10 * round_index + s, prompt_tokens) for s in range(sequences)]
            requests = [ChatRequest(messages=m, sampling=sampling_params(sampling, new_tokens, 7 + index))
                        for index, m in enumerate(chats)]
            with thread_clock() as tally:
                observed = run_chats(engine, requests, consumer="frame")
            check_lengths(observed, new_tokens)
            if round_index:
                costs.append(tally.outside_us_per_step)
    return costs


def reference_cost(model: Path, sequences: int, prompt_tokens: int, new_tokens: int, repeats: int) -> list[float]:
    """The minimal loop in this process (one llama.cpp thread, so no second thread team is spun up)."""
    from tests.benchmarks.reference_loops import ContextSettings, ReferenceModel

    reference = ReferenceModel(model, 0)
    settings = ContextSettings(n_ctx=max(1024, 2 * (prompt_tokens + new_tokens)) * sequences, n_seq_max=sequences,
                               kv_unified=sequences == 1, threads=1, n_batch=512, n_ubatch=512)
    context = reference.new_context(settings)
    prompt = reference.tokenize("hello world")[:1] + [3 + index % 250 for index in range(prompt_tokens - 1)]
    costs = []
    try:
        for round_index in range(repeats + 1):
            with thread_clock() as tally:
                context.run([prompt] * sequences, new_tokens)
            if round_index:
                costs.append(tally.outside_us_per_step)
    finally:
        context.close()
        reference.close()
    return costs


def step_share(cost_us: float, gpu_step_ms: float) -> float:
    """The CPU cost's share of a GPU step that takes ``gpu_step_ms`` in ``llama_decode``."""
    return round(cost_us / (cost_us + 1000 * gpu_step_ms), 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--seqs", default="1,8,16")
    parser.add_argument("--prompt-tokens", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sampling", default="greedy,default", help="comma-separated: greedy, default, api")
    parser.add_argument("--skip-reference", action="store_true", help="do not run the minimal loop")
    parser.add_argument("--gpu-step-ms", default="2.5,10", help="assumed GPU step times for gpu_step_share")
    arguments = parser.parse_args(argv)
    samplings = [kind.strip() for kind in arguments.sampling.split(",") if kind.strip()]
    for kind in samplings:
        sampling_params(kind, 1, 0)  # an unknown name fails before anything is measured
    gpu_steps = [float(ms) for ms in arguments.gpu_step_ms.split(",")]
    import llama_cpp._logger as llama_logger

    llama_logger.set_verbose(False)
    report: dict[str, Any] = {"benchmark": "llamacpp_step_cost", "command": " ".join(sys.argv),
                              "model": str(arguments.model), "gpu_step_ms_assumed": gpu_steps, "results": {}}
    for sequences in (int(n) for n in arguments.seqs.split(",")):
        args = (arguments.model, sequences, arguments.prompt_tokens, arguments.new_tokens, arguments.repeats)
        entry: dict[str, Any] = {}
        costs: dict[str, float] = {}
        for kind in samplings:
            runs = engine_cost(*args, sampling=kind)
            costs[kind] = median(runs)
            entry[f"engine_{kind}_outside_decode_cpu_us_per_step"] = round(costs[kind], 1)
            entry[f"engine_{kind}_runs"] = [round(v, 1) for v in runs]
            entry[f"engine_{kind}_gpu_step_share"] = {f"{ms:g}ms": step_share(costs[kind], ms) for ms in gpu_steps}
            print(f"[step-cost] {sequences} chats, {kind}: engine {costs[kind]:.0f} us of CPU per step outside "
                  "llama_decode", file=sys.stderr, flush=True)
        if "greedy" in costs and "default" in costs:
            entry["default_over_greedy"] = round(costs["default"] / costs["greedy"], 3)
            entry["default_minus_greedy_us_per_step"] = round(costs["default"] - costs["greedy"], 1)
        if not arguments.skip_reference:
            reference = reference_cost(*args)
            entry["reference_outside_decode_cpu_us_per_step"] = round(median(reference), 1)
            entry["reference_runs"] = [round(v, 1) for v in reference]
            if "greedy" in costs:
                entry["engine_greedy_minus_reference_us_per_step"] = round(costs["greedy"] - median(reference), 1)
            print(f"[step-cost] {sequences} chats: minimal loop {median(reference):.0f} us", file=sys.stderr,
                  flush=True)
        report["results"][str(sequences)] = entry
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
