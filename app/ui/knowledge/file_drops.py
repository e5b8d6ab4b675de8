"""Dropping files and folders from the desktop or file manager onto a widget: local paths out of drag data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QWidget

PathsHandler = Callable[[list[Path]], None]


def local_paths(mime: QMimeData | None) -> list[Path]:
    """The local files and folders a drag carries (web links and other data are ignored), de-duplicated."""
    if mime is None or not mime.hasUrls():
        return []
    paths: list[Path] = []
    for url in mime.urls():
        if url.isLocalFile():
            path = Path(url.toLocalFile())
            if path not in paths:
                paths.append(path)
    return paths


class FileDropFilter(QObject):
    """An event filter that takes drags of local files/folders and hands their paths to ``on_paths``.

    Other drags (text, web links) pass through untouched, so a text editor inside still takes text.
    ``on_drag_state(True/False)`` is told when a file drag enters and leaves (for a highlight).
    """

    def __init__(
        self,
        on_paths: PathsHandler,
        parent: QObject | None = None,
        *,
        on_drag_state: Callable[[bool], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._on_paths = on_paths
        self._on_drag_state = on_drag_state

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(
            event, (QDragEnterEvent, QDragMoveEvent)
        ):
            if local_paths(event.mimeData()):
                event.acceptProposedAction()
                if kind == QEvent.Type.DragEnter:
                    self._tell_drag_state(True)
                return True
            return False
        if kind == QEvent.Type.DragLeave:
            self._tell_drag_state(False)
            return False
        if kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            paths = local_paths(event.mimeData())
            if not paths:
                return False
            event.acceptProposedAction()
            self._tell_drag_state(False)
            self._on_paths(paths)
            return True
        return False

    def _tell_drag_state(self, active: bool) -> None:
        if self._on_drag_state is not None:
            self._on_drag_state(active)


def install_file_drop(
    widget: QWidget,
    on_paths: PathsHandler,
    *,
    on_drag_state: Callable[[bool], None] | None = None,
) -> FileDropFilter:
    """Make ``widget`` (and every child that takes drops itself, e.g. a text editor's viewport) hand
    dropped local files and folders to ``on_paths``. Returns the filter (owned by ``widget``)."""
    drop_filter = FileDropFilter(on_paths, widget, on_drag_state=on_drag_state)
    widget.setAcceptDrops(True)
    for target in [widget, *widget.findChildren(QWidget)]:  # viewports of scroll areas are children too
        if target is widget or target.acceptDrops():
            target.installEventFilter(drop_filter)
    return drop_filter
