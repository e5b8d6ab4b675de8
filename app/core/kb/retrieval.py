"""Hybrid search: vector similarity and BM25 keywords fused by reciprocal rank, then cleaned up."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from app.core.kb.chunk_store import StoredChunk, chunks_by_ids, chunks_by_position, keyword_search
from app.core.kb.document_filter import DocumentFilter, filtered_document_ids
from app.core.kb.embedder import Embedder
from app.core.kb.fusion import Span, cap_per_document, drop_overlapping, reciprocal_rank_fusion
from app.core.kb.keyword_query import match_expression, query_terms
from app.core.kb.reranker import Reranker
from app.core.kb.vector_store import VectorStore

VECTOR = "vector"
KEYWORD = "keyword"
RERANK_POOL = 20
NO_DOCUMENTS_IN_FILTER = "none of the documents the search is limited to is in the knowledge base"


@dataclass(frozen=True)
class SearchHit:
    """One passage found for a question, with what a citation needs."""

    document_id: int
    path: str
    page: int | None
    heading: str
    text: str
    score: float
    retrievers: tuple[str, ...]
    chunk_id: int
    ordinal: int
    char_start: int
    char_end: int
    vector_similarity: float | None = None
    keyword_score: float | None = None
    rerank_score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        document = asdict(self)
        document["retrievers"] = list(self.retrievers)
        return document


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: tuple[SearchHit, ...]
    retrievers: tuple[str, ...]
    """The retrievers that ran (and the reranker, as "rerank", when it reordered the hits)."""
    notes: tuple[str, ...] = ()
    """Why a part of the search did not run (e.g. no reranker model), in words for the user."""


@dataclass(frozen=True)
class SearchOptions:
    """How to search; ``documents`` limits the search to some documents (None: every document)."""

    k: int = 5
    candidates: int = 50
    max_per_document: int = 3
    use_vectors: bool = True
    use_keywords: bool = True
    rerank: bool = False
    rerank_pool: int = RERANK_POOL
    """How many of the top candidates the reranker reorders (see app.core.kb.reranker.plan_reranking)."""
    documents: DocumentFilter | None = None


@dataclass(frozen=True)
class _Candidate:
    chunk: StoredChunk
    score: float
    retrievers: tuple[str, ...]
    vector_similarity: float | None
    keyword_score: float | None
    rerank_score: float | None = None

    def span(self) -> Span:
        return Span(self.chunk.document_id, self.chunk.page, self.chunk.char_start, self.chunk.char_end)


class HybridSearcher:
    """Searches one knowledge base; give it its own SQLite connection (indexing may write meanwhile).

    ``embedder`` and ``collection`` belong together (the active vector space and its model); with
    either missing only keyword search runs.
    """

    def __init__(
        self,
        connection: sqlite3.Connection,
        vector_store: VectorStore,
        embedder: Embedder | None,
        collection: str | None,
        reranker: Reranker | None = None,
        *,
        vector_unavailable_reason: str = "nothing has been embedded yet",
    ) -> None:
        self._vector_unavailable_reason = vector_unavailable_reason
        self._connection = connection
        self._vector_store = vector_store
        self._embedder = embedder
        self._collection = collection
        self._reranker = reranker

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResult:
        options = options or SearchOptions()
        query = query.strip()
        notes: list[str] = []
        rankings: dict[str, list[int]] = {}
        similarities: dict[int, float] = {}
        keyword_scores: dict[int, float] = {}
        weights = {VECTOR: 1.0, KEYWORD: 1.0}
        if not query:
            return SearchResult(query, (), ())
        allowed = None if options.documents is None else filtered_document_ids(self._connection, options.documents)
        if allowed is not None and not allowed:
            return SearchResult(query, (), (), (NO_DOCUMENTS_IN_FILTER,))
        if options.use_vectors:
            if self._embedder is None or self._collection is None:
                notes.append(f"vector search is unavailable: {self._vector_unavailable_reason}")
            else:
                weights[VECTOR] = vector_weight(self._embedder.unknown_token_fraction(query))
                if weights[VECTOR] > 0 or not options.use_keywords:
                    rankings[VECTOR] = self._vector_ranking(query, options.candidates, similarities, allowed)
        if options.use_keywords:
            rankings[KEYWORD] = self._keyword_ranking(query, options.candidates, keyword_scores, allowed)
        fused = reciprocal_rank_fusion(rankings, weights)
        chunks = chunks_by_ids(self._connection, [item.chunk_id for item in fused])
        candidates = [
            _Candidate(
                chunk=chunks[item.chunk_id],
                score=item.score,
                retrievers=tuple(name for name in (VECTOR, KEYWORD) if name in item.ranks),
                vector_similarity=similarities.get(item.chunk_id),
                keyword_score=keyword_scores.get(item.chunk_id),
            )
            for item in fused
            if item.chunk_id in chunks
        ]
        candidates = drop_overlapping(candidates, _Candidate.span)
        ran = [name for name in (VECTOR, KEYWORD) if name in rankings]
        if options.rerank and len(candidates) > 1:
            candidates, note = self._rerank(query, candidates, max(options.rerank_pool, options.k))
            if note:
                notes.append(note)
            else:
                ran.append("rerank")
        chosen = cap_per_document(
            candidates, options.k, options.max_per_document, lambda candidate: candidate.chunk.document_id
        )
        return SearchResult(query, tuple(_hit(candidate) for candidate in chosen), tuple(ran), tuple(notes))

    def _vector_ranking(
        self, query: str, limit: int, similarities: dict[int, float], allowed: frozenset[int] | None
    ) -> list[int]:
        assert self._embedder is not None and self._collection is not None
        vector = self._embedder.embed_query(query)
        # Ask for extra: vectors of unfinished or replaced documents are filtered out below.
        matches = self._vector_store.query(self._collection, vector, limit * 2, allowed)
        positions = chunks_by_position(
            self._connection, [(match.key.document_id, match.key.ordinal) for match in matches]
        )
        ranking: list[int] = []
        for match in matches:
            chunk = positions.get((match.key.document_id, match.key.ordinal))
            if chunk is None or not match.key.matches_hash(chunk.content_hash):
                continue
            if chunk.chunk_id not in similarities:
                similarities[chunk.chunk_id] = match.similarity
                ranking.append(chunk.chunk_id)
            if len(ranking) >= limit:
                break
        return ranking

    def _keyword_ranking(
        self, query: str, limit: int, scores: dict[int, float], allowed: frozenset[int] | None
    ) -> list[int]:
        found = keyword_search(self._connection, match_expression(query_terms(query)), limit, allowed)
        scores.update(found)
        return [chunk_id for chunk_id, _ in found]

    def _rerank(
        self, query: str, candidates: list[_Candidate], pool: int
    ) -> tuple[list[_Candidate], str | None]:
        if self._reranker is None:
            return candidates, "reranking is unavailable: no reranker model is set"
        if not self._reranker.available():
            return candidates, f"reranking is unavailable: {self._reranker.unavailable_reason}"
        head, tail = candidates[:pool], candidates[pool:]
        scores = self._reranker.scores(query, [candidate.chunk.text for candidate in head])
        rescored = [
            _Candidate(c.chunk, score, c.retrievers, c.vector_similarity, c.keyword_score, score)
            for c, score in zip(head, scores, strict=True)
        ]
        rescored.sort(key=lambda candidate: -candidate.score)
        return rescored + tail, None


def vector_weight(unknown_token_fraction: float) -> float:
    """How much vector ranks count in the fusion, from how much of the query the model cannot read.

    Models that do not know a script still map some of its characters to tokens they barely
    learned, so half the query unknown already means its vector is noise: weight 0 from there.
    """
    return max(0.0, 1.0 - 2.0 * unknown_token_fraction)


def _hit(candidate: _Candidate) -> SearchHit:
    chunk = candidate.chunk
    return SearchHit(
        document_id=chunk.document_id,
        path=chunk.path,
        page=chunk.page,
        heading=chunk.heading,
        text=chunk.text,
        score=candidate.score,
        retrievers=candidate.retrievers,
        chunk_id=chunk.chunk_id,
        ordinal=chunk.ordinal,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        vector_similarity=candidate.vector_similarity,
        keyword_score=candidate.keyword_score,
        rerank_score=candidate.rerank_score,
    )
