"""The knowledge base as one object: its folder, documents list, removal, search and indexers."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.kb.catalog import DocumentRecord, delete_document, get_document, list_documents
from app.core.kb.cleanup import clean_orphan_vectors
from app.core.kb.database import DATABASE_FILE_NAME, open_database
from app.core.kb.document_filter import DocumentFilter
from app.core.kb.embedder import Embedder, resolve_embedding_model
from app.core.kb.embedding_choice import (
    EMBEDDING_MODELS_FOLDER,
    EmbeddingSelection,
    downloaded_location,
    machine_choice,
    select_embedding_model,
)
from app.core.kb.errors import EmbeddingModelError, KnowledgeBaseError
from app.core.kb.indexer import Indexer, IndexingOptions
from app.core.kb.ingest_plan import forget_folder, request_paths, requested_paths, watched_folders
from app.core.kb.reranker import Reranker, RerankPlan
from app.core.kb.retrieval import RERANK_POOL, HybridSearcher, SearchOptions, SearchResult
from app.core.kb.spaces import active_space, all_spaces
from app.core.kb.vector_store import VectorStore
from app.core.planner.embedders import AUTOMATIC, EmbedderChoice
from app.core.util.sqlite import transaction
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "KnowledgeBaseErrors"

KB_FOLDER_NAME = "kb"
CHROMA_FOLDER_NAME = "chroma"


class EmbedderPool:
    """One :class:`Embedder` per model, made on first request and shared (indexing and search).

    ``auto`` (the default ``kb.embedding_model``) means the planner's model for this machine when it
    is on this computer (in ``models_dir`` or the Hugging Face cache), else the bundled fallback.
    """

    def __init__(
        self,
        *,
        device: str | None = None,
        cache_folder: Path | None = None,
        models_dir: Path | None = None,
        choice: EmbedderChoice | None = None,
    ) -> None:
        self._device = device
        self._cache_folder = cache_folder
        self.models_dir = models_dir
        self._choice = choice
        self._lock = threading.Lock()
        self._embedders: dict[str, Embedder] = {}

    def choice(self) -> EmbedderChoice:
        """The planner's embedding model for this machine (its hardware is probed once, when first needed)."""
        with self._lock:
            if self._choice is None:
                from app.core.hardware.probe import probe_hardware

                self._choice = machine_choice(probe_hardware(measure_bandwidth=False))
            return self._choice

    def selection(self, setting: str, models_dir: Path | None = None) -> EmbeddingSelection:
        """Which model ``setting`` means here, and why (see :func:`select_embedding_model`)."""
        return select_embedding_model(setting, models_dir or self.models_dir, self.choice)

    def get(self, model_name: str) -> Embedder:
        if model_name.strip().lower() == AUTOMATIC:
            model_name = self.selection(model_name).model
        key = resolve_embedding_model(model_name).key
        with self._lock:
            embedder = self._embedders.get(key)
            if embedder is None:
                embedder = Embedder(model_name, device=self._device, cache_folder=self._cache_folder)
                self._embedders[key] = embedder
            return embedder

    def close(self) -> None:
        """Stop the models' child processes, if they run in any (a later use starts them again)."""
        with self._lock:
            embedders = list(self._embedders.values())
        for embedder in embedders:
            embedder.close()

    def queries_waiting(self) -> int:
        """Questions being embedded by any model here (during a model switch searches use the old one)."""
        with self._lock:
            embedders = list(self._embedders.values())
        return sum(embedder.queries_waiting for embedder in embedders)


@dataclass(frozen=True)
class KnowledgeBaseStats:
    documents: int
    by_status: dict[str, int]
    chunks: int
    active_model: str | None
    building_model: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents, "by_status": dict(self.by_status), "chunks": self.chunks,
            "active_model": self.active_model, "building_model": self.building_model,
        }


