"""Per-request sampler chains built from llama.cpp's own samplers (fast: no logits copied to Python)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from app.core.engines.requests import SamplingParams

PENALTY_WINDOW = 64
"""How many recent tokens the repetition penalty looks at (llama.cpp's default)."""


class SamplerChain:
    """A llama_sampler chain for one request; :meth:`free` it when the request ends (engine thread)."""

    def __init__(self, library: Any, params: SamplingParams, n_vocab: int) -> None:
        self._library = library
        self.pointer: Any = library.llama_sampler_chain_init(library.llama_sampler_chain_default_params())
        self.seed = params.seed if params.seed is not None else random.getrandbits(32)
        self.uses_penalty = params.repetition_penalty != 1.0
        # Plain greedy: the scheduler takes the argmax of the logits itself, with the other such chats.
        self.vectorised = params.greedy and not self.uses_penalty
        add = library.llama_sampler_chain_add
        if self.uses_penalty:
            add(self.pointer, library.llama_sampler_init_penalties(
                n_vocab, PENALTY_WINDOW, params.repetition_penalty, 0.0, 0.0
            ))
        if params.greedy:
            add(self.pointer, library.llama_sampler_init_greedy())
            return
        if params.top_k > 0:
            add(self.pointer, library.llama_sampler_init_top_k(params.top_k))
        if params.top_p < 1.0:
            add(self.pointer, library.llama_sampler_init_top_p(params.top_p, 1))
        if params.min_p > 0.0:
            add(self.pointer, library.llama_sampler_init_min_p(params.min_p, 1))
        add(self.pointer, library.llama_sampler_init_temp(params.temperature))
        add(self.pointer, library.llama_sampler_init_dist(self.seed & 0xFFFFFFFF))

    def accept_prompt(self, prompt_tokens: Sequence[int]) -> None:
        """Let the repetition penalty see the end of the prompt, as llama-server does."""
        if not self.uses_penalty:
            return
        accept = self._library.llama_sampler_accept
        for token in prompt_tokens[-PENALTY_WINDOW:]:
            accept(self.pointer, token)

    def free(self) -> None:
        """Free the chain and the samplers it owns (safe to call twice)."""
        if self.pointer:
            self._library.llama_sampler_free(self.pointer)
            self.pointer = None
