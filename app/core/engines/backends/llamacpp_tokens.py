"""Tokenizing text and turning tokens back into bytes with a loaded llama.cpp vocabulary."""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from app.core.engines.base import NoModelLoadedError


class NativeTokenizer:
    """Tokenizer over a model's vocabulary.

    The vocabulary is read-only once loaded, so :meth:`tokenize` may run on any thread (as
    llama-server tokenizes on its HTTP threads); a lock keeps the engine thread from freeing
    the model while a tokenization is in flight (:meth:`close`). :meth:`token_info` is for the
    engine thread's hot path and caches each token's bytes and end-of-generation flag.
    """

    def __init__(self, library: Any, vocab: Any) -> None:
        self._library = library
        self._vocab = vocab
        self._lock = threading.Lock()
        self._closed = False
        self._piece_buffer = ctypes.create_string_buffer(256)
        self._token_info: dict[int, tuple[bytes, bool]] = {}
        self.add_bos = bool(library.llama_vocab_get_add_bos(vocab))
        self.bos_id = int(library.llama_vocab_bos(vocab))
        self.eos_id = int(library.llama_vocab_eos(vocab))
        self.bos_text = self._special_text(self.bos_id)
        self.eos_text = self._special_text(self.eos_id)

    def _special_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self._piece(token, special=True).decode("utf-8", errors="replace")

    def _piece(self, token: int, special: bool) -> bytes:
        buffer = self._piece_buffer
        length = int(self._library.llama_token_to_piece(self._vocab, token, buffer, len(buffer), 0, special))
        if length < 0:
            self._piece_buffer = buffer = ctypes.create_string_buffer(-length)
            length = int(self._library.llama_token_to_piece(self._vocab, token, buffer, len(buffer), 0, special))
        return buffer.raw[: max(length, 0)]

    def token_info(self, token: int) -> tuple[bytes, bool]:
        """(bytes the token adds to the output, whether it ends generation). Engine thread only."""
        info = self._token_info.get(token)
        if info is None:
            info = (self._piece(token, special=False), bool(self._library.llama_vocab_is_eog(self._vocab, token)))
            self._token_info[token] = info
        return info

    def tokenize(self, text: str, add_special: bool = True, parse_special: bool = True) -> list[int]:
        """Token ids of ``text``; ``add_special`` adds BOS when the model wants it."""
        data = text.encode("utf-8")
        capacity = len(data) + 8
        with self._lock:
            if self._closed:
                raise NoModelLoadedError()
            while True:
                tokens = (ctypes.c_int32 * capacity)()
                count = int(
                    self._library.llama_tokenize(
                        self._vocab, data, len(data), tokens, capacity, add_special, parse_special
                    )
                )
                if count >= 0:
                    return tokens[:count]
                capacity = -count

    def is_special_token(self, text: str) -> bool:
        """Whether ``text`` is a single special token of the vocabulary (not the same text spelled out)."""
        special = self.tokenize(text, add_special=False, parse_special=True)
        return len(special) == 1 and self.tokenize(text, add_special=False, parse_special=False) != special

    def tokenize_prompt(self, text: str) -> list[int]:
        """Tokens of a rendered chat prompt: special tokens parsed, BOS as the model wants.

        Many chat templates write the BOS text themselves; when the tokenizer adds BOS too,
        the template's copy is dropped so the prompt starts with exactly one BOS.
        """
        if self.add_bos and self.bos_text and text.startswith(self.bos_text):
            text = text[len(self.bos_text) :]
        return self.tokenize(text, add_special=True, parse_special=True)

    def close(self) -> None:
        """Refuse further tokenization (engine thread, before it frees the model)."""
        with self._lock:
            self._closed = True
