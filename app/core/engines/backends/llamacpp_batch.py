"""The decode batch and the logits of a step as numpy arrays over memory llama.cpp reads and writes.

Filling a ``llama_batch`` one field of one token at a time through ctypes costs about a microsecond
per write, and sampling each chat with its own ``llama_sampler_sample`` call about as much again plus
a pass over the vocabulary in C: on a GPU, where a step of 16 chats takes ~2 ms, that was ~10% of the
step. Here the batch's arrays are numpy arrays the engine allocated once (llama.cpp sees them through
the batch's pointers), so a step writes each field with one slice assignment, and greedy chats are
sampled together with one ``argmax`` over the rows of llama.cpp's logits buffer.

numpy is imported only when a batch is made: by then the engine has loaded llama.cpp's libraries,
which must come first (see ``llamacpp_native.preload_library``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any


class NativeBatch:
    """A ``llama_batch`` of up to ``capacity`` tokens, one sequence each, backed by numpy arrays.

    ``tokens``, ``positions``, ``seq_ids`` and ``wants_logits`` are the arrays llama.cpp reads;
    write them, set :attr:`size`, then pass :attr:`struct` to ``llama_decode``.
    """

    def __init__(self, library: Any, capacity: int) -> None:
        import numpy as np

        self.capacity = capacity
        self.tokens = np.zeros(capacity, dtype=np.int32)
        self.positions = np.zeros(capacity, dtype=np.int32)
        self.seq_ids = np.zeros(capacity, dtype=np.int32)
        self.wants_logits = np.zeros(capacity, dtype=np.int8)
        self._seq_counts = np.ones(capacity, dtype=np.int32)
        int32_pointer = ctypes.POINTER(ctypes.c_int32)
        base = self.seq_ids.ctypes.data
        self._seq_rows = (int32_pointer * capacity)(
            *(ctypes.cast(base + 4 * index, int32_pointer) for index in range(capacity))
        )
        struct = library.llama_batch()
        struct.n_tokens = 0
        struct.token = self.tokens.ctypes.data_as(int32_pointer)
        struct.embd = ctypes.POINTER(ctypes.c_float)()
        struct.pos = self.positions.ctypes.data_as(int32_pointer)
        struct.n_seq_id = self._seq_counts.ctypes.data_as(int32_pointer)
        struct.seq_id = ctypes.cast(self._seq_rows, ctypes.POINTER(int32_pointer))
        struct.logits = self.wants_logits.ctypes.data_as(ctypes.POINTER(ctypes.c_int8))
        self.struct = struct

    @property
    def size(self) -> int:
        return int(self.struct.n_tokens)

    @size.setter
    def size(self, count: int) -> None:
        self.struct.n_tokens = count

    def put(self, start: int, tokens: Sequence[int], first_position: int, seq_id: int, logits_last: bool) -> int:
        """Write a run of one sequence's tokens at ``start`` (positions counting up); returns the end."""
        end = start + len(tokens)
        self.tokens[start:end] = tokens
        self.positions[start:end] = range(first_position, first_position + len(tokens))
        self.seq_ids[start:end] = seq_id
        self.wants_logits[start:end] = 0
        if logits_last and end > start:
            self.wants_logits[end - 1] = 1
        return end


class LogitRows:
    """llama.cpp's logits of the last decode (one row per token that asked for logits, in batch order),
    seen as a numpy array without copying."""

    def __init__(self, library: Any, context: Any, n_vocab: int) -> None:
        self._library = library
        self._context = context
        self._n_vocab = n_vocab
        self._view: Any = None
        self._view_key: tuple[int, int] = (0, 0)

    def matrix(self, rows: int) -> Any:
        """The first ``rows`` rows (waits for the decode to finish, as every read of logits does)."""
        import numpy as np

        pointer = self._library.llama_get_logits(self._context)
        address = ctypes.cast(pointer, ctypes.c_void_p).value or 0
        if address == 0:
            raise RuntimeError("llama.cpp returned no logits for the last decode")
        if self._view_key != (address, rows):  # the buffer moves only when llama.cpp grows it
            buffer = (ctypes.c_float * (rows * self._n_vocab)).from_address(address)
            self._view = np.ctypeslib.as_array(buffer).reshape(rows, self._n_vocab)
            self._view_key = (address, rows)
        return self._view


def greedy_tokens(logits: Any) -> list[int]:
    """The most likely token of each row of ``logits``; ties go to the lowest token id, as llama.cpp's
    greedy sampler does."""
    result: list[int] = logits.argmax(axis=1).tolist()
    return result
