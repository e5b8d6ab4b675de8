"""The knowledge panel says which embedding model is in use and why, and downloads the chosen one when asked."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.core.config import Settings
from app.core.kb.database import DATABASE_FILE_NAME
from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.models.hub import HubClient
from app.core.planner.embedders import EmbedderChoice
from app.core.util.translatable import Text
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from tests.fixtures.embedding_models import model_files, write_tiny_sentence_transformer
from tests.fixtures.fake_hub import running_fake_hub
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.ui.knowledge_support import INDEXING_TIMEOUT_MS, knowledge_access

E5 = "intfloat/multilingual-e5-small"

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


@pytest.fixture
def tiny_e5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_sentence_transformer(tmp_path_factory.mktemp("models") / "intfloat--multilingual-e5-small")


def _panel_over(qtbot: Any, folder: Path, pool: EmbedderPool) -> tuple[KnowledgeAccess, KnowledgeBasePanel]:
    """A shown panel over the knowledge base in ``folder`` (opened, or created, when the panel asks)."""
    access = KnowledgeAccess(lambda: KnowledgeBase(folder, Settings({}), pool),
                             exists=lambda: (folder / DATABASE_FILE_NAME).is_file(), owns_knowledge_base=True)
    panel = KnowledgeBasePanel(access)
    qtbot.addWidget(panel)
    panel.show()
    return access, panel


def _serve_e5(hub: Any, model: Path, panel: KnowledgeBasePanel) -> None:
    """Serve ``model`` as intfloat/multilingual-e5-small on ``hub`` and point the panel's downloads there."""
    for path, content in model_files(model).items():
        hub.add_file(E5, path, content, lfs=path.endswith(".safetensors"))
    panel.hub = lambda: HubClient(endpoint=hub.url, timeout_s=10)


def test_download_button_fetches_the_chosen_model_then_the_knowledge_base_switches(
    qtbot: Any, tmp_path: Path, tiny_e5: Path
) -> None:
    """A fake hub serves a tiny random sentence-transformers model as intfloat/multilingual-e5-small; the
    real download job, loader, indexing service and re-embedding run behind the panel."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "returns.txt").write_text("Returns are accepted within thirty days with the receipt.\n")
    pool = EmbedderPool(device="cpu", choice=EmbedderChoice(E5, Text("Test", "a test machine")))
    folder = tmp_path / "kb"
    with KnowledgeBase(folder, Settings({}), pool) as knowledge_base:
        knowledge_base.indexer().run([docs], ProgressTracker(), threading.Event())
    access, panel = _panel_over(qtbot, folder, pool)
    with running_fake_hub() as hub:
        _serve_e5(hub, tiny_e5, panel)
        panel.start()
        try:
            qtbot.waitUntil(panel.embedding.download_button.isVisible, timeout=INDEXING_TIMEOUT_MS)
            assert "until intfloat/multilingual-e5-small is downloaded" in panel.embedding_note.text()
            qtbot.mouseClick(panel.embedding.download_button, Qt.MouseButton.LeftButton)

            def switched() -> bool:
                opened = access.knowledge_base
                model = opened.stats().active_model if opened is not None else None
                return model is not None and model.endswith("intfloat--multilingual-e5-small")

            qtbot.waitUntil(switched, timeout=INDEXING_TIMEOUT_MS)
            qtbot.waitUntil(lambda: panel.embedding_note.text().startswith("Using ")
                            and "intfloat--multilingual-e5-small" in panel.embedding_note.text(),
                            timeout=INDEXING_TIMEOUT_MS)
            assert not panel.embedding.download_button.isVisible()
        finally:
            panel.shutdown()
            access.close()


def test_the_first_run_download_creates_the_knowledge_base_and_fetches_its_model(
    qtbot: Any, tmp_path: Path, tiny_e5: Path
) -> None:
    """No knowledge base yet (a first run): fetch_embedding_model opens one and downloads the chosen model."""
    pool = EmbedderPool(device="cpu", choice=EmbedderChoice(E5, Text("Test", "a test machine")))
    folder = tmp_path / "kb"
    access, panel = _panel_over(qtbot, folder, pool)
    with running_fake_hub() as hub:
        _serve_e5(hub, tiny_e5, panel)
        panel.start()  # nothing to open yet
        assert not access.exists()
        panel.fetch_embedding_model()
        try:
            qtbot.waitUntil(lambda: any(hub.cdn_requests()), timeout=INDEXING_TIMEOUT_MS)
            assert access.exists()
            qtbot.waitUntil(lambda: panel.embedding_note.text().startswith("Using ")
                            and "intfloat--multilingual-e5-small" in panel.embedding_note.text(),
                            timeout=INDEXING_TIMEOUT_MS)
        finally:
            panel.shutdown()
            access.close()
