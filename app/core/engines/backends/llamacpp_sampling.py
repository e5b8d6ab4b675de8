"""Per-request samplers: llama.cpp's own sampler chains, or the engine's vectorised paths.

Plain greedy chats are sampled by the scheduler with one argmax over the step's logits, top-k or
top-p chats (the app's default sampling and the HTTP API's) with numpy over the same matrix
(``llamacpp_topk``); everything else (temperature alone over the whole vocabulary, a repetition
penalty) by a llama.cpp sampler chain, one call per chat (``llamacpp_chains`` spreads them over idle cores).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from app.core.engines.backends.llamacpp_topk import TopKSampling
from app.core.engines.requests import SamplingParams

PENALTY_WINDOW = 64
"""How many recent tokens the repetition penalty looks at (llama.cpp's default)."""


def add_choice(library: Any, chain: Any, params: SamplingParams, seed: int) -> None:
    """Append to a llama.cpp sampler ``chain`` the samplers that pick the token as ``params`` says: greedy, or
    top-k, top-p, min-p (those asked for), temperature and a draw from ``seed`` (llama-server's order).
    """
    add = library.llama_sampler_chain_add
    if params.greedy:
        add(chain, library.llama_sampler_init_greedy())
        return
    if params.top_k > 0:
        add(chain, library.llama_sampler_init_top_k(params.top_k))
    if params.top_p < 1.0:
        add(chain, library.llama_sampler_init_top_p(params.top_p, 1))
    if params.min_p > 0.0:
        add(chain, library.llama_sampler_init_min_p(params.min_p, 1))
    add(chain, library.llama_sampler_init_temp(params.temperature))
    add(chain, library.llama_sampler_init_dist(seed & 0xFFFFFFFF))


class SamplerChain:
    """How one request is sampled; :meth:`free` it when the request ends (engine thread).

    ``vectorised`` (plain greedy) and ``top_k`` (top-k or top-p, drawn with :meth:`draw`) chats are
    sampled by the scheduler together with the other such chats, and have no llama.cpp chain
    (``pointer`` is None); the others have one.
    """

    def __init__(self, library: Any, params: SamplingParams, n_vocab: int) -> None:
        self._library = library
        self.pointer: Any = None
        self.seed = params.seed if params.seed is not None else random.getrandbits(32)
        self.uses_penalty = params.repetition_penalty != 1.0
        self.vectorised = params.greedy and not self.uses_penalty
        self.top_k = TopKSampling.of(params)
        self._generator: Any = None
        if self.vectorised:
            return
        if self.top_k is not None:
            import numpy as np

            self._generator = np.random.default_rng(self.seed)
            return
        self.pointer = library.llama_sampler_chain_init(library.llama_sampler_chain_default_params())
        add = library.llama_sampler_chain_add
        if self.uses_penalty:
            add(self.pointer, library.llama_sampler_init_penalties(
                n_vocab, PENALTY_WINDOW, params.repetition_penalty, 0.0, 0.0
            ))
        add_choice(library, self.pointer, params, self.seed)

    def draw(self) -> float:
        """The next uniform number in [0, 1) of a top-k chat's own seeded generator."""
        value: float = self._generator.random()
        return value

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
