"""The background indexing job and service: worker thread, progress snapshots, cancel, watching."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from app.core.kb.catalog import DocumentStatus
from app.core.services.indexing import IndexingJob, IndexingService
from tests.fixtures.knowledge_base import SlowToStartKnowledgeBase, open_knowledge_base


def _write(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        (folder / f"note{index}.txt").write_text(f"Note {index} is about topic number {index}.\n\nMore words.")
    return folder


def test_a_job_indexes_on_its_own_thread_and_reports_progress(tmp_path: Path) -> None:
    folder = _write(tmp_path / "docs", 4)
    with open_knowledge_base(tmp_path / "kb") as kb:
        job = IndexingJob(kb, [folder]).start()
        phases = set()
        while not job.join(0.01):
            phases.add(job.progress().phase)
        summary = job.wait()
        assert summary.files_indexed == 4 and not summary.cancelled
        final = job.progress()
        assert final.phase == "finished" and final.finished and final.files_done == 4
        assert final.files_total == 4 and final.chunks_done == summary.chunks > 0
        assert final.chunks_per_second > 0 and final.chunk_tokens == 254
        assert phases <= {"starting", "cleaning", "scanning", "indexing", "finished"}
        assert final.to_dict()["problems"] == []
        with pytest.raises(RuntimeError):
            job.start()


def test_a_cancelled_job_keeps_what_it_committed(tmp_path: Path) -> None:
    folder = _write(tmp_path / "docs", 30)
    with open_knowledge_base(tmp_path / "kb") as kb:
        job = IndexingJob(kb, [folder])
        job.cancel()  # cancelled before it starts: nothing is indexed, all stays pending
        summary = job.start().wait(120)
        assert summary.cancelled and summary.files_indexed == 0
        assert {record.status for record in kb.documents()} == {DocumentStatus.PENDING}
        assert job.progress().phase == "cancelled"


def test_a_failing_job_reports_its_error(tmp_path: Path) -> None:
    with open_knowledge_base(tmp_path / "kb", kb__embedding_model="no-such/embedding-model") as kb:
        job = IndexingJob(kb, [tmp_path]).start()
        with pytest.raises(Exception, match="not available on this computer"):
            job.wait(60)
        assert job.progress().phase == "failed" and job.error is not None


def test_the_service_resumes_work_and_indexes_changes_in_watched_folders(tmp_path: Path) -> None:
    folder = _write(tmp_path / "docs", 2)
    with open_knowledge_base(tmp_path / "kb") as kb:
        service = IndexingService(kb, watch_interval=0.1)
        service.request([folder])
        first = service.current_job()
        assert first is not None
        first.wait(120)
        service.start()
        (folder / "late.txt").write_text("A note that arrives while the app runs.")
        deadline = time.monotonic() + 60
        while not any(r.path.endswith("late.txt") and r.status is DocumentStatus.INDEXED for r in kb.documents()):
            assert time.monotonic() < deadline, "the watched folder's new file was not indexed"
            time.sleep(0.1)
        service.close()
        assert len(kb.documents()) == 3


def test_the_service_takes_its_watch_interval_from_settings(tmp_path: Path) -> None:
    with open_knowledge_base(tmp_path / "off", kb__watch_interval_seconds=0) as kb:
        assert not IndexingService.from_settings(kb).watching
    with open_knowledge_base(tmp_path / "on", kb__watch_interval_seconds=30) as kb:
        service = IndexingService.from_settings(kb)
        assert service.watching and service.current_job() is None
        service.close()
        service.request([tmp_path])
        assert service.current_job() is None, "a closed service starts nothing"



def test_closing_the_service_during_a_step_that_cannot_stop_runs_then_when_the_job_ends(tmp_path: Path) -> None:
    kb = SlowToStartKnowledgeBase(tmp_path / "kb")
    service = IndexingService(kb)
    service.start()
    assert kb.entered.wait(60)
    assert service.close(timeout=0.01, then=kb.close) is False  # the job is still in its first step
    assert not kb.closed.is_set() and kb.documents() == []  # the knowledge base stays open under it
    kb.release.set()
    assert kb.closed.wait(60)
    job = service.current_job()
    assert job is not None and job.join(60) and job.progress().phase == "cancelled"
    assert kb.closes == 1


def test_closing_an_idle_service_runs_then_at_once(tmp_path: Path) -> None:
    with open_knowledge_base(tmp_path / "kb") as kb:
        service = IndexingService(kb)
        ran: list[str] = []
        assert service.close(then=lambda: ran.append(threading.current_thread().name)) is True
        assert ran == [threading.current_thread().name]


def _indexed_by_a_new_start(folder: Path) -> list[DocumentStatus]:
    """Open the knowledge base in ``folder`` again, as the next start of the app does; the statuses its
    resume job leaves."""
    with open_knowledge_base(folder) as kb:
        service = IndexingService(kb)
        service.start()
        job = service.current_job()
        assert job is not None
        job.wait(120)
        service.close()
        assert kb.requested() == []  # every request was planned
        return [record.status for record in kb.documents()]


def test_a_request_remembered_before_any_run_is_indexed_at_the_next_start(tmp_path: Path) -> None:
    docs = _write(tmp_path / "docs", 3)
    with open_knowledge_base(tmp_path / "kb") as kb:
        kb.request([docs])  # what the service writes first; then the app was killed
        assert kb.requested() == [docs]
    assert _indexed_by_a_new_start(tmp_path / "kb") == [DocumentStatus.INDEXED] * 3


def test_documents_added_just_before_quitting_are_indexed_at_the_next_start(tmp_path: Path) -> None:
    docs = _write(tmp_path / "docs", 3)
    kb = SlowToStartKnowledgeBase(tmp_path / "kb")
    service = IndexingService(kb)
    service.start()  # the resume job is in its first step (loading the embedding library) ...
    assert kb.entered.wait(60)
    service.request([docs])  # ... when the user adds documents, which wait behind it ...
    assert service.close(timeout=0.01, then=kb.close) is False  # ... and quits at once
    kb.release.set()
    assert kb.closed.wait(60)
    assert _indexed_by_a_new_start(tmp_path / "kb") == [DocumentStatus.INDEXED] * 3
