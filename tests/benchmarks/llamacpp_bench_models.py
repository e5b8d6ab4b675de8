"""Large random-weight llama GGUFs for benchmarks, written fast from one pool of random bytes.

The test fixtures' writer draws (and for q8_0 quantizes) every weight, which takes minutes for a
model of billions of weights. Decode speed only depends on the bytes, so here every matrix is a
view into one pool of random q8_0 blocks (or f16 values) at a different offset: the file is
written at disk speed and memory use stays at the pool's size. The vocabulary is tiny (270
tokens: specials, the 256 byte tokens and a few words), as in the models the issue was measured on.

    python -m tests.benchmarks.llamacpp_bench_models SHAPE DTYPE OUT.gguf
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from tests.fixtures.gguf_models import (
    INIT_STD,
    GgufDtype,
    ModelShape,
    _add_metadata,
    _matrix_shapes,
    _norm_names,
)
from tests.fixtures.vocab import (
    BOS_TOKEN,
    EOS_TOKEN,
    IM_END_TOKEN,
    IM_START_TOKEN,
    SPACE_MARK,
    TOKEN_TYPE_BYTE,
    TOKEN_TYPE_CONTROL,
    TOKEN_TYPE_NORMAL,
    TOKEN_TYPE_UNKNOWN,
    UNK_TOKEN,
    SpmVocabulary,
)

SMALL_VOCAB = 270
BENCH_SHAPES: dict[str, ModelShape] = {
    # A model whose decode step is a fraction of a millisecond, even on a CPU: what the engine adds in
    # Python per step (the cost a GPU exposes) dominates, so engine / minimal loop shows it here.
    "tiny-256": ModelShape(n_layers=2, n_embd=256, n_heads=4, n_kv_heads=2, n_ff=512,
                           n_ctx_train=8192, vocab=SMALL_VOCAB),
    # The shape the CPU figures were taken on (193 MB as q8_0).
    "cpu-1024": ModelShape(n_layers=16, n_embd=1024, n_heads=16, n_kv_heads=4, n_ff=2816,
                           n_ctx_train=8192, vocab=SMALL_VOCAB),
    "llama3.2-1b": ModelShape(n_layers=16, n_embd=2048, n_heads=32, n_kv_heads=8, n_ff=8192,
                              n_ctx_train=8192, vocab=SMALL_VOCAB, rope_freq_base=500000.0),
    "llama3.1-8b": ModelShape(n_layers=32, n_embd=4096, n_heads=32, n_kv_heads=8, n_ff=14336,
                              n_ctx_train=8192, vocab=SMALL_VOCAB, rope_freq_base=500000.0),
}
# The same shapes with a real vocabulary, where sampling costs what it costs a user: Llama-3's 128,256 tokens
# on the 1B shape; Qwen's 151,936 on the CPU shape (then about the size of Qwen3-0.6B: 0.5 GB as q8_0).
BENCH_SHAPES["llama3.2-1b-vocab128k"] = dataclasses.replace(BENCH_SHAPES["llama3.2-1b"], vocab=128_256)
BENCH_SHAPES["cpu-1024-vocab152k"] = dataclasses.replace(BENCH_SHAPES["cpu-1024"], vocab=151_936)
_POOL_BYTES = 192 << 20  # larger than any one matrix of the shapes above but the real-vocabulary output heads
_Q8_BLOCK_VALUES, _Q8_BLOCK_BYTES = 32, 34
_WORDS = ("the", "and", "model", "speed", "token", "chat", "answer", "hello", "world")


def small_vocabulary() -> SpmVocabulary:
    """Specials, the 256 byte tokens, the ChatML markers and nine words: 270 tokens."""
    tokens = [UNK_TOKEN, BOS_TOKEN, EOS_TOKEN, *(f"<0x{byte:02X}>" for byte in range(256)),
              IM_START_TOKEN, IM_END_TOKEN, *(SPACE_MARK + word for word in _WORDS)]
    types = [TOKEN_TYPE_UNKNOWN, TOKEN_TYPE_CONTROL, TOKEN_TYPE_CONTROL, *[TOKEN_TYPE_BYTE] * 256,
             TOKEN_TYPE_CONTROL, TOKEN_TYPE_CONTROL, *[TOKEN_TYPE_NORMAL] * len(_WORDS)]
    scores = [0.0] * (len(tokens) - len(_WORDS)) + [float(len(word)) for word in _WORDS]
    assert len(tokens) == SMALL_VOCAB
    return SpmVocabulary(tokens=tuple(tokens), scores=tuple(scores), token_types=tuple(types),
                         unk_id=0, bos_id=1, eos_id=2, turn_start_id=259, turn_end_id=260)


def large_vocabulary(size: int) -> SpmVocabulary:
    """The benchmark models' 270 tokens followed by numbered filler words up to ``size`` tokens."""
    base = small_vocabulary()
    extra = size - base.size
    if extra < 0:
        raise ValueError(f"a vocabulary needs at least {base.size} tokens, not {size}")
    fillers = tuple(f"{SPACE_MARK}w{index}" for index in range(extra))
    return SpmVocabulary(tokens=base.tokens + fillers, scores=base.scores + (-1.0,) * extra,
                         token_types=base.token_types + (TOKEN_TYPE_NORMAL,) * extra, unk_id=base.unk_id,
                         bos_id=base.bos_id, eos_id=base.eos_id, turn_start_id=base.turn_start_id,
                         turn_end_id=base.turn_end_id)


