"""Re-add benchmark: adding an unchanged folder again vs indexing it the first time, same run.

Both go through ``KnowledgeBase.indexer().run`` with the embedding model already loaded (as in
the app, where it stays resident). Also reported: a re-add after every file's mtime changed
(content hashed, found unchanged) and a re-add with the model not loaded yet (what a fresh
``unidesk kb add`` process pays, minus importing torch).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.kb.indexer import IndexingSummary
from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
from tests.benchmarks.bench_support import verdict
from tests.benchmarks.kb_files import write_small_files
from tests.benchmarks.kb_instrument import PhaseTracker, log

TARGET_RATIO = 0.05


@dataclass(frozen=True)
class ReaddPlan:
    files: int
    repeats: int


def _timed_run(knowledge_base: KnowledgeBase, folder: Path) -> tuple[float, IndexingSummary, PhaseTracker]:
    tracker = PhaseTracker()
    indexer = knowledge_base.indexer()
    started = time.perf_counter()
    summary = indexer.run([folder], tracker, threading.Event())
    return time.perf_counter() - started, summary, tracker


def _touch_all(folder: Path) -> int:
    """Move every file's mtime one second ahead (content unchanged); returns how many."""
    count = 0
    for path in folder.rglob("*"):
        if path.is_file():
            info = path.stat()
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
            count += 1
    return count


def measure_readd(plan: ReaddPlan, work_dir: Path) -> dict[str, Any]:
    folder = work_dir / "small-files"
    log(f"re-add: writing {plan.files} small files")
    facts = write_small_files(folder, plan.files)
    settings = Settings()
    pool = EmbedderPool(device="cpu")
    embedder = pool.get(settings.str_value("kb.embedding_model"))
    embedder.embed_documents(["warm up the model"] * 16)
    kb_folder = work_dir / "readd-kb"
    with KnowledgeBase(kb_folder, settings, pool) as knowledge_base:
        log("re-add: first indexing")
        first_seconds, first, first_tracker = _timed_run(knowledge_base, folder)
        if first.files_indexed != plan.files or first.files_failed:
            raise RuntimeError(f"first indexing indexed {first.files_indexed} of {plan.files} files")
        again: list[float] = []
        again_tracker = first_tracker
        for repeat in range(plan.repeats):
            log(f"re-add: unchanged folder again ({repeat + 1}/{plan.repeats})")
            seconds, summary, again_tracker = _timed_run(knowledge_base, folder)
            if summary.files_skipped != plan.files or summary.chunks:
                raise RuntimeError(f"re-add skipped {summary.files_skipped} files and embedded {summary.chunks} chunks")
            again.append(seconds)
        touched = _touch_all(folder)
        log(f"re-add: after touching {touched} files (hash check)")
        touched_seconds, touched_summary, touched_tracker = _timed_run(knowledge_base, folder)
        if touched_summary.files_indexed or touched_summary.chunks:
            raise RuntimeError("touched files with unchanged content were indexed again")
    log("re-add: unchanged folder with the embedding model not loaded yet")
    with KnowledgeBase(kb_folder, settings, EmbedderPool(device="cpu")) as fresh:
        cold_seconds, _, cold_tracker = _timed_run(fresh, folder)
    again_median = statistics.median(again)
    return {
        "what": "re-adding an unchanged folder (KnowledgeBase.indexer().run, model loaded) ÷ first indexing of it",
        "folder": facts.to_dict(),
        "chunks": first.chunks,
        "first_indexing_s": round(first_seconds, 2),
        "first_phases": first_tracker.durations(),
        "readd_s": {"median": round(again_median, 3), "runs": [round(value, 3) for value in again]},
        "readd_phases": again_tracker.durations(),
        "after_touching_every_file": {
            "seconds": round(touched_seconds, 3),
            "ratio_to_first": round(touched_seconds / first_seconds, 4),
            "phases": touched_tracker.durations(),
        },
        "model_not_loaded_yet": {
            "seconds": round(cold_seconds, 3),
            "ratio_to_first": round(cold_seconds / first_seconds, 4),
            "phases": cold_tracker.durations(),
        },
        **verdict(again_median / first_seconds, TARGET_RATIO, higher_is_better=False),
    }
