"""Helpers for the knowledge-base panel tests: a real knowledge base (bundled MiniLM) and simulated drops."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from app.core.kb.database import DATABASE_FILE_NAME
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from tests.fixtures.knowledge_base import open_knowledge_base

INDEXING_TIMEOUT_MS = 300_000  # loading the embedding model alone can take a minute on a busy machine


def knowledge_access(folder: Path, **settings: object) -> KnowledgeAccess:
    """Access to a real knowledge base in ``folder`` that the test owns (closed with the access)."""
    return KnowledgeAccess(
        lambda: open_knowledge_base(folder, **settings),
        exists=lambda: (folder / DATABASE_FILE_NAME).is_file(),
        owns_knowledge_base=True,
    )


def file_mime(paths: Sequence[Path]) -> QMimeData:
    """Drag data as a file manager makes it: file:// URLs."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path)) for path in paths])
    return mime


def drop_files(target: QWidget, paths: Sequence[Path]) -> tuple[bool, bool]:
    """Drag ``paths`` over ``target`` and drop them; whether the enter and the drop were accepted."""
    return drop_mime(target, file_mime(paths))


def drop_mime(target: QWidget, mime: QMimeData) -> tuple[bool, bool]:
    """Send the drag-enter and drop events a real drag over the middle of ``target`` would send."""
    middle = target.rect().center()
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(QPoint(middle), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    drop = QDropEvent(QPointF(middle), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)
    return enter.isAccepted(), drop.isAccepted()


def wait_until_indexed(qtbot: Any, panel: KnowledgeBasePanel, paths: Sequence[Path]) -> None:
    """Wait until the panel shows every path with a final state (embedded, or failed), and the job's end."""
    def settled() -> bool:
        shown = {record.path: record for record in panel.table.records()}
        progress = panel.progress.progress
        return not panel.indexing and progress is not None and progress.finished and all(
            str(path) in shown and shown[str(path)].stage in ("indexed", "failed") for path in paths)

    qtbot.waitUntil(settled, timeout=INDEXING_TIMEOUT_MS)
