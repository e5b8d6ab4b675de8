"""The retrieval check: sampling, the recall arithmetic (a fake question writer), and the real plumbing
with the tiny llama.cpp model writing the questions (gibberish, but through the real engine)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.kb.retrieval import SearchHit, SearchResult
from app.core.kb.retrieval_check import (
    CheckReport,
    Passage,
    found_at,
    report_lines,
    run_retrieval_check,
    sample_passages,
)
from app.core.services.retrieval_check import check_knowledge_base, engine_question_writer, first_question
from tests.fixtures.knowledge_base import open_knowledge_base

NOTES = {
    "otters.txt": "Sea otters eat sea urchins, crabs and clams, and they float on their backs while they eat "
                  "them, using a stone as a tool to open the shells.",
    "beavers.txt": "Beavers build dams from branches and mud across streams; the pond behind a dam protects "
                   "their lodge from wolves and keeps food reachable under winter ice.",
    "herons.txt": "Grey herons stand motionless in shallow water for many minutes and strike fish with a fast "
                  "thrust of the neck; they nest together in tall trees called heronries.",
    "bees.txt": "Honey bees tell their sisters where flowers are with a waggle dance whose angle points to the "
                "food relative to the sun and whose length says how far away it is.",
}


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text + "\n")
    (folder / "tiny.txt").write_text("Too short to sample.\n")
    with open_knowledge_base(tmp_path / "kb") as knowledge_base:
        knowledge_base.indexer().run([folder], ProgressTracker(), threading.Event())
        yield knowledge_base


def test_sampling_spreads_over_documents_skips_short_chunks_and_is_repeatable(kb: KnowledgeBase) -> None:
    passages = sample_passages(kb.database_path, 10, seed=1)
    names = sorted(Path(passage.path).name for passage in passages)
    assert names == sorted(NOTES), "one passage per document, the too-short one left out"
    assert sample_passages(kb.database_path, 10, seed=1) == passages
    assert len(sample_passages(kb.database_path, 2, seed=1)) == 2


def test_recall_counts_the_questions_whose_passage_is_in_the_top_k(kb: KnowledgeBase) -> None:
    passages = sample_passages(kb.database_path, 4, seed=0)
    asked: list[str] = []

    def writer(passage: str) -> str:
        """Good questions for otters and beavers, none for the others (an empty reply counts as missed)."""
        question = {"Sea otters": "What do sea otters use to open shells?",
                    "Beavers": "Why do beavers build dams?"}.get(passage.split(" eat")[0].split(" build")[0], "")
        asked.append(question)
        return question

    progress: list[tuple[int, int]] = []
    report = run_retrieval_check(kb, passages, writer, k=2, settings={"model": "MiniLM"},
                                 progress=lambda done, total: progress.append((done, total)))
    assert report.found == 2 and report.recall == pytest.approx(0.5)
    assert progress[-1] == (4, 4) and len(asked) == 4
    ranks = {Path(item.passage.path).name: item.rank for item in report.questions}
    assert ranks["otters.txt"] == 1 and ranks["beavers.txt"] == 1
    assert ranks["herons.txt"] is None and ranks["bees.txt"] is None
    document = report.to_dict()
    assert document["recall_at_k"] == 0.5 and document["settings"] == {"model": "MiniLM"}
    assert report_lines(report)[0].startswith("recall@2: 0.50 (2 of 4")


def test_cancel_stops_the_check_and_says_so(kb: KnowledgeBase) -> None:
    cancel = threading.Event()
    passages = sample_passages(kb.database_path, 4, seed=0)

    def writer(passage: str) -> str:
        cancel.set()
        return passage

    report = run_retrieval_check(kb, passages, writer, cancel=cancel)
    assert len(report.questions) == 1 and report.cancelled


def test_a_hit_overlapping_most_of_the_passage_counts_as_found() -> None:
    passage = Passage(7, 1, "/a.txt", None, 100, 200, "x" * 100)

    def hit(chunk_id: int, start: int, end: int, document_id: int = 1) -> SearchHit:
        return SearchHit(document_id, "/a.txt", None, "", "", 0.0, ("vector",), chunk_id, 0, start, end)

    assert found_at(passage, SearchResult("q", (hit(3, 0, 90), hit(7, 100, 200)), ())) == 2
    assert found_at(passage, SearchResult("q", (hit(9, 140, 260),), ())) == 1
    assert found_at(passage, SearchResult("q", (hit(9, 170, 260), hit(11, 100, 200, document_id=2)), ())) is None


def test_the_question_is_taken_from_the_models_reply() -> None:
    assert first_question("<think>hmm</think>\n\nQuestion: What do otters eat?\nMore text") == "What do otters eat?"
    assert first_question("  “水獭吃什么？”  ") == "水獭吃什么？"
    assert first_question("<think>never closed") == ""


def test_an_empty_knowledge_base_cannot_be_checked(tmp_path: Path) -> None:
    from app.core.kb.errors import KnowledgeBaseError

    with open_knowledge_base(tmp_path / "kb") as knowledge_base, pytest.raises(KnowledgeBaseError):
        check_knowledge_base(knowledge_base, lambda passage: passage)


def test_the_chat_model_writes_the_questions(kb: KnowledgeBase, tiny_gguf: Path) -> None:
    """Real llama.cpp engine with the tiny random model: the questions are gibberish, the plumbing is real."""
    from app.core.engines.manager import EngineManager
    from tests.core.planner.fake_hardware import cpu_only

    settings = Settings({"engine.threads": 2, "engine.warmup": False, "engine.backend": "llamacpp"})
    manager = EngineManager(lambda: cpu_only(), lambda: settings)
    manager.load(tiny_gguf, context_length=2048)
    try:
        report = check_knowledge_base(kb, engine_question_writer(manager, timeout_s=120), samples=3, k=5)
    finally:
        manager.unload()
    assert isinstance(report, CheckReport) and len(report.questions) == 3 and not report.cancelled
    assert 0.0 <= report.recall <= 1.0 and report.found == sum(1 for item in report.questions if item.rank)
    assert report.settings["embedding model"] == "all-MiniLM-L6-v2" and "reranking" in report.settings
