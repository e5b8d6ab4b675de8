"""``unidesk chat`` and ``unidesk bench``: one streamed answer, or speed figures, from a local model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.common import CommandHandler, Subparsers, add_chats_argument, print_json, setting_override
from app.context import AppContext
from app.core.util.errors import UserFacingError

if TYPE_CHECKING:
    from app.core.engines.manager import EngineManager
    from app.core.hardware import HardwareReport


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    chat = subparsers.add_parser("chat", help="stream one answer from a model")
    chat.add_argument("model", help="a .gguf file (or a model folder on a vLLM machine)")
    chat.add_argument("--prompt", required=True, help="what to ask")
    chat.add_argument("--system", help="a system prompt")
    chat.add_argument("--max-tokens", type=int, default=512, metavar="N", help="longest answer in tokens")
    chat.add_argument("--temperature", type=float, help="0 = deterministic (default: settings)")
    chat.add_argument("--seed", type=int, help="random seed for sampling")
    chat.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings / planner)")
    chat.add_argument("--json", action="store_true", help="print one JSON document at the end instead of streaming")

    bench = subparsers.add_parser("bench", help="time to first token, prefill, decode, parallel throughput")
    bench.add_argument("model", help="a .gguf file (or a model folder on a vLLM machine)")
    add_chats_argument(bench, "--seqs", default=4, help_text="parallel chats to measure (default 4)")
    bench.add_argument("--prompt-tokens", type=int, default=256, metavar="N")
    bench.add_argument("--max-tokens", type=int, default=128, metavar="N", help="tokens generated per chat")
    bench.add_argument("--json", action="store_true", help="print one JSON document")
    return {"chat": run_chat, "bench": run_bench}


def _manager(context: AppContext, *, measure_bandwidth: bool) -> tuple[EngineManager, HardwareReport]:
    from app.core.engines.manager import EngineManager
    from app.core.hardware import probe_hardware

    report = probe_hardware(measure_bandwidth=measure_bandwidth)
    return EngineManager(lambda: report, lambda: context.settings), report


class _LoadProgress:
    """Loading progress on one terminal line; silent when stderr is not a terminal."""

    def __init__(self) -> None:
        self._last = ""
        self._enabled = sys.stderr.isatty()

    def __call__(self, fraction: float, step: str) -> None:
        line = f"loading {fraction:4.0%} {step}"
        if self._enabled and line != self._last:
            self._last = line
            print(f"\r{line:<60}", end="", file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self._enabled and self._last:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr, flush=True)


def run_chat(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams

    if args.max_tokens < 1:
        raise UserFacingError(f"--max-tokens must be at least 1, not {args.max_tokens}.")
    settings = context.settings
    manager, _ = _manager(context, measure_bandwidth=False)
    progress = _LoadProgress()
    context_length = setting_override(args.ctx, "engine.context_length", "--ctx")
    loaded = manager.load(Path(args.model), progress, context_length=context_length, parallel_chats=1)
    progress.clear()
    selection = manager.status().selection
    backend_reason = str(selection.reason) if selection is not None else ""
    if not args.json:
        for note in (f"{loaded.backend}: {backend_reason}", *loaded.notes):
            print(f"unidesk: note: {note}", file=sys.stderr)
    messages = [ChatMessage("user", args.prompt)]
    if args.system:
        messages.insert(0, ChatMessage("system", args.system))
    temperature = settings.float_value("sampling.temperature") if args.temperature is None else args.temperature
    sampling = SamplingParams(
        temperature=temperature, top_p=settings.float_value("sampling.top_p"), seed=args.seed,
        max_tokens=args.max_tokens,
    )
    stream = manager.submit(ChatRequest(messages=tuple(messages), sampling=sampling))
    try:
        if args.json:
            stream.wait()
        else:
            for piece in stream:
                sys.stdout.write(piece)
                sys.stdout.flush()
            sys.stdout.write("\n")
    except KeyboardInterrupt:
        stream.cancel()
        stream.wait(5)
    finally:
        manager.unload()
    if stream.error is not None:
        raise stream.error
    metrics = stream.metrics
    if args.json:
        print_json({
            "model": loaded.model_name, "backend": loaded.backend, "backend_reason": backend_reason,
            "text": stream.text,
            "finish_reason": stream.finish_reason, "metrics": metrics.to_dict(), "notes": list(loaded.notes),
        })
    else:
        print(
            f"[{metrics.generated_tokens} tokens, first token {(metrics.time_to_first_token_s or 0) * 1000:.0f} ms, "
            f"prefill {metrics.prefill_tokens_per_s or 0:.0f} tok/s, decode {metrics.decode_tokens_per_s or 0:.1f} "
            f"tok/s, {stream.finish_reason}]",
            file=sys.stderr,
        )
    return 0


def run_bench(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.services.engine_bench import run_engine_benchmark

    chats = setting_override(args.chats, "engine.parallel_chats", "--chats") or 1
    manager, report = _manager(context, measure_bandwidth=True)
    progress = _LoadProgress()
    manager.load(Path(args.model), progress, parallel_chats=chats,
                 context_length=max(args.prompt_tokens + args.max_tokens + 64, 512))
    progress.clear()
    try:
        plan = manager.status().plan
        assert plan is not None
        result = run_engine_benchmark(
            manager, plan, report.bandwidth, parallel_chats=chats,
            prompt_tokens=args.prompt_tokens, max_tokens=args.max_tokens,
        )
    finally:
        manager.unload()
    if args.json:
        print_json(result.to_dict())
        return 0
    roofline = (
        f"{result.roofline_fraction:.0%} of the {result.roofline_decode_tokens_per_s:.0f} tok/s roofline "
        f"({result.bandwidth_source})" if result.roofline_fraction is not None else "roofline unknown"
    )
    runs = ", ".join(f"{value:.1f}" for value in result.aggregate_runs)
    settings = result.settings
    print(f"model            {result.model} on {result.backend}")
    print(f"settings         {settings.get('n_ctx_per_sequence', result.context_length)} tokens x "
          f"{result.parallel_chats} chats, KV {settings.get('kv_cache_dtype', '?')}, "
          f"batch {settings.get('n_batch', '?')}, "
          f"flash attention {settings.get('flash_attention', '?')}, threads {settings.get('threads', '?')}, "
          f"GPU layers {settings.get('gpu_layers', 'none')}")
    print(f"first token      {result.time_to_first_token_s * 1000:.1f} ms for {result.prompt_tokens} prompt tokens "
          f"(prefill {result.prefill_tokens_per_s:.0f} tok/s)")
    print(f"decode, 1 chat   {result.decode_tokens_per_s:.1f} tok/s, prefill excluded ({roofline})")
    print(f"decode, {result.parallel_chats} chats  {result.aggregate_decode_tokens_per_s:.1f} tok/s in all while every "
          f"chat decodes ({result.parallel_speedup:.2f}x one chat; rounds: {runs})")
    print(f"                 medians of {result.rounds} rounds after a warm-up round; {result.generated_tokens} tokens "
          f"per chat; compare with llama-batched-bench's S_TG at B=1 and B={result.parallel_chats}:")
    if result.peer_command:
        print(f"                 {result.peer_command}")
    return 0
