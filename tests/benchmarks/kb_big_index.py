"""A large knowledge base for the query benchmarks, written through the KB's own storage code and cached.

Embedding 100k chunks takes ~20 minutes on 2 cores, so the index is built honestly but
cheaply: every chunk is a distinct generated text stored by the real catalog and chunk store
(documents rows, chunks rows, FTS5 keyword rows, vector-space membership) and a real chromadb
vector. Where the vectors come from is a :class:`VectorSource`: MiniLM embeddings of ``BASE_TEXTS``
base texts, each chunk beyond them a variant of one base text (35% of its words redrawn) whose vector is
the base's plus small Gaussian noise, renormalised (:func:`minilm_source`); or random unit vectors of a
model's dimension (:func:`random_unit_source`, for models that cannot be downloaded here).
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.kb.catalog import IndexedFacts, insert_pending, mark_indexed
from app.core.kb.chunk_store import insert_chunks
from app.core.kb.database import DATABASE_FILE_NAME, knowledge_base_id, open_database
from app.core.kb.documents import Chunk
from app.core.kb.embedder import Embedder
from app.core.kb.knowledge_base import CHROMA_FOLDER_NAME
from app.core.kb.spaces import add_member, ensure_target_space
from app.core.kb.vector_store import VectorKey, VectorStore
from app.core.util.sqlite import transaction
from tests.benchmarks.kb_instrument import log
from tests.benchmarks.kb_text import TextMaker

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

INDEX_VERSION = 2
"""Bump when the generated index changes, so stale cached ones are rebuilt."""
BASE_TEXTS = 2000
CHINESE_BASES_FROM = 1600  # bases 1600..1999 are Chinese: 20% of all chunks
CHUNKS_PER_DOCUMENT = 10
DOCUMENTS_PER_TRANSACTION = 200
VARIED_WORD_FRACTION = 0.35
NOISE_SIGMA = 0.025  # per dimension: base-to-variant cosine ~0.9 for 384 dimensions
SOURCE_FOLDER = "/unidesk-bench/generated"
COMPLETE_MARKER = "complete.json"


def vectors_description() -> str:
    return (f"real MiniLM vectors of {BASE_TEXTS} base texts; chunk i >= {BASE_TEXTS} is a variant of base "
            f"i mod {BASE_TEXTS} ({VARIED_WORD_FRACTION:.0%} of its words redrawn) with the base vector plus "
            f"N(0, {NOISE_SIGMA}^2) noise per dimension, normalised")


def is_chinese_chunk(index: int) -> bool:
    return index % BASE_TEXTS >= CHINESE_BASES_FROM


@dataclass(frozen=True)
class ChunkTexts:
    """The benchmark's chunk texts: base texts and their deterministic variants."""

    maker: TextMaker
    bases: tuple[str, ...]

    @classmethod
    def create(cls, maker: TextMaker | None = None) -> ChunkTexts:
        maker = maker or TextMaker.create()
        rng = random.Random(11)
        bases = []
        for index in range(BASE_TEXTS):
            if index >= CHINESE_BASES_FROM:
                bases.append(maker.chinese_paragraph(rng, rng.randint(180, 250)))
            else:
                bases.append(maker.english_paragraph(rng, rng.randint(140, 210)))
        return cls(maker, tuple(bases))

    def text(self, index: int, attempt: int = 0) -> str:
        base = self.bases[index % BASE_TEXTS]
        if index < BASE_TEXTS and attempt == 0:
            return base
        rng = random.Random(index * 7919 + attempt * 104729 + 1)
        return self.maker.vary(rng, base, VARIED_WORD_FRACTION, is_chinese_chunk(index))

    def digest(self) -> str:
        return hashlib.sha256("\x00".join(self.bases).encode()).hexdigest()[:12]


def base_vectors(texts: ChunkTexts, embedder: Embedder, cache_dir: Path) -> NDArray[np.float32]:
    """MiniLM vectors of the base texts (cached: embedding 2000 chunks takes minutes here)."""
    import numpy as np

    path = cache_dir / f"base-vectors-{embedder.source.key}-{texts.digest()}.npy"
    if path.exists():
        cached: NDArray[np.float32] = np.load(path)
        return cached
    rows = []
    for start in range(0, BASE_TEXTS, 256):
        log(f"query index: embedding base texts {start}..{min(start + 256, BASE_TEXTS)} of {BASE_TEXTS}")
        rows.append(embedder.embed_documents(list(texts.bases[start : start + 256])))
    vectors = np.concatenate(rows).astype(np.float32)
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{time.time_ns()}.npy")
    np.save(staging, vectors)
    staging.replace(path)
    return vectors


