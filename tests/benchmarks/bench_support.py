"""Shared pieces of the engine benchmarks: figures with medians, prompts of exact length, timed chats."""

from __future__ import annotations

import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.core.engines.metrics import RequestMetrics
from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams

Consumer = Literal["frame", "token"]
"""How the benchmark reads streams: ``frame`` drains every stream once per GUI frame (the app's
way, docs/ARCHITECTURE.md); ``token`` iterates each stream on its own thread, waking per token (a CLI or
the HTTP server)."""
FRAME_INTERVAL_S = 1 / 60

WORDS = (
    "the of and to in is you that it he was for on are as with his they at be this have from or one had by"
    " word but not what all were we when your can said there use an each which she do how their if will up"
    " other about out many then them these so some her would make like him into time has look two more write"
    " go see number no way could people my than first water been call who oil its now find long down day did"
    " get come made may part hello world model memory speed token chat answer question file document page"
).split()


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def figure(values: Sequence[float], digits: int = 4) -> dict[str, Any]:
    """A measured quantity: its median and every run, rounded for reading."""
    return {"median": round(median(values), digits), "runs": [round(v, digits) for v in values]}


def verdict(ratio: float, target: float, higher_is_better: bool) -> dict[str, Any]:
    """The ratio against its target, e.g. ``{"ratio": 0.98, "target": ">= 0.97", "passed": true}``."""
    passed = ratio >= target if higher_is_better else ratio <= target
    return {"ratio": round(ratio, 4), "target": f"{'>=' if higher_is_better else '<='} {target}", "passed": passed}


def greedy(max_tokens: int) -> SamplingParams:
    """Deterministic sampling that always produces exactly ``max_tokens`` tokens."""
    return SamplingParams(temperature=0.0, ignore_eos=True, max_tokens=max_tokens)


class PromptMaker:
    """Builds chats whose rendered prompt is a chosen number of tokens, with distinct text per seed."""

    def __init__(
        self,
        render: Callable[[tuple[ChatMessage, ...]], str],
        tokenize: Callable[[str], list[int]],
    ) -> None:
        self._render = render
        self._tokenize = tokenize

    def prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> list[int]:
        return self._tokenize(self._render(messages))

    def text(self, seed: int, word_count: int) -> str:
        chooser = random.Random(seed)
        return " ".join(chooser.choice(WORDS) for _ in range(word_count))

    def user_chat(
        self, seed: int, prompt_tokens: int, prefix: tuple[ChatMessage, ...] = ()
    ) -> tuple[ChatMessage, ...]:
        """``prefix`` plus one user message sized so the rendered prompt has ``prompt_tokens`` tokens
        (or the nearest count the tokenizer allows just below it).
        """
        words = max(1, prompt_tokens - len(self.prompt_tokens((*prefix, ChatMessage("user", "x")))))
        best: tuple[ChatMessage, ...] | None = None
        for _ in range(12):
            messages = (*prefix, ChatMessage("user", self.text(seed, words)))
            count = len(self.prompt_tokens(messages))
            if count == prompt_tokens:
                return messages
            if count < prompt_tokens:
                best = messages
            words = max(1, words + (prompt_tokens - count))
        return best if best is not None else messages


@dataclass(frozen=True)
class ObservedChat:
    """One request as the caller saw it (perf_counter times) plus the engine's own metrics.

    With the ``token`` consumer, decode runs from the first streamed text to the end of the
    stream as observed. The ``frame`` consumer only looks every frame, so its decode span comes
    from the engine's metrics (first token at submit + TTFT, then ``generated - 1`` tokens at
    the request's decode rate); the token consumer's ``..._own_metric`` figures check that
    those metrics agree with what a caller observes.
    """

    submitted_at: float
    first_text_at: float | None
    finished_at: float
    chunks: int
    text: str
    metrics: RequestMetrics
    consumer: Consumer = "token"

    @property
    def generated_tokens(self) -> int:
        return self.metrics.generated_tokens

    @property
    def observed_ttft_s(self) -> float | None:
        return None if self.first_text_at is None else self.first_text_at - self.submitted_at

    @property
    def decode_start(self) -> float:
        """When the first token was out."""
        if self.consumer == "token" and self.first_text_at is not None:
            return self.first_text_at
        return self.submitted_at + (self.metrics.time_to_first_token_s or 0.0)

    @property
    def decode_end(self) -> float:
        """When the last token was out."""
        rate = self.metrics.decode_tokens_per_s
        if self.consumer == "frame" and rate:
            return self.decode_start + (self.generated_tokens - 1) / rate
        return self.finished_at

    @property
    def observed_decode_tokens_per_s(self) -> float:
        elapsed = self.decode_end - self.decode_start
        return (self.generated_tokens - 1) / elapsed if elapsed > 0 else 0.0


