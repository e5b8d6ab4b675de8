"""The first window: appears at once, fills in the machine summary from a worker, shows bad settings."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from app.main import build_context
from app.ui.main_window import MainWindow


def test_window_shows_the_probe_result(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(build_context(str(tmp_path), verbose=False))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.hardware_report is not None, timeout=20000)
    assert "GiB" in window.machine_summary.text()
    assert not window.settings_banner.isVisible()
    window.shutdown()


def test_window_names_the_bad_setting(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings_file = tmp_path / "config" / "settings.toml"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text("version = 2\n[ui]\ntheme = \"purple\"\n", encoding="utf-8")
    window = MainWindow(build_context(str(tmp_path), verbose=False))
    qtbot.addWidget(window)
    window.show()
    assert window.settings_banner.isVisible()
    assert "ui.theme" in window.settings_banner.text()
    qtbot.waitUntil(lambda: window.hardware_report is not None, timeout=20000)
    window.shutdown()