def _matrix_bytes(rows: int, cols: int, dtype: GgufDtype) -> int:
    return rows * cols // _Q8_BLOCK_VALUES * _Q8_BLOCK_BYTES if dtype == "q8_0" else rows * cols * 2


def _pool(dtype: GgufDtype, rng: Any, size: int = _POOL_BYTES) -> Any:
    """``size`` random bytes to slice every matrix from: q8_0 blocks (f16 scale, 32 int8) or f16 values."""
    import numpy as np

    if dtype == "q8_0":
        blocks = np.empty((size // _Q8_BLOCK_BYTES, _Q8_BLOCK_BYTES), dtype=np.uint8)
        scale = np.float16(INIT_STD * np.sqrt(3.0) / 127.0)  # uniform int8 * scale has std INIT_STD
        blocks[:, :2] = np.frombuffer(scale.tobytes(), dtype=np.uint8)
        blocks[:, 2:] = rng.integers(-127, 128, size=(len(blocks), 32), dtype=np.int8).view(np.uint8)
        return blocks.reshape(-1)
    values = rng.standard_normal(size // 2, dtype=np.float32) * np.float32(INIT_STD)
    return values.astype(np.float16)


def _matrix(pool: Any, rows: int, cols: int, dtype: GgufDtype, rng: Any) -> Any:
    """A (rows, cols) matrix as a view into the pool at a random offset (no copy)."""
    if dtype == "q8_0":
        row_bytes = cols // _Q8_BLOCK_VALUES * _Q8_BLOCK_BYTES
        blocks_left = (len(pool) - rows * row_bytes) // _Q8_BLOCK_BYTES
        start = int(rng.integers(0, blocks_left + 1)) * _Q8_BLOCK_BYTES
        return pool[start:start + rows * row_bytes].reshape(rows, row_bytes)
    start = int(rng.integers(0, len(pool) - rows * cols + 1))
    return pool[start:start + rows * cols].reshape(rows, cols)


def write_bench_gguf(path: Path, shape: ModelShape, dtype: GgufDtype, seed: int = 0) -> Path:
    """Write a random-weight llama GGUF of ``shape`` (q8_0 or f16 matrices, f32 norms); return its path."""
    import gguf
    import numpy as np

    if dtype not in ("q8_0", "f16"):
        raise ValueError(f"bench models are q8_0 or f16, not {dtype}")
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    rng = np.random.default_rng(seed)
    pool = _pool(dtype, rng, max(_POOL_BYTES, *(_matrix_bytes(rows, cols, dtype) for rows, cols in
                                                 _matrix_shapes(shape).values())))
    vocabulary = large_vocabulary(shape.vocab)
    writer = gguf.GGUFWriter(partial, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.LLAMA])
    _add_metadata(writer, shape, dtype, vocabulary)
    raw_dtype = gguf.GGMLQuantizationType.Q8_0 if dtype == "q8_0" else None
    for name, (rows, cols) in _matrix_shapes(shape).items():
        writer.add_tensor(name, _matrix(pool, rows, cols, dtype, rng), raw_dtype=raw_dtype)
    for name in _norm_names(shape):
        writer.add_tensor(name, np.ones(shape.n_embd, dtype=np.float32))
    return finish_gguf(writer, partial, path)


def finish_gguf(writer: Any, partial: Path, path: Path) -> Path:
    """Write ``writer``'s model to ``partial``, then move it to ``path`` (a half-written file never has its name)."""
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(partial, path)
    finally:
        writer.close()
        partial.unlink(missing_ok=True)
    return path


if __name__ == "__main__":
    shape_name, dtype_name, out = sys.argv[1:4]
    print(write_bench_gguf(Path(out), BENCH_SHAPES[shape_name], dtype_name))  # type: ignore[arg-type]
