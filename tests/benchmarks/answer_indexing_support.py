"""Pieces of the answer-while-indexing benchmark: one case (answers, optionally over a real indexing job)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
from app.core.services.indexing import IndexingJob, IndexingService
from tests.benchmarks.bench_support import ObservedChat, check_lengths, greedy, median, run_chats

CASES = {
    "alone": "answers with nothing else running",
    "indexing": "answers while a real indexing job runs without stepping aside (kb.pause_while_answering off)",
    "stepping_aside": "answers while the same indexing job steps aside (kb.pause_while_answering on, "
                      "foreground_busy = EngineManager.generating)",
    "indexing_alone": "reference: the same indexing job with no answers, over a window as long as an answer "
                      "series (what indexing does when nothing competes)",
}
FIRST_CHUNKS_TIMEOUT_S = 300.0
ANSWER_TIMEOUT_S = 300.0
CLOSE_TIMEOUT_S = 120.0


def log(message: str) -> None:
    print(f"[bench-answer-indexing] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class AnswerPlan:
    """The answer series every case runs, and where its knowledge bases go."""

    answers: int
    new_tokens: int
    pause_s: float
    corpus: Path
    work_dir: Path
    quiet_window_s: float
    """How long ``indexing_alone`` watches the job: about as long as an answer series."""


class ChunkTimeline:
    """Polls a job's progress on a thread and notes when each batch of chunks landed.

    Chunks arrive a batch (64) at a time, seconds apart; counting whole batches inside a ~10 s window
    is off by up to a batch. :meth:`chunks_at` interpolates between batch landings instead.
    """

    def __init__(self, job: IndexingJob, poll_s: float = 0.005) -> None:
        self._job = job
        self._poll_s = poll_s
        self._lock = threading.Lock()
        self._points: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="bench-chunk-timeline", daemon=True)

    def start(self) -> ChunkTimeline:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5.0)

    def _poll(self) -> None:
        last = -1
        while not self._stop.is_set():
            chunks = self._job.progress().chunks_done
            if chunks != last:
                with self._lock:
                    self._points.append((time.perf_counter(), chunks))
                last = chunks
            self._stop.wait(self._poll_s)

    def points(self) -> list[tuple[float, int]]:
        with self._lock:
            return list(self._points)

    def wait_for_chunks(self, after: float, timeout_s: float) -> bool:
        """Wait until a batch lands after ``after`` (perf_counter), or the job ends; whether one did."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if any(moment > after and chunks > 0 for moment, chunks in self.points()):
                return True
            if self._job.done:
                return False
            time.sleep(0.01)
        return False

    def chunks_at(self, moment: float) -> float:
        """Chunks embedded by ``moment``, linear between the batch landings around it."""
        points = self.points()
        earlier = [point for point in points if point[0] <= moment]
        later = [point for point in points if point[0] > moment]
        if not earlier:
            return 0.0
        (time_before, chunks_before) = earlier[-1]
        if not later:
            return float(chunks_before)
        (time_after, chunks_after) = later[0]
        return chunks_before + (chunks_after - chunks_before) * (moment - time_before) / (time_after - time_before)

    def landings_between(self, start: float, end: float) -> int:
        return sum(1 for moment, _ in self.points() if start < moment <= end)


@dataclass(frozen=True)
class IndexingWindow:
    """What the indexing job did while the answers ran (interpolated chunks, paused time from progress)."""

    chunks: float
    seconds: float
    paused_seconds: float
    batches_landed: int
    chunks_before_answers: int
    job_finished_before_answers_ended: bool
    job_total_chunks: int

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunks_during_window": round(self.chunks, 1),
            "batches_landed_in_window": self.batches_landed,
            "window_s": round(self.seconds, 2),
            "chunks_per_s": round(self.chunks_per_s, 2),
            "paused_s": round(self.paused_seconds, 2),
            "paused_fraction": round(self.paused_seconds / self.seconds, 3) if self.seconds > 0 else 0.0,
            "chunks_before_window": self.chunks_before_answers,
            "job_chunks_when_closed": self.job_total_chunks,
            "indexing_outlasted_window": not self.job_finished_before_answers_ended,
        }


def cpu_seconds() -> tuple[float, float]:
    """(busy CPU seconds of the whole machine, CPU seconds of this process) so far."""
    import psutil

    machine = psutil.cpu_times()
    own = psutil.Process().cpu_times()
    busy = machine.user + machine.nice + machine.system + getattr(machine, "irq", 0.0) + getattr(
        machine, "softirq", 0.0) + getattr(machine, "steal", 0.0)
    return busy, own.user + own.system


