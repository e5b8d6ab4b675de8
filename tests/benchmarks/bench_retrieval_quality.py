"""Retrieval quality: recall@5 on a written Chinese and English question set; one JSON document out.

Usage: ``.venv/bin/python -m tests.benchmarks.bench_retrieval_quality [--k 5] [--misses]``

The documents (retrieval_documents.py) are indexed by the real pipeline (parsers, chunker, SQLite
FTS5, chromadb) with each embedding model that can run here; each question (retrieval_questions.py)
is searched with hybrid search (vectors + keywords, the app's default), keywords only and vectors
only. A question counts as found when one of the top k hits is from its document and contains its
answer phrase. Multilingual models (multilingual-e5-small, bge-m3, Qwen3-Embedding) cannot be
downloaded on machines without internet: their figures are the published ones quoted in
app/core/planner/embedders.py, not measured here; pass ``--model FOLDER`` to measure one you have.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.kb.retrieval import SearchOptions, SearchResult
from tests.benchmarks.retrieval_documents import documents
from tests.benchmarks.retrieval_questions import CHINESE, ENGLISH, Question

MODES = {
    "hybrid": SearchOptions(rerank=False),
    "keywords_only": SearchOptions(use_vectors=False, rerank=False),
    "vectors_only": SearchOptions(use_keywords=False, rerank=False),
}
PUBLISHED = {
    "note": "Published figures (not measured here; no multilingual weights can be downloaded on this machine). "
            "Benchmarks differ from this question set; they rank the models, they do not predict recall@5 here.",
    "Qwen/Qwen3-Embedding-0.6B": "MMTEB mean(task) 64.33, retrieval 64.65 (Qwen3 Embedding report, arXiv 2506.05176)",
    "BAAI/bge-m3": "MMTEB mean(task) 59.56, retrieval 57.89 (same table)",
    "intfloat/multilingual-e5-small": "about 60 on C-MTEB (figure stated in issue 13; Multilingual E5 report, "
                                      "arXiv 2402.05672, for the family)",
}


def write_documents(folder: Path) -> None:
    from tests.fixtures.documents import write_pdf

    for name, kind, content in documents():
        path = folder / name
        if kind == "text":
            path.write_text(content, encoding="utf-8")
        elif kind == "pdf":
            write_pdf(path, content, title=content[0][0])
        else:
            import docx

            document = docx.Document()
            for heading, paragraph in content:
                if heading:
                    document.add_heading(heading, level=1)
                document.add_paragraph(paragraph)
            document.save(str(path))


def normalised(text: str) -> str:
    return "".join(text.split())


def found(question: Question, result: SearchResult) -> int | None:
    """1-based rank of the first hit from the question's document that holds its answer phrase."""
    phrase = normalised(question.phrase)
    for rank, hit in enumerate(result.hits, start=1):
        if Path(hit.path).name == question.document and phrase in normalised(hit.text):
            return rank
    return None


def evaluate(knowledge_base: KnowledgeBase, questions: Sequence[Question], k: int, show_misses: bool
             ) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for mode, options in MODES.items():
        chosen = SearchOptions(**{**options.__dict__, "k": k})
        ranks = {question: found(question, knowledge_base.search(question.text, options=chosen))
                 for question in questions}
        by_language: dict[str, Any] = {}
        for language in ("zh", "en"):
            asked = [question for question in questions if question.language == language]
            hits = [question for question in asked if ranks[question] is not None]
            by_language[language] = {"questions": len(asked), "found": len(hits),
                                     f"recall_at_{k}": round(len(hits) / len(asked), 4) if asked else None}
            if show_misses:
                by_language[language]["missed"] = [question.text for question in asked if ranks[question] is None]
        mixed = [question for question in questions if question.mixed]
        by_language["mixed_subset"] = {"questions": len(mixed),
                                       "found": sum(1 for question in mixed if ranks[question] is not None)}
        report[mode] = by_language
    return report


def measure_model(model: str, folder: Path, work: Path, k: int, show_misses: bool) -> dict[str, Any]:
    settings = Settings({"kb.embedding_model": model, "kb.reranker": False})
    with KnowledgeBase(work / f"kb-{abs(hash(model))}", settings, EmbedderPool(device="cpu")) as knowledge_base:
        started = time.perf_counter()
        summary = knowledge_base.indexer().run([folder], ProgressTracker(), threading.Event())
        indexing_s = time.perf_counter() - started
        if summary.files_failed:
            raise SystemExit(f"indexing failed: {summary.problems}")
        started = time.perf_counter()
        result = evaluate(knowledge_base, (*ENGLISH, *CHINESE), k, show_misses)
        return {"model": model, "files": summary.files_indexed, "chunks": summary.chunks,
                "chunk_tokens": summary.chunk_tokens, "indexing_seconds": round(indexing_s, 1),
                "search_seconds": round(time.perf_counter() - started, 1), "recall": result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--model", action="append", default=[], help="embedding models (default: all-MiniLM-L6-v2)")
    parser.add_argument("--misses", action="store_true", help="list the questions each mode missed")
    args = parser.parse_args(argv)
    models = args.model or ["all-MiniLM-L6-v2"]
    with tempfile.TemporaryDirectory(prefix="unidesk-retrieval-") as temporary:
        work = Path(temporary)
        folder = work / "docs"
        folder.mkdir()
        write_documents(folder)
        results = []
        for model in models:
            print(f"indexing and asking with {model}...", file=sys.stderr)
            results.append(measure_model(model, folder, work, args.k, args.misses))
    document = {
        "benchmark": "retrieval_quality", "k": args.k,
        "questions": {"en": len(ENGLISH), "zh": len(CHINESE)},
        "documents": [name for name, _, _ in documents()],
        "goals": {"zh": 0.95, "en": 0.95},
        "models": results,
        "published_figures": PUBLISHED,
    }
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
