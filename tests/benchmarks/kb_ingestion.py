"""Ingestion benchmark: the whole indexing pipeline vs raw ``model.encode`` of the same chunks, same run.

Each round indexes the mixed corpus into a fresh knowledge base through the real
:class:`~app.core.kb.indexer.Indexer` (discovery, parsers, chunker, MiniLM, chromadb, SQLite) and
encodes the very chunks it stored with a plain ``SentenceTransformer.encode`` at the same batch
size. Rounds alternate which goes first; the ratio is the median of per-round ratios.
"""

from __future__ import annotations

import cProfile
import sqlite3
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.kb.database import DATABASE_FILE_NAME, open_database
from app.core.kb.documents import Chunk, ParsedDocument
from app.core.kb.indexer import Indexer, IndexingOptions
from app.core.kb.knowledge_base import CHROMA_FOLDER_NAME
from app.core.kb.spaces import active_space
from tests.benchmarks.bench_support import verdict
from tests.benchmarks.kb_files import write_mixed_corpus
from tests.benchmarks.kb_ingestion_diagnosis import padding_report, time_variants, top_functions
from tests.benchmarks.kb_instrument import (
    PhaseTracker,
    StepClock,
    TimedEmbedder,
    TimedVectorStore,
    log,
    timed_chunk,
    timed_parse,
)
from tests.benchmarks.kb_text import TextMaker

TARGET_RATIO = 0.85
SPECIAL_TOKENS = 2  # [CLS] and [SEP] around every chunk


@dataclass(frozen=True)
class IngestionPlan:
    files: int
    rounds: int
    profile: bool


@dataclass(frozen=True)
class PipelineRun:
    seconds: float
    process_cpu_seconds: float
    chunks: int
    files_indexed: int
    files_failed: int
    steps: dict[str, dict[str, float]]
    phases: list[dict[str, Any]]
    texts: list[str]
    token_counts: list[int]

    def to_dict(self) -> dict[str, Any]:
        indexing = next((p["seconds"] for p in self.phases if p["phase"] == "indexing"), 0.0)
        embed = self.steps.get("embed", {}).get("wall_s", 0.0)
        upsert = self.steps.get("vector_upsert", {}).get("wall_s", 0.0)
        return {
            "seconds": round(self.seconds, 2),
            "chunks_per_s": round(self.chunks / self.seconds, 2),
            "process_cpu_s": round(self.process_cpu_seconds, 2),
            "files_indexed": self.files_indexed,
            "files_failed": self.files_failed,
            "phases": self.phases,
            "steps": self.steps,
            "indexing_thread": {
                "indexing_phase_s": indexing,
                "embed_s": embed,
                "vector_upsert_s": upsert,
                "rest_s": round(indexing - embed - upsert, 3),
                "rest_is": "SQLite commits (chunks, FTS rows, status) + waiting for the reader thread",
            },
        }


def _stored_chunks(database: Path) -> tuple[list[str], list[int]]:
    """Chunk texts in embedding order (chunk ids follow it) and their token counts (no special tokens)."""
    connection = sqlite3.connect(database)
    try:
        rows = connection.execute("SELECT text, token_count FROM chunks ORDER BY id").fetchall()
    finally:
        connection.close()
    return [str(row[0]) for row in rows], [int(row[1]) for row in rows]


def _profiled(profile: cProfile.Profile | None, call: Callable[..., Any]) -> Callable[..., Any]:
    if profile is None:
        return call

    def wrapped(*arguments: Any) -> Any:
        profile.enable()
        try:
            return call(*arguments)
        finally:
            profile.disable()

    return wrapped


def run_pipeline_once(
    folder: Path, corpus: Path, embedder: TimedEmbedder, options: IndexingOptions,
    profiles: tuple[cProfile.Profile, cProfile.Profile] | None = None,
) -> PipelineRun:
    """Index ``corpus`` into a new knowledge base in ``folder`` with the real Indexer; timed."""
    clock = StepClock()
    embedder.clock = clock
    store = TimedVectorStore(folder / CHROMA_FOLDER_NAME, clock)
    main_profile, reader_profile = profiles if profiles else (None, None)
    parse: Callable[[Path], ParsedDocument] = _profiled(reader_profile, timed_parse(clock))
    chunk: Callable[..., list[Chunk]] = _profiled(reader_profile, timed_chunk(clock))
    indexer = Indexer(folder / DATABASE_FILE_NAME, store, embedder, options, parse=parse, chunk=chunk)
    tracker = PhaseTracker()
    cpu_before, started = time.process_time(), time.perf_counter()
    if main_profile is not None:
        main_profile.enable()
    summary = indexer.run([corpus], tracker, threading.Event())
    if main_profile is not None:
        main_profile.disable()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_before
    texts, token_counts = _stored_chunks(folder / DATABASE_FILE_NAME)
    connection = open_database(folder / DATABASE_FILE_NAME)
    try:
        space = active_space(connection)
    finally:
        connection.close()
    vectors = store.count(space.collection) if space is not None else 0
    if len(texts) != summary.chunks or vectors != summary.chunks:
        raise RuntimeError(f"pipeline stored {len(texts)} chunks and {vectors} vectors, embedded {summary.chunks}")
    return PipelineRun(seconds, cpu, summary.chunks, summary.files_indexed, summary.files_failed,
                       clock.report(), tracker.durations(), texts, token_counts)


