"""Job: one worker thread, progress snapshots, cancel at checkpoints, join without raising, wait with the result."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from app.core.util.jobs import Job

TIMEOUT_S = 30.0


class Counting(Job[int, int]):
    """Counts to ``target``, one step per ``step`` release; fails at ``fail_at``; stops when cancelled."""

    def __init__(self, target: int, *, fail_at: int | None = None,
                 on_finished: Callable[[Counting], None] | None = None) -> None:
        super().__init__("counting", on_finished=on_finished)
        self.target = target
        self.fail_at = fail_at
        self.count = 0
        self.step = threading.Semaphore(0)
        self.failures: list[BaseException] = []
        self.worker: str | None = None

    def _run(self) -> int:
        self.worker = threading.current_thread().name
        while self.count < self.target:
            if not self.step.acquire(timeout=TIMEOUT_S):
                raise TimeoutError("the test never released a step")
            if self.cancelled:
                return -self.count
            if self.count == self.fail_at:
                raise ValueError(f"broke at {self.count}")
            self.count += 1
        return self.count

    def progress(self) -> int:
        return self.count

    def _failed(self, error: BaseException) -> None:
        self.failures.append(error)

    def release(self, steps: int) -> None:
        for _ in range(steps):
            self.step.release()


def test_a_job_runs_on_its_own_named_thread_reports_progress_and_gives_its_result() -> None:
    job = Counting(3).start()
    assert not job.done and job.progress() == 0
    assert not job.join(0.01)
    with pytest.raises(TimeoutError):
        job.wait(0.01)
    job.release(3)
    assert job.wait(TIMEOUT_S) == 3
    assert job.done and job.error is None and job.progress() == 3
    assert job.worker == "counting" and job.worker != threading.current_thread().name


def test_an_error_ends_the_job_and_is_raised_by_wait_but_not_by_join() -> None:
    job = Counting(5, fail_at=2).start()
    job.release(5)
    assert job.join(TIMEOUT_S)
    assert isinstance(job.error, ValueError) and job.failures == [job.error]
    with pytest.raises(ValueError, match="broke at 2"):
        job.wait(0)
    assert job.progress() == 2


def test_cancel_is_seen_at_the_next_checkpoint_and_keeps_what_was_done() -> None:
    job = Counting(10).start()
    job.release(2)
    job.cancel()
    job.release(10)
    assert job.wait(TIMEOUT_S) <= 0 and job.cancelled and job.cancel_event.is_set()


def test_on_finished_runs_once_on_the_worker_after_the_job_counts_as_done() -> None:
    seen: list[tuple[bool, str]] = []
    called = threading.Event()

    def finished(job: Counting) -> None:
        seen.append((job.done, threading.current_thread().name))
        called.set()

    Counting(1, on_finished=finished).start().release(1)
    assert called.wait(TIMEOUT_S)
    assert seen == [(True, "counting")]


def test_a_failing_on_finished_does_not_change_the_outcome() -> None:
    def explode(_job: Counting) -> None:
        raise RuntimeError("the listener broke")

    job = Counting(1, on_finished=explode).start()
    job.release(1)
    assert job.wait(TIMEOUT_S) == 1 and job.error is None


def test_a_job_starts_only_once() -> None:
    job = Counting(1).start()
    with pytest.raises(RuntimeError, match="only once"):
        job.start()
    job.release(1)
    assert job.wait(TIMEOUT_S) == 1
