"""Optional cross-encoder reranking of found passages, when a reranker model is on this computer."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_RERANKER_MODEL = "cross-encoder/ms-marco-MiniLM-L-6-v2"


class Reranker:
    """A sentence-transformers ``CrossEncoder`` loaded offline on first use.

    It never raises for a missing model: :meth:`available` is then ``False`` and
    :attr:`unavailable_reason` says why, so search goes on without reranking.
    """

    def __init__(self, model_name: str, *, device: str | None = None, cache_folder: Path | None = None) -> None:
        self.model_name = model_name.strip()
        self._device = device
        self._cache_folder = cache_folder
        self._lock = threading.Lock()
        self._model: Any = None
        self._tried = False
        self.unavailable_reason: str | None = None

    def available(self) -> bool:
        """Whether the model could be loaded (loads it on the first call)."""
        with self._lock:
            if not self._tried:
                self._tried = True
                self._model = self._load()
            return self._model is not None

    def _load(self) -> Any:
        if not self.model_name:
            self.unavailable_reason = "no reranker model is set (kb.reranker_model)"
            return None
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import CrossEncoder
        from transformers.utils import logging as transformers_logging

        from app.core.kb.embedder import pick_device

        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        folder = Path(self.model_name).expanduser()
        location = str(folder.resolve()) if folder.is_dir() else self.model_name
        try:
            return CrossEncoder(
                location,
                device=self._device or pick_device(),
                cache_folder=str(self._cache_folder) if self._cache_folder else None,
                local_files_only=True,
            )
        except Exception as error:  # missing files surface as OSError, ValueError or HF errors
            log.info("reranker %s unavailable: %s", self.model_name, error)
            self.unavailable_reason = f"the reranker model {self.model_name!r} is not on this computer"
            return None

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """Relevance of each passage to the query (higher is better); needs :meth:`available`."""
        if not passages:
            return []
        if not self.available():
            raise RuntimeError(f"reranker unavailable: {self.unavailable_reason}")
        with self._lock:
            values = self._model.predict(
                [(query, passage) for passage in passages], show_progress_bar=False, convert_to_numpy=True
            )
        return [float(value) for value in values]
