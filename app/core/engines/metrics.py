"""Plain snapshots of how fast an engine runs and how full its KV cache is."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

FinishReason = Literal["stop", "length", "cancelled", "error"]


@dataclass(frozen=True)
class RequestMetrics:
    """Figures for one finished (or running) request.

    ``reused_prompt_tokens`` were already in the KV cache (prompt reuse); only
    ``prefilled_tokens`` were computed for this turn.
    """

    prompt_tokens: int = 0
    reused_prompt_tokens: int = 0
    prefilled_tokens: int = 0
    generated_tokens: int = 0
    time_to_first_token_s: float | None = None
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    total_time_s: float = 0.0
    finish_reason: FinishReason | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EngineMetrics:
    """A snapshot for the gauges (pulled a few times a second)."""

    backend: str
    model_name: str
    running_requests: int = 0
    waiting_requests: int = 0
    kv_cells_used: int = 0
    kv_cells_capacity: int = 0
    prefix_cache_hit_rate: float | None = None
    decode_tokens_per_s: float | None = None
    prefill_tokens_per_s: float | None = None
    last_time_to_first_token_s: float | None = None
    requests_finished: int = 0
    tokens_generated: int = 0
    speculative_acceptance_rate: float | None = None
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def kv_usage(self) -> float:
        return self.kv_cells_used / self.kv_cells_capacity if self.kv_cells_capacity else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kv_usage"] = self.kv_usage
        return data
