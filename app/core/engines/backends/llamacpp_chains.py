"""Sampling work of several chats run at once on helper threads (idle cores): llama.cpp sampler chains,
and the greedy argmax over the logits split by rows (:meth:`ParallelChains.by_rows`).

Chats the vectorised paths cannot take (temperature alone over the whole vocabulary, a repetition
penalty) are sampled by their own llama.cpp chain, which walks the whole vocabulary: ~0.5 ms per chat
for 152k tokens. ctypes releases the GIL during the call, so chains of different chats can run on different
cores. The helpers never touch the llama.cpp context: each applies its chats' chains
(``llama_sampler_apply``) to its own candidate array filled from the step's logits matrix (already
read, so synchronised, by the engine thread), then lets the chain accept the token, which is what
``llama_sampler_sample`` does, on the same candidates, so the tokens are the same as one call per chat.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from app.core.engines.backends.llamacpp_native import default_thread_count

MAX_HELPERS = 7
"""At most this many helper threads (with the engine thread, 8 chains at once)."""
MIN_VOCAB = 16_384
"""Smaller vocabularies take a few microseconds a chain: one call per chat on the engine thread."""
MIN_BLOCK_LOGITS = 1 << 18
"""Logits in one block of a split numpy pass (~0.1 ms of memory traffic): smaller blocks would not repay
handing them to a helper."""
MAX_BLOCKS = 4
"""At most this many blocks: each costs the engine thread a hand-over under the GIL. 16 chats of a 128k
vocabulary make 4 (on the 2-core VM, with 1 helper: 0.88 of one argmax pass). The top-k pass is not split:
it is many small numpy steps per block, and 2 blocks took 1.27 of one pass there."""


def idle_cores(threads: int, offloaded: bool) -> int:
    """Cores left for helpers: the physical cores this process may use less the engine thread and,
    on the CPU, llama.cpp's threads (their spinning team would fight helpers, also on sibling
    hyper-threads); at most :data:`MAX_HELPERS`.
    """
    return max(0, min(MAX_HELPERS, default_thread_count() - 1 - (0 if offloaded else threads)))


class ParallelChains:
    """Samples chats with their llama.cpp chains, spread over ``helpers`` threads and the caller."""

    def __init__(self, library: Any, n_vocab: int, helpers: int) -> None:
        self._library = library
        self._n_vocab = n_vocab
        self.helpers = helpers if n_vocab >= MIN_VOCAB else 0
        self._pool = ThreadPoolExecutor(self.helpers, "llamacpp-sampling") if self.helpers else None
        self._buffers: list[Any] = []
        self._template: Any = None

    def pays(self, chats: int) -> bool:
        """Whether ``chats`` chains are worth spreading (there are helpers and more than one chat)."""
        return self._pool is not None and chats > 1

    def by_rows(self, count: int, work: Callable[[int, int], list[int]]) -> list[int]:
        """``work(start, end)`` over rows ``0..count`` of the step's logits in contiguous blocks, the first
        on the caller and the others on helpers (numpy releases the GIL in its passes), results in order.
        One block when there are no helpers or the rows hold too few logits to repay the hand-over.
        """
        parts = min(count, self.helpers + 1, MAX_BLOCKS, count * self._n_vocab // MIN_BLOCK_LOGITS)
        if self._pool is None or parts <= 1:
            return work(0, count)
        bounds = [count * part // parts for part in range(parts + 1)]
        futures = [self._pool.submit(work, bounds[part], bounds[part + 1]) for part in range(1, parts)]
        tokens = work(bounds[0], bounds[1])
        for future in futures:
            tokens.extend(future.result())
        return tokens

    def sample(self, matrix: Any, jobs: Sequence[tuple[int, Any]]) -> list[int]:
        """The token of each ``(row of matrix, chain pointer)`` job, in order."""
        import numpy as np

        parts = min(len(jobs), self.helpers + 1)
        if self._template is None:  # llama_token_data rows (id, logit, p) as 3 int32 columns: plain copies
            self._template = np.zeros((self._n_vocab, 3), dtype=np.int32)
            self._template[:, 0] = np.arange(self._n_vocab, dtype=np.int32)
        while len(self._buffers) < parts:
            self._buffers.append(np.empty_like(self._template))
        shares = [list(jobs[part::parts]) for part in range(parts)]
        assert self._pool is not None
        futures: list[Future[list[int]]] = [
            self._pool.submit(self._run, matrix, shares[part], self._buffers[part]) for part in range(1, parts)
        ]
        results = [self._run(matrix, shares[0], self._buffers[0]), *(future.result() for future in futures)]
        tokens = [0] * len(jobs)
        for part, share_tokens in enumerate(results):
            tokens[part::parts] = share_tokens
        return tokens

    def _run(self, matrix: Any, jobs: list[tuple[int, Any]], buffer: Any) -> list[int]:
        library = self._library
        import numpy as np

        data = buffer.ctypes.data_as(ctypes.POINTER(library.llama_token_data))
        logits = buffer.view(np.float32)[:, 1]
        tokens = []
        for row, chain in jobs:
            np.copyto(buffer, self._template)
            logits[...] = matrix[row]
            candidates = library.llama_token_data_array(data, self._n_vocab, -1, False)
            library.llama_sampler_apply(chain, ctypes.byref(candidates))
            if not 0 <= candidates.selected < candidates.size:
                raise RuntimeError(f"a llama.cpp sampler chain selected no token (row {row})")
            token = int(candidates.data[candidates.selected].id)
            library.llama_sampler_accept(chain, token)
            tokens.append(token)
        return tokens

    def close(self) -> None:
        """Stop the helper threads (waits for none: call between steps)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
