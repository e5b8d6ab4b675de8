"""AnswerJob: partial text saved on a steady cadence while it streams, readers see every piece once."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat.prompt import assemble_prompt
from app.core.chat.records import Passage
from app.core.engines.metrics import RequestMetrics
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream
from app.core.services.answer_job import AnswerJob
from app.core.services.answering import PreparedAnswer, Retrieval
from tests.integration.answering_support import greedy, load_manager

PASSAGE = Passage("Bees dance.", "/docs/bees.pdf", 3, "Dance", 1)


class SteadyManager:
    """Stands in for EngineManager.submit: a feeder thread pushes a piece every ``step_s``."""

    def __init__(self, pieces: list[str], step_s: float) -> None:
        self.pieces = pieces
        self.step_s = step_s

    def submit(self, request: ChatRequest) -> RequestStream:
        stream = RequestStream(request.request_id)

        def feed() -> None:
            for piece in self.pieces:
                if stream.cancel_requested:
                    stream.finish("cancelled", RequestMetrics(generated_tokens=len(stream.text)))
                    return
                stream.push(piece)
                time.sleep(self.step_s)
            stream.finish("stop", RequestMetrics(generated_tokens=len(self.pieces)))

        threading.Thread(target=feed, daemon=True).start()
        return stream


def prepared() -> PreparedAnswer:
    assembled = assemble_prompt(system_prompt="s", history=(), question="q", passages=(PASSAGE,),
                                context_length=256, reserve_for_answer=32, count_tokens=lambda text: len(text.split()))
    request = ChatRequest((ChatMessage("user", "q"),), greedy(32))
    return PreparedAnswer(request, assembled, Retrieval((PASSAGE,), 0.01), "fake", {})


def test_partial_text_is_saved_every_interval_while_streaming() -> None:
    pieces = [f"w{index} " for index in range(75)] + ["[1]"]
    saves: list[tuple[float, str]] = []
    finished: list[str] = []
    job = AnswerJob(
        SteadyManager(pieces, 0.02), prepared, save_interval_s=0.2,  # type: ignore[arg-type]
        save_partial=lambda text: saves.append((time.monotonic(), text)),
        save_result=lambda r: finished.append(r.text),
    ).start()
    result = job.wait(30)
    assert result.text == "".join(pieces) and finished == [result.text]
    assert len(saves) >= 4, saves
    texts = [text for _, text in saves]
    assert all(later.startswith(earlier) and later != earlier for earlier, later in itertools.pairwise(texts))
    gaps = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(saves)]
    assert max(gaps) < 1.0, gaps  # every 0.2 s, with slack for a busy machine
    assert texts[-1] == result.text  # saved on the way out as well
    assert [citation.cited for citation in result.citations] == [True]


def test_prefix_is_kept_but_not_drained_and_cancel_stops() -> None:
    job = AnswerJob(SteadyManager(["a"] * 500, 0.01), prepared, prefix="Earlier text. ")  # type: ignore[arg-type]
    job.start()
    deadline = time.monotonic() + 10
    drained = ""
    while len(drained) < 5 and time.monotonic() < deadline:
        drained += job.drain()
        time.sleep(0.01)
    job.cancel()
    result = job.wait(10)
    drained += job.drain()
    assert result.finish_reason == "cancelled"
    assert result.text == "Earlier text. " + drained and 5 <= len(drained) < 500


@pytest.fixture
def tiny_manager(tiny_gguf: Path) -> Iterator[object]:
    manager = load_manager(tiny_gguf, 1024, parallel_chats=1)
    yield manager
    manager.unload()


def test_with_the_real_engine_iteration_yields_the_whole_answer(tiny_manager: object) -> None:
    def real_prepared() -> PreparedAnswer:
        base = prepared()
        return PreparedAnswer(ChatRequest((ChatMessage("user", "hello"),), greedy(300, ignore_eos=True)),
                              base.assembled, base.retrieval, "tiny", {})

    saves: list[str] = []
    job = AnswerJob(tiny_manager, real_prepared, save_interval_s=0.05,  # type: ignore[arg-type]
                    save_partial=saves.append).start()
    pieces = list(job)
    result = job.wait(30)
    assert "".join(pieces) == result.text and result.metrics.generated_tokens == 300
    assert saves and saves[-1] == result.text
    assert result.timings["time_to_first_token_s"] is not None and result.timings["retrieval_s"] == 0.01
