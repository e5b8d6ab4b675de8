"""The embedder with the real bundled all-MiniLM-L6-v2: resolution, tokens, vectors, limits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.kb.embedder import (
    BUNDLED_MODEL_KEY,
    Embedder,
    effective_chunk_tokens,
    resolve_embedding_model,
)
from app.core.kb.errors import EmbeddingModelError
from tests.fixtures.knowledge_base import shared_embedder_pool


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return shared_embedder_pool().get("all-MiniLM-L6-v2")


def test_the_default_name_resolves_to_the_bundled_copy() -> None:
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", " ALL-minilm-l6-v2 "):
        source = resolve_embedding_model(name)
        assert source.bundled and source.key == BUNDLED_MODEL_KEY
        assert (Path(source.location) / "config.json").is_file()


def test_a_folder_resolves_to_itself_and_other_names_to_the_cache(tmp_path: Path) -> None:
    folder = resolve_embedding_model(str(tmp_path))
    assert folder.location == str(tmp_path.resolve()) and folder.key.startswith("folder:")
    other = resolve_embedding_model("BAAI/bge-m3")
    assert other.location == "BAAI/bge-m3" and not other.bundled


def test_nothing_is_loaded_until_first_use() -> None:
    embedder = Embedder("all-MiniLM-L6-v2", device="cpu")
    assert not embedder.loaded


def test_a_model_that_is_not_on_this_computer_is_a_clear_error() -> None:
    with pytest.raises(EmbeddingModelError, match="not available on this computer"):
        Embedder("no-such-org/no-such-embedding-model", device="cpu").load()
    with pytest.raises(EmbeddingModelError):
        resolve_embedding_model("  ")


def test_model_facts(embedder: Embedder) -> None:
    assert embedder.dimension == 384
    assert embedder.max_seq_length == 256
    assert embedder.device == "cpu"
    assert embedder.chunk_tokens_for(512) == 254, "min(kb.chunk_tokens, max_seq_length - 2)"
    assert embedder.chunk_tokens_for(128) == 128
    assert effective_chunk_tokens(4096, 8192) == 4096


def test_token_counts_use_the_model_tokenizer_without_special_tokens(embedder: Embedder) -> None:
    assert embedder.count_tokens("") == 0
    assert embedder.count_tokens("hello world") == 2
    long_text = "retrieval augmented generation " * 400
    assert embedder.count_tokens(long_text) > 256, "long texts are counted, not truncated"


def test_embeddings_are_unit_length_and_semantic(embedder: Embedder) -> None:
    vectors = embedder.embed_documents(
        ["The cat sleeps on the sofa.", "A kitten naps on the couch.", "Interest rates rose in May."]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > unrelated + 0.3
    query = embedder.embed_query("Where is the cat sleeping?")
    assert query.shape == (384,) and float(query @ vectors[0]) > float(query @ vectors[2])
    assert embedder.embed_documents([]).shape == (0, 384)


def test_unknown_token_fraction_shows_what_an_english_model_cannot_read(embedder: Embedder) -> None:
    assert embedder.unknown_token_fraction("How do bees find flowers?") == 0.0
    assert embedder.unknown_token_fraction("大熊猫每天吃多少竹子") > 0.5
    mixed = embedder.unknown_token_fraction("AlphaGo 战胜李世石")
    assert 0.0 < mixed < 1.0
