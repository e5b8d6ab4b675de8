"""LiveSettings: the settings in force now, readable from any thread, replaced when the user applies changes."""

from __future__ import annotations

import threading

from app.core.config import Settings


class LiveSettings:
    """Holds the current immutable Settings; workers (the engine manager) read it, the GUI replaces it."""

    def __init__(self, initial: Settings) -> None:
        self._lock = threading.Lock()
        self._settings = initial

    def get(self) -> Settings:
        """The settings in force now."""
        with self._lock:
            return self._settings

    def replace(self, settings: Settings) -> Settings:
        """Put ``settings`` in force; returns the ones they replace."""
        with self._lock:
            previous, self._settings = self._settings, settings
        return previous
