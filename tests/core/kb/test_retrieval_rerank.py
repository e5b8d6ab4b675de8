"""Search details: optional cross-encoder rerank (a real CrossEncoder with random weights), notes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.kb.reranker import CPU_POOL, DEFAULT_RERANKER_MODEL, GPU_POOL, Reranker, plan_reranking
from app.core.kb.retrieval import SearchOptions, vector_weight
from tests.fixtures.knowledge_base import FAKE_READERS, open_knowledge_base

TEXTS = {
    "a.txt": "Otters float on their backs.\n\nOtters eat sea urchins.\n\nOtters hold hands when they sleep.",
    "b.txt": "Beavers build dams of wood.\n\nBeavers have flat tails.",
}


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BERT cross-encoder with random weights and MiniLM's tokenizer: real files, real loader."""
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from app.core.kb.embedder import resolve_embedding_model

    folder = tmp_path_factory.mktemp("cross-encoder")
    tokenizer = AutoTokenizer.from_pretrained(resolve_embedding_model("all-MiniLM-L6-v2").location)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=64, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def kb(tmp_path: Path, tiny_cross_encoder: Path) -> Iterator[KnowledgeBase]:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text)
    with open_knowledge_base(tmp_path / "kb", kb__reranker_model=str(tiny_cross_encoder)) as knowledge_base:
        knowledge_base.indexer(**FAKE_READERS).run([folder], ProgressTracker(), threading.Event())  # type: ignore[arg-type]
        yield knowledge_base


