"""Background embedding steps aside while the user waits for an answer or a search.

Indexing and the chat model share the same cores (or the same memory bandwidth on a unified-memory
machine). Between embedding batches the indexer asks whether something in the foreground is running;
if so it waits (the batch in flight finishes first), so an answer streams at full speed and a search
does not queue behind a long run of batches. A pause lasts at most ``longest_pause_s``; then one batch
runs, so a busy local API cannot stop indexing for good.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from app.core.kb.progress import ProgressTracker

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

ForegroundBusy = Callable[[], bool]
"""True while the user waits on something that should not share the machine with indexing."""

POLL_S = 0.05
LONGEST_PAUSE_S = 60.0
STEP_CHUNKS = 8
"""A batch is embedded in pieces of this many chunks, asking between them: an answer that starts meanwhile
waits for one piece (a fraction of a second on a CPU), not for the whole batch (seconds)."""


class StepAside:
    """Asked before each embedding batch and between its pieces: waits while any of ``busy`` says the
    foreground is busy."""

    def __init__(
        self,
        busy: tuple[ForegroundBusy, ...],
        progress: ProgressTracker,
        *,
        poll_s: float = POLL_S,
        longest_pause_s: float = LONGEST_PAUSE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._busy = busy
        self._progress = progress
        self._poll_s = poll_s
        self._longest_pause_s = longest_pause_s
        self._clock = clock

    def _foreground_busy(self) -> bool:
        return any(check() for check in self._busy)

    def wait(self, cancel: threading.Event) -> float:
        """Wait while the foreground is busy (at most ``longest_pause_s``, or until ``cancel``); seconds waited."""
        if not self._busy or not self._foreground_busy():
            return 0.0
        started = self._clock()
        self._progress.pause()
        try:
            while (self._foreground_busy() and not cancel.is_set()
                   and self._clock() - started < self._longest_pause_s):
                cancel.wait(self._poll_s)
        finally:
            self._progress.resume()
        return self._clock() - started


def embed_in_steps(
    embed: Callable[[Sequence[str]], NDArray[np.float32]],
    texts: Sequence[str],
    step_aside: StepAside | None,
    cancel: threading.Event,
    step_chunks: int = STEP_CHUNKS,
) -> NDArray[np.float32] | None:
    """``embed(texts)``, in pieces of ``step_chunks`` with :func:`clear_to_embed` between them when there is a
    ``step_aside``; ``None`` when cancelled part-way (nothing of the batch is kept)."""
    if step_aside is None or len(texts) <= step_chunks:
        return embed(texts)
    import numpy as np

    pieces = []
    for start in range(0, len(texts), step_chunks):
        if start and not clear_to_embed(step_aside, cancel):
            return None
        pieces.append(embed(texts[start:start + step_chunks]))
    return np.concatenate(pieces)


def clear_to_embed(step_aside: StepAside | None, cancel: threading.Event) -> bool:
    """Step aside if there is one to ask; whether the next batch may run (not cancelled meanwhile)."""
    if step_aside is not None:
        step_aside.wait(cancel)
    return not cancel.is_set()
