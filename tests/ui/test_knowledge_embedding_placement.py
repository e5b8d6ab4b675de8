"""The knowledge panel says where the embedding model runs and why; on a GPU build of llama.cpp it runs in a
child process, and indexing from the window works through it (English and Chinese)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.core.config import Settings
from app.core.kb.database import DATABASE_FILE_NAME
from app.core.kb.knowledge_base import KnowledgeBase
from app.ui.i18n import LanguageSwitcher
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from app.ui.knowledge.knowledge_dock import KnowledgeDock
from tests.ui.i18n_support import english_left, has_cjk_font
from tests.ui.knowledge_support import INDEXING_TIMEOUT_MS, wait_until_indexed

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
SEPARATE = "It runs in a process of its own: llama.cpp here is a GPU build"
SEPARATE_ZH = "它在独立进程中运行：此处的 llama.cpp 是 GPU 版本"


def test_on_a_gpu_build_the_panel_indexes_through_the_embedding_process_and_says_so(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, switcher: LanguageSwitcher, screenshot: Shot,
) -> None:
    fake_build = tmp_path / "llama-lib"
    fake_build.mkdir()
    (fake_build / "libggml-cuda.so").write_bytes(b"")  # llama.cpp's CUDA backend, as found on disk
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(fake_build))
    folder = tmp_path / "kb"
    opened: list[KnowledgeBase] = []

    def open_own() -> KnowledgeBase:  # its own embedder pool: a fresh model, placed by the rule
        knowledge_base = KnowledgeBase(folder, Settings({"kb.embedding_model": "all-MiniLM-L6-v2"}))
        opened.append(knowledge_base)
        return knowledge_base

    access = KnowledgeAccess(open_own, exists=lambda: (folder / DATABASE_FILE_NAME).is_file(),
                             owns_knowledge_base=True)
    document = tmp_path / "docs" / "harbour.txt"
    document.parent.mkdir()
    document.write_text("Ships enter the harbour at high tide.\n\nThe lighthouse guides them at night.\n")
    panel = KnowledgeBasePanel(access)
    dock = KnowledgeDock(panel)
    dock.resize(520, 640)
    qtbot.addWidget(dock)
    dock.show()
    qtbot.waitExposed(dock)
    panel.start()
    try:
        panel.add_paths([document])
        wait_until_indexed(qtbot, panel, [document])
        assert panel.table.records()[0].stage == "indexed"
        qtbot.waitUntil(lambda: SEPARATE in panel.embedding_note.text(), timeout=INDEXING_TIMEOUT_MS)
        embedder = opened[-1].embedders.get("all-MiniLM-L6-v2")
        assert embedder.child_pid is not None, "the vectors were made in the child process"
        assert opened[-1].search("when do ships enter the harbour", k=1).hits[0].text.startswith("Ships enter")
        screenshot(dock, "en-knowledge-embedding-own-process")

        assert switcher.apply("zh_CN") == "zh_CN"
        qtbot.waitUntil(lambda: SEPARATE_ZH in panel.embedding_note.text(), timeout=INDEXING_TIMEOUT_MS)
        assert english_left([panel.embedding_note.text()], ["kb.embedding_model"]) == []
        if has_cjk_font():
            screenshot(dock, "zh-knowledge-embedding-own-process")
    finally:
        panel.shutdown()
        access.close()
