"""WindowLayout: saves and restores the window's geometry, docks and splitter in an ini file under the config dir."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

LAYOUT_FILE_NAME = "window.ini"
LAYOUT_VERSION = 1
"""Bump when docks change so an old saved state is not applied to a different set of docks."""


class WindowLayout:
    """QSettings with an explicit ini path (``--home`` keeps it inside the home), never the platform default."""

    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / LAYOUT_FILE_NAME
        self._store = QSettings(str(self.path), QSettings.Format.IniFormat)

    def restore(self, window: QMainWindow, splitter: QSplitter) -> bool:
        """Apply the saved layout; False when there was none (the window keeps its defaults)."""
        geometry = self._store.value("window/geometry")
        state = self._store.value("window/state")
        sizes = self._store.value("window/splitter")
        restored = False
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            restored = window.restoreGeometry(geometry)
        if isinstance(state, QByteArray) and not state.isEmpty():
            restored = window.restoreState(state, LAYOUT_VERSION) or restored
        if isinstance(sizes, QByteArray) and not sizes.isEmpty():
            splitter.restoreState(sizes)
        return restored

    def save(self, window: QMainWindow, splitter: QSplitter) -> None:
        self._store.setValue("window/geometry", window.saveGeometry())
        self._store.setValue("window/state", window.saveState(LAYOUT_VERSION))
        self._store.setValue("window/splitter", splitter.saveState())
        self._store.sync()
