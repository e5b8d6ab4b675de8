"""Cross-encoder reranking of found passages: on by default where it pays, when the model is on this computer.

bge-reranker-v2-m3 (568M parameters, multilingual, Chinese and English) reads each question with
each candidate passage. On a GPU that is cheap for dozens of candidates; on a CPU each pair costs
tens of milliseconds per core, so only the top few are reordered, and on a small CPU not at all
(:func:`plan_reranking`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_RERANKER_MODEL = "BAAI/bge-reranker-v2-m3"
GPU_POOL = 40
"""Candidates reordered on a GPU."""
CPU_POOL = 10
"""Candidates reordered on a CPU that has the cores for it."""
MIN_CPU_CORES = 4
"""Below this many logical cores a 568M-parameter cross-encoder costs seconds per question: off."""


@dataclass(frozen=True)
class RerankPlan:
    """How many of the top candidates to rerank (0: none), and why, in words for the user."""

    pool: int
    reason: str


def plan_reranking(device: str, cpu_cores: int, *, model_available: bool, unavailable_reason: str = "") -> RerankPlan:
    """Rerank on a GPU (top :data:`GPU_POOL`), on a CPU with enough cores (top :data:`CPU_POOL`), else not."""
    if not model_available:
        return RerankPlan(0, f"reranking is off: {unavailable_reason or 'no reranker model'}")
    if device in ("cuda", "mps"):
        return RerankPlan(GPU_POOL, f"reranking the top {GPU_POOL} candidates on the GPU")
    if cpu_cores >= MIN_CPU_CORES:
        return RerankPlan(CPU_POOL, f"reranking the top {CPU_POOL} candidates on the CPU")
    return RerankPlan(0, f"reranking is off: {cpu_cores} CPU cores and no GPU make it slower than it is worth")


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
        self._used_device = ""
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
        self._used_device = self._device or pick_device()
        try:
            return CrossEncoder(
                location,
                device=self._used_device,
                cache_folder=str(self._cache_folder) if self._cache_folder else None,
                local_files_only=True,
            )
        except Exception as error:  # missing files surface as OSError, ValueError or HF errors
            log.info("reranker %s unavailable: %s", self.model_name, error)
            self.unavailable_reason = (f"the reranker model {self.model_name!r} is not on this computer "
                                       "(unidesk kb model --download fetches it)")
            return None

    def plan(self) -> RerankPlan:
        """:func:`plan_reranking` for this model on this computer (checks the model is there, loading it)."""
        available = self.available()
        return plan_reranking(self._used_device.split(":")[0], os.cpu_count() or 1, model_available=available,
                              unavailable_reason=self.unavailable_reason or "")

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
