"""Between runs the knowledge panel says what the knowledge base holds ("3 documents, all searchable"), also after a
relaunch, where the start-up check of the watched folder found nothing new: it no longer says "Done: 0 indexed"
above three indexed documents. A real knowledge base, in English and in Chinese."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.ui.i18n import LanguageSwitcher
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from tests.fixtures.documents import write_text
from tests.ui.i18n_support import english_left
from tests.ui.knowledge_support import INDEXING_TIMEOUT_MS, knowledge_access, wait_until_indexed

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]


def opened_panel(qtbot: Any, kb_folder: Path) -> tuple[KnowledgeBasePanel, Callable[[], None]]:
    """A panel over the knowledge base in ``kb_folder``, started as the window starts it; and how to close both."""
    access = knowledge_access(kb_folder)
    panel = KnowledgeBasePanel(access)
    panel.resize(520, 640)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    panel.start()

    def close() -> None:
        panel.shutdown()
        access.close()

    return panel, close


def settled(panel: KnowledgeBasePanel) -> bool:
    """No run is going on (none the service started by itself either) and the documents are shown."""
    service = panel.access.service
    job = service.current_job() if service is not None else None
    return not panel.indexing and (job is None or job.done) and bool(panel.table.records())


def test_a_relaunch_describes_the_knowledge_base_not_an_empty_run(
        qtbot: Any, tmp_path: Path, switcher: LanguageSwitcher, screenshot: Shot) -> None:
    folder = tmp_path / "notes"
    documents = [write_text(folder / f"note-{index}.md", f"# Note {index}\nThe heron number {index} nests here.\n",
                            "utf-8") for index in range(3)]
    panel, close = opened_panel(qtbot, tmp_path / "kb")
    try:
        panel.add_paths([folder])  # a watched folder, as the user had
        wait_until_indexed(qtbot, panel, documents)
        qtbot.waitUntil(lambda: settled(panel), timeout=INDEXING_TIMEOUT_MS)
        progress = panel.progress
        assert progress.phase_label.isVisible() and progress.phase_label.text() == "Done: 3 indexed."
        qtbot.waitUntil(lambda: progress.summary_label.text() == "3 documents, all searchable",
                        timeout=INDEXING_TIMEOUT_MS)
    finally:
        close()

    relaunched, close = opened_panel(qtbot, tmp_path / "kb")
    try:
        progress = relaunched.progress

        def described() -> bool:
            return settled(relaunched) and progress.summary_label.isVisible() and (
                progress.summary_label.text() == "3 documents, all searchable")

        qtbot.waitUntil(described, timeout=INDEXING_TIMEOUT_MS)
        assert not progress.phase_label.isVisible()  # whatever the start-up check found, it changed nothing
        assert "Done" not in progress.phase_label.text() or not progress.phase_label.isVisible()
        screenshot(relaunched, "kb-summary-relaunch")
        switcher.apply("zh_CN")
        qtbot.waitUntil(lambda: progress.summary_label.text() != "3 documents, all searchable", timeout=5_000)
        assert progress.summary_label.text() == "3 个文档，均可检索"
        assert english_left([progress.summary_label.text()], []) == []
        screenshot(relaunched, "kb-summary-relaunch-zh")
    finally:
        close()
