"""StepAside and the paused time of ProgressTracker: indexing waits for the foreground, and the wait is not
counted against the indexing rate or the time left."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from app.core.kb.progress import IndexingProgress, ProgressTracker
from app.core.kb.step_aside import StepAside, clear_to_embed, embed_in_steps

DEADLINE_S = 60.0
"""Generous for a slow, loaded machine; a passing test never gets near it."""
POLL_S = 0.005


class CountingBusy:
    """A foreground check that says busy for its first ``busy_calls`` calls and records what the tracker
    showed each time it was asked."""

    def __init__(self, tracker: ProgressTracker, busy_calls: int) -> None:
        self._tracker = tracker
        self._busy_calls = busy_calls
        self.calls = 0
        self.seen_paused: list[bool] = []

    def __call__(self) -> bool:
        self.calls += 1
        self.seen_paused.append(self._tracker.snapshot().paused)
        return self.calls <= self._busy_calls


class StepClock:
    """A fake clock that moves ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self._step = step
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self._step
        return self.now


def wait_on_thread(step_aside: StepAside, cancel: threading.Event) -> tuple[threading.Thread, list[float]]:
    """Run ``step_aside.wait`` on a thread (a broken wait must not hang the test run); its result lands in the list."""
    result: list[float] = []
    thread = threading.Thread(target=lambda: result.append(step_aside.wait(cancel)), daemon=True)
    thread.start()
    return thread, result


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.005)


# ---- StepAside ---------------------------------------------------------------------------------------------------

def test_an_idle_foreground_costs_no_wait() -> None:
    tracker = ProgressTracker()
    busy = CountingBusy(tracker, busy_calls=0)
    clock = StepClock(1.0)
    step_aside = StepAside((busy,), tracker, poll_s=POLL_S, clock=clock)
    assert step_aside.wait(threading.Event()) == 0.0
    assert busy.calls == 1  # asked once, not polled
    snapshot = tracker.snapshot()
    assert not snapshot.paused and snapshot.paused_seconds == 0.0


def test_no_checks_means_never_waiting() -> None:
    tracker = ProgressTracker()
    assert StepAside((), tracker, poll_s=POLL_S).wait(threading.Event()) == 0.0
    assert tracker.snapshot().paused_seconds == 0.0


def test_it_waits_while_busy_and_goes_on_when_the_foreground_is_idle() -> None:
    tracker = ProgressTracker()
    busy = CountingBusy(tracker, busy_calls=4)
    step_aside = StepAside((busy,), tracker, poll_s=POLL_S)
    waited = step_aside.wait(threading.Event())
    assert waited > 0
    assert busy.calls == 5  # busy four times, then the idle answer ends the wait
    # Before the wait the tracker was not paused; every check made during the wait saw it paused.
    assert busy.seen_paused[0] is False and all(busy.seen_paused[1:])
    snapshot = tracker.snapshot()
    assert not snapshot.paused
    assert snapshot.paused_seconds > 0


def test_it_returns_when_another_thread_says_the_answer_is_done() -> None:
    tracker = ProgressTracker()
    answering = threading.Event()
    answering.set()
    step_aside = StepAside((answering.is_set,), tracker, poll_s=POLL_S)
    thread, result = wait_on_thread(step_aside, threading.Event())
    wait_until(lambda: tracker.snapshot().paused, "the tracker shows the pause")
    time.sleep(0.1)
    assert thread.is_alive() and tracker.snapshot().paused, "it waits as long as the answer is being written"
    answering.clear()
    thread.join(DEADLINE_S)
    assert not thread.is_alive()
    assert result and result[0] >= 0.1
    snapshot = tracker.snapshot()
    assert not snapshot.paused and snapshot.paused_seconds >= 0.1


def test_cancel_ends_the_wait_at_once() -> None:
    tracker = ProgressTracker()
    cancel = threading.Event()
    step_aside = StepAside((lambda: True,), tracker, poll_s=0.05, longest_pause_s=3600.0)
    thread, result = wait_on_thread(step_aside, cancel)
    wait_until(lambda: tracker.snapshot().paused, "the tracker shows the pause")
    cancelled_at = time.monotonic()
    cancel.set()
    thread.join(DEADLINE_S)
    assert not thread.is_alive()
    assert time.monotonic() - cancelled_at < DEADLINE_S / 2  # far from the hour it would otherwise wait
    assert result and result[0] < 3600.0
    assert not tracker.snapshot().paused


def test_a_wait_never_lasts_longer_than_the_longest_pause() -> None:
    tracker = ProgressTracker()
    clock = StepClock(1.0)  # every reading is one second later
    checks = 0

    def always_busy() -> bool:
        nonlocal checks
        checks += 1
        return True

    step_aside = StepAside((always_busy,), tracker, poll_s=0.001, longest_pause_s=5.0, clock=clock)
    thread, result = wait_on_thread(step_aside, threading.Event())
    thread.join(DEADLINE_S)
    assert not thread.is_alive(), "an always-busy foreground must not stop indexing for good"
    assert result and 5.0 <= result[0] <= 7.0
    assert checks <= 7  # about one check per fake second, not polling on and on
    assert not tracker.snapshot().paused


