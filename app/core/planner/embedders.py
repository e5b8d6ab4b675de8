"""Memory the co-resident embedding model needs, so the planner can count it beside the LLM."""

from __future__ import annotations

MIB = 1024**2

# Resident size of known sentence-transformers models (fp32 weights plus runtime buffers),
# from their parameter counts: all-MiniLM-L6-v2 22.7M, multilingual-e5-small 118M,
# bge-m3 568M, paraphrase-multilingual-MiniLM-L12-v2 118M, multilingual-e5-base 278M.
KNOWN_EMBEDDER_BYTES: dict[str, int] = {
    "all-minilm-l6-v2": 22_700_000 * 4 + 64 * MIB,
    "paraphrase-multilingual-minilm-l12-v2": 118_000_000 * 4 + 64 * MIB,
    "multilingual-e5-small": 118_000_000 * 4 + 64 * MIB,
    "multilingual-e5-base": 278_000_000 * 4 + 96 * MIB,
    "bge-m3": 568_000_000 * 4 + 128 * MIB,
}
# An unknown model is budgeted like a base-size encoder rather than ignored.
UNKNOWN_EMBEDDER_BYTES = 278_000_000 * 4 + 96 * MIB


def embedder_memory_bytes(model_name: str) -> int:
    """Bytes to reserve for the embedding model named in settings (``""`` means none)."""
    name = model_name.strip().rsplit("/", 1)[-1].lower()
    if not name:
        return 0
    return KNOWN_EMBEDDER_BYTES.get(name, UNKNOWN_EMBEDDER_BYTES)