@dataclass(frozen=True)
class CaseRun:
    """One case in one round: every answer as observed, the indexing window (none when alone), and the
    CPU time other processes took meanwhile (a shared machine: non-zero means the figures are disturbed)."""

    case: str
    round_index: int
    chats: tuple[ObservedChat, ...]
    indexing: IndexingWindow | None
    other_processes_cpu_s: float

    @property
    def answered(self) -> bool:
        return bool(self.chats)

    @property
    def ttft_s(self) -> list[float]:
        return [chat.observed_ttft_s or 0.0 for chat in self.chats]

    @property
    def decode_tokens_per_s(self) -> list[float]:
        return [chat.observed_decode_tokens_per_s for chat in self.chats]

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {"round": self.round_index,
                                    "other_processes_cpu_s": round(self.other_processes_cpu_s, 2)}
        if self.indexing is not None:
            document["indexing"] = self.indexing.to_dict()
        if not self.answered:
            return document
        document |= {
            "ttft_s": [round(value, 4) for value in self.ttft_s],
            "decode_tokens_per_s": [round(value, 2) for value in self.decode_tokens_per_s],
            "engine_decode_tokens_per_s": [round(chat.metrics.decode_tokens_per_s or 0.0, 2) for chat in self.chats],
            "median_ttft_s": round(median(self.ttft_s), 4),
            "median_decode_tokens_per_s": round(median(self.decode_tokens_per_s), 2),
            "prompt_tokens": [chat.metrics.prompt_tokens for chat in self.chats],
            "reused_prompt_tokens": [chat.metrics.reused_prompt_tokens for chat in self.chats],
        }
        return document


def answer_series(
    manager: EngineManager, chats: list[tuple[ChatMessage, ...]], plan: AnswerPlan
) -> list[ObservedChat]:
    """One fresh request per chat, one at a time, each followed by a user's pause; streams read per token."""
    observed: list[ObservedChat] = []
    for messages in chats:
        request = ChatRequest(messages=messages, sampling=greedy(plan.new_tokens))
        observed.extend(run_chats(manager, [request], timeout_s=ANSWER_TIMEOUT_S, consumer="token"))
        time.sleep(plan.pause_s)
    check_lengths(observed, plan.new_tokens)
    return observed


def _wait_for_first_chunks(job: IndexingJob) -> int:
    """Block until the job has embedded its first batch (model loaded, scanning done); chunks so far."""
    deadline = time.monotonic() + FIRST_CHUNKS_TIMEOUT_S
    while True:
        progress = job.progress()
        if progress.chunks_done > 0:
            return progress.chunks_done
        if job.done:
            raise RuntimeError(f"the indexing job ended before embedding anything: {job.error or progress.phase}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no chunk was embedded within {FIRST_CHUNKS_TIMEOUT_S:.0f} s")
        time.sleep(0.01)


def foreground_over_indexing(
    manager: EngineManager,
    foreground: Callable[[], list[ObservedChat]],
    plan: AnswerPlan,
    embedders: EmbedderPool,
    pause_while_answering: bool,
    folder: Path,
) -> tuple[list[ObservedChat], IndexingWindow]:
    """Index the corpus into a fresh knowledge base in ``folder`` as the app does
    (``IndexingService.from_settings(kb, foreground_busy=manager.generating)``) and run ``foreground``
    (the answers, or a quiet wait) once the job is embedding. The job runs on until one more batch
    lands after the window (so the window's end can be interpolated), then it is cancelled."""
    settings = Settings({"kb.pause_while_answering": pause_while_answering, "kb.watch_interval_seconds": 0})
    knowledge_base = KnowledgeBase(folder, settings, embedders)
    service = IndexingService.from_settings(knowledge_base, foreground_busy=manager.generating)
    timeline: ChunkTimeline | None = None
    try:
        service.request([plan.corpus])
        job = service.current_job()
        if job is None:
            raise RuntimeError("the indexing service started no job")
        timeline = ChunkTimeline(job).start()
        chunks_before = _wait_for_first_chunks(job)
        started, before = time.perf_counter(), job.progress()
        chats_observed = foreground()
        ended, after = time.perf_counter(), job.progress()
        finished_early = job.done
        timeline.wait_for_chunks(after=ended, timeout_s=FIRST_CHUNKS_TIMEOUT_S)
    finally:
        if timeline is not None:
            timeline.stop()
        service.close(timeout=CLOSE_TIMEOUT_S)
        knowledge_base.close()
    if job.error is not None:
        raise RuntimeError(f"the indexing job failed: {job.error}")
    window = IndexingWindow(
        chunks=timeline.chunks_at(ended) - timeline.chunks_at(started),
        seconds=ended - started,
        paused_seconds=after.paused_seconds - before.paused_seconds,
        batches_landed=timeline.landings_between(started, ended),
        chunks_before_answers=chunks_before,
        job_finished_before_answers_ended=finished_early,
        job_total_chunks=job.progress().chunks_done,
    )
    return chats_observed, window


