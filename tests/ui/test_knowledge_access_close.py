"""Closing the window's knowledge access never closes the knowledge base under a running indexing job."""

from __future__ import annotations

from pathlib import Path

from app.ui.knowledge.knowledge_access import KnowledgeAccess
from tests.fixtures.knowledge_base import SlowToStartKnowledgeBase


def test_the_owned_knowledge_base_closes_when_a_job_that_outlasts_close_ends(tmp_path: Path) -> None:
    kb = SlowToStartKnowledgeBase(tmp_path / "kb")
    access = KnowledgeAccess(lambda: kb, owns_knowledge_base=True)
    assert access.open() is kb
    assert kb.entered.wait(60)  # the resume job is in a step that does not look at cancel
    assert access.close(timeout=0.01) is False
    assert not kb.closed.is_set() and kb.documents() == []
    kb.release.set()
    assert kb.closed.wait(60) and kb.closes == 1


def test_a_knowledge_base_the_access_does_not_own_stays_open(tmp_path: Path) -> None:
    kb = SlowToStartKnowledgeBase(tmp_path / "kb")
    kb.release.set()
    access = KnowledgeAccess(lambda: kb)
    access.open()
    assert access.close() is True
    assert not kb.closed.is_set() and kb.documents() == []
    kb.close()