def _documents(texts: ChunkTexts, chunk_count: int, seen: set[str]) -> Iterator[tuple[int, list[str]]]:
    """(document number, its chunk texts) with every text distinct from all before it."""
    for document in range(chunk_count // CHUNKS_PER_DOCUMENT):
        chunk_texts = []
        for index in range(document * CHUNKS_PER_DOCUMENT, (document + 1) * CHUNKS_PER_DOCUMENT):
            attempt = 0
            text = texts.text(index)
            while text in seen:
                attempt += 1
                text = texts.text(index, attempt)
            seen.add(text)
            chunk_texts.append(text)
        yield document, chunk_texts


def _chunks(title: str, chunk_texts: list[str], token_counts: list[int]) -> list[Chunk]:
    chunks, offset = [], 0
    for ordinal, (text, tokens) in enumerate(zip(chunk_texts, token_counts, strict=True)):
        heading = (title, f"Section {ordinal // 3 + 1}")
        chunks.append(Chunk(ordinal, text, None, heading, offset, offset + len(text), tokens))
        offset += len(text) + 2
    return chunks


VectorBlock = Callable[[list[int]], "NDArray[np.float32]"]
"""Unit vectors (rows) for these chunk indexes, asked for in increasing order, each index once."""


@dataclass(frozen=True)
class VectorSource:
    """The vector space an index is built in: the model it names, its dimension, and its vectors."""

    model_name: str
    model_key: str
    dimension: int
    vectors: VectorBlock
    base_tokens: tuple[int, ...]
    """Token counts of the base texts (stored with each chunk)."""
    description: str
    tag: str
    """Part of the cache folder's name: indexes of different sources never mix."""


def minilm_source(texts: ChunkTexts, embedder: Embedder, cache_dir: Path) -> VectorSource:
    """MiniLM vectors of the base texts; every variant chunk is its base's vector plus noise."""
    import numpy as np

    vectors = base_vectors(texts, embedder, cache_dir)
    noise = np.random.default_rng(5)

    def block(rows: list[int]) -> NDArray[np.float32]:
        chosen = vectors[[row % BASE_TEXTS for row in rows]].copy()
        varied = np.array([row >= BASE_TEXTS for row in rows])
        chosen[varied] += noise.normal(0.0, NOISE_SIGMA, size=(int(varied.sum()), chosen.shape[1])).astype(
            np.float32)
        chosen /= np.linalg.norm(chosen, axis=1, keepdims=True)
        return chosen

    return VectorSource(embedder.model_name, embedder.source.key, int(vectors.shape[1]), block,
                        tuple(embedder.count_tokens(text) for text in texts.bases), vectors_description(),
                        embedder.source.key)


def random_unit_source(model_name: str, model_key: str, dimension: int, texts: ChunkTexts) -> VectorSource:
    """Random unit vectors of ``dimension`` (normal in every coordinate, normalised), seeded by the dimension:
    the cost of vector search depends on the dimension and the count, not on what the vectors mean."""
    import numpy as np

    generator = np.random.default_rng(dimension)

    def block(rows: list[int]) -> NDArray[np.float32]:
        chosen = generator.standard_normal((len(rows), dimension)).astype(np.float32)
        chosen /= np.linalg.norm(chosen, axis=1, keepdims=True)
        return chosen

    estimate = TextTokens()
    return VectorSource(
        model_name, model_key, dimension, block, tuple(estimate(text) for text in texts.bases),
        f"random unit vectors of dimension {dimension} (a stand-in for {model_name}, whose weights cannot be "
        "downloaded here); the query vector is made the same way, seeded by the question's text",
        f"random{dimension}",
    )


class TextTokens:
    """A token estimate without a model: CJK characters and words (what the chunk rows record)."""

    def __init__(self) -> None:
        import re

        self._pattern = re.compile(r"[\u4e00-\u9fff]|\w+")

    def __call__(self, text: str) -> int:
        return len(self._pattern.findall(text))


def build_index(folder: Path, chunk_count: int, texts: ChunkTexts, source: VectorSource) -> dict[str, Any]:
    """Write ``chunk_count`` chunks into a knowledge base at ``folder`` (KB's own storage classes)."""
    started = time.perf_counter()
    connection = open_database(folder / DATABASE_FILE_NAME)
    store = VectorStore(folder / CHROMA_FOLDER_NAME)
    with transaction(connection):
        space, _ = ensure_target_space(connection, knowledge_base_id(connection), source.model_name,
                                       source.model_key, source.dimension)
    seen: set[str] = set()
    pending: list[tuple[int, list[str]]] = []

    def flush() -> None:
        keys: list[VectorKey] = []
        rows: list[int] = []
        with transaction(connection):
            for document, chunk_texts in pending:
                chinese = is_chinese_chunk(document * CHUNKS_PER_DOCUMENT)
                path = f"{SOURCE_FOLDER}/{'zh' if chinese else 'en'}/doc-{document:06d}.{'txt' if chinese else 'md'}"
                body = "\n\n".join(chunk_texts)
                content_hash = hashlib.sha256(body.encode()).hexdigest()
                first = document * CHUNKS_PER_DOCUMENT
                tokens = [source.base_tokens[(first + i) % BASE_TEXTS] for i in range(len(chunk_texts))]
                document_id = insert_pending(connection, path, len(body.encode()), 0, SOURCE_FOLDER)
                insert_chunks(connection, document_id, _chunks(f"Document {document}", chunk_texts, tokens))
                mark_indexed(connection, document_id, IndexedFacts(
                    content_hash, len(body.encode()), 0, "text" if chinese else "markdown", f"Document {document}",
                    1, len(chunk_texts)))
                add_member(connection, space.collection, document_id)
                keys.extend(VectorKey(document_id, content_hash, i) for i in range(len(chunk_texts)))
                rows.extend(range(first, first + len(chunk_texts)))
        store.upsert(space.collection, keys, source.vectors(rows))
        pending.clear()

    for document, chunk_texts in _documents(texts, chunk_count, seen):
        pending.append((document, chunk_texts))
        if len(pending) >= DOCUMENTS_PER_TRANSACTION:
            flush()
            if (document + 1) % 2000 == 0:
                log(f"query index: {(document + 1) * CHUNKS_PER_DOCUMENT} of {chunk_count} chunks written")
    if pending:
        flush()
    stored = int(connection.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
    connection.close()
    stored_vectors = store.count(space.collection)
    if stored != chunk_count or stored_vectors != chunk_count:
        raise RuntimeError(f"built {stored} chunks and {stored_vectors} vectors, wanted {chunk_count}")
    return {"chunks": chunk_count, "documents": chunk_count // CHUNKS_PER_DOCUMENT,
            "collection": space.collection, "dimension": source.dimension,
            "build_seconds": round(time.perf_counter() - started, 1), "vectors": source.description}


def cached_index(
    cache_root: Path, chunk_count: int, texts: ChunkTexts, source: Callable[[], VectorSource], tag: str
) -> tuple[Path, dict[str, Any]]:
    """The knowledge-base folder holding ``chunk_count`` chunks with vectors of ``source`` (built on first use,
    named by ``tag``, the source's :attr:`VectorSource.tag`) and its facts."""
    import chromadb

    name = f"kb-index-{chunk_count}-{tag}-{texts.digest()}-chroma{chromadb.__version__}-v{INDEX_VERSION}"
    folder = cache_root / name
    marker = folder / COMPLETE_MARKER
    if marker.exists():
        facts: dict[str, Any] = json.loads(marker.read_text(encoding="utf-8"))
        facts["cached"] = True
        return folder, facts
    if folder.exists():  # an interrupted build
        shutil.rmtree(folder)
    made = source()
    log(f"query index: building {chunk_count} chunks in {folder} (cached for later runs)")
    facts = build_index(folder, chunk_count, texts, made)
    marker.write_text(json.dumps(facts, indent=2), encoding="utf-8")
    facts["cached"] = False
    return folder, facts
