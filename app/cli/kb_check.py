"""``unidesk kb check`` (recall@k on your own documents) and ``unidesk kb model`` (which embedding model, why)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli.common import Subparsers, print_json
from app.context import AppContext
from app.core.util.errors import UserFacingError


def register_commands(commands: Subparsers) -> None:
    """Add ``check`` and ``model`` to the ``kb`` command's subcommands."""
    check = commands.add_parser(
        "check", help="measure recall@k on your own documents: the chat model writes a question per passage")
    check.add_argument("model", help="the chat model that writes the questions (.gguf file or model folder)")
    check.add_argument("--samples", type=int, default=20, metavar="N", help="passages to sample (default 20)")
    check.add_argument("--k", type=int, default=5, metavar="N", help="count a passage found in the top N (default 5)")
    check.add_argument("--seed", type=int, default=0, help="which passages are sampled (default 0)")
    check.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings / planner)")
    check.add_argument("--json", action="store_true", help="print one JSON document")

    model = commands.add_parser("model", help="which embedding model is in use and why; --download fetches it")
    model.add_argument("--download", action="store_true", help="download the chosen model now (with progress)")


def run_check(args: argparse.Namespace, knowledge_base: Any, context: AppContext) -> int:
    from app.core.engines.manager import EngineManager
    from app.core.hardware import probe_hardware
    from app.core.kb.retrieval_check import report_lines
    from app.core.services.retrieval_check import check_knowledge_base, engine_question_writer

    if args.samples < 1 or args.k < 1:
        raise UserFacingError(f"--samples and --k must be at least 1, not {args.samples} and {args.k}.")
    report = probe_hardware(measure_bandwidth=False)
    manager = EngineManager(lambda: report, lambda: context.settings)
    try:
        manager.load(Path(args.model), None, context_length=args.ctx)

        def progress(done: int, total: int) -> None:
            if not args.json:
                print(f"\rkb check: {done}/{total} questions", end="", file=sys.stderr, flush=True)

        result = check_knowledge_base(knowledge_base, engine_question_writer(manager), samples=args.samples,
                                      k=args.k, seed=args.seed, progress=progress)
    finally:
        manager.unload()
    if args.json:
        print_json(result.to_dict())
        return 0
    print(file=sys.stderr)
    for line in report_lines(result):
        print(line)
    return 0


def run_model(args: argparse.Namespace, knowledge_base: Any, context: AppContext) -> int:
    from app.core.kb.embedding_choice import EMBEDDING_MODELS_FOLDER

    selection = knowledge_base.embedding_selection()
    plan = knowledge_base.rerank_plan()
    print(str(selection.note))
    print(f"Reranking: {plan.reason}")
    reranker = _reranker_to_fetch(knowledge_base, plan)
    wanted = ([selection.wanted] if selection.missing else []) + ([reranker] if reranker else [])
    if not args.download:
        if wanted:
            print(f"Download {' and '.join(wanted)} with: unidesk kb model --download")
        return 0
    if not wanted:
        print("Nothing to download.")
        return 0
    from app.core.models.hub import HubClient
    from app.core.services.embedding_download import start_embedding_download

    for repo_id in wanted:
        job = start_embedding_download(HubClient.from_environment(), repo_id,
                                       knowledge_base.folder / EMBEDDING_MODELS_FOLDER)
        try:
            while not job.join(0.5):
                progress = job.progress()
                total = f" of {progress.bytes_total:,}" if progress.bytes_total else ""
                print(f"\rdownloading {repo_id}: {progress.bytes_done:,}{total} bytes", end="", file=sys.stderr,
                      flush=True)
        except KeyboardInterrupt:
            job.cancel(keep_partial=True)
            job.join(30)
            print("\nunidesk: download paused; run the same command to resume", file=sys.stderr)
            return 130
        print(file=sys.stderr)
        job.wait()
        print(f"downloaded {repo_id}")
    if not selection.missing:
        return 0
    print("re-embedding the knowledge base with the new model (search keeps working meanwhile)")
    from app.core.services.indexing import IndexingJob

    summary = IndexingJob(knowledge_base, []).start().wait()
    print("switched to the new embedding model" if summary.switched_model else
          "re-embedding stopped before the end; it resumes with the next indexing run")
    return 0


def _reranker_to_fetch(knowledge_base: Any, plan: Any) -> str | None:
    """The reranker model to download: only when it is missing and reranking would pay on this computer."""
    import os

    from app.core.kb.embedder import pick_device
    from app.core.kb.reranker import plan_reranking

    model = knowledge_base.settings.str_value("kb.reranker_model").strip()
    if plan.pool > 0 or "not on this computer" not in plan.reason or "/" not in model or Path(model).exists():
        return None
    would_pay = plan_reranking(pick_device(), os.cpu_count() or 1, model_available=True).pool > 0
    return model if would_pay else None
