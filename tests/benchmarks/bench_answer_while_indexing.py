"""Benchmark chat answers while the knowledge base indexes, with and without stepping aside; one JSON out.

Usage: ``.venv/bin/python -m tests.benchmarks.bench_answer_while_indexing [--answers N] [--tokens N]
[--documents N] [--rounds N]`` (see tests/benchmarks/README.md for what each figure means).

Same run, same model, same sizes: a series of answers through the real llama.cpp engine (EngineManager,
the app's default settings, so its default thread choice) (a) alone, (b) while a real indexing job
(IndexingService on a fresh knowledge base, real MiniLM) runs without stepping aside, (c) the same job
stepping aside (``kb.pause_while_answering`` on: ``foreground_busy = manager.generating``); and, for
reference, (d) the same job with no answers (what indexing does when nothing competes).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.answer_indexing_support import (
    CASES,
    AnswerPlan,
    CaseRun,
    answer_series,
    case_summary,
    log,
    ratios,
    run_case,
)
from tests.benchmarks.bench_support import PromptMaker, wait_for_idle_machine
from tests.benchmarks.kb_instrument import load_average


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--answers", type=int, default=4, help="answers per case and round (default 4)")
    parser.add_argument("--tokens", type=int, default=96, help="tokens generated per answer (default 96)")
    parser.add_argument("--prompt-tokens", type=int, default=160, help="tokens of each rendered prompt (default 160)")
    parser.add_argument("--pause", type=float, default=1.5, help="seconds the 'user' waits after each answer")
    parser.add_argument("--documents", type=int, default=300,
                        help="files in the corpus being indexed (default 300, ~2400 chunks; enough to outlast "
                             "the default answers: the JSON says whether it did)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds of the three cases; the order reverses every round (default 2)")
    parser.add_argument("--context", type=int, default=2048, help="context length the model is loaded with")
    parser.add_argument("--dtype", choices=("q8_0", "f16"), default="q8_0", help="weights of the generated model")
    parser.add_argument("--model", type=Path, default=None, help="use this GGUF instead of the generated one")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="MINUTES",
                        help="first wait up to this long for the 1-minute load average to drop below 1")
    parser.add_argument("--work-dir", type=Path, default=None, help="where the corpus and KBs go (default: temp)")
    arguments = parser.parse_args(argv)
    if arguments.answers < 1 or arguments.tokens < 2 or arguments.documents < 1 or arguments.rounds < 1:
        parser.error("--answers, --documents and --rounds must be at least 1, --tokens at least 2")
    return arguments


def case_order(round_index: int) -> list[str]:
    """The cases in CASES order, reversed on odd rounds so neither end of the run favours a case."""
    order = list(CASES)
    return order if round_index % 2 == 0 else order[::-1]


def thread_facts(settings: Any) -> dict[str, Any]:
    """The model's threads as the app chooses them (``engine.threads`` 0: one per physical core)."""
    import torch

    from app.core.engines.backends.llamacpp_native import default_thread_count

    setting = settings.int_value("engine.threads")
    return {
        "engine_threads_setting": setting,
        "engine_threads_used": setting if setting > 0 else default_thread_count(),
        "chosen_by": "the app's default (engine.threads = 0: one per physical core this process may use)"
        if setting == 0 else "engine.threads",
        "embedder_torch_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    waited = wait_for_idle_machine(arguments.wait_idle, log)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import llama_cpp._logger as llama_logger

    from app.core.config import Settings
    from app.core.engines.manager import EngineManager
    from app.core.hardware import probe_hardware
    from app.core.kb.knowledge_base import EmbedderPool
    from tests.benchmarks.bench_llamacpp_engine import benchmark_model
    from tests.benchmarks.kb_files import write_mixed_corpus

    llama_logger.set_verbose(False)
    started = time.perf_counter()
    report: dict[str, Any] = {
        "benchmark": "answer_while_indexing",
        "command": " ".join([Path(sys.executable).name, "-m", "tests.benchmarks.bench_answer_while_indexing",
                             *(sys.argv[1:] if argv is None else argv)]),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load_average_before": load_average(),
        "waited_for_idle_s": round(waited),
    }
    settings = Settings()  # the app's defaults: engine.threads 0, warm-up on, kb.embedding_batch_size 64
    model_path = arguments.model or benchmark_model(arguments.dtype)
    hardware = probe_hardware(measure_bandwidth=False)
    manager = EngineManager(lambda: hardware, lambda: settings)
    embedders = EmbedderPool()
    with tempfile.TemporaryDirectory(prefix="unidesk-bench-answer-indexing-") as temporary:
        work_dir = arguments.work_dir or Path(temporary)
        try:
            log(f"writing {arguments.documents} mixed-format documents")
            corpus_facts = write_mixed_corpus(work_dir / "corpus", arguments.documents)
            log("loading the embedding model and the chat model")
            embedders.get(settings.str_value("kb.embedding_model")).embed_documents(["warm up the model"] * 16)
            loaded = manager.load(model_path, context_length=arguments.context, parallel_chats=1)
            engine: Any = manager.engine
            maker = PromptMaker(engine.render_prompt, engine.tokenize)
            plan = AnswerPlan(arguments.answers, arguments.tokens, arguments.pause, work_dir / "corpus", work_dir,
                              quiet_window_s=0.0)
            # One answer thrown away, so the first measured case does not pay for anything cold; its length
            # sets how long the indexing_alone reference watches the job (as long as an answer series).
            warm = answer_series(manager, [maker.user_chat(999_999, arguments.prompt_tokens)], plan)[0]
            one_answer_s = warm.finished_at - warm.submitted_at
            plan = dataclasses.replace(plan, quiet_window_s=arguments.answers * (one_answer_s + arguments.pause))
            runs: dict[str, list[CaseRun]] = {case: [] for case in CASES}
            for round_index in range(arguments.rounds):
                for case_index, case in enumerate(case_order(round_index)):
                    # Prompts of the same length but distinct text per case, so no case reuses another's KV.
                    chats = [maker.user_chat(10_000 * round_index + 1_000 * case_index + answer,
                                             arguments.prompt_tokens) for answer in range(arguments.answers)]
                    log(f"round {round_index}: {case} (load {load_average()})")
                    runs[case].append(run_case(case, round_index, manager, chats, plan, embedders))
            batch_chunks = settings.int_value("kb.embedding_batch_size")
            summaries = {case: case_summary(case_runs, batch_chunks) for case, case_runs in runs.items()}
            report.update(
                model={"path": str(model_path), "size_bytes": model_path.stat().st_size,
                       "context_length": loaded.config.context_length, "load_time_s": round(loaded.load_time_s, 2)},
                threads=thread_facts(settings),
                plan={"answers_per_case_per_round": arguments.answers, "generated_tokens": arguments.tokens,
                      "prompt_tokens": arguments.prompt_tokens, "pause_after_answer_s": arguments.pause,
                      "rounds": arguments.rounds, "sampling": "greedy, ignore_eos (exactly --tokens per answer)",
                      "prompts": "same length, distinct text per case (no KV reuse between cases)",
                      "streams": "read per token on a thread (TTFT and decode as the caller sees them)",
                      "indexing_window": "chunks/s from the first answer's submit to the end of the last pause "
                                         "(indexing_alone: a quiet wait of answers x (one answer + pause))",
                      "indexing_alone_window_s": round(plan.quiet_window_s, 2)},
                corpus=corpus_facts.to_dict(),
                embedding={"model": settings.str_value("kb.embedding_model"),
                           "batch_chunks": settings.int_value("kb.embedding_batch_size")},
                cases=summaries,
                ratios=ratios(summaries),
            )
        finally:
            manager.unload()
    report["load_average_after"] = load_average()
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