def run_case(
    case: str,
    round_index: int,
    manager: EngineManager,
    chats: list[tuple[ChatMessage, ...]],
    plan: AnswerPlan,
    embedders: EmbedderPool,
) -> CaseRun:
    """Run ``case`` (a key of CASES) once; each indexing case gets a fresh knowledge-base folder."""
    machine_before, own_before = cpu_seconds()
    window: IndexingWindow | None = None
    if case == "alone":
        observed = answer_series(manager, chats, plan)
    else:
        def foreground() -> list[ObservedChat]:
            if case == "indexing_alone":
                time.sleep(plan.quiet_window_s)
                return []
            return answer_series(manager, chats, plan)

        observed, window = foreground_over_indexing(
            manager, foreground, plan, embedders, pause_while_answering=case == "stepping_aside",
            folder=plan.work_dir / f"kb-{case}-round-{round_index}",
        )
    machine_after, own_after = cpu_seconds()
    others = max(0.0, (machine_after - machine_before) - (own_after - own_before))
    return CaseRun(case, round_index, tuple(observed), window, others)


def case_summary(runs: list[CaseRun], batch_chunks: int) -> dict[str, Any]:
    """Medians over every answer of a case (all rounds pooled), plus its indexing throughput."""
    ttft = [value for run in runs for value in run.ttft_s]
    decode = [value for run in runs for value in run.decode_tokens_per_s]
    summary: dict[str, Any] = {"what": CASES[runs[0].case]}
    if ttft:
        summary |= {"answers": len(ttft), "median_ttft_s": round(median(ttft), 4),
                    "median_decode_tokens_per_s": round(median(decode), 2)}
    windows = [run.indexing for run in runs if run.indexing is not None]
    if windows:
        chunks = sum(window.chunks for window in windows)
        seconds = sum(window.seconds for window in windows)
        summary["indexing_chunks_per_s"] = round(chunks / seconds, 2) if seconds > 0 else 0.0
        summary["indexing_chunks"] = round(chunks, 1)
        paused = sum(window.paused_seconds for window in windows)
        summary["indexing_paused_fraction"] = round(paused / seconds, 3) if seconds > 0 else 0.0
        summary["indexing_outlasted_window"] = all(not w.job_finished_before_answers_ended for w in windows)
        summary["seconds_per_embedding_batch"] = (
            round(seconds / chunks * batch_chunks, 2) if chunks and batch_chunks else None)
    summary["other_processes_cpu_s"] = round(sum(run.other_processes_cpu_s for run in runs), 2)
    summary["rounds"] = [run.to_dict() for run in runs]
    return summary


def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 4) if denominator > 0 else None


def ratios(summaries: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """The comparisons the benchmark is for, from the per-case medians."""
    alone, plain, aside = summaries["alone"], summaries["indexing"], summaries["stepping_aside"]
    quiet = summaries["indexing_alone"]

    def of(key: str) -> Callable[[dict[str, Any], dict[str, Any]], float | None]:
        return lambda top, bottom: ratio(float(top.get(key, 0.0)), float(bottom.get(key, 0.0)))

    decode, ttft, chunks = of("median_decode_tokens_per_s"), of("median_ttft_s"), of("indexing_chunks_per_s")
    return {
        "decode_stepping_aside_over_alone": decode(aside, alone),
        "decode_indexing_over_alone": decode(plain, alone),
        "ttft_stepping_aside_over_alone": ttft(aside, alone),
        "ttft_indexing_over_alone": ttft(plain, alone),
        "indexing_chunks_per_s_stepping_aside_over_indexing": chunks(aside, plain),
        "indexing_chunks_per_s_indexing_over_indexing_alone": chunks(plain, quiet),
        "indexing_chunks_per_s_stepping_aside_over_indexing_alone": chunks(aside, quiet),
    }
