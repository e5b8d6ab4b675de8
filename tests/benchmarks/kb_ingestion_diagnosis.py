"""Where ingestion time goes: padding of embedding batches, encode variants of the same chunks, cProfile.

sentence-transformers pads every forward batch to its longest text and sorts texts by
*character* count only *within one* ``encode`` call. The pipeline calls it once per 64-chunk
batch in document order, so most batches pad to the longest chunk; one call over all chunks
groups similar lengths. (Characters are a poor proxy across scripts: a full Chinese chunk has
~250 characters and 254 tokens, a full English one ~1300 characters.) The variants time the
same chunks batched the ways the pipeline could batch them.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.benchmarks.kb_instrument import log

PROFILE_LINES = 25
WINDOW = 512  # chunks: 8 pipeline batches


@dataclass(frozen=True)
class EncodeVariant:
    """How a window of chunks is handed to ``model.encode``.

    ``sort``: "none" (document order), "characters" or "tokens" (longest first, over the whole
    window); ``call_size``: chunks per ``encode`` call (0: the whole window); ``batch_size``: its batch size.
    """

    name: str
    sort: str
    call_size: int
    batch_size: int
    description: str


def encode_variants(batch_chunks: int) -> tuple[EncodeVariant, ...]:
    """The yardstick (first) and the batchings the pipeline could use."""
    return (
        EncodeVariant("one_call", "none", 0, batch_chunks, f"one encode call per window, batch_size={batch_chunks}"),
        EncodeVariant("pipeline_batches", "none", batch_chunks, batch_chunks,
                      f"one call per {batch_chunks} chunks in document order (what the pipeline does)"),
        EncodeVariant("pipeline_batches_micro16", "none", batch_chunks, 16,
                      f"one call per {batch_chunks} chunks in document order, batch_size=16 inside the call"),
        EncodeVariant("window_sorted_by_tokens", "tokens", batch_chunks, batch_chunks,
                      f"window sorted by token count, longest first, then one call per {batch_chunks}"),
        EncodeVariant("window_sorted_by_characters", "characters", batch_chunks, batch_chunks,
                      f"window sorted by character count, longest first, then one call per {batch_chunks}"),
    )


def _calls(texts: Sequence[str], lengths: Sequence[int], window: Sequence[int],
           variant: EncodeVariant) -> list[list[int]]:
    order = list(window)
    if variant.sort == "tokens":
        order.sort(key=lambda i: -lengths[i])
    elif variant.sort == "characters":
        order.sort(key=lambda i: -len(texts[i]))
    size = variant.call_size or len(order)
    return [order[start : start + size] for start in range(0, len(order), size)]


def _windows(count: int) -> list[list[int]]:
    return [list(range(start, min(start + WINDOW, count))) for start in range(0, count, WINDOW)]


def padded_tokens(texts: Sequence[str], lengths: Sequence[int], variant: EncodeVariant) -> int:
    """Tokens the model processes with padding: each forward batch is as long as its longest text.

    Inside one call sentence-transformers orders texts longest-first by character count, as here.
    """
    total = 0
    for window in _windows(len(texts)):
        for call in _calls(texts, lengths, window, variant):
            inside = sorted(call, key=lambda i: -len(texts[i]))
            for start in range(0, len(inside), variant.batch_size):
                batch = inside[start : start + variant.batch_size]
                total += max(lengths[i] for i in batch) * len(batch)
    return total


def padding_report(texts: Sequence[str], lengths: Sequence[int], batch_chunks: int) -> dict[str, Any]:
    """Real tokens vs tokens processed with padding, per batching (windows of ``WINDOW`` chunks)."""
    real = sum(lengths)
    report: dict[str, Any] = {"real_tokens": real, "window_chunks": WINDOW}
    everything = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # the headline's single call
    padded_all = sum(max(lengths[i] for i in everything[start : start + batch_chunks])
                     * len(everything[start : start + batch_chunks]) for start in range(0, len(texts), batch_chunks))
    report["one_call_all_chunks"] = {"padded_tokens": padded_all, "overhead": round(padded_all / real - 1, 4)}
    for variant in encode_variants(batch_chunks):
        padded = padded_tokens(texts, lengths, variant)
        report[variant.name] = {"padded_tokens": padded, "overhead": round(padded / real - 1, 4)}
    return report


def time_variants(model: Any, embed_documents: Callable[[list[str]], Any], texts: Sequence[str],
                  lengths: Sequence[int], batch_chunks: int) -> dict[str, Any]:
    """Seconds of each batching of the same chunks, interleaved window by window (order rotating).

    Interleaving keeps the comparison fair when other programs load the machine. Also timed: the
    pipeline's own ``Embedder.embed_documents`` fed the pipeline's batches outside the pipeline.
    """
    variants = encode_variants(batch_chunks)
    names = [variant.name for variant in variants] + ["embedder_pipeline_batches"]
    seconds = dict.fromkeys(names, 0.0)
    windows = _windows(len(texts))
    for number, window in enumerate(windows):
        log(f"  encode variants: window {number + 1} of {len(windows)}")
        for offset in range(len(names)):
            name = names[(number + offset) % len(names)]
            started = time.perf_counter()
            if name == "embedder_pipeline_batches":
                for start in range(0, len(window), batch_chunks):
                    embed_documents([texts[i] for i in window[start : start + batch_chunks]])
            else:
                variant = variants[names.index(name)]
                for call in _calls(texts, lengths, window, variant):
                    model.encode([texts[i] for i in call], batch_size=variant.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
            seconds[name] += time.perf_counter() - started
    descriptions = {variant.name: variant.description for variant in variants}
    descriptions["embedder_pipeline_batches"] = (
        f"Embedder.embed_documents once per {batch_chunks} chunks in document order, outside the pipeline")
    return {
        "method": f"windows of {WINDOW} chunks; every variant runs on each window before the next, order rotating",
        **{
            name: {"seconds": round(seconds[name], 2),
                   "one_call_over_this": round(seconds["one_call"] / seconds[name], 4), "how": descriptions[name]}
            for name in names
        },
    }


def _short_path(path: str) -> str:
    return path.split("site-packages/")[-1].split(str(Path.cwd()) + "/")[-1]


def top_functions(profile: cProfile.Profile, key: str) -> list[str]:
    """The heaviest functions of a profile by cumulative or own time, one line each."""
    stats = pstats.Stats(profile)
    rows = []
    for (filename, line, name), (_, calls, total, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append((cumulative if key == "cumulative" else total, calls, total, cumulative, filename, line, name))
    rows.sort(reverse=True)
    return [f"{cum:8.2f}s cum {tot:8.2f}s own {calls:8d} calls  {_short_path(f)}:{ln}({fn})"
            for _, calls, tot, cum, f, ln, fn in rows[:PROFILE_LINES]]
