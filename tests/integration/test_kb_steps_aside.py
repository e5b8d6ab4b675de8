"""Background indexing steps aside for the foreground, with the real embedder, chromadb and SQLite.

While an answer is being written (``foreground_busy``) or a search waits for the embedding model, an
indexing run holds its next batch: progress says paused and no chunk is embedded; when the foreground is
done the run carries on and every file ends up indexed, consistently.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.kb.catalog import DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.embedder import Embedder, resolve_embedding_model
from app.core.kb.indexer import IndexingSummary
from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
from app.core.kb.progress import IndexingProgress, ProgressTracker
from app.core.services.indexing import IndexingJob, IndexingService
from tests.fixtures.knowledge_base import open_knowledge_base, shared_embedder_pool

pytestmark = pytest.mark.integration

FILES = 3
LONG_RUN_FILES = 8
BATCH = 2
DEADLINE_S = 60.0
"""For waits on a slow, loaded machine; a passing test never gets near it."""
HOLD_S = 0.4
"""How long the test keeps the foreground busy after seeing the pause, checking that nothing moves."""
TOPICS = ("harbour", "glacier", "orchard", "foundry", "observatory", "canal")
# Small chunks and batches: every file is several chunks, the run many batches.
SMALL = {"kb__chunk_tokens": 64, "kb__chunk_overlap_tokens": 8, "kb__embedding_batch_size": BATCH,
         "kb__watch_interval_seconds": 0}


def write_documents(folder: Path, count: int = FILES) -> Path:
    """``count`` reports of two chunks each (at 64 tokens a chunk)."""
    folder.mkdir(parents=True)
    for index in range(count):
        topic = TOPICS[index % len(TOPICS)]
        paragraphs = [
            f"Report {index} about the {topic}: the inspectors walked the northern wing and counted the repairs. "
            f"They wrote down {index % 7} problems with the roof and the drains of the {topic}.",
            f"The budget for the {topic} was reviewed in week {index % 52}; the committee asked for a second "
            f"quote before any work starts, and for photographs of every damaged beam.",
            f"Follow-up visits to the {topic} are planned each month, with a short note sent to the owners "
            f"and a longer report filed with the city archive after the winter storms.",
        ]
        (folder / f"report{index:02d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    return folder


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_documents(tmp_path / "docs")


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with open_knowledge_base(tmp_path / "kb", **SMALL) as knowledge_base:
        yield knowledge_base


class Foreground:
    """A foreground_busy check backed by a threading.Event; it can start "answering" by itself once the run
    has embedded ``answer_at_chunks`` chunks (an answer that begins in the middle of the run)."""

    def __init__(self, tracker: ProgressTracker | None = None, answer_at_chunks: int | None = None) -> None:
        self.answering = threading.Event()
        self._tracker = tracker
        self._answer_at_chunks = answer_at_chunks
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        if (self._answer_at_chunks is not None and self._tracker is not None
                and self._tracker.snapshot().chunks_done >= self._answer_at_chunks):
            self._answer_at_chunks = None
            self.answering.set()
        return self.answering.is_set()


class Run:
    """An indexing run on its own thread, with the tracker the test watches."""

    def __init__(self, start: Callable[[ProgressTracker, threading.Event], IndexingSummary],
                 tracker: ProgressTracker | None = None) -> None:
        self.tracker = tracker or ProgressTracker()
        self.cancel = threading.Event()
        self.summary: IndexingSummary | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, args=(start,), daemon=True)
        self._thread.start()

    def _work(self, start: Callable[[ProgressTracker, threading.Event], IndexingSummary]) -> None:
        try:
            self.summary = start(self.tracker, self.cancel)
        except BaseException as error:
            self.error = error

    def progress(self) -> IndexingProgress:
        return self.tracker.snapshot()

    def wait_until(self, condition: Callable[[IndexingProgress], bool], what: str) -> IndexingProgress:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            progress = self.progress()
            if condition(progress):
                return progress
            assert self.error is None, self.error
            if progress.finished or not self._thread.is_alive():
                pytest.fail(f"the run ended before {what}; progress: {progress}")
            if time.monotonic() > deadline:
                self.cancel.set()
                pytest.fail(f"timed out waiting until {what}; progress: {progress}")
            time.sleep(0.01)

    def stays_put(self, paused_at: IndexingProgress) -> None:
        """While the foreground stays busy the run stays paused and embeds nothing more."""
        until = time.monotonic() + HOLD_S
        while time.monotonic() < until:
            now = self.progress()
            assert now.paused, "the run went on while the foreground was busy"
            assert now.chunks_done == paused_at.chunks_done and now.files_indexed == paused_at.files_indexed
            assert self._thread.is_alive()
            time.sleep(0.02)

    def finish(self) -> IndexingSummary:
        self._thread.join(DEADLINE_S * 2)
        if self._thread.is_alive():
            self.cancel.set()
            pytest.fail(f"the run did not finish; progress: {self.progress()}")
        if self.error is not None:
            raise self.error
        assert self.summary is not None
        return self.summary


def assert_everything_indexed(kb: KnowledgeBase, summary: IndexingSummary, files: int = FILES) -> None:
    assert not summary.cancelled and summary.files_failed == 0
    records = kb.documents()
    assert len(records) == files and {record.status for record in records} == {DocumentStatus.INDEXED}
    report = check_consistency(open_database(kb.database_path), kb.vector_store)
    assert report.ok, report.problems
    assert report.orphan_vectors == 0
    assert report.chunks == sum(record.chunk_count for record in records)


def test_indexing_waits_for_an_answer_and_then_finishes(kb: KnowledgeBase, tmp_path: Path) -> None:
    docs = write_documents(tmp_path / "many", LONG_RUN_FILES)
    tracker = ProgressTracker()
    foreground = Foreground(tracker, answer_at_chunks=2 * BATCH)
    foreground.answering.set()  # an answer is already being written when indexing starts
    run = Run(lambda progress, cancel: kb.indexer(foreground_busy=foreground).run([docs], progress, cancel), tracker)

    first = run.wait_until(lambda progress: progress.paused, "the run pauses before its first batch")
    assert first.phase == "indexing" and first.chunks_done == 0 and first.files_total == LONG_RUN_FILES
    run.stays_put(first)
    assert not any(record.status is DocumentStatus.INDEXED for record in kb.documents())

    foreground.answering.clear()  # the answer is done; a second one starts after two batches
    run.wait_until(lambda progress: progress.chunks_done > 0, "the run goes on after the answer")
    second = run.wait_until(lambda progress: progress.paused, "the run pauses again in the middle")
    assert second.chunks_done >= 2 * BATCH, "it paused at the batch the second answer began before"
    run.stays_put(second)

    foreground.answering.clear()
    summary = run.finish()
    assert second.chunks_done < summary.chunks, "there was work left after the second pause"
    assert_everything_indexed(kb, summary, LONG_RUN_FILES)
    final = run.progress()
    assert final.phase == "finished" and not final.paused
    assert final.paused_seconds >= 2 * HOLD_S


def test_indexing_lets_a_waiting_search_use_the_model_first(kb: KnowledgeBase, docs: Path) -> None:
    embedder = kb.embedders.get(kb.settings.str_value("kb.embedding_model"))
    embedder.load()
    assert embedder.queries_waiting == 0
    vectors: list[Any] = []
    with embedder._encode_lock:  # the model is busy: a question waits for it
        query = threading.Thread(target=lambda: vectors.append(embedder.embed_query("roof repairs")), daemon=True)
        query.start()
        deadline = time.monotonic() + DEADLINE_S
        while embedder.queries_waiting == 0:
            assert time.monotonic() < deadline, "the question never said it was waiting"
            time.sleep(0.005)
        assert embedder.queries_waiting == 1
        # No foreground_busy at all: the waiting question alone makes the run step aside.
        run = Run(lambda progress, cancel: kb.indexer().run([docs], progress, cancel))
        paused = run.wait_until(lambda progress: progress.paused, "the run steps aside for the question")
        assert paused.phase == "indexing" and paused.chunks_done == 0
        run.stays_put(paused)
    query.join(DEADLINE_S)
    assert not query.is_alive() and len(vectors) == 1
    assert vectors[0].shape == (embedder.dimension,), "the question got its answer once the model was free"
    assert embedder.queries_waiting == 0
    summary = run.finish()
    assert_everything_indexed(kb, summary)
    assert run.progress().paused_seconds >= HOLD_S


def test_indexing_steps_aside_for_a_search_on_the_previous_embedding_model(kb: KnowledgeBase, docs: Path) -> None:
    # During a model switch, searches still use the old model: a question waiting for it counts too.
    old_model = kb.embedders.get(str(resolve_embedding_model("all-MiniLM-L6-v2").location))
    assert old_model is not kb.embedders.get(kb.settings.str_value("kb.embedding_model"))
    old_model.load()
    with old_model._encode_lock:
        query = threading.Thread(target=lambda: old_model.embed_query("roof repairs"), daemon=True)
        query.start()
        deadline = time.monotonic() + DEADLINE_S
        while kb.embedders.queries_waiting() == 0:
            assert time.monotonic() < deadline, "the pool never saw the question waiting"
            time.sleep(0.005)
        run = Run(lambda progress, cancel: kb.indexer().run([docs], progress, cancel))
        paused = run.wait_until(lambda progress: progress.paused, "the run steps aside for the old model's question")
        assert paused.chunks_done == 0
        run.stays_put(paused)
    query.join(DEADLINE_S)
    assert not query.is_alive() and kb.embedders.queries_waiting() == 0
    assert_everything_indexed(kb, run.finish())


class SameWeightsPool(EmbedderPool):
    """The bundled MiniLM, also under its folder's path: another model by name (so a knowledge base built with one
    re-embeds for the other) without loading the weights a second time."""

    def __init__(self) -> None:
        super().__init__(device="cpu")
        self.folder = resolve_embedding_model("all-MiniLM-L6-v2").location
        self._bundled = shared_embedder_pool().get("all-MiniLM-L6-v2")
        self._by_folder = copy.copy(self._bundled)  # the same loaded model, lock and tokenizer
        self._by_folder.source = resolve_embedding_model(self.folder)

    def get(self, model_name: str) -> Embedder:
        return self._by_folder if model_name == self.folder else self._bundled


def test_re_embedding_for_a_new_model_waits_for_an_answer(tmp_path: Path, docs: Path) -> None:
    pool = SameWeightsPool()
    values = {key.replace("__", "."): value for key, value in SMALL.items()}
    with KnowledgeBase(tmp_path / "kb", Settings(values), pool) as first:
        assert_everything_indexed(first, first.indexer().run([docs], ProgressTracker(), threading.Event()))
    settings = Settings({**values, "kb.embedding_model": pool.folder})
    with KnowledgeBase(tmp_path / "kb", settings, pool) as second:
        tracker = ProgressTracker()
        foreground = Foreground()
        foreground.answering.set()
        run = Run(lambda progress, cancel: second.indexer(foreground_busy=foreground).run([docs], progress, cancel),
                  tracker)
        paused = run.wait_until(lambda progress: progress.paused, "re-embedding steps aside")
        assert paused.phase == "re-embedding" and paused.chunks_done == 0 and paused.files_done == 0
        run.stays_put(paused)
        assert second.stats().active_model == "all-MiniLM-L6-v2", "nothing switched while paused"
        foreground.answering.clear()
        summary = run.finish()
        assert summary.switched_model and summary.files_skipped == FILES
        assert summary.chunks == sum(record.chunk_count for record in second.documents()), "all were re-embedded"
        assert second.stats().active_model == pool.folder
        assert_everything_indexed(second, summary)


def test_the_service_pauses_jobs_for_the_foreground_when_the_setting_says_so(kb: KnowledgeBase, docs: Path) -> None:
    assert kb.settings.bool_value("kb.pause_while_answering"), "on by default"
    foreground = Foreground()
    foreground.answering.set()
    service = IndexingService.from_settings(kb, foreground_busy=foreground)
    try:
        service.request([docs])
        job = service.current_job()
        assert job is not None
        paused = wait_for_job(job, lambda progress: progress.paused, "the job pauses for the answer")
        assert paused.chunks_done == 0
        foreground.answering.clear()
        summary = job.wait(DEADLINE_S * 2)
    finally:
        service.close(DEADLINE_S)
    assert_everything_indexed(kb, summary)
    assert job.progress().paused_seconds > 0


def test_with_the_setting_off_jobs_never_pause(tmp_path: Path, docs: Path) -> None:
    with open_knowledge_base(tmp_path / "kb", **SMALL, kb__pause_while_answering=False) as kb:
        foreground = Foreground()
        foreground.answering.set()  # an answer is being written the whole time
        service = IndexingService.from_settings(kb, foreground_busy=foreground)
        try:
            service.request([docs])
            job = service.current_job()
            assert job is not None
            deadline = time.monotonic() + DEADLINE_S * 2
            while not job.join(0.01):
                if job.progress().paused:
                    job.cancel()
                    pytest.fail("the job paused although kb.pause_while_answering is off")
                assert time.monotonic() < deadline, "the job did not finish"
            summary = job.wait(0)
        finally:
            service.close(DEADLINE_S)
        assert foreground.asked == 0, "the foreground was not even asked"
        assert_everything_indexed(kb, summary)
        assert job.progress().paused_seconds == 0.0


def wait_for_job(job: IndexingJob, condition: Callable[[IndexingProgress], bool], what: str) -> IndexingProgress:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        progress = job.progress()
        if condition(progress):
            return progress
        assert not job.done, f"the job ended before {what}: {progress}"
        if time.monotonic() > deadline:
            job.cancel()
            pytest.fail(f"timed out waiting until {what}; progress: {progress}")
        time.sleep(0.01)
