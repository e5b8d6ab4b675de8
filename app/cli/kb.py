"""``unidesk kb add|list|remove|query|check|model``: the knowledge base from the command line."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.cli.common import CommandHandler, Subparsers, print_json
from app.cli.kb_check import register_commands, run_check, run_model
from app.cli.table import aligned_lines
from app.context import AppContext
from app.core.kb.progress import PAGE_SKIPPED
from app.core.util.errors import UserFacingError

_PROGRESS_INTERVAL_S = 0.5
_SNIPPET_CHARS = 300


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    kb = subparsers.add_parser("kb", help="knowledge base: add, list, remove documents; search them")
    commands = kb.add_subparsers(dest="kb_command", metavar="KB_COMMAND", required=True)

    add = commands.add_parser("add", help="index files and folders (progress on stderr, summary on stdout)")
    add.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (folders are watched)")
    add.add_argument("--json", action="store_true", help="print the summary as one JSON document")

    listing = commands.add_parser(
        "list", help="documents with their stage: keywords (findable by keywords, vectors coming), indexed "
                     "(by meaning too), pending or failed")
    listing.add_argument("--json", action="store_true", help="print one JSON document (a list)")

    remove = commands.add_parser("remove", help="remove a document (the file itself is kept)")
    remove.add_argument("id", type=int, help="document id, as shown by `kb list`")

    query = commands.add_parser("query", help="find the passages that answer a question")
    query.add_argument("text", help="the question or keywords")
    query.add_argument("--k", type=int, metavar="N", help="number of passages (default: settings kb.top_k)")
    query.add_argument("--json", action="store_true", help="print one JSON document (a list of hits)")
    register_commands(commands)
    return {"kb": run_kb}


def run_kb(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.kb.knowledge_base import KnowledgeBase

    handlers = {"add": _add, "list": _list, "remove": _remove, "query": _query}
    with KnowledgeBase.open(context.paths, context.settings) as knowledge_base:
        if args.kb_command in ("check", "model"):
            return (run_check if args.kb_command == "check" else run_model)(args, knowledge_base, context)
        return handlers[args.kb_command](args, knowledge_base)


def _add(args: argparse.Namespace, knowledge_base: Any) -> int:
    from app.core.services.indexing import IndexingJob

    job = IndexingJob(knowledge_base, [Path(path) for path in args.paths]).start()
    interactive = sys.stderr.isatty()
    last_line = ""
    try:
        while not job.join(_PROGRESS_INTERVAL_S):
            line = _progress_line(job.progress())
            if line != last_line:
                sys.stderr.write(f"\r{line:<100}" if interactive else f"{line}\n")
                sys.stderr.flush()
                last_line = line
    except KeyboardInterrupt:
        job.cancel()
        job.join(60)
        searchable = job.progress().files_searchable
        print("\nunidesk: cancelled; finished documents are kept, run the same command to resume"
              + (f" ({searchable} file(s) read in this run are found by keywords already; vectors come next run)"
                 if searchable else ""),
              file=sys.stderr)
        return 130
    if interactive:
        sys.stderr.write("\n")
    summary = job.wait()
    if args.json:
        print_json(summary.to_dict())
        return 0
    print(f"indexed {summary.files_indexed} file(s), {summary.chunks} chunk(s) of up to "
          f"{summary.chunk_tokens} tokens in {summary.seconds:.1f} s ({summary.chunks_per_second:.0f} chunks/s); "
          f"unchanged {summary.files_skipped}, removed {summary.files_removed}, failed {summary.files_failed}")
    if summary.switched_model:
        print("switched to the new embedding model")
    _print_problems(summary.problems)
    return 0


def _print_problems(problems: Iterable[Any]) -> None:
    """One line per problem: a file that failed, or a page a file was read without."""
    for problem in problems:
        if problem.kind == PAGE_SKIPPED:
            print(f"  read without a page: {problem.message}")
        else:
            print(f"  failed ({problem.kind}): {problem.message}")


def _progress_line(progress: Any) -> str:
    if progress.phase != "indexing":
        detail = f": {progress.message}" if progress.message and progress.phase == "starting" else ""
        return f"kb: {progress.phase}{detail}"
    eta = f", ETA {progress.eta_seconds:.0f} s" if progress.eta_seconds is not None else ""
    current = f" - {Path(progress.current_file).name}" if progress.current_file else ""
    if current and progress.ocr_page:
        current += f" (text recognition: page {progress.ocr_page} of {progress.ocr_pages})"
    return (f"kb: {progress.files_searchable}/{progress.files_total} findable by keywords, "
            f"{progress.files_indexed} embedded, {progress.chunks_done}/{progress.chunks_total} chunks, "
            f"{progress.chunks_per_second:.0f} chunks/s{eta}, {progress.files_failed} failed{current}")


def _found_by(retrievers: Iterable[str]) -> str:
    """Which searches found a passage, in words: keywords, meaning, or keywords and meaning."""
    names = set(retrievers)
    words = [word for name, word in (("keyword", "keywords"), ("vector", "meaning")) if name in names]
    return " and ".join(words) or "nothing"


def _list(args: argparse.Namespace, knowledge_base: Any) -> int:
    records = knowledge_base.documents()
    if args.json:
        print_json([record.to_dict() for record in records])
        return 0
    if not records:
        print("The knowledge base is empty. Add documents with: unidesk kb add PATH...")
        return 0
    rows = [(str(record.id), record.stage, str(record.chunk_count), str(record.pages), record.format or "-",
             record.path) for record in records]
    header = ("ID", "STAGE", "CHUNKS", "PAGES", "FORMAT", "PATH")
    right = (True, False, True, True, False, False)  # numbers to the right, words to the left
    lines = aligned_lines(header, rows, right)  # columns by the width a terminal draws (a Chinese path too)
    print(lines[0])
    indent = " " * lines[0].index("STAGE")  # details under the STAGE column
    for record, line in zip(records, lines[1:], strict=True):
        print(line)
        if record.error_message:
            tries = f" ({record.read_attempts} attempt(s) to read it)" if record.read_attempts else ""
            print(f"{indent}{record.error_kind}: {record.error_message}{tries}")
        for note in (record.notes or "").splitlines():
            print(f"{indent}note: {note}")
    return 0


def _remove(args: argparse.Namespace, knowledge_base: Any) -> int:
    record = knowledge_base.remove(args.id)
    print(f"removed {record.id}: {record.path}")
    return 0


def _query(args: argparse.Namespace, knowledge_base: Any) -> int:
    if args.k is not None and args.k <= 0:
        raise UserFacingError(f"--k must be at least 1, not {args.k}.")
    started = time.perf_counter()
    result = knowledge_base.search(args.text, args.k)
    elapsed_ms = (time.perf_counter() - started) * 1000
    for note in result.notes:
        print(f"unidesk: note: {note}", file=sys.stderr)
    if args.json:
        print_json([hit.to_dict() for hit in result.hits])
        return 0
    if not result.hits:
        print("No passage matches.")
        return 0
    for rank, hit in enumerate(result.hits, start=1):
        where = f", p. {hit.page}" if hit.page is not None else ""
        heading = f" § {hit.heading}" if hit.heading else ""
        print(f"{rank}. {hit.path}{where}{heading}")
        print(f"   found by {_found_by(hit.retrievers)} · document {hit.document_id}")
        snippet = " ".join(hit.text.split())
        print(f"   {snippet[:_SNIPPET_CHARS]}{'...' if len(snippet) > _SNIPPET_CHARS else ''}")
    ranked = "the reranker's order" if "rerank" in result.retrievers else "best first"
    print(f"({len(result.hits)} passages in {elapsed_ms:.0f} ms, {ranked}; searched by "
          f"{_found_by(name for name in result.retrievers if name != 'rerank')})")
    return 0
