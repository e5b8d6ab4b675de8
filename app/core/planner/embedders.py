"""The embedding model for this machine, and the memory it needs beside the LLM.

Published figures the choice rests on (retrieval quality; none can be measured on machines
without these weights, see tests/benchmarks/bench_retrieval_quality.py for what is measured):

- Qwen/Qwen3-Embedding-0.6B: MMTEB (MTEB multilingual) mean over tasks 64.33, retrieval
  nDCG@10 64.65 -- Qwen3 Embedding report (arXiv 2506.05176), Table "MMTEB", and its model card.
- BAAI/bge-m3: MMTEB mean over tasks 59.56, retrieval 57.89 -- the same table.
- intfloat/multilingual-e5-small: about 60 on C-MTEB (as the issue states), trained for 100
  languages -- Multilingual E5 technical report (arXiv 2402.05672) for the family's method; the
  small model is 118M parameters, 12 layers, 384 dimensions, so it runs on any CPU.
- sentence-transformers/all-MiniLM-L6-v2: English only (its tokenizer splits Chinese into
  characters it barely learned); bundled, so it is the offline fallback.

Qwen3-Embedding-0.6B is the strongest of these but a 28-layer decoder: worth it on a GPU with
room to spare. bge-m3 (24-layer encoder) where a GPU or a large unified memory is smaller.
multilingual-e5-small everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "EmbeddingChoice"
MIB = 1024**2
GIB = 1024**3

AUTOMATIC = "auto"
"""The ``kb.embedding_model`` value that lets :func:`recommend_embedder` choose."""


@dataclass(frozen=True)
class EmbedderSpec:
    """A known sentence-embedding model: where it is published and how it reads text.

    ``query_prefix``/``passage_prefix`` are put before questions and before document chunks
    (e5 was trained with "query: "/"passage: "; Qwen3-Embedding wants an instruction before the
    question and nothing before documents; bge-m3 and MiniLM want nothing).
    """

    key: str
    repo_id: str
    parameters: int
    dimension: int
    query_prefix: str = ""
    passage_prefix: str = ""
    multilingual: bool = True


QWEN3_QUERY_INSTRUCTION = (
    "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"
)

KNOWN_EMBEDDERS: tuple[EmbedderSpec, ...] = (
    EmbedderSpec("all-minilm-l6-v2", "sentence-transformers/all-MiniLM-L6-v2", 22_700_000, 384,
                 multilingual=False),
    EmbedderSpec("paraphrase-multilingual-minilm-l12-v2",
                 "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", 118_000_000, 384),
    EmbedderSpec("multilingual-e5-small", "intfloat/multilingual-e5-small", 118_000_000, 384,
                 query_prefix="query: ", passage_prefix="passage: "),
    EmbedderSpec("multilingual-e5-base", "intfloat/multilingual-e5-base", 278_000_000, 768,
                 query_prefix="query: ", passage_prefix="passage: "),
    EmbedderSpec("multilingual-e5-large", "intfloat/multilingual-e5-large", 560_000_000, 1024,
                 query_prefix="query: ", passage_prefix="passage: "),
    EmbedderSpec("bge-m3", "BAAI/bge-m3", 568_000_000, 1024),
    EmbedderSpec("qwen3-embedding-0.6b", "Qwen/Qwen3-Embedding-0.6B", 596_000_000, 1024,
                 query_prefix=QWEN3_QUERY_INSTRUCTION + " "),
)
SMALL_MODEL = "intfloat/multilingual-e5-small"
GPU_MODEL = "Qwen/Qwen3-Embedding-0.6B"
MIDDLE_MODEL = "BAAI/bge-m3"
QWEN3_GPU_MEMORY = 8 * GIB
"""GPU memory from which Qwen3-Embedding-0.6B is chosen (weights ~1.2 GB in 16 bits, plus the LLM)."""
BGE_M3_GPU_MEMORY = 4 * GIB
BGE_M3_UNIFIED_MEMORY = 32 * GIB

# An unknown model is budgeted like a base-size encoder rather than ignored.
UNKNOWN_EMBEDDER_BYTES = 278_000_000 * 4 + 96 * MIB


def spec_for(model_name: str) -> EmbedderSpec | None:
    """The known model ``model_name`` names: a hub id, its last part, or a folder named after it
    (``<owner>--<name>`` as downloads are)."""
    name = model_name.strip().rstrip("/").replace("\\", "/").rsplit("/", 1)[-1].rsplit("--", 1)[-1].lower()
    return next((spec for spec in KNOWN_EMBEDDERS if spec.key == name), None)


@dataclass(frozen=True)
class EmbedderChoice:
    """The embedding model chosen for this machine, and why (for the window and `kb` commands)."""

    model: str
    reason: Text


def recommend_embedder(
    gpu_memory_bytes: int | None, *, unified_memory_bytes: int | None = None
) -> EmbedderChoice:
    """The default embedding model: the strongest multilingual one this machine runs comfortably.

    ``gpu_memory_bytes``: the largest discrete GPU's memory (None: no usable GPU);
    ``unified_memory_bytes``: memory a GPU shares with the CPU (Apple Silicon, GB10, Jetson).
    """
    if gpu_memory_bytes is not None and gpu_memory_bytes >= QWEN3_GPU_MEMORY:
        return EmbedderChoice(GPU_MODEL, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "EmbeddingChoice", "a GPU with {0} GiB: Qwen3-Embedding-0.6B, the strongest multilingual model "
                               "that fits beside a chat model (MMTEB 64.3)"), (gpu_memory_bytes // GIB,)))
    if (gpu_memory_bytes is not None and gpu_memory_bytes >= BGE_M3_GPU_MEMORY) or (
        unified_memory_bytes is not None and unified_memory_bytes >= BGE_M3_UNIFIED_MEMORY
    ):
        memory = gpu_memory_bytes if gpu_memory_bytes is not None else unified_memory_bytes
        return EmbedderChoice(MIDDLE_MODEL, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "EmbeddingChoice", "a GPU with {0} GiB: bge-m3, a strong multilingual model (MMTEB 59.6)"),
            ((memory or 0) // GIB,)))
    return EmbedderChoice(SMALL_MODEL, Text(CONTEXT, QT_TRANSLATE_NOOP(
        "EmbeddingChoice", "no GPU with room for a larger model: multilingual-e5-small, fast on a CPU and "
                           "trained for Chinese, English and 100 other languages")))


def embedder_memory_bytes(model_name: str) -> int:
    """Bytes to reserve for the embedding model named in settings (``""`` means none).

    Resident size is fp32 weights plus runtime buffers; ``auto`` is budgeted as the small default.
    """
    name = model_name.strip()
    if not name:
        return 0
    spec = spec_for(SMALL_MODEL if name.lower() == AUTOMATIC else name)
    if spec is None:
        return UNKNOWN_EMBEDDER_BYTES
    return spec.parameters * 4 + (64 if spec.parameters < 200_000_000 else 128) * MIB
