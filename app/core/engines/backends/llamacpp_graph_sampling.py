"""Sampling inside llama.cpp's graph ([EXPERIMENTAL] backend sampling), for models that run on a GPU.

Used when the plan asks (``LlamaCppPlan.graph_sampling``); on by default for GPU layers once the engine's
use is measured on a GPU (``planner.engine_plan.LLAMACPP_GRAPH_SAMPLING_ON_GPU``).

With a sampler chain attached to a sequence (``llama_set_sampler``), llama.cpp picks that sequence's next
token where the logits are and copies out only the token; when every chat of a step is sampled so, the
logits are not copied at all. With a real vocabulary (128k-262k tokens) that saves the copy and the host's
pass over each chat's logits every step: on an H200 (1B shape, Llama-3's 128,256 tokens, greedy, minimal
loop) 1.17x the tokens/s at 1 chat and 2.22x at 16 (``tests/benchmarks/bench_backend_sampling.py``).

Greedy chats and the top-k / top-p / min-p / temperature chains are attached; a repetition penalty stays
on the host. Attaching makes llama.cpp reserve its graphs again at the next decode, so a chain stays with its
slot after the request ends and the next request with the same sampling reuses it (a seeded one from its seed).
"""

from __future__ import annotations

from typing import Any

from app.core.engines.backends.llamacpp_sampling import add_choice
from app.core.engines.requests import SamplingParams

RANDOM_SEED = 0xFFFFFFFF
"""llama.cpp's LLAMA_DEFAULT_SEED: a new random seed."""

ChainKey = tuple[bool, int, float, float, float, int | None]


def chain_key(params: SamplingParams) -> ChainKey:
    """What makes two requests' chains interchangeable (the seed only when one was asked for)."""
    if params.greedy:
        return (True, 0, 1.0, 0.0, 0.0, None)
    return (False, params.top_k, params.top_p, params.min_p, params.temperature, params.seed)


def runs_in_graph(params: SamplingParams) -> bool:
    """Whether llama.cpp can sample ``params`` inside the graph (a repetition penalty needs the host)."""
    return params.repetition_penalty == 1.0


class GraphSamplers:
    """The chain attached to each sequence slot; engine thread only. :meth:`close` before the context is freed."""

    def __init__(self, library: Any, context: Any) -> None:
        self._library = library
        self._context = context
        self._chains: dict[int, tuple[ChainKey, Any]] = {}
        self.attachments = 0
        """How many times a chain was attached (each costs llama.cpp a graph reservation)."""

    def attach(self, seq_id: int, params: SamplingParams) -> bool:
        """Make ``seq_id`` sample as ``params`` says inside the graph; False when it must be sampled on the
        host (then nothing is attached to it).
        """
        if not runs_in_graph(params):
            self.detach(seq_id)
            return False
        key = chain_key(params)
        current = self._chains.get(seq_id)
        library = self._library
        if current is not None and current[0] == key:
            if params.seed is not None:
                library.llama_sampler_reset(current[1])  # a seeded chain starts again from its seed
            return True
        chain = self._build(params)
        if not library.llama_set_sampler(self._context, seq_id, chain):
            library.llama_sampler_free(chain)
            self.detach(seq_id)
            return False
        if current is not None:
            library.llama_sampler_free(current[1])  # replaced above: llama.cpp no longer holds it
        self._chains[seq_id] = (key, chain)
        self.attachments += 1
        return True

    def _build(self, params: SamplingParams) -> Any:
        library = self._library
        chain = library.llama_sampler_chain_init(library.llama_sampler_chain_default_params())
        add_choice(library, chain, params, RANDOM_SEED if params.seed is None else params.seed)
        return chain

    def detach(self, seq_id: int) -> None:
        """Sample ``seq_id`` on the host again."""
        current = self._chains.pop(seq_id, None)
        if current is None:
            return
        self._library.llama_set_sampler(self._context, seq_id, None)
        self._library.llama_sampler_free(current[1])

    def token(self, batch_index: int) -> int:
        """The token the graph picked for the output at ``batch_index`` of the last decode."""
        return int(self._library.llama_get_sampled_token_ith(self._context, batch_index))

    def close(self) -> None:
        """Detach and free every chain (before the context is freed)."""
        for seq_id in list(self._chains):
            self.detach(seq_id)
