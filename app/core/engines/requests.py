"""What a caller asks an engine for: chat messages, sampling settings, an id to reuse its prompt."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Literal

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True)
class SamplingParams:
    """Per-request sampling. ``temperature == 0`` means greedy (deterministic)."""

    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    repetition_penalty: float = 1.0
    seed: int | None = None
    max_tokens: int = 512
    stop: tuple[str, ...] = ()
    # Keep generating past end-of-generation tokens (benchmarks that need a fixed length).
    ignore_eos: bool = False

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, not {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], not {self.top_p}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, not {self.max_tokens}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


GREEDY = SamplingParams(temperature=0.0, top_p=1.0, top_k=0, min_p=0.0)


def new_request_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class ChatRequest:
    """One chat turn to generate.

    ``conversation_id`` lets the engine keep the conversation's KV cache between turns and
    prefill only what is new; requests without one share nothing.
    """

    messages: tuple[ChatMessage, ...]
    sampling: SamplingParams = field(default_factory=SamplingParams)
    conversation_id: str | None = None
    request_id: str = field(default_factory=new_request_id)

    @classmethod
    def single_prompt(cls, prompt: str, sampling: SamplingParams | None = None) -> ChatRequest:
        return cls(messages=(ChatMessage("user", prompt),), sampling=sampling or SamplingParams())
