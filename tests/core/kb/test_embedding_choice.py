"""The default embedding model per machine, each family's prefixes, the bundled fallback, and the first-use
download (a fake hub serving a tiny random sentence-transformers model, loaded by the real loader)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.core.kb.embedder import Embedder
from app.core.kb.embedding_choice import (
    EMBEDDING_MODELS_FOLDER,
    FALLBACK_MODEL,
    download_folder,
    is_complete,
    select_embedding_model,
)
from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.models.hub import HubClient
from app.core.planner.embedders import (
    GIB,
    QWEN3_QUERY_INSTRUCTION,
    EmbedderChoice,
    embedder_memory_bytes,
    recommend_embedder,
    spec_for,
)
from app.core.services.embedding_download import model_files, start_embedding_download
from app.core.util.translatable import Text
from tests.fixtures import embedding_models
from tests.fixtures.fake_hub import running_fake_hub

E5 = "intfloat/multilingual-e5-small"


@pytest.fixture(scope="module")
def tiny_e5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random model in a folder named like a downloaded multilingual-e5-small."""
    return embedding_models.write_tiny_sentence_transformer(
        tmp_path_factory.mktemp("models") / "intfloat--multilingual-e5-small")


def test_the_planner_picks_a_multilingual_model_for_the_machine() -> None:
    assert recommend_embedder(None).model == E5
    assert recommend_embedder(2 * GIB).model == E5
    assert recommend_embedder(6 * GIB).model == "BAAI/bge-m3"
    assert recommend_embedder(None, unified_memory_bytes=64 * GIB).model == "BAAI/bge-m3"
    assert recommend_embedder(24 * GIB).model == "Qwen/Qwen3-Embedding-0.6B"
    reason = recommend_embedder(24 * GIB).reason
    assert isinstance(reason, Text) and "24 GiB" in str(reason)
    assert embedder_memory_bytes("auto") == embedder_memory_bytes(E5) > embedder_memory_bytes("all-MiniLM-L6-v2")
    assert embedder_memory_bytes("") == 0


def test_each_family_has_its_prefixes() -> None:
    assert (spec_for("intfloat/multilingual-e5-small").query_prefix, spec_for(E5).passage_prefix) == (
        "query: ", "passage: ")
    qwen = spec_for("/models/Qwen--Qwen3-Embedding-0.6B")
    assert qwen is not None and qwen.query_prefix.startswith(QWEN3_QUERY_INSTRUCTION) and qwen.passage_prefix == ""
    assert spec_for("BAAI/bge-m3").query_prefix == "" and spec_for("my-own-model") is None


def test_auto_falls_back_to_the_bundled_model_until_the_chosen_one_is_here(tmp_path: Path, tiny_e5: Path) -> None:
    choice = EmbedderChoice(E5, Text("Test", "a test machine"))
    missing = select_embedding_model("auto", tmp_path, lambda: choice)
    assert (missing.model, missing.wanted, missing.missing) == (FALLBACK_MODEL, E5, True)
    assert "until intfloat/multilingual-e5-small is downloaded" in str(missing.note)
    assert "a test machine" in str(missing.note)
    target = download_folder(tmp_path, E5)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(tiny_e5, target_is_directory=True)
    assert is_complete(target)
    present = select_embedding_model("auto", tmp_path, lambda: choice)
    assert (present.model, present.missing) == (str(target), False)
    explicit = select_embedding_model("my/model", tmp_path, lambda: pytest.fail("no choice needed"))
    assert explicit.model == "my/model" and "kb.embedding_model" in str(explicit.note)


def test_e5_questions_and_passages_get_their_prefixes(tiny_e5: Path) -> None:
    from sentence_transformers import SentenceTransformer

    embedder = Embedder(str(tiny_e5), device="cpu")
    raw = SentenceTransformer(str(tiny_e5), device="cpu")

    def plain(text: str) -> np.ndarray:
        return np.asarray(raw.encode([text], normalize_embeddings=True, prompt=""))[0]

    question = embedder.embed_query("退货政策是什么")
    assert np.allclose(question, plain("query: 退货政策是什么"), atol=1e-5)
    assert not np.allclose(question, plain("退货政策是什么"), atol=1e-3)
    passage = embedder.embed_documents(["退货须在三十天内办理"])[0]
    assert np.allclose(passage, plain("passage: 退货须在三十天内办理"), atol=1e-5)
    prefix_tokens = embedder.count_tokens("passage: ")
    assert embedder.chunk_tokens_for(4096) == embedder.max_seq_length - 2 - prefix_tokens


@pytest.fixture
def hub_with_tiny_e5(tiny_e5: Path) -> Iterator[HubClient]:
    with running_fake_hub() as hub:
        for path, content in embedding_models.model_files(tiny_e5).items():
            hub.add_file(E5, path, content, lfs=path.endswith(".safetensors"))
        hub.add_file(E5, "onnx/model.onnx", b"not wanted", lfs=True)
        yield HubClient(endpoint=hub.url, timeout_s=10)


def test_the_download_fetches_a_loadable_sentence_transformers_folder(
    hub_with_tiny_e5: HubClient, tmp_path: Path
) -> None:
    files = model_files(hub_with_tiny_e5, E5)
    assert "1_Pooling/config.json" in files and "model.safetensors" in files and "onnx/model.onnx" not in files
    job = start_embedding_download(hub_with_tiny_e5, E5, tmp_path)
    job.wait(timeout=120)
    assert job.progress().state == "finished" and job.progress().files_done == len(files)
    folder = download_folder(tmp_path, E5)
    assert is_complete(folder)
    assert Embedder(str(folder), device="cpu").embed_query("hello").shape == (32,)


def test_after_the_download_the_knowledge_base_re_embeds_and_switches(
    hub_with_tiny_e5: HubClient, tmp_path: Path
) -> None:
    """Real pipeline: indexed with the bundled fallback, then the chosen model arrives and the next run
    re-embeds into its space; search answers from the old vectors until the switch."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "returns.txt").write_text("Returns are accepted within thirty days with the receipt.\n")
    (docs / "shipping.txt").write_text("Parcels ship within two working days from the Leipzig warehouse.\n")
    pool = EmbedderPool(device="cpu", choice=EmbedderChoice(E5, Text("Test", "a test machine")))
    with KnowledgeBase(tmp_path / "kb", Settings({}), pool) as knowledge_base:
        assert knowledge_base.embedding_selection().missing
        knowledge_base.indexer().run([docs], ProgressTracker(), threading.Event())
        assert knowledge_base.stats().active_model == FALLBACK_MODEL
        job = start_embedding_download(hub_with_tiny_e5, E5, knowledge_base.folder / EMBEDDING_MODELS_FOLDER)
        job.wait(timeout=120)
        selection = knowledge_base.embedding_selection()
        assert not selection.missing and selection.model.endswith("intfloat--multilingual-e5-small")
        before = knowledge_base.search("thirty days receipt", k=2)
        assert before.hits[0].path.endswith("returns.txt") and "vector" in before.retrievers
        assert knowledge_base.stats().active_model == FALLBACK_MODEL, "old vectors answer until the switch"
        progress = ProgressTracker()
        summary = knowledge_base.indexer().run([], progress, threading.Event())
        assert summary.switched_model and knowledge_base.stats().active_model == selection.model
        result = knowledge_base.search("Leipzig warehouse", k=2)
        assert "vector" in result.retrievers and result.hits[0].path.endswith("shipping.txt")
