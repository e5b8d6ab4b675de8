"""``unidesk ask``: one answer from the knowledge base, with its sources."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.common import CommandHandler, Subparsers, print_json, setting_override
from app.context import AppContext
from app.core.util.errors import UserFacingError

if TYPE_CHECKING:
    from app.core.services.answer_job import AnswerResult


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    ask = subparsers.add_parser("ask", help="answer a question from the knowledge base, with citations")
    ask.add_argument("model", help="a .gguf file (or a model folder on a vLLM machine)")
    ask.add_argument("question", help="what to ask")
    ask.add_argument("--k", type=int, metavar="N", help="passages to give the model (default: settings kb.top_k)")
    ask.add_argument("--no-kb", action="store_true", help="answer without the knowledge base")
    ask.add_argument("--max-tokens", type=int, metavar="N", help="longest answer (default: settings)")
    ask.add_argument("--temperature", type=float, help="0 = deterministic (default: settings)")
    ask.add_argument("--seed", type=int, help="random seed for sampling")
    ask.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings / planner)")
    ask.add_argument("--json", action="store_true",
                     help="print one JSON document: answer, citations, timings, budget")
    return {"ask": run_ask}


def _progress(fraction: float, step: str) -> None:
    print(f"\rloading {fraction:4.0%} {step:<40}", end="", file=sys.stderr, flush=True)


def run_ask(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.chat.records import KnowledgeScope
    from app.core.chat.store import ConversationStore
    from app.core.engines.manager import EngineManager
    from app.core.engines.requests import SamplingParams
    from app.core.hardware import probe_hardware
    from app.core.kb.knowledge_base import KnowledgeBase
    from app.core.services.answer_job import AnswerJob
    from app.core.services.answering import Answerer

    for name in ("k", "max_tokens"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UserFacingError(f"--{name.replace('_', '-')} must be at least 1, not {value}.")
    settings = context.settings
    if args.k is not None:
        settings = settings.with_changes({"kb.top_k": args.k})
    with ConversationStore.open(context.paths.data_dir) as store:
        system_prompt = store.default_system_prompt()
    report = probe_hardware(measure_bandwidth=False)
    manager = EngineManager(lambda: report, lambda: settings)
    knowledge_base = None if args.no_kb else KnowledgeBase.open(context.paths, settings)
    try:
        context_length = setting_override(args.ctx, "engine.context_length", "--ctx")
        loaded = manager.load(Path(args.model), None if args.json else _progress, context_length=context_length,
                              parallel_chats=1)
        if not args.json:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
            for note in loaded.notes:
                print(f"unidesk: note: {note}", file=sys.stderr)
        answerer = Answerer(manager, knowledge_base, lambda: settings)
        sampling = None
        if args.temperature is not None or args.seed is not None or args.max_tokens is not None:
            limit = settings.int_value("sampling.max_answer_tokens")
            sampling = SamplingParams(
                temperature=settings.float_value("sampling.temperature") if args.temperature is None
                else args.temperature,
                top_p=settings.float_value("sampling.top_p"), seed=args.seed,
                max_tokens=args.max_tokens or (limit if limit > 0 else 1_048_576),
            )
        job = AnswerJob(manager, lambda: answerer.prepare(
            system_prompt=system_prompt, history=(), question=args.question, use_knowledge_base=not args.no_kb,
            scope=KnowledgeScope(), sampling=sampling,
        )).start()
        try:
            if args.json:
                job.join()
            else:
                for piece in job:
                    sys.stdout.write(piece)
                    sys.stdout.flush()
                sys.stdout.write("\n")
        except KeyboardInterrupt:
            job.cancel()
            job.join(5)
        result = job.wait()
    finally:
        manager.unload()
        if knowledge_base is not None:
            knowledge_base.close()
    if args.json:
        print_json({"question": args.question, **result.to_dict()})
    else:
        _print_sources(result)
    return 0


def _print_sources(result: AnswerResult) -> None:
    if result.citations:
        print("\nSources:")
        for citation in result.citations:
            mark = "  (cited)" if citation.cited else ""
            print(f"[{citation.number}] {citation.path}" + (f", p. {citation.page}" if citation.page else "")
                  + (f", {citation.heading}" if citation.heading else "") + mark)
    for note in result.notes:
        print(f"unidesk: note: {note}", file=sys.stderr)
    metrics = result.metrics
    budget = result.prepared.assembled.budget if result.prepared is not None else None
    context = f", {budget.prompt} of {budget.context} context tokens in the prompt" if budget is not None else ""
    print(
        f"[{metrics.generated_tokens} tokens, first token {(metrics.time_to_first_token_s or 0) * 1000:.0f} ms, "
        f"decode {metrics.decode_tokens_per_s or 0:.1f} tok/s{context}, {result.finish_reason}]",
        file=sys.stderr,
    )
