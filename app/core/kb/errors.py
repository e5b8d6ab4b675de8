"""Errors of the knowledge base that users see (one line: what is wrong; a hint: what to do)."""

from __future__ import annotations

from app.core.util.errors import UserFacingError


class KnowledgeBaseError(UserFacingError):
    """The knowledge base cannot do what was asked (database, vector store, model, bad id)."""


class EmbeddingModelError(KnowledgeBaseError):
    """The embedding (or reranking) model cannot be found or loaded."""


class VectorStoreError(KnowledgeBaseError):
    """The vector store (embedded chromadb or a chromadb server) failed."""
