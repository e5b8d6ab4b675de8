"""Aggregate figures of the llama.cpp engine: recent throughput window and running totals."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

RATE_WINDOW_S = 2.0
"""Decode and prefill tokens/s are averaged over this many recent seconds."""


@dataclass
class EngineTotals:
    """Counters since load (or since the warm-up was cleared)."""

    requests_finished: int = 0
    tokens_generated: int = 0
    prompt_tokens: int = 0
    reused_prompt_tokens: int = 0
    slot_moves: int = 0  # requests moved beside the running chats (their KV copied)
    last_time_to_first_token_s: float | None = None

    @property
    def prefix_cache_hit_rate(self) -> float | None:
        return self.reused_prompt_tokens / self.prompt_tokens if self.prompt_tokens else None


class ThroughputWindow:
    """Tokens decoded and prefilled per decode step, kept for the last few seconds."""

    def __init__(self, window_s: float = RATE_WINDOW_S) -> None:
        self._window_s = window_s
        # (step start, step end, tokens decoded, prompt tokens prefilled)
        self._steps: deque[tuple[float, float, int, int]] = deque()

    def record(self, started: float, ended: float, decoded: int, prefilled: int) -> None:
        self._steps.append((started, ended, decoded, prefilled))

    def rates(self, now: float) -> tuple[float | None, float | None]:
        """(decode tokens/s, prefill tokens/s) over the window; None for a kind with no tokens."""
        horizon = now - self._window_s
        steps = self._steps
        while steps and steps[0][1] < horizon:
            steps.popleft()
        if not steps:
            return None, None
        span = max(now - max(steps[0][0], horizon), 1e-9)
        decoded = sum(step[2] for step in steps)
        prefilled = sum(step[3] for step in steps)
        return (decoded / span if decoded else None, prefilled / span if prefilled else None)

    def clear(self) -> None:
        self._steps.clear()
