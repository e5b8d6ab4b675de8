"""State of one chat request inside the llama.cpp scheduler: prefill progress, output text, timings."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.engines.backends.llamacpp_sampling import SamplerChain
from app.core.engines.backends.llamacpp_slots import SequenceSlot
from app.core.engines.metrics import FinishReason, RequestMetrics
from app.core.engines.requests import ChatRequest
from app.core.engines.stream import RequestStream
from app.core.engines.text import StopStringFilter, Utf8StreamDecoder


@dataclass
class PendingRequest:
    """A submitted request waiting for a sequence slot (its prompt is already tokenized)."""

    request: ChatRequest
    stream: RequestStream
    prompt_tokens: list[int]
    submitted_at: float


class ActiveRequest:
    """A request that owns a slot: prefilling its prompt, then decoding one token per step."""

    __slots__ = (
        "decoder",
        "done",
        "first_token_at",
        "generated",
        "ignore_eos",
        "in_graph",
        "last_token_at",
        "max_tokens",
        "next_token",
        "prefill_position",
        "prompt",
        "request",
        "reused_tokens",
        "sampler",
        "sampler_pointer",
        "seq_id",
        "shown",
        "slot",
        "started_at",
        "stop_filter",
        "stream",
        "submitted_at",
        "unshown",
        "vectorised",
    )

    def __init__(
        self, pending: PendingRequest, slot: SequenceSlot, reused_tokens: int, sampler: SamplerChain, now: float
    ) -> None:
        self.request = pending.request
        self.stream = pending.stream
        self.prompt = pending.prompt_tokens
        self.submitted_at = pending.submitted_at
        self.started_at = now
        self.slot = slot
        self.seq_id = slot.seq_id
        self.reused_tokens = reused_tokens
        self.prefill_position = reused_tokens
        self.sampler = sampler
        self.sampler_pointer = sampler.pointer
        sampling = pending.request.sampling
        self.max_tokens = sampling.max_tokens
        self.ignore_eos = sampling.ignore_eos
        self.decoder = Utf8StreamDecoder()
        self.stop_filter = StopStringFilter(sampling.stop) if sampling.stop else None
        self.next_token = -1
        self.unshown = False  # next_token's text is not streamed yet
        self.shown = False  # some text was streamed
        self.vectorised = sampler.vectorised
        self.in_graph = False  # sampled inside llama.cpp's graph (set by the scheduler)
        self.generated = 0
        self.first_token_at: float | None = None
        self.last_token_at: float | None = None
        self.done = False

    @property
    def request_id(self) -> str:
        return self.request.request_id

    def emit(self, piece: bytes) -> bool:
        """Stream the text ``piece`` completes; True when a stop string was reached.

        The first text wakes the stream's readers at once; later text waits for the scheduler's
        next :meth:`RequestStream.wake` (a few times a second) or the finish.
        """
        text = self.decoder.decode(piece)
        if not text:
            return False
        stop_filter = self.stop_filter
        if stop_filter is not None:
            text, stopped = stop_filter.feed(text)
            if not text:
                return stopped
        else:
            stopped = False
        self.stream.push(text, wake=not self.shown)
        self.shown = True
        return stopped

    def flush_text(self) -> None:
        """Push whatever the UTF-8 decoder and the stop filter still hold (at the end)."""
        tail = self.decoder.flush()
        stop_filter = self.stop_filter
        if stop_filter is None:
            self.stream.push(tail)
            return
        visible, stopped = stop_filter.feed(tail)
        if not stopped:
            visible += stop_filter.flush()
        self.stream.push(visible)

    def metrics(self, now: float, finish_reason: FinishReason | None = None) -> RequestMetrics:
        """Figures so far (or final ones when ``finish_reason`` is given)."""
        prefilled = self.prefill_position - self.reused_tokens
        first = self.first_token_at
        last = self.last_token_at
        ttft = first - self.submitted_at if first is not None else None
        prefill_time = first - self.started_at if first is not None else None
        prefill_rate = prefilled / prefill_time if prefill_time and prefilled else None
        decode_rate = None
        if first is not None and last is not None and self.generated > 1 and last > first:
            decode_rate = (self.generated - 1) / (last - first)
        return RequestMetrics(
            prompt_tokens=len(self.prompt),
            reused_prompt_tokens=self.reused_tokens,
            prefilled_tokens=prefilled,
            generated_tokens=self.generated,
            time_to_first_token_s=ttft,
            prefill_tokens_per_s=prefill_rate,
            decode_tokens_per_s=decode_rate,
            total_time_s=now - self.submitted_at,
            finish_reason=finish_reason,
        )


def unstarted_metrics(pending: PendingRequest, now: float, finish_reason: FinishReason) -> RequestMetrics:
    """Metrics of a request that ended before it got a slot (cancelled while waiting, error)."""
    return RequestMetrics(
        prompt_tokens=len(pending.prompt_tokens),
        total_time_s=now - pending.submitted_at,
        finish_reason=finish_reason,
    )
