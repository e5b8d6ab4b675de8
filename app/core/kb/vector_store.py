"""Chunk vectors in chromadb: an embedded store under the data folder, or a chromadb server."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.core.kb.errors import VectorStoreError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "KnowledgeBaseErrors"

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

HASH_PREFIX_LENGTH = 16
_UPSERT_BATCH = 4096
_FILTER_BATCH = 5000
"""Document ids per filtered query (chromadb's SQLite allows about 32,000 variables)."""


@dataclass(frozen=True)
class VectorKey:
    """What a vector belongs to; its chromadb id is derived from it, so rewriting is idempotent."""

    document_id: int
    content_hash: str
    ordinal: int

    @property
    def vector_id(self) -> str:
        return f"{self.document_id}-{self.content_hash[:HASH_PREFIX_LENGTH]}-{self.ordinal}"

    @classmethod
    def parse(cls, vector_id: str) -> VectorKey | None:
        parts = vector_id.split("-")
        if len(parts) != 3 or not parts[0].isdigit() or not parts[2].isdigit():
            return None
        return cls(int(parts[0]), parts[1], int(parts[2]))

    def matches_hash(self, content_hash: str | None) -> bool:
        return content_hash is not None and content_hash[:HASH_PREFIX_LENGTH] == self.content_hash[
            :HASH_PREFIX_LENGTH
        ]


@dataclass(frozen=True)
class VectorMatch:
    key: VectorKey
    similarity: float


def _matches(result: Any) -> list[VectorMatch]:
    """chromadb's answer to a one-vector query as matches (ids that are not vector keys are skipped)."""
    matches = []
    for vector_id, distance in zip(result["ids"][0], result["distances"][0], strict=True):
        key = VectorKey.parse(vector_id)
        if key is not None:
            matches.append(VectorMatch(key, 1.0 - float(distance)))
    return matches


def _nearest(target: Any, vector: Any, limit: int, where: dict[str, Any] | None) -> list[VectorMatch]:
    """One chromadb query. Not preceded by count(): that costs as much as the query itself at 100k vectors."""
    try:
        return _matches(target.query(query_embeddings=[vector], n_results=limit, where=where, include=["distances"]))
    except Exception:
        if target.count() == 0:  # chromadb servers before 1.0 refuse to query an empty collection
            return []
        raise


def _chroma_settings() -> Any:
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


class VectorStore:
    """Collections of chunk vectors (cosine space; embeddings are supplied, never computed here).

    ``server_url`` empty: an embedded ``PersistentClient`` at ``persist_dir``; otherwise an
    ``HttpClient`` to that chromadb server. The client is created on first use.
    """

    def __init__(self, persist_dir: Path, server_url: str = "") -> None:
        self.persist_dir = persist_dir
        self.server_url = server_url.strip()
        self._lock = threading.Lock()
        self._client: Any = None
        self._collections: dict[str, Any] = {}

    @property
    def location(self) -> str:
        return self.server_url or str(self.persist_dir)

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._make_client()
            return self._client

    def _make_client(self) -> Any:
        import chromadb

        if not self.server_url:
            self.persist_dir.mkdir(parents=True, exist_ok=True)
            try:
                return chromadb.PersistentClient(path=str(self.persist_dir), settings=_chroma_settings())
            except Exception as error:
                raise VectorStoreError(
                    Text(CONTEXT, QT_TRANSLATE_NOOP(
                        "KnowledgeBaseErrors", "The vector store in {0} cannot be opened: {1}."),
                         (str(self.persist_dir), str(error))),
                    Text(CONTEXT, QT_TRANSLATE_NOOP(
                        "KnowledgeBaseErrors",
                        "Close other UniDesk windows using the same folder, or remove the folder to rebuild it.")),
                ) from error
        parts = urlsplit(self.server_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise VectorStoreError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "kb.chroma_server_url {0} is not an http(s) address."),
                     (repr(self.server_url),)),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "Use e.g. http://192.168.1.20:8000, or leave it empty for the built-in "
                                           "store.")),
            )
        port = parts.port or (443 if parts.scheme == "https" else 8000)
        try:
            return chromadb.HttpClient(
                host=parts.hostname, port=port, ssl=parts.scheme == "https", settings=_chroma_settings()
            )
        except Exception as error:
            raise VectorStoreError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "The chromadb server at {0} does not answer ({1})."),
                     (str(self.server_url), str(error))),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors",
                    "Start it (chroma run --path DIR) or clear kb.chroma_server_url to use the built-in store.")),
            ) from error

    def _collection(self, name: str) -> Any:
        cached = self._collections.get(name)
        if cached is not None:
            return cached
        client = self._connect()
        try:
            collection = client.get_or_create_collection(
                name, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
            )
        except Exception as error:
            raise VectorStoreError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "KnowledgeBaseErrors", "The vector collection {0} cannot be opened: "
                                       "{1}."), (name, str(error)))) from error
        self._collections[name] = collection
        return collection

    def upsert(self, collection: str, keys: Sequence[VectorKey], vectors: NDArray[np.float32]) -> None:
        """Write vectors (same key: replaced). Metadata lets whole documents be deleted at once."""
        target = self._collection(collection)
        for start in range(0, len(keys), _UPSERT_BATCH):
            part = keys[start : start + _UPSERT_BATCH]
            target.upsert(
                ids=[key.vector_id for key in part],
                embeddings=vectors[start : start + len(part)],
                metadatas=[
                    {"document_id": key.document_id, "content_hash": key.content_hash[:HASH_PREFIX_LENGTH],
                     "ordinal": key.ordinal}
                    for key in part
                ],
            )

    def query(
        self, collection: str, vector: NDArray[np.float32], limit: int, document_ids: Collection[int] | None = None
    ) -> list[VectorMatch]:
        """The ``limit`` nearest vectors, best first, with cosine similarity (1 = same direction); only
        vectors of ``document_ids`` when given (chromadb filters before it ranks, so the answer is exact)."""
        target = self._collection(collection)
        if limit <= 0 or (document_ids is not None and not document_ids):
            return []
        if document_ids is None:
            return _nearest(target, vector, limit, None)
        wanted = sorted({int(value) for value in document_ids})
        matches: list[VectorMatch] = []
        # chromadb turns "$in" into one SQL variable per id: ask in parts, then keep the best overall.
        for start in range(0, len(wanted), _FILTER_BATCH):
            part = wanted[start : start + _FILTER_BATCH]
            matches += _nearest(target, vector, limit, {"document_id": {"$in": part}})
        matches.sort(key=lambda match: -match.similarity)
        return matches[:limit]

    def delete_documents(self, collection: str, document_ids: Sequence[int]) -> None:
        """Delete every vector of these documents."""
        if document_ids:
            target = self._collection(collection)
            for start in range(0, len(document_ids), 500):
                part = [int(value) for value in document_ids[start : start + 500]]
                target.delete(where={"document_id": {"$in": part}})

    def delete_stale_versions(
        self, collection: str, document_id: int, content_hash: str, chunk_count: int
    ) -> None:
        """Delete a document's vectors of any other content, or beyond its ``chunk_count`` chunks."""
        stale = [
            {"content_hash": {"$ne": content_hash[:HASH_PREFIX_LENGTH]}},
            {"ordinal": {"$gte": int(chunk_count)}},
        ]
        self._collection(collection).delete(
            where={"$and": [{"document_id": int(document_id)}, {"$or": stale}]}
        )

    def ordinals(self, collection: str, document_id: int, content_hash: str) -> set[int]:
        """Ordinals of the chunks of this version of a document that have vectors already (to resume)."""
        page = self._collection(collection).get(
            where={"$and": [{"document_id": int(document_id)},
                            {"content_hash": content_hash[:HASH_PREFIX_LENGTH]}]},
            include=[],
        )
        keys = (VectorKey.parse(vector_id) for vector_id in page["ids"])
        return {key.ordinal for key in keys if key is not None}

    def keys(self, collection: str, page_size: int = 5000) -> Iterator[VectorKey]:
        """Every key in a collection (for consistency checks; pages through the ids)."""
        target = self._collection(collection)
        offset = 0
        while True:
            page = target.get(include=[], limit=page_size, offset=offset)
            ids = page["ids"]
            for vector_id in ids:
                key = VectorKey.parse(vector_id)
                if key is not None:
                    yield key
            if len(ids) < page_size:
                return
            offset += page_size

    def collection_names(self) -> list[str]:
        """Names of every collection in the store (of any knowledge base sharing it)."""
        names = []
        for entry in self._connect().list_collections():
            names.append(entry if isinstance(entry, str) else entry.name)
        return names

    def count(self, collection: str) -> int:
        return int(self._collection(collection).count())

    def drop(self, collection: str) -> None:
        """Delete a whole collection (no error if it is already gone)."""
        self._collections.pop(collection, None)
        client = self._connect()
        try:
            client.delete_collection(collection)
        except Exception as error:  # chromadb raises NotFoundError/ValueError for a missing one
            if "does not exist" not in str(error).lower() and "not found" not in str(error).lower():
                raise VectorStoreError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "The vector collection {0} cannot be deleted: {1}."),
                    (collection, str(error)))) from error
