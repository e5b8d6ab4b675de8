"""The knowledge panel says which embedding model is in use and why (real knowledge base, real hardware probe)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.ui.knowledge_support import INDEXING_TIMEOUT_MS, knowledge_access

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.fixture
def access(tmp_path: Path) -> Iterator[KnowledgeAccess]:
    open_knowledge_base(tmp_path / "kb").close()  # an existing knowledge base: the panel opens it at start
    opened = knowledge_access(tmp_path / "kb")
    yield opened
    opened.close()


def test_the_panel_names_the_embedding_model_and_why(qtbot: Any, access: KnowledgeAccess) -> None:
    panel = KnowledgeBasePanel(access)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    panel.start()
    try:
        qtbot.waitUntil(panel.embedding_note.isVisible, timeout=INDEXING_TIMEOUT_MS)
        knowledge_base = access.knowledge_base
        assert knowledge_base is not None
        selection = knowledge_base.embedding_selection()
        text = panel.embedding_note.text()
        assert text.startswith(f"Using {selection.model}") and selection.wanted in text
        assert "because" in text or ":" in text
    finally:
        panel.shutdown()
