"""Light and dark looks: Fusion with a light or dark palette and the app's style sheet, following the system live."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

log = logging.getLogger(__name__)

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "resources"
"""``resources/`` beside the ``app`` package (in a checkout, and in an installed wheel, which ships it too)."""
STYLE_SHEET = RESOURCES_DIR / "styles" / "app.qss"
SYSTEM, LIGHT, DARK = "system", "light", "dark"
THEMES = (SYSTEM, LIGHT, DARK)
CONTROLLER_NAME = "unideskTheme"

_Role = QPalette.ColorRole
LIGHT_COLORS: dict[QPalette.ColorRole, str] = {  # Fusion's own light palette, written out so every platform agrees
    _Role.Window: "#efefef",
    _Role.WindowText: "#000000",
    _Role.Base: "#ffffff",
    _Role.AlternateBase: "#f7f7f7",
    _Role.ToolTipBase: "#ffffdc",
    _Role.ToolTipText: "#000000",
    _Role.Text: "#000000",
    _Role.PlaceholderText: "#6e6e6e",
    _Role.Button: "#efefef",
    _Role.ButtonText: "#000000",
    _Role.BrightText: "#ffffff",
    _Role.Highlight: "#308cc6",
    _Role.HighlightedText: "#ffffff",
    _Role.Accent: "#308cc6",
    _Role.Link: "#0b57d0",
    _Role.LinkVisited: "#7b1fa2",
    _Role.Light: "#ffffff",
    _Role.Midlight: "#cacaca",
    _Role.Mid: "#b8b8b8",
    _Role.Dark: "#9f9f9f",
    _Role.Shadow: "#767676",
}
DARK_COLORS: dict[QPalette.ColorRole, str] = {
    _Role.Window: "#202124",
    _Role.WindowText: "#e8eaed",
    _Role.Base: "#17181a",
    _Role.AlternateBase: "#26282b",
    _Role.ToolTipBase: "#2d2f33",
    _Role.ToolTipText: "#e8eaed",
    _Role.Text: "#e8eaed",
    _Role.PlaceholderText: "#9aa0a6",
    _Role.Button: "#2d2f33",
    _Role.ButtonText: "#e8eaed",
    _Role.BrightText: "#ff5252",
    _Role.Highlight: "#3d7bd9",
    _Role.HighlightedText: "#ffffff",
    _Role.Accent: "#3d7bd9",
    _Role.Link: "#8ab4f8",
    _Role.LinkVisited: "#c58af9",
    _Role.Light: "#3c4043",
    _Role.Midlight: "#34363a",
    _Role.Mid: "#5f6368",
    _Role.Dark: "#111214",
    _Role.Shadow: "#000000",
}
DISABLED_LIGHT, DISABLED_DARK = "#a0a0a0", "#7f8389"


@dataclass(frozen=True)
class StatusColors:
    """Colours that say how something stands (fit badges, failed documents), readable on the palette's base."""

    good: str
    warning: str
    bad: str
    muted: str


LIGHT_STATUS = StatusColors(good="#1e8e3e", warning="#b06000", bad="#c5221f", muted="#5f6368")
DARK_STATUS = StatusColors(good="#81c995", warning="#fdd663", bad="#f28b82", muted="#9aa0a6")


def is_dark(palette: QPalette) -> bool:
    """True when ``palette`` draws light text (on a dark base). Judged by the text, not the base: a widget
    whose style sheet makes its background transparent reports a black base in either theme."""
    return palette.color(QPalette.ColorRole.Text).lightness() >= 128


def status_colors(palette: QPalette) -> StatusColors:
    return DARK_STATUS if is_dark(palette) else LIGHT_STATUS