def test_a_real_always_busy_foreground_lets_a_batch_through_after_the_longest_pause() -> None:
    tracker = ProgressTracker()
    step_aside = StepAside((lambda: True,), tracker, poll_s=0.01, longest_pause_s=0.2)
    thread, result = wait_on_thread(step_aside, threading.Event())
    thread.join(DEADLINE_S)
    assert not thread.is_alive()
    assert result and result[0] >= 0.2
    assert not tracker.snapshot().paused and tracker.snapshot().paused_seconds >= 0.2


@pytest.mark.parametrize(("answers", "waits"), [
    ((False, False, False), False),
    ((True, False, False), True),
    ((False, False, True), True),
])
def test_any_busy_check_makes_it_wait(answers: tuple[bool, ...], waits: bool) -> None:
    tracker = ProgressTracker()
    asked = [0] * len(answers)

    def check(index: int) -> Callable[[], bool]:
        def busy() -> bool:
            asked[index] += 1
            # Busy on the first two questions: one poll of waiting, then the wait ends.
            return answers[index] and asked[index] <= 2

        return busy

    step_aside = StepAside(tuple(check(index) for index in range(len(answers))), tracker, poll_s=POLL_S)
    waited = step_aside.wait(threading.Event())
    assert (waited > 0) is waits
    assert (tracker.snapshot().paused_seconds > 0) is waits
    if not waits:
        assert asked == [1] * len(answers)  # every check was asked before deciding there was nothing to wait for


def test_an_already_cancelled_run_does_not_wait_and_is_not_left_paused() -> None:
    tracker = ProgressTracker()
    cancel = threading.Event()
    cancel.set()
    step_aside = StepAside((lambda: True,), tracker, poll_s=0.05, longest_pause_s=3600.0)
    thread, _ = wait_on_thread(step_aside, cancel)
    thread.join(DEADLINE_S)
    assert not thread.is_alive()
    assert not tracker.snapshot().paused


# ---- clear_to_embed ----------------------------------------------------------------------------------------------

def test_clear_to_embed_without_a_step_aside_only_asks_about_cancel() -> None:
    cancel = threading.Event()
    assert clear_to_embed(None, cancel) is True
    cancel.set()
    assert clear_to_embed(None, cancel) is False


def test_clear_to_embed_says_go_after_the_foreground_is_done() -> None:
    tracker = ProgressTracker()
    busy = CountingBusy(tracker, busy_calls=2)
    assert clear_to_embed(StepAside((busy,), tracker, poll_s=POLL_S), threading.Event()) is True
    assert busy.calls == 3 and tracker.snapshot().paused_seconds > 0


def test_clear_to_embed_says_stop_when_cancelled_during_the_wait() -> None:
    tracker = ProgressTracker()
    cancel = threading.Event()
    step_aside = StepAside((lambda: True,), tracker, poll_s=0.01, longest_pause_s=3600.0)
    answer: list[bool] = []
    thread = threading.Thread(target=lambda: answer.append(clear_to_embed(step_aside, cancel)), daemon=True)
    thread.start()
    wait_until(lambda: tracker.snapshot().paused, "the tracker shows the pause")
    cancel.set()
    thread.join(DEADLINE_S)
    assert answer == [False]