def test_rerank_orders_hits_by_the_cross_encoder(kb: KnowledgeBase, tiny_cross_encoder: Path) -> None:
    from sentence_transformers import CrossEncoder

    result = kb.search("what do otters eat", k=5, rerank=True)
    assert result.retrievers[-1] == "rerank" and not result.notes
    scores = [hit.rerank_score for hit in result.hits]
    assert all(score is not None for score in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    reference = CrossEncoder(str(tiny_cross_encoder), device="cpu")
    expected = reference.predict([("what do otters eat", result.hits[0].text)])
    assert result.hits[0].rerank_score == pytest.approx(float(expected[0]), abs=1e-4)


def test_a_missing_reranker_is_reported_not_fatal(tmp_path: Path) -> None:
    reranker = Reranker("no-such-org/no-such-reranker", device="cpu")
    assert not reranker.available()
    assert "not on this computer" in (reranker.unavailable_reason or "")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(TEXTS["a.txt"])
    with open_knowledge_base(tmp_path / "kb", kb__reranker=True,
                             kb__reranker_model="no-such-org/no-such-reranker") as kb:
        kb.indexer(**FAKE_READERS).run([folder], ProgressTracker(), threading.Event())  # type: ignore[arg-type]
        result = kb.search("otters")
        assert result.hits and "rerank" not in result.retrievers and not result.notes
        assert "not on this computer" in kb.rerank_plan().reason and kb.rerank_plan().pool == 0
        forced = kb.search("otters", rerank=True)
        assert forced.hits and "rerank" not in forced.retrievers
        assert any("reranking is unavailable" in note for note in forced.notes)


def test_an_empty_knowledge_base_answers_with_nothing_and_says_why(tmp_path: Path) -> None:
    with open_knowledge_base(tmp_path / "kb") as kb:
        result = kb.search("anything at all")
        assert result.hits == () and any("nothing has been embedded" in note for note in result.notes)
        assert kb.search("   ").hits == ()


def test_keyword_only_and_vector_only_searches(kb: KnowledgeBase) -> None:
    keyword = kb.search("", options=SearchOptions(use_vectors=False))
    assert keyword.hits == ()
    keyword = kb.search("beavers dams", options=SearchOptions(k=2, use_vectors=False))
    assert keyword.retrievers == ("keyword",) and all(hit.retrievers == ("keyword",) for hit in keyword.hits)
    vector = kb.search("rodents that build with wood", options=SearchOptions(k=1, use_keywords=False))
    assert vector.retrievers == ("vector",) and vector.hits[0].path.endswith("b.txt")


def test_vector_weight_falls_to_zero_when_half_the_query_is_unreadable() -> None:
    assert vector_weight(0.0) == 1.0 and vector_weight(0.25) == 0.5 and vector_weight(0.6) == 0.0


def test_an_unreadable_query_skips_the_vector_side(kb: KnowledgeBase) -> None:
    result = kb.search("水獭吃什么")
    assert "vector" not in result.retrievers


def test_keywords_still_answer_when_the_indexed_model_is_gone(kb: KnowledgeBase) -> None:
    from app.core.kb.database import open_database

    connection = open_database(kb.database_path)
    connection.execute("UPDATE vector_spaces SET model = 'deleted-org/deleted-model'")
    connection.close()
    result = kb.search("beavers dams", k=2)
    assert result.hits and result.retrievers == ("keyword",)
    assert any("vector search is unavailable" in note and "deleted-model" in note for note in result.notes)


def test_reranking_pays_on_a_gpu_and_on_a_cpu_with_cores_only() -> None:
    assert plan_reranking("cuda", 2, model_available=True).pool == GPU_POOL
    assert plan_reranking("mps", 2, model_available=True).pool == GPU_POOL
    assert plan_reranking("cpu", 8, model_available=True).pool == CPU_POOL
    small = plan_reranking("cpu", 2, model_available=True)
    assert small.pool == 0 and "2 CPU cores" in small.reason
    missing = plan_reranking("cuda", 64, model_available=False, unavailable_reason="no model here")
    assert missing.pool == 0 and "no model here" in missing.reason


def test_by_default_search_reranks_only_the_top_candidates_on_a_cpu(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.core.kb.reranker.os.cpu_count", lambda: 8)
    plan = kb.rerank_plan()
    assert plan.pool == CPU_POOL and "CPU" in plan.reason
    result = kb.search("what do otters eat", k=5)
    assert result.retrievers[-1] == "rerank"
    monkeypatch.setattr("app.core.kb.reranker.os.cpu_count", lambda: 2)
    assert "rerank" not in kb.search("what do otters eat", k=5).retrievers, "two cores: it would not pay"


def test_reranking_can_be_turned_off(tmp_path: Path, tiny_cross_encoder: Path) -> None:
    with open_knowledge_base(tmp_path / "kb", kb__reranker=False, kb__reranker_model=str(tiny_cross_encoder)) as kb:
        assert kb.rerank_plan().pool == 0 and "turned off" in kb.rerank_plan().reason


def test_a_downloaded_reranker_is_used_from_the_knowledge_base_folder(
    tiny_cross_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default model (bge-reranker-v2-m3) fetched from a fake hub into the knowledge base's folder by the
    real download job; the next plan finds it there at once."""
    from app.core.kb.embedding_choice import EMBEDDING_MODELS_FOLDER
    from app.core.models.hub import HubClient
    from app.core.services.embedding_download import start_embedding_download
    from tests.fixtures.embedding_models import model_files
    from tests.fixtures.fake_hub import running_fake_hub

    monkeypatch.setattr("app.core.kb.reranker.os.cpu_count", lambda: 8)
    with open_knowledge_base(tmp_path / "kb2") as fresh:
        missing = fresh.rerank_plan()
        assert missing.pool == 0 and "unidesk kb model --download" in missing.reason
        with running_fake_hub() as hub:
            for path, content in model_files(tiny_cross_encoder).items():
                hub.add_file(DEFAULT_RERANKER_MODEL, path, content, lfs=path.endswith(".safetensors"))
            job = start_embedding_download(HubClient(endpoint=hub.url, timeout_s=10), DEFAULT_RERANKER_MODEL,
                                           fresh.folder / EMBEDDING_MODELS_FOLDER)
            job.wait(timeout=120)
        plan = fresh.rerank_plan()
        assert plan.pool == CPU_POOL, plan.reason