def _palette(colors: dict[QPalette.ColorRole, str], disabled: str) -> QPalette:
    palette = QPalette()
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role in (_Role.Text, _Role.ButtonText, _Role.WindowText, _Role.PlaceholderText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    palette.setColor(QPalette.ColorGroup.Disabled, _Role.Highlight, QColor(colors[_Role.Mid]))
    return palette


def light_palette() -> QPalette:
    return _palette(LIGHT_COLORS, DISABLED_LIGHT)


def dark_palette() -> QPalette:
    return _palette(DARK_COLORS, DISABLED_DARK)


def wants_dark(theme: str, system_scheme: Qt.ColorScheme) -> bool:
    """Whether ``theme`` (a ui.theme value) shows the dark palette when the system's scheme is ``system_scheme``."""
    if theme == DARK:
        return True
    if theme == LIGHT:
        return False
    return system_scheme == Qt.ColorScheme.Dark  # Light and Unknown (no preference) get the light look


def style_sheet_text(path: Path = STYLE_SHEET) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        log.warning("the style sheet %s could not be read: %s", path, error)
        return ""


class ThemeController(QObject):
    """The application's look, owned by the QApplication (its child): ``set_theme("light" | "dark" | "system")``.

    "system" follows ``QStyleHints.colorScheme()`` and switches when the platform's scheme changes while the
    app runs; "light" and "dark" force a palette (and tell the platform, e.g. for dark title bars).
    Applying a palette re-sets the style sheet: with an app-wide style sheet that is what makes Qt hand the
    new palette to every widget (a ``PaletteChange`` each), so widgets that bake colours can rebuild them.
    """

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.setObjectName(CONTROLLER_NAME)
        self._app = app
        self._theme = SYSTEM
        self._dark: bool | None = None
        self._fusion_set = False
        self._style_sheet = style_sheet_text()
        app.styleHints().colorSchemeChanged.connect(self._system_scheme_changed)

    @classmethod
    def of(cls, app: QApplication) -> ThemeController:
        """The controller of ``app`` (made on first use)."""
        for child in app.findChildren(QObject, CONTROLLER_NAME, Qt.FindChildOption.FindDirectChildrenOnly):
            if isinstance(child, ThemeController):
                return child
        return cls(app)

    @property
    def theme(self) -> str:
        return self._theme

    @property
    def dark(self) -> bool:
        """Whether the dark palette is on now."""
        return bool(self._dark)

    def set_theme(self, theme: str) -> None:
        """Apply a ui.theme value; anything unknown counts as "system"."""
        self._theme = theme if theme in THEMES else SYSTEM
        hints = self._app.styleHints()
        if hasattr(hints, "unsetColorScheme"):  # Qt 6.8+: tell the platform too (title bars, native dialogs)
            if self._theme == DARK:
                hints.setColorScheme(Qt.ColorScheme.Dark)
            elif self._theme == LIGHT:
                hints.setColorScheme(Qt.ColorScheme.Light)
            else:
                hints.unsetColorScheme()  # may report the system's scheme at once (handled below)
        self._apply(wants_dark(self._theme, hints.colorScheme()))

    def _system_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self._theme == SYSTEM:
            self._apply(wants_dark(SYSTEM, scheme))

    def _apply(self, dark: bool) -> None:
        app = self._app
        palette = dark_palette() if dark else light_palette()
        if dark == self._dark and app.palette() == palette and app.styleSheet() == self._style_sheet:
            return  # already on: no re-polish of every widget
        if not self._fusion_set:  # once: behind a style sheet app.style() no longer tells the base style
            fusion = QStyleFactory.create("Fusion")
            if fusion is not None:
                app.setStyle(fusion)
            self._fusion_set = True
        self._dark = dark
        app.setPalette(palette)
        app.setStyleSheet(self._style_sheet)  # re-set, even the same text: widgets take the new palette now
        log.info("theme %s: %s palette", self._theme, "dark" if dark else "light")


def apply_theme(app: QApplication, theme: str) -> ThemeController:
    """Give ``app`` the look of ``theme`` (the ui.theme setting) through its ThemeController."""
    controller = ThemeController.of(app)
    controller.set_theme(theme)
    return controller