class RecordingEmbed:
    """A stand-in for Embedder.embed_documents: one row per text (its number), calls recorded."""

    def __init__(self, after_call: Callable[[], None] = lambda: None) -> None:
        self.calls: list[list[str]] = []
        self._after_call = after_call

    def __call__(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.calls.append(list(texts))
        self._after_call()
        return np.array([[float(text)] for text in texts], dtype=np.float32)


TEXTS = [str(number) for number in range(20)]


def test_without_a_step_aside_a_batch_is_embedded_in_one_call() -> None:
    embed = RecordingEmbed()
    vectors = embed_in_steps(embed, TEXTS, None, threading.Event(), step_chunks=8)
    assert embed.calls == [TEXTS]
    assert vectors is not None and vectors[:, 0].tolist() == list(range(20))


def test_with_a_step_aside_a_batch_goes_in_pieces_asking_between_them() -> None:
    tracker = ProgressTracker()
    busy = CountingBusy(tracker, busy_calls=0)
    embed = RecordingEmbed()
    vectors = embed_in_steps(embed, TEXTS, StepAside((busy,), tracker, poll_s=POLL_S), threading.Event(), step_chunks=8)
    assert [len(call) for call in embed.calls] == [8, 8, 4]
    assert busy.calls == 2  # between the pieces (the caller asks before the first)
    assert vectors is not None and vectors[:, 0].tolist() == list(range(20))  # rows in the batch's order


def test_an_answer_starting_mid_batch_waits_for_one_piece_only() -> None:
    tracker = ProgressTracker()
    answering = threading.Event()
    embed = RecordingEmbed(after_call=answering.set)  # the answer starts while the first piece is embedded

    def busy() -> bool:
        if answering.is_set() and len(embed.calls) == 1:
            answering.clear()  # ...and ends after a while
            return True
        return False

    vectors = embed_in_steps(embed, TEXTS, StepAside((busy,), tracker, poll_s=POLL_S), threading.Event(), step_chunks=8)
    assert vectors is not None and len(embed.calls) == 3
    assert tracker.snapshot().paused_seconds > 0  # it stepped aside after the first piece


def test_a_batch_cancelled_part_way_gives_nothing() -> None:
    tracker = ProgressTracker()
    cancel = threading.Event()
    embed = RecordingEmbed(after_call=cancel.set)
    step_aside = StepAside((lambda: False,), tracker, poll_s=POLL_S)
    assert embed_in_steps(embed, TEXTS, step_aside, cancel, step_chunks=8) is None
    assert len(embed.calls) == 1


# ---- ProgressTracker: paused time ---------------------------------------------------------------------------------

def indexing_tracker(chunks: int = 100, bytes_total: int = 1000, bytes_done: int = 500) -> ProgressTracker:
    tracker = ProgressTracker()
    tracker.update(phase="indexing")
    tracker.planned(files_total=2, bytes_total=bytes_total, files_skipped=0, files_removed=0)
    tracker.file_finished(bytes_done, indexed=True)
    tracker.update_chunks(chunks)
    time.sleep(0.02)  # some time spent indexing before any pause
    return tracker


def paused_for(tracker: ProgressTracker, seconds: float) -> IndexingProgress:
    """Pause ``tracker`` for ``seconds`` and return the snapshot taken during the pause."""
    tracker.pause()
    time.sleep(seconds)
    during = tracker.snapshot()
    tracker.resume()
    return during


def test_pause_and_resume_show_in_the_snapshot() -> None:
    tracker = indexing_tracker()
    assert not tracker.snapshot().paused
    during = paused_for(tracker, 0.1)
    assert during.paused and during.paused_seconds >= 0.1  # counted while the pause goes on
    after = tracker.snapshot()
    assert not after.paused and after.paused_seconds >= during.paused_seconds
    time.sleep(0.05)
    assert tracker.snapshot().paused_seconds == after.paused_seconds  # no longer growing
    assert after.to_dict()["paused"] is False and after.to_dict()["paused_seconds"] == after.paused_seconds


def test_a_second_pause_neither_restarts_nor_doubles_the_count() -> None:
    tracker = indexing_tracker()
    tracker.pause()
    time.sleep(0.1)
    tracker.pause()  # already paused: the pause still started 0.1 s ago
    assert tracker.snapshot().paused_seconds >= 0.1
    tracker.resume()
    first = tracker.snapshot().paused_seconds
    tracker.resume()  # not paused: nothing changes
    assert tracker.snapshot().paused_seconds == first and not tracker.snapshot().paused
    tracker.pause()
    time.sleep(0.05)
    tracker.resume()
    assert tracker.snapshot().paused_seconds >= first + 0.05  # pauses add up


def test_the_rate_counts_only_time_spent_indexing() -> None:
    tracker = indexing_tracker(chunks=100)
    paused_for(tracker, 0.3)
    snapshot = tracker.snapshot()
    assert snapshot.paused_seconds >= 0.3
    wall_rate = snapshot.chunks_done / snapshot.elapsed_seconds
    # Indexing time is at most the elapsed time less the pause, so the rate is at least this:
    active_rate = snapshot.chunks_done / (snapshot.elapsed_seconds - snapshot.paused_seconds)
    assert snapshot.chunks_per_second >= active_rate * (1 - 1e-9)
    assert snapshot.chunks_per_second > wall_rate


def test_the_rate_does_not_sink_while_paused() -> None:
    tracker = indexing_tracker(chunks=100)
    tracker.pause()
    first = tracker.snapshot()
    time.sleep(0.2)
    second = tracker.snapshot()
    tracker.resume()
    assert second.elapsed_seconds > first.elapsed_seconds + 0.19
    assert second.chunks_per_second == pytest.approx(first.chunks_per_second, rel=1e-6)
    assert second.eta_seconds is not None and first.eta_seconds is not None
    assert second.eta_seconds == pytest.approx(first.eta_seconds, rel=1e-6)


def test_the_time_left_is_not_stretched_by_a_pause() -> None:
    # Half the bytes are done, so the time left equals the time spent indexing so far.
    tracker = indexing_tracker(bytes_total=1000, bytes_done=500)
    paused_for(tracker, 0.3)
    snapshot = tracker.snapshot()
    assert snapshot.eta_seconds is not None
    assert snapshot.eta_seconds <= (snapshot.elapsed_seconds - snapshot.paused_seconds) * (1 + 1e-9)
    assert snapshot.eta_seconds < snapshot.elapsed_seconds - 0.25