def raw_encode_seconds(model: Any, texts: list[str], batch_size: int) -> float:
    """Seconds for one plain ``model.encode`` call over ``texts``."""
    started = time.perf_counter()
    model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                 show_progress_bar=False)
    return time.perf_counter() - started


def _round(index: int, work_dir: Path, corpus: Path, embedder: TimedEmbedder, model: Any,
           options: IndexingOptions, texts: list[str]) -> tuple[dict[str, Any], PipelineRun]:
    """One pipeline run and one raw encode; the raw one first on odd rounds (when the chunks are known)."""
    pipeline_first = index % 2 == 0 or not texts
    raw_seconds = None
    if not pipeline_first:
        log(f"ingestion round {index}: raw encode of {len(texts)} chunks")
        raw_seconds = raw_encode_seconds(model, texts, options.batch_chunks)
    log(f"ingestion round {index}: pipeline")
    run = run_pipeline_once(work_dir / f"kb-round-{index}", corpus, embedder, options)
    if texts and run.texts != texts:
        raise RuntimeError("two pipeline runs over the same corpus stored different chunks")
    if raw_seconds is None:
        log(f"ingestion round {index}: raw encode of {len(run.texts)} chunks")
        raw_seconds = raw_encode_seconds(model, run.texts, options.batch_chunks)
    return {
        "order": "pipeline, raw" if pipeline_first else "raw, pipeline",
        "pipeline": run.to_dict(),
        "raw_encode_s": round(raw_seconds, 2),
        "raw_chunks_per_s": round(len(run.texts) / raw_seconds, 2),
        "ratio": round(raw_seconds / run.seconds, 4),
    }, run


def measure_ingestion(plan: IngestionPlan, work_dir: Path) -> dict[str, Any]:
    from sentence_transformers import SentenceTransformer

    settings = Settings()
    options = IndexingOptions.from_settings(settings)
    corpus = work_dir / "mixed-corpus"
    log(f"ingestion: writing {plan.files} mixed-format files")
    facts = write_mixed_corpus(corpus, plan.files, maker=TextMaker.create())
    embedder = TimedEmbedder(settings.str_value("kb.embedding_model"), StepClock(), device="cpu")
    embedder.embed_documents(["warm up the model"] * 16)
    model = SentenceTransformer(embedder.source.location, device="cpu", local_files_only=True)
    model.encode(["warm up the model"] * 16, batch_size=options.batch_chunks)
    rounds: list[dict[str, Any]] = []
    runs: list[PipelineRun] = []
    for index in range(plan.rounds):
        entry, run = _round(index, work_dir, corpus, embedder, model, options, runs[0].texts if runs else [])
        rounds.append(entry)
        runs.append(run)
    texts = runs[0].texts
    lengths = [min(count + SPECIAL_TOKENS, embedder.max_seq_length) for count in runs[0].token_counts]
    result: dict[str, Any] = {
        "what": "whole pipeline chunks/s (discover+parse+chunk+embed+store via Indexer.run, model preloaded) "
                "÷ raw SentenceTransformer.encode chunks/s (one call) of the same stored chunks, same batch size",
        "corpus": facts.to_dict(),
        "chunks": len(texts),
        "mean_tokens_per_chunk": round(statistics.fmean(runs[0].token_counts), 1),
        "chunk_tokens": embedder.chunk_tokens_for(options.chunk_tokens),
        "batch_size": options.batch_chunks,
        "rounds": rounds,
        "padding": padding_report(texts, lengths, options.batch_chunks),
        **verdict(statistics.median(entry["ratio"] for entry in rounds), TARGET_RATIO, higher_is_better=True),
    }
    if plan.profile:
        log("ingestion: the same chunks encoded in other batchings (diagnosis, not part of the ratio)")
        result["encode_variants"] = time_variants(model, embedder.embed_documents, texts, lengths, options.batch_chunks)
        log("ingestion: one more pipeline round under cProfile (not part of the ratio)")
        main_profile, reader_profile = cProfile.Profile(), cProfile.Profile()
        run_pipeline_once(work_dir / "kb-profiled", corpus, embedder, options, (main_profile, reader_profile))
        result["profile"] = {
            "indexing_thread_cumulative": top_functions(main_profile, "cumulative"),
            "indexing_thread_own": top_functions(main_profile, "own"),
            "reader_thread_cumulative": top_functions(reader_profile, "cumulative"),
        }
    return result
