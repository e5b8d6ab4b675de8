"""The chromadb side: an embedded persistent store, ids derived from document, hash and ordinal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.kb.errors import VectorStoreError
from app.core.kb.spaces import collection_name
from app.core.kb.vector_store import VectorKey, VectorStore

HASH_A = "a" * 64
HASH_B = "b" * 64


def _vectors(count: int, seed: int = 0) -> np.ndarray:
    generator = np.random.default_rng(seed)
    vectors = generator.normal(size=(count, 8)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_vector_ids_round_trip() -> None:
    key = VectorKey(12, HASH_A, 3)
    assert key.vector_id == f"12-{'a' * 16}-3"
    parsed = VectorKey.parse(key.vector_id)
    assert parsed is not None and (parsed.document_id, parsed.ordinal) == (12, 3)
    assert parsed.matches_hash(HASH_A) and not parsed.matches_hash(HASH_B) and not parsed.matches_hash(None)
    assert VectorKey.parse("not-a-key") is None


def test_collection_names_are_valid_for_chromadb() -> None:
    name = collection_name("0123456789abcdef" * 2, "folder:/home/me/My Models/bge-m3 (v2)", 1024)
    assert name.startswith("kb-0123456789ab-") and 3 <= len(name) <= 512
    assert all(char.isalnum() or char in "._-" for char in name) and name[-1].isalnum()
    assert collection_name("x" * 32, "m", 384) != collection_name("x" * 32, "m", 768)


def test_upsert_query_and_persist_across_clients(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "chroma")
    vectors = _vectors(6)
    keys = [VectorKey(1, HASH_A, index) for index in range(6)]
    store.upsert("kb-test-space", keys, vectors)
    store.upsert("kb-test-space", keys, vectors)  # same ids: replaced, not duplicated
    assert store.count("kb-test-space") == 6
    matches = store.query("kb-test-space", vectors[4], 3)
    assert matches[0].key == VectorKey(1, HASH_A[:16], 4)
    assert matches[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert matches[0].similarity >= matches[1].similarity >= matches[2].similarity
    reopened = VectorStore(tmp_path / "chroma")
    assert reopened.count("kb-test-space") == 6
    assert "kb-test-space" in reopened.collection_names()


def test_query_on_an_empty_collection_returns_nothing(tmp_path: Path) -> None:
    assert VectorStore(tmp_path / "chroma").query("kb-empty", _vectors(1)[0], 5) == []


def test_deleting_documents_and_stale_versions(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "chroma")
    store.upsert("kb-s", [VectorKey(1, HASH_A, index) for index in range(3)], _vectors(3, 1))
    store.upsert("kb-s", [VectorKey(1, HASH_B, index) for index in range(4)], _vectors(4, 2))
    store.upsert("kb-s", [VectorKey(2, HASH_A, index) for index in range(2)], _vectors(2, 3))
    # Document 1 is now at version B with 2 chunks: old version A and ordinals 2, 3 of B go.
    store.delete_stale_versions("kb-s", 1, HASH_B, 2)
    remaining = sorted((key.document_id, key.content_hash, key.ordinal) for key in store.keys("kb-s"))
    assert remaining == [(1, HASH_B[:16], 0), (1, HASH_B[:16], 1), (2, HASH_A[:16], 0), (2, HASH_A[:16], 1)]
    store.delete_documents("kb-s", [2])
    assert {key.document_id for key in store.keys("kb-s")} == {1}


def test_keys_pages_through_large_collections(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "chroma")
    store.upsert("kb-p", [VectorKey(1, HASH_A, index) for index in range(25)], _vectors(25))
    assert sorted(key.ordinal for key in store.keys("kb-p", page_size=10)) == list(range(25))


def test_drop_removes_a_collection_and_tolerates_a_missing_one(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "chroma")
    store.upsert("kb-d", [VectorKey(1, HASH_A, 0)], _vectors(1))
    store.drop("kb-d")
    assert "kb-d" not in store.collection_names()
    store.drop("kb-d")


def test_a_bad_server_address_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VectorStoreError, match="not an http"):
        VectorStore(tmp_path, "ftp://example").count("kb-x")


def test_an_unreachable_server_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VectorStoreError, match="does not answer"):
        VectorStore(tmp_path, "http://127.0.0.1:9").count("kb-x")