class KnowledgeBase:
    """A knowledge base in ``folder`` (SQLite file and, unless a server is set, chromadb store)."""

    def __init__(self, folder: Path, settings: Settings, embedders: EmbedderPool | None = None) -> None:
        self.folder = folder
        self.settings = settings
        self.embedders = embedders or EmbedderPool()
        self._owns_embedders = embedders is None
        self.vector_store = VectorStore(folder / CHROMA_FOLDER_NAME, settings.str_value("kb.chroma_server_url"))
        self._lock = threading.RLock()
        self._connection: sqlite3.Connection = open_database(self.database_path)
        self._reranker: Reranker | None = None

    @classmethod
    def open(cls, paths: AppPaths, settings: Settings, embedders: EmbedderPool | None = None) -> KnowledgeBase:
        """The knowledge base under the app's data folder."""
        return cls(paths.data_dir / KB_FOLDER_NAME, settings, embedders)

    @property
    def database_path(self) -> Path:
        return self.folder / DATABASE_FILE_NAME

    def close(self) -> None:
        """Close the database and stop the model processes this knowledge base started (not a shared pool's)."""
        with self._lock:
            self._connection.close()
            if self._reranker is not None:
                self._reranker.close()
        if self._owns_embedders:
            self.embedders.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def documents(self) -> list[DocumentRecord]:
        with self._lock:
            return list_documents(self._connection)

    def document(self, document_id: int) -> DocumentRecord:
        with self._lock:
            record = get_document(self._connection, document_id)
        if record is None:
            raise KnowledgeBaseError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "There is no document {0} in the knowledge base."),
                     (document_id,)),
                Text(CONTEXT, QT_TRANSLATE_NOOP("KnowledgeBaseErrors", "See `unidesk kb list`.")),
            )
        return record

    def remove(self, document_id: int) -> DocumentRecord:
        """Remove a document (its file is untouched); its chunks, keywords and vectors go."""
        record = self.document(document_id)
        with self._lock:
            with transaction(self._connection):
                delete_document(self._connection, document_id)
            clean_orphan_vectors(self._connection, self.vector_store)
        return record

    def watched_folders(self) -> list[str]:
        with self._lock:
            return watched_folders(self._connection)

    def folder_state(self, folder: str) -> dict[str, tuple[int, int]]:
        """path -> (size, mtime_ns) of the documents under ``folder`` (what the watcher compares)."""
        prefix = folder.rstrip(os.sep) + os.sep
        with self._lock:
            rows = self._connection.execute(
                "SELECT path, size, mtime_ns FROM documents WHERE substr(path, 1, ?) = ?", (len(prefix), prefix)
            ).fetchall()
        return {str(row["path"]): (int(row["size"]), int(row["mtime_ns"])) for row in rows}

    def unwatch(self, folder: str) -> None:
        with self._lock:
            forget_folder(self._connection, folder)

    def request(self, paths: Sequence[Path]) -> None:
        """Remember that ``paths`` are to be added, so a request survives the app quitting before a run planned
        it; the next run takes it (:meth:`requested`) and forgets it once planned."""
        if paths:
            with self._lock, transaction(self._connection):
                request_paths(self._connection, paths)

    def requested(self) -> list[Path]:
        """Paths asked for that no run has planned yet."""
        with self._lock:
            return requested_paths(self._connection)

    def stats(self) -> KnowledgeBaseStats:
        with self._lock:
            records = list_documents(self._connection)
            chunks = int(self._connection.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
            spaces = all_spaces(self._connection)
        building = next((space.model for space in spaces if space.state != "active"), None)
        active = next((space.model for space in spaces if space.state == "active"), None)
        by_status = Counter(record.status.value for record in records)
        return KnowledgeBaseStats(len(records), dict(by_status), chunks, active, building)

    def embedding_selection(self) -> EmbeddingSelection:
        """The embedding model new vectors are made with, the one wanted, and why (for the window, `kb`)."""
        return self.embedders.selection(self.settings.str_value("kb.embedding_model"),
                                        self.folder / EMBEDDING_MODELS_FOLDER)

    def indexer(self, options: IndexingOptions | None = None, **overrides: Any) -> Indexer:
        """An indexer for this knowledge base with the embedding model of :meth:`embedding_selection`."""
        embedder = self.embedders.get(self.embedding_selection().model)
        overrides.setdefault("searches_waiting", lambda: self.embedders.queries_waiting() > 0)
        return Indexer(self.database_path, self.vector_store, embedder,
                       options or IndexingOptions.from_settings(self.settings), **overrides)

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        rerank: bool | None = None,
        options: SearchOptions | None = None,
        documents: DocumentFilter | None = None,
    ) -> SearchResult:
        """Hybrid search over indexed documents (vectors of the active model's space, and keywords);
        ``documents`` limits it to some documents (it overrides the one in ``options``)."""
        chosen = options or self._search_options(k, rerank)
        if documents is not None:
            chosen = dataclasses.replace(chosen, documents=documents)
        if chosen.k <= 0:
            raise KnowledgeBaseError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "KnowledgeBaseErrors", "The number of passages must be at least 1, not {0}."), (chosen.k,)))
        with self._lock:
            space = active_space(self._connection)
            embedder, reason = self._query_embedder(space.model if space is not None else None)
            searcher = HybridSearcher(
                self._connection, self.vector_store, embedder,
                space.collection if space is not None else None,
                self._reranker_for(chosen.rerank),
                vector_unavailable_reason=reason,
            )
            return searcher.search(query, chosen)

    def _query_embedder(self, model: str | None) -> tuple[Embedder | None, str]:
        """The model of the active vector space, or why there is none (then keywords alone answer)."""
        if model is None:
            return None, "nothing has been embedded yet"
        embedder = self.embedders.get(model)
        try:
            embedder.load()
        except EmbeddingModelError as error:
            return None, error.message
        return embedder, ""

    def _search_options(self, k: int | None, rerank: bool | None) -> SearchOptions:
        """Options from settings; ``rerank`` None follows kb.reranker and :meth:`rerank_plan`, True forces it."""
        top_k = k if k is not None else self.settings.int_value("kb.top_k")
        if rerank is not None:
            return SearchOptions(k=top_k, rerank=rerank)
        pool = self.rerank_plan().pool if self.settings.bool_value("kb.reranker") else 0
        return SearchOptions(k=top_k, rerank=pool > 0, rerank_pool=pool or RERANK_POOL)

    def rerank_plan(self) -> RerankPlan:
        """Whether searches rerank, how many candidates, and why (loads the reranker model the first time)."""
        if not self.settings.bool_value("kb.reranker"):
            return RerankPlan(0, "reranking is turned off in Settings (kb.reranker)")
        reranker = self._reranker_for(True)
        assert reranker is not None
        return reranker.plan()

    def _reranker_for(self, wanted: bool) -> Reranker | None:
        if not wanted:
            return None
        model = downloaded_location(self.folder / EMBEDDING_MODELS_FOLDER, self.settings.str_value("kb.reranker_model"))
        if self._reranker is None or self._reranker.model_name != model.strip():
            self._reranker = Reranker(model)
        return self._reranker
