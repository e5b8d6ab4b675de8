"""Time spent inside ``llama_decode`` versus around it, for the engine and the reference loops alike.

Splitting a run's wall time this way separates what the engine adds in Python (batch building,
sampling calls, detokenizing, streaming: the time *outside* decode) from how fast llama.cpp itself
ran (time *inside* decode, which a busy machine slows for every contender).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass
class DecodeTally:
    """Decode calls and seconds spent in them, plus the wall time of the timed block."""

    calls: int = 0
    decode_s: float = 0.0
    wall_s: float = 0.0

    @property
    def outside_ms_per_call(self) -> float:
        return 1000 * (self.wall_s - self.decode_s) / self.calls if self.calls else 0.0

    @property
    def inside_ms_per_call(self) -> float:
        return 1000 * self.decode_s / self.calls if self.calls else 0.0


@contextmanager
def decode_clock() -> Iterator[DecodeTally]:
    """Count every ``llama_decode`` made in the block (through either llama-cpp-python module)."""
    import llama_cpp
    import llama_cpp.llama_cpp as low_level

    tally = DecodeTally()
    real: Callable[..., Any] = low_level.llama_decode

    def timed_decode(context: Any, batch: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(context, batch)
        finally:
            tally.decode_s += time.perf_counter() - started
            tally.calls += 1

    low_level.llama_decode = timed_decode
    llama_cpp.llama_decode = timed_decode
    started = time.perf_counter()
    try:
        yield tally
    finally:
        tally.wall_s = time.perf_counter() - started
        low_level.llama_decode = real
        llama_cpp.llama_decode = real
