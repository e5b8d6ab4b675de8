"""Reciprocal rank fusion, overlap removal and the per-document cap."""

from __future__ import annotations

import pytest

from app.core.kb.fusion import RRF_K, Span, cap_per_document, drop_overlapping, reciprocal_rank_fusion


def test_rrf_scores_are_sums_of_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion({"vector": [1, 2, 3], "keyword": [3, 4]})
    by_id = {item.chunk_id: item for item in fused}
    assert by_id[3].score == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert by_id[1].score == pytest.approx(1 / (RRF_K + 1))
    assert dict(by_id[3].ranks) == {"vector": 3, "keyword": 1}
    assert fused[0].chunk_id == 3, "found by both retrievers beats found by one"


def test_rrf_weights_scale_a_retriever() -> None:
    fused = reciprocal_rank_fusion({"vector": [1], "keyword": [2]}, weights={"vector": 0.0})
    assert [item.chunk_id for item in fused] == [2, 1]
    assert fused[1].score == 0.0


def test_rrf_ignores_duplicates_within_one_ranking() -> None:
    fused = reciprocal_rank_fusion({"vector": [5, 5, 6]})
    assert [item.chunk_id for item in fused] == [5, 6]
    assert fused[1].ranks["vector"] == 2


def test_rrf_ties_break_by_best_rank_then_id() -> None:
    fused = reciprocal_rank_fusion({"a": [9, 1], "b": [1, 9]})
    assert [item.chunk_id for item in fused] == [1, 9]


def test_overlapping_chunks_keep_the_better_ranked_one() -> None:
    spans = {
        "a": Span(1, 2, 0, 100),
        "b": Span(1, 2, 80, 180),   # overlaps a: dropped
        "c": Span(1, 3, 80, 180),   # other page: kept
        "d": Span(2, 2, 0, 100),    # other document: kept
        "e": Span(1, 2, 100, 200),  # touches a, no overlap: kept
    }
    assert drop_overlapping(list(spans), spans.__getitem__) == ["a", "c", "d", "e"]


def test_cap_per_document_limits_hits_from_one_document() -> None:
    items = [(1, "a"), (1, "b"), (1, "c"), (1, "d"), (2, "e"), (3, "f")]
    chosen = cap_per_document(items, 5, 3, lambda item: item[0])
    assert chosen == [(1, "a"), (1, "b"), (1, "c"), (2, "e"), (3, "f")]


def test_cap_is_lifted_when_too_few_documents_match() -> None:
    items = [(1, "a"), (1, "b"), (1, "c"), (1, "d"), (2, "e")]
    chosen = cap_per_document(items, 5, 2, lambda item: item[0])
    assert chosen == items, "held-back hits fill the list in their original order"
    single = [(7, str(index)) for index in range(6)]
    assert cap_per_document(single, 4, 3, lambda item: item[0]) == single[:4]