class _Reader(threading.Thread):
    """Iterates one stream (as a CLI would), noting when text first appears and when it ends."""

    def __init__(self, stream: Any, submitted_at: float) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._submitted_at = submitted_at
        self.result: ObservedChat | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        first: float | None = None
        chunks = 0
        try:
            for _piece in self._stream:
                if first is None:
                    first = time.perf_counter()
                chunks += 1
        except BaseException as error:  # reported by run_chats on the caller's thread
            self.error = error
            return
        finished = time.perf_counter()
        self.result = ObservedChat(
            self._submitted_at, first, finished, chunks, self._stream.text, self._stream.metrics
        )


def _run_token_consumer(engine: Any, requests: Sequence[ChatRequest], timeout_s: float) -> list[ObservedChat]:
    readers = []
    for request in requests:
        submitted_at = time.perf_counter()
        stream = engine.submit(request)
        reader = _Reader(stream, submitted_at)
        reader.start()
        readers.append(reader)
    results = []
    for reader in readers:
        reader.join(timeout_s)
        if reader.is_alive():
            raise TimeoutError(f"a benchmark request did not finish within {timeout_s} s")
        if reader.error is not None:
            raise reader.error
        assert reader.result is not None
        results.append(reader.result)
    return results


def _run_frame_consumer(engine: Any, requests: Sequence[ChatRequest], timeout_s: float) -> list[ObservedChat]:
    submitted = []
    for request in requests:
        submitted_at = time.perf_counter()
        submitted.append((submitted_at, engine.submit(request)))
    count = len(submitted)
    first_text: list[float | None] = [None] * count
    finished: list[float | None] = [None] * count
    chunks = [0] * count
    deadline = time.perf_counter() + timeout_s
    while any(moment is None for moment in finished):
        now = time.perf_counter()
        if now > deadline:
            raise TimeoutError(f"a benchmark request did not finish within {timeout_s} s")
        for index, (_submitted_at, stream) in enumerate(submitted):
            was_finished = stream.finished
            if stream.drain():
                chunks[index] += 1
                if first_text[index] is None:
                    first_text[index] = now
            if was_finished and finished[index] is None:
                finished[index] = now
        time.sleep(FRAME_INTERVAL_S)
    results = []
    for index, (submitted_at, stream) in enumerate(submitted):
        if stream.error is not None:
            raise stream.error
        end = finished[index]
        assert end is not None
        results.append(
            ObservedChat(submitted_at, first_text[index], end, chunks[index], stream.text, stream.metrics, "frame")
        )
    return results


def run_chats(
    engine: Any, requests: Sequence[ChatRequest], timeout_s: float = 600.0, consumer: Consumer = "token"
) -> list[ObservedChat]:
    """Submit all requests back to back and read them the ``consumer`` way until all finish."""
    if consumer == "frame":
        return _run_frame_consumer(engine, requests, timeout_s)
    return _run_token_consumer(engine, requests, timeout_s)


def check_lengths(chats: Sequence[ObservedChat], new_tokens: int) -> None:
    """Every benchmark request must produce exactly ``new_tokens`` (greedy, ignore_eos)."""
    counts = [chat.generated_tokens for chat in chats]
    if any(count != new_tokens for count in counts):
        raise RuntimeError(f"expected {new_tokens} generated tokens per request, the engine reported {counts}")


def aggregate_decode_tokens_per_s(chats: Sequence[ObservedChat]) -> float:
    """Steady-state decode throughput of chats run together: all chats' decoded tokens (each
    one's first token came from prefill) over the span from the moment *every* chat has its
    first token (all prompts prefilled) to the last token. Chats admitted a step or two apart
    (submitted back to back) make it count those few early tokens too: under 1% here.
    """
    start = max(chat.decode_start for chat in chats)
    end = max(chat.decode_end for chat in chats)
    decoded = sum(chat.generated_tokens - 1 for chat in chats)
    return decoded / (end - start) if end > start else 0.0


def aggregate_including_staggered_prefill(chats: Sequence[ObservedChat]) -> float:
    """Like :func:`aggregate_decode_tokens_per_s` but from the *earliest* first token, so the
    prefill of chats admitted later (which stalls the chats already decoding) counts against it.
    """
    start = min(chat.decode_start for chat in chats)
    end = max(chat.decode_end for chat in chats)
    decoded = sum(chat.generated_tokens - 1 for chat in chats)
    return decoded / (end - start) if end > start else 0.0


def sum_of_request_rates(chats: Sequence[ObservedChat]) -> float:
    """Sum of the engine's own per-request decode tokens/s (a cross-check of the aggregate)."""
    return sum(chat.metrics.decode_tokens_per_s or 0.0 for chat in chats)


def wait_for_idle_machine(minutes: float, log: Callable[[str], None], threshold: float = 1.0) -> float:
    """Sleep until the 1-minute load average is below ``threshold`` or ``minutes`` pass; seconds waited.

    Benchmarks on a shared 2-core machine: threads of llama.cpp and torch collapse when oversubscribed.
    """
    started = time.monotonic()
    while minutes > 0 and hasattr(os, "getloadavg") and os.getloadavg()[0] >= threshold:
        if time.monotonic() - started > minutes * 60:
            log(f"the machine is still busy (load {os.getloadavg()[0]:.2f}); measuring anyway")
            break
        time.sleep(10)
    return time.monotonic() - started
