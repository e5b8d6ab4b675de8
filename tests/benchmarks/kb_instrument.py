"""Timing hooks for the knowledge-base benchmarks: step clocks, timed embedder/vector store, phase times.

The hooks only read clocks around the real calls (parse, chunk, embed, upsert); they add
microseconds per call, so the instrumented pipeline is the real one.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.kb.documents import Chunk, ParsedDocument
from app.core.kb.embedder import Embedder
from app.core.kb.progress import ProgressTracker
from app.core.kb.vector_store import VectorKey, VectorStore

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def log(message: str) -> None:
    print(f"[bench-kb] {message}", file=sys.stderr, flush=True)


class StepClock:
    """Wall and thread-CPU seconds and call counts per named step, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wall: dict[str, float] = {}
        self._cpu: dict[str, float] = {}
        self._calls: dict[str, int] = {}

    @contextmanager
    def timing(self, step: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            wall_spent, cpu_spent = time.perf_counter() - wall, time.thread_time() - cpu
            with self._lock:
                self._wall[step] = self._wall.get(step, 0.0) + wall_spent
                self._cpu[step] = self._cpu.get(step, 0.0) + cpu_spent
                self._calls[step] = self._calls.get(step, 0) + 1

    def wall(self, step: str) -> float:
        with self._lock:
            return self._wall.get(step, 0.0)

    def report(self) -> dict[str, dict[str, float]]:
        with self._lock:
            return {
                step: {"wall_s": round(self._wall[step], 3), "thread_cpu_s": round(self._cpu[step], 3),
                       "calls": self._calls[step]}
                for step in sorted(self._wall)
            }


class TimedEmbedder(Embedder):
    """The real :class:`Embedder`, with ``embed_documents`` and ``count_tokens`` timed."""

    def __init__(self, model_name: str, clock: StepClock, **options: Any) -> None:
        super().__init__(model_name, **options)
        self.clock = clock

    def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        with self.clock.timing("embed"):
            return super().embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        with self.clock.timing("count_tokens"):
            return super().count_tokens(text)


class TimedVectorStore(VectorStore):
    """The real :class:`VectorStore`, with ``upsert`` timed."""

    def __init__(self, persist_dir: Path, clock: StepClock) -> None:
        super().__init__(persist_dir)
        self.clock = clock

    def upsert(self, collection: str, keys: Sequence[VectorKey], vectors: NDArray[np.float32]) -> None:
        with self.clock.timing("vector_upsert"):
            super().upsert(collection, keys, vectors)


class PhaseTracker(ProgressTracker):
    """A :class:`ProgressTracker` that also notes when each phase began (perf_counter seconds)."""

    def __init__(self) -> None:
        super().__init__()
        self.phases: list[tuple[str, float]] = [("created", time.perf_counter())]

    def update(self, **changes: Any) -> None:
        phase = changes.get("phase")
        if phase is not None and phase != self.phases[-1][0]:
            self.phases.append((str(phase), time.perf_counter()))
        super().update(**changes)

    def durations(self) -> list[dict[str, Any]]:
        """Each phase in order with its length (the last one, finished/cancelled, has none)."""
        spans = []
        for (name, began), (_, ended) in zip(self.phases, self.phases[1:], strict=False):
            spans.append({"phase": name, "seconds": round(ended - began, 3)})
        return spans


def timed_parse(clock: StepClock) -> Callable[[Path], ParsedDocument]:
    """The real ``parse_document`` timed as step "parse"."""
    from app.core.kb.parsers import parse_document

    def parse(path: Path) -> ParsedDocument:
        with clock.timing("parse"):
            return parse_document(path)

    return parse


def timed_chunk(clock: StepClock) -> Callable[[ParsedDocument, Callable[[str], int], int, int], list[Chunk]]:
    """The real ``chunk_document`` timed as step "chunk" (its count_tokens calls included)."""
    from app.core.kb.chunker import chunk_document

    def chunk(document: ParsedDocument, count_tokens: Callable[[str], int], tokens: int, overlap: int) -> list[Chunk]:
        with clock.timing("chunk"):
            return chunk_document(document, count_tokens, tokens, overlap)

    return chunk


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` 0..1) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


def latency_summary(seconds: Sequence[float]) -> dict[str, float | int]:
    """p50/p95/max/mean in milliseconds of per-query times in seconds."""
    milliseconds = [value * 1000.0 for value in seconds]
    return {
        "count": len(milliseconds),
        "p50_ms": round(percentile(milliseconds, 0.50), 2),
        "p95_ms": round(percentile(milliseconds, 0.95), 2),
        "max_ms": round(max(milliseconds), 2) if milliseconds else float("nan"),
        "mean_ms": round(statistics.fmean(milliseconds), 2) if milliseconds else float("nan"),
    }


def load_average() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()] if hasattr(os, "getloadavg") else []


def machine_facts() -> dict[str, Any]:
    import torch

    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "load_average_1_5_15": load_average(),
    }


