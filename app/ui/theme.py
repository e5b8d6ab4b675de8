"""Light and dark looks: the Fusion style with a palette, plus the app's small style sheet."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

STYLE_SHEET = Path(__file__).resolve().parents[2] / "resources" / "styles" / "app.qss"


def dark_palette() -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#17181a",
        QPalette.ColorRole.AlternateBase: "#26282b",
        QPalette.ColorRole.ToolTipBase: "#2d2f33",
        QPalette.ColorRole.ToolTipText: "#e8eaed",
        QPalette.ColorRole.Text: "#e8eaed",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6",
        QPalette.ColorRole.Button: "#2d2f33",
        QPalette.ColorRole.ButtonText: "#e8eaed",
        QPalette.ColorRole.BrightText: "#ff5252",
        QPalette.ColorRole.Highlight: "#3d7bd9",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.Mid: "#5f6368",
        QPalette.ColorRole.Dark: "#111214",
        QPalette.ColorRole.Light: "#3c4043",
    }
    for role, color in roles.items():
        palette.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7f8389"))
    return palette


def apply_theme(app: QApplication, theme: str) -> None:
    """``theme`` is the ui.theme setting: "light", "dark" or "system" (the platform's own look)."""
    if app.style().name().lower() != "fusion":
        fusion = QStyleFactory.create("Fusion")
        if fusion is not None:
            app.setStyle(fusion)
    hints = app.styleHints()
    if theme == "dark":
        hints.setColorScheme(Qt.ColorScheme.Dark)
        app.setPalette(dark_palette())
    elif theme == "light":
        hints.setColorScheme(Qt.ColorScheme.Light)
        app.setPalette(app.style().standardPalette())
    else:
        hints.unsetColorScheme()
        app.setPalette(app.style().standardPalette())
    try:
        app.setStyleSheet(STYLE_SHEET.read_text(encoding="utf-8"))
    except OSError:
        app.setStyleSheet("")
