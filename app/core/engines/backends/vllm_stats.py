"""vLLM's own statistics, read in-process: a stat logger feeding a thread-safe collector of gauge figures."""

from __future__ import annotations

import importlib
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

RATE_WINDOW_S = 5.0


@dataclass(frozen=True)
class VllmStatsSnapshot:
    """What vLLM last reported: KV use, queue lengths, cache and speculation counters, recent speeds."""

    kv_cache_usage: float = 0.0
    running_requests: int = 0
    waiting_requests: int = 0
    prefix_cache_queries: int = 0
    prefix_cache_hits: int = 0
    last_time_to_first_token_s: float | None = None
    decode_tokens_per_s: float | None = None
    prefill_tokens_per_s: float | None = None
    tokens_generated: int = 0
    requests_finished: int = 0
    draft_tokens: int = 0
    accepted_tokens: int = 0

    @property
    def prefix_cache_hit_rate(self) -> float | None:
        """Share of looked-up prompt tokens found in the prefix cache since load (None before any lookup)."""
        return self.prefix_cache_hits / self.prefix_cache_queries if self.prefix_cache_queries else None

    @property
    def speculative_acceptance_rate(self) -> float | None:
        """Share of drafted tokens the model accepted (None without speculative decoding)."""
        return self.accepted_tokens / self.draft_tokens if self.draft_tokens else None


class VllmStatsCollector:
    """Accumulates SchedulerStats and IterationStats; read from any thread with :meth:`snapshot`.

    Speeds are tokens per second over the last ``RATE_WINDOW_S`` seconds of iterations.
    """

    def __init__(self, clock: Any = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._state = VllmStatsSnapshot()
        self._recent: deque[tuple[float, int, int]] = deque()  # (time, generated tokens, prompt tokens)

    def record(self, scheduler_stats: Any | None, iteration_stats: Any | None) -> None:
        """Take one step's statistics (duck-typed: vLLM's classes change between versions)."""
        now = self._clock()
        with self._lock:
            state = self._state
            updates: dict[str, Any] = {}
            if scheduler_stats is not None:
                updates.update(
                    kv_cache_usage=float(getattr(scheduler_stats, "kv_cache_usage", 0.0)),
                    running_requests=int(getattr(scheduler_stats, "num_running_reqs", 0)),
                    waiting_requests=int(getattr(scheduler_stats, "num_waiting_reqs", 0)),
                )
                prefix = getattr(scheduler_stats, "prefix_cache_stats", None)
                if prefix is not None:
                    updates.update(
                        prefix_cache_queries=state.prefix_cache_queries + int(getattr(prefix, "queries", 0)),
                        prefix_cache_hits=state.prefix_cache_hits + int(getattr(prefix, "hits", 0)),
                    )
                speculation = getattr(scheduler_stats, "spec_decoding_stats", None)
                if speculation is not None:
                    updates.update(
                        draft_tokens=state.draft_tokens + int(getattr(speculation, "num_draft_tokens", 0)),
                        accepted_tokens=state.accepted_tokens + int(getattr(speculation, "num_accepted_tokens", 0)),
                    )
            if iteration_stats is not None:
                generated = int(getattr(iteration_stats, "num_generation_tokens", 0))
                prompt = int(getattr(iteration_stats, "num_prompt_tokens", 0))
                first_tokens = list(getattr(iteration_stats, "time_to_first_tokens_iter", ()) or ())
                finished = len(getattr(iteration_stats, "finished_requests", ()) or ())
                self._recent.append((now, generated, prompt))
                updates.update(
                    tokens_generated=state.tokens_generated + generated,
                    requests_finished=state.requests_finished + finished,
                )
                if first_tokens:
                    updates["last_time_to_first_token_s"] = float(first_tokens[-1])
            self._state = _replace(state, updates)

    def snapshot(self) -> VllmStatsSnapshot:
        """The figures so far, with speeds over the recent window (None when idle)."""
        now = self._clock()
        with self._lock:
            while self._recent and now - self._recent[0][0] > RATE_WINDOW_S:
                self._recent.popleft()
            state = self._state
            if len(self._recent) < 2:
                return _replace(state, {"decode_tokens_per_s": None, "prefill_tokens_per_s": None})
            span = self._recent[-1][0] - self._recent[0][0]
            # tokens of the first entry were produced before the window's start
            generated = sum(entry[1] for entry in list(self._recent)[1:])
            prompt = sum(entry[2] for entry in list(self._recent)[1:])
        return _replace(
            state,
            {
                "decode_tokens_per_s": generated / span if span > 0 and generated else None,
                "prefill_tokens_per_s": prompt / span if span > 0 and prompt else None,
            },
        )


def _replace(state: VllmStatsSnapshot, updates: dict[str, Any]) -> VllmStatsSnapshot:
    return replace(state, **updates) if updates else state


def make_stat_logger_factory(collector: VllmStatsCollector) -> Any:
    """A per-engine stat-logger factory (``(vllm_config, engine_index) -> StatLoggerBase``) feeding ``collector``."""
    loggers = importlib.import_module("vllm.v1.metrics.loggers")

    class CollectorStatLogger(loggers.StatLoggerBase):  # type: ignore[misc, name-defined]
        """Hands every step's statistics to the collector; logs nothing."""

        def __init__(self, vllm_config: Any, engine_index: int = 0) -> None:
            self.engine_index = engine_index

        def record(
            self,
            scheduler_stats: Any | None,
            iteration_stats: Any | None,
            mm_cache_stats: Any | None = None,
            engine_idx: int = 0,
        ) -> None:
            collector.record(scheduler_stats, iteration_stats)

        def log_engine_initialized(self) -> None:
            return None

    def factory(vllm_config: Any, engine_index: int = 0) -> Any:
        return CollectorStatLogger(vllm_config, engine_index)

    return factory
