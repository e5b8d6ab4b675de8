"""The embedding model as served in its child process (app.core.kb.model_process): load, then vectors per batch."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from app.core.kb.embedder import EmbeddingModelSource, LocalEmbeddingModel, ModelFacts, TokenCounter


class EmbeddingServer:
    """Loads the model exactly as the app's process would (:class:`LocalEmbeddingModel`) and answers:

    - ``encode(texts, query, batch_size)``: one float32 array per batch of ``batch_size`` texts, in order
      (a long request streams back as it is computed);
    - ``count(text)``: tokens of ``text``, for a model without a fast tokenizer.
    """

    def __init__(self, source: EmbeddingModelSource, device: str | None, cache_folder: Path | None) -> None:
        self.model = LocalEmbeddingModel(source, device, cache_folder)

    def ready(self) -> tuple[ModelFacts, TokenCounter | None]:
        """The model's facts, and its token counter when the parent can use it without PyTorch (fast)."""
        return self.model.facts, self.model.counter if self.model.counter.fast else None

    def handle(self, operation: str, *arguments: Any) -> Iterator[Any]:
        if operation == "encode":
            yield from self._encode(*arguments)
        elif operation == "count":
            yield self.model.counter.count(arguments[0])
        else:
            raise ValueError(f"unknown request {operation!r}")

    def _encode(self, texts: Sequence[str], query: bool, batch_size: int) -> Iterator[Any]:
        for start in range(0, len(texts), batch_size):
            yield self.model.encode(texts[start:start + batch_size], query=query, batch_size=batch_size)
