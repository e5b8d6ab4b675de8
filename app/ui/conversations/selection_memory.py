"""SelectionMemory: remembers which conversation was on show, in the window's ini file under the config dir."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

MEMORY_FILE_NAME = "window.ini"
SELECTED_KEY = "conversations/selected"


class SelectionMemory:
    """One key in the same ini file as the window layout (``--home`` keeps it inside the home)."""

    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / MEMORY_FILE_NAME
        self._store = QSettings(str(self.path), QSettings.Format.IniFormat)

    def selected(self) -> str | None:
        value = self._store.value(SELECTED_KEY)
        return value if isinstance(value, str) and value else None

    def remember(self, conversation_id: str | None) -> None:
        if conversation_id:
            self._store.setValue(SELECTED_KEY, conversation_id)
        else:
            self._store.remove(SELECTED_KEY)
        self._store.sync()
