"""Streaming text helpers for engines: incremental UTF-8 decoding and stop-string hold-back."""

from __future__ import annotations

import codecs
from collections.abc import Iterable


class Utf8StreamDecoder:
    """Turns token pieces (bytes) into text without ever splitting a multi-byte character.

    Bytes of a character that spans several tokens are held until the character is complete;
    invalid bytes become U+FFFD. Call :meth:`flush` once at the end of the stream: a character the
    answer stopped in the middle of (the token limit cut it) is dropped, not shown as U+FFFD.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def decode(self, piece: bytes) -> str:
        """Text completed by ``piece`` (may be empty while a character is still incomplete)."""
        return self._decoder.decode(piece)

    def flush(self) -> str:
        """Nothing but what the stream can still complete: the held bytes of an unfinished character are dropped."""
        self._decoder.reset()
        return ""


class StopStringFilter:
    """Cuts a text stream at the first stop string, never emitting the stop string itself.

    Text that might be the beginning of a stop string is held back until the next piece
    shows whether it is one. ``feed`` returns the text that is safe to show and whether a
    stop string was found; after a stop, everything else is discarded.
    """

    def __init__(self, stop_strings: Iterable[str]) -> None:
        self._stop_strings = tuple(dict.fromkeys(stop for stop in stop_strings if stop))
        self._held = ""
        self.stopped = False

    @property
    def active(self) -> bool:
        """Whether there is any stop string to look for."""
        return bool(self._stop_strings)

    def feed(self, text: str) -> tuple[str, bool]:
        """Add ``text``; return (text safe to emit now, whether a stop string was reached)."""
        if self.stopped:
            return "", True
        if not self._stop_strings:
            return text, False
        buffer = self._held + text
        first_stop = self._first_stop_index(buffer)
        if first_stop is not None:
            self._held = ""
            self.stopped = True
            return buffer[:first_stop], True
        keep = self._partial_stop_length(buffer)
        self._held = buffer[len(buffer) - keep :] if keep else ""
        return buffer[: len(buffer) - keep], False

    def flush(self) -> str:
        """Text still held back at the end of the stream (empty after a stop)."""
        held, self._held = self._held, ""
        return "" if self.stopped else held

    def _first_stop_index(self, buffer: str) -> int | None:
        positions = [index for stop in self._stop_strings if (index := buffer.find(stop)) >= 0]
        return min(positions) if positions else None

    def _partial_stop_length(self, buffer: str) -> int:
        """Length of the longest end of ``buffer`` that is the start of some stop string."""
        longest = 0
        for stop in self._stop_strings:
            for length in range(min(len(stop) - 1, len(buffer)), longest, -1):
                if buffer.endswith(stop[:length]):
                    longest = length
                    break
        return longest
