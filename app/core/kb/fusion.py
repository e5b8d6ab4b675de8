"""Pure steps of hybrid search: reciprocal rank fusion, dropping overlapping chunks, per-document caps."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

# The usual RRF constant: dampens the head of each ranking so one retriever cannot dominate.
RRF_K = 60

ItemT = TypeVar("ItemT")


@dataclass(frozen=True)
class FusedRank:
    """One chunk after fusion: its score and its 1-based rank in each retriever that found it."""

    chunk_id: int
    score: float
    ranks: Mapping[str, int] = field(default_factory=dict)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[int]],
    weights: Mapping[str, float] | None = None,
    k: int = RRF_K,
) -> list[FusedRank]:
    """Fuse ranked chunk-id lists: score = sum over retrievers of weight / (k + rank), best first.

    Ties are broken by the best single rank, then by chunk id, so the order is deterministic.
    """
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for retriever, chunk_ids in rankings.items():
        weight = 1.0 if weights is None else weights.get(retriever, 1.0)
        for position, chunk_id in enumerate(dict.fromkeys(chunk_ids), start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (k + position)
            ranks.setdefault(chunk_id, {})[retriever] = position
    fused = [FusedRank(chunk_id, score, ranks[chunk_id]) for chunk_id, score in scores.items()]
    fused.sort(key=lambda item: (-item.score, min(item.ranks.values()), item.chunk_id))
    return fused


@dataclass(frozen=True)
class Span:
    """Where a chunk lies: document, page and character range (ranges are half-open)."""

    document_id: int
    page: int | None
    char_start: int
    char_end: int

    def overlaps(self, other: Span) -> bool:
        return (
            self.document_id == other.document_id
            and self.page == other.page
            and self.char_start < other.char_end
            and other.char_start < self.char_end
        )


def drop_overlapping(items: Sequence[ItemT], span_of: Callable[[ItemT], Span]) -> list[ItemT]:
    """Keep the earlier (better-ranked) of any two items whose chunks overlap; order is kept."""
    kept: list[ItemT] = []
    kept_spans: list[Span] = []
    for item in items:
        span = span_of(item)
        if not any(span.overlaps(other) for other in kept_spans):
            kept.append(item)
            kept_spans.append(span)
    return kept


def cap_per_document(
    items: Sequence[ItemT], limit: int, max_per_document: int, document_of: Callable[[ItemT], int]
) -> list[ItemT]:
    """The first ``limit`` items with at most ``max_per_document`` from any one document.

    When the cap leaves fewer than ``limit`` items (few documents match at all, e.g. only one),
    the best of the held-back items fill the rest, in their original order.
    """
    chosen: list[ItemT] = []
    held_back: list[ItemT] = []
    per_document: dict[int, int] = {}
    for item in items:
        if len(chosen) >= limit:
            break
        document = document_of(item)
        if per_document.get(document, 0) < max_per_document:
            chosen.append(item)
            per_document[document] = per_document.get(document, 0) + 1
        else:
            held_back.append(item)
    if len(chosen) < limit:
        fill = held_back[: limit - len(chosen)]
        order = {id(item): index for index, item in enumerate(items)}
        chosen = sorted([*chosen, *fill], key=lambda item: order[id(item)])
    return chosen
