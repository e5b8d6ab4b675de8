"""GuiServices: the core objects the composition root builds and hands to the window (no globals)."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.engines.manager import EngineManager
from app.ui.state.live_settings import LiveSettings
from app.ui.state.machine_facts import MachineFacts


@dataclass(frozen=True)
class GuiServices:
    """The engine manager plus the settings and machine facts it reads (shared with the window)."""

    engine_manager: EngineManager
    live_settings: LiveSettings
    machine: MachineFacts
