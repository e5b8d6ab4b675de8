"""Tiny random-weight llama GGUFs with a real model's vocabulary size, for measuring sampling.

Sampling a token costs a pass over the whole vocabulary (llama.cpp's sampler chain copies every
logit into a candidate array and filters it), so the benchmark models' 270-token vocabulary hides
it. These models have 2 layers of width 64, so a decode step is cheap, and the vocabulary of
Llama-3 (128,256 tokens), Qwen2.5/3 (151,936) or Gemma 3 (262,144): the step is then mostly the
output head and sampling, as on a GPU where the rest is fast.

    python -m tests.benchmarks.llamacpp_vocab_models VOCAB OUT.gguf [--peaked]

With the fixtures' weights the logits are nearly flat (std ~0.16), the worst case for a top-p without
top-k (llama.cpp then sorts the whole vocabulary); ``--peaked`` scales the output head so that the
logits spread like a trained model's (std ~10: a few tokens hold most of the probability, as in a trained model).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.benchmarks.llamacpp_bench_models import finish_gguf, large_vocabulary
from tests.fixtures.gguf_models import INIT_STD, ModelShape, _add_metadata, _matrix_shapes, _norm_names

PEAKED_OUTPUT_SCALE = 60.0
"""Output-head weights times this in a ``peaked`` model."""
REAL_VOCABULARIES = {"llama3": 128_256, "qwen3": 151_936, "gemma3": 262_144}
"""Vocabulary sizes of common model families (tokens)."""


def vocab_shape(vocab: int) -> ModelShape:
    """2 layers of width 64 (4 heads, 2 KV heads) over ``vocab`` tokens."""
    return ModelShape(n_layers=2, n_embd=64, n_heads=4, n_kv_heads=2, n_ff=128, n_ctx_train=8192, vocab=vocab)


def write_vocab_gguf(path: Path, vocab: int, seed: int = 0, peaked: bool = False) -> Path:
    """Write (once) an f16 model of :func:`vocab_shape` with a vocabulary of ``vocab`` tokens
    (``peaked``: logits spread like a trained model's).
    """
    import gguf
    import numpy as np

    if path.is_file():
        return path
    shape = vocab_shape(vocab)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    rng = np.random.default_rng(seed)
    writer = gguf.GGUFWriter(partial, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.LLAMA])
    _add_metadata(writer, shape, "f16", large_vocabulary(vocab))
    for name, (rows, cols) in _matrix_shapes(shape).items():
        weights = rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(INIT_STD)
        if peaked and name == "output.weight":
            weights *= np.float32(PEAKED_OUTPUT_SCALE)
        writer.add_tensor(name, weights.astype(np.float16))
    for name in _norm_names(shape):
        writer.add_tensor(name, np.ones(shape.n_embd, dtype=np.float32))
    return finish_gguf(writer, partial, path)


if __name__ == "__main__":
    size = sys.argv[1]
    print(write_vocab_gguf(Path(sys.argv[2]), REAL_VOCABULARIES.get(size) or int(size), peaked="--peaked" in sys.argv))
