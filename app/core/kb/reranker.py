"""Cross-encoder reranking of found passages: on by default where it pays, when the model is on this computer.

bge-reranker-v2-m3 (568M parameters, multilingual, Chinese and English) reads each question with
each candidate passage. On a GPU that is cheap for dozens of candidates; on a CPU each pair costs
tens of milliseconds per core, so only the top few are reordered, and on a small CPU not at all
(:func:`plan_reranking`).

Like the embedder, it runs in a child process where PyTorch cannot share the app's process
(app.core.kb.model_placement): the same loading code there, scores sent back.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.kb.errors import EmbeddingModelError
from app.core.kb.model_placement import Placement, choose_placement
from app.core.kb.model_process import ModelProcess

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


RERANKER_SERVER = "app.core.kb.reranker:RerankerServer"
"""What the reranker's child process serves (tests name their own)."""


def load_cross_encoder(name: str, device: str | None, cache_folder: Path | None) -> tuple[Any, str]:
    """The ``CrossEncoder`` named ``name`` (a folder or a hub id in the local cache) and the device it is on.

    Raises EmbeddingModelError saying why when it is not on this computer.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import CrossEncoder
    from transformers.utils import logging as transformers_logging

    from app.core.kb.embedder import pick_device

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    folder = Path(name).expanduser()
    location = str(folder.resolve()) if folder.is_dir() else name
    used_device = device or pick_device()
    try:
        model = CrossEncoder(
            location,
            device=used_device,
            cache_folder=str(cache_folder) if cache_folder else None,
            local_files_only=True,
        )
    except Exception as error:  # missing files surface as OSError, ValueError or HF errors
        log.info("reranker %s unavailable: %s", name, error)
        raise EmbeddingModelError(f"the reranker model {name!r} is not on this computer "
                                  "(unidesk kb model --download fetches it)") from error
    return model, used_device


def predict(model: Any, query: str, passages: Sequence[str]) -> list[float]:
    """The cross-encoder's score of each (query, passage) pair."""
    values = model.predict([(query, passage) for passage in passages], show_progress_bar=False,
                           convert_to_numpy=True)
    return [float(value) for value in values]


class RerankerServer:
    """The reranker as served in its child process: ``scores(query, passages)`` answers one list."""

    def __init__(self, name: str, device: str | None, cache_folder: Path | None) -> None:
        self.model, self.device = load_cross_encoder(name, device, cache_folder)

    def ready(self) -> str:
        return self.device

    def handle(self, operation: str, *arguments: Any) -> Iterator[list[float]]:
        if operation != "scores":
            raise ValueError(f"unknown request {operation!r}")
        query, passages = arguments
        yield predict(self.model, query, passages)


class Reranker:
    """A sentence-transformers ``CrossEncoder`` loaded offline on first use.

    It never raises for a missing model: :meth:`available` is then ``False`` and
    :attr:`unavailable_reason` says why, so search goes on without reranking. ``placement`` None: a child
    process where PyTorch cannot share this one (:func:`~app.core.kb.model_placement.choose_placement`).
    """

    def __init__(self, model_name: str, *, device: str | None = None, cache_folder: Path | None = None,
                 placement: Placement | None = None, child_server: str = RERANKER_SERVER) -> None:
        self.model_name = model_name.strip()
        self._device = device
        self._cache_folder = cache_folder
        self._placement = placement
        self._child_server = child_server
        self._lock = threading.Lock()
        self._model: Any = None
        self._process: ModelProcess | None = None
        self._tried = False
        self._used_device = ""
        self.unavailable_reason: str | None = None

    def available(self) -> bool:
        """Whether the model could be loaded (loads it on the first call)."""
        with self._lock:
            if not self._tried:
                self._tried = True
                self._load()
            return self._model is not None or self._process is not None

    def _load(self) -> None:
        if not self.model_name:
            self.unavailable_reason = "no reranker model is set (kb.reranker_model)"
            return
        placement = choose_placement(self._placement)
        log.info("reranker %s: %s", self.model_name, placement.reason)
        try:
            if placement.separate:
                process = ModelProcess(self._child_server, (self.model_name, self._device, self._cache_folder),
                                       name=self.model_name)
                self._used_device = process.start()
                self._process = process
            else:
                self._model, self._used_device = load_cross_encoder(self.model_name, self._device,
                                                                    self._cache_folder)
        except EmbeddingModelError as error:
            self.unavailable_reason = str(error.message)

    @property
    def child_pid(self) -> int | None:
        """The child process serving the model, if it runs in one and has started."""
        return self._process.pid if self._process is not None else None

    def close(self) -> None:
        """Stop the model's child process, if any (the next use starts it again)."""
        if self._process is not None:
            self._process.close()

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
            if self._process is not None:
                scores: list[float] = self._process.request("scores", query, list(passages))[0]
                return scores
            return predict(self._model, query, passages)
