"""What the composition root hands to a command or the GUI: paths, settings and how they loaded."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.config import Settings, SettingsLoadResult, SettingsStore
from app.core.config.paths import AppPaths


@dataclass(frozen=True)
class AppContext:
    """Objects built once at start-up and passed down (no globals)."""

    paths: AppPaths
    settings_store: SettingsStore
    settings_load: SettingsLoadResult
    log_file: Path

    @property
    def settings(self) -> Settings:
        return self.settings_load.settings
