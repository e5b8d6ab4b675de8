"""EngineManager.generating(): true while any answer submitted through the manager is still being written."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.engines.base import BackendName, NoModelLoadedError
from app.core.engines.manager import EngineManager
from app.core.engines.metrics import RequestMetrics
from app.core.engines.requests import ChatRequest
from app.core.engines.stream import RequestStream
from tests.core.engines.fake_engine import EngineLog, FakeEngine
from tests.core.planner.fake_hardware import cpu_only


class HeldEngine(FakeEngine):
    """A fake engine whose answers stay open until the test finishes them (a real engine decodes meanwhile)."""

    def __init__(self, log: EngineLog) -> None:
        super().__init__(log)
        self.streams: list[RequestStream] = []

    def submit(self, request: ChatRequest) -> RequestStream:
        stream = RequestStream(request.request_id)
        self.streams.append(stream)
        return stream


def manager_with(engine: FakeEngine) -> EngineManager:
    def factory(backend: BackendName) -> FakeEngine:
        return engine

    settings = Settings.defaults()
    return EngineManager(lambda: cpu_only(), lambda: settings, engine_factory=factory)


def finish(stream: RequestStream, reason: str = "stop") -> None:
    stream.finish(reason, RequestMetrics(finish_reason=reason))  # type: ignore[arg-type]


@pytest.fixture
def held(tiny_gguf: Path) -> tuple[EngineManager, HeldEngine]:
    engine = HeldEngine(EngineLog())
    manager = manager_with(engine)
    manager.load(tiny_gguf, context_length=512)
    return manager, engine


def test_nothing_loaded_or_submitted_is_not_generating(tiny_gguf: Path) -> None:
    engine = HeldEngine(EngineLog())
    manager = manager_with(engine)
    assert manager.generating() is False
    with pytest.raises(NoModelLoadedError):
        manager.submit(ChatRequest.single_prompt("hi"))
    assert manager.generating() is False  # a refused request is not an answer being written
    manager.load(tiny_gguf, context_length=512)
    assert manager.generating() is False


def test_generating_from_submit_until_the_answer_finishes(held: tuple[EngineManager, HeldEngine]) -> None:
    manager, engine = held
    stream = manager.submit(ChatRequest.single_prompt("hi"))
    assert engine.streams == [stream]
    assert manager.generating() is True
    stream.push("first words")
    assert manager.generating() is True
    finish(stream)
    assert manager.generating() is False


def test_every_open_answer_counts(held: tuple[EngineManager, HeldEngine]) -> None:
    manager, _ = held
    first = manager.submit(ChatRequest.single_prompt("one"))
    second = manager.submit(ChatRequest.single_prompt("two"))
    finish(first)
    assert manager.generating() is True  # the second is still being written
    third = manager.submit(ChatRequest.single_prompt("three"))  # submitting after a finished one keeps the rest
    finish(second)
    assert manager.generating() is True
    finish(third)
    assert manager.generating() is False


@pytest.mark.parametrize("reason", ["cancelled", "error", "length"])
def test_an_answer_that_ends_any_way_stops_counting(held: tuple[EngineManager, HeldEngine], reason: str) -> None:
    manager, _ = held
    stream = manager.submit(ChatRequest.single_prompt("hi"))
    assert manager.generating() is True
    finish(stream, reason)
    assert manager.generating() is False


def test_an_answer_finished_on_the_engine_thread_is_seen_from_another_thread(
    held: tuple[EngineManager, HeldEngine],
) -> None:
    manager, _ = held
    stream = manager.submit(ChatRequest.single_prompt("hi"))
    seen: list[bool] = []
    reader = threading.Thread(target=lambda: seen.append(manager.generating()))
    reader.start()
    reader.join(60)
    engine_thread = threading.Thread(target=lambda: finish(stream))
    engine_thread.start()
    engine_thread.join(60)
    assert seen == [True]
    assert manager.generating() is False


def test_an_engine_that_answers_at_once_leaves_nothing_generating(tiny_gguf: Path) -> None:
    manager = manager_with(FakeEngine(EngineLog()))
    manager.load(tiny_gguf, context_length=512)
    stream = manager.submit(ChatRequest.single_prompt("hi"))
    assert stream.finished and "".join(stream) == "echo: hi"
    assert manager.generating() is False


def test_unloading_ends_generating_even_if_the_engine_left_a_stream_open(
    held: tuple[EngineManager, HeldEngine],
) -> None:
    manager, engine = held
    manager.submit(ChatRequest.single_prompt("hi"))
    assert manager.generating() is True
    manager.unload()
    assert not engine.streams[0].finished  # this fake never ends it; the manager must not wait on it for ever
    assert manager.generating() is False
