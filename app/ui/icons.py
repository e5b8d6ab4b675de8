"""The app's icons: small stroked SVGs drawn in the palette's text colour, crisp at any size and pixel ratio."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QIconEngine, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.ui.theme import RESOURCES_DIR

log = logging.getLogger(__name__)

ICONS_DIR = RESOURCES_DIR / "icons"
ICON_NAMES = frozenset({
    "new-chat", "send", "stop", "search", "knowledge-base", "models", "settings", "gauges",
    "add-files", "folder", "remove", "reindex", "reveal", "copy",
})
"""The icon set: ``resources/icons/<name>.svg``, each drawn in ``currentColor``."""
CURRENT_COLOR = "currentColor"
MAX_CACHED_PIXMAPS = 16


def icon_path(name: str, folder: Path = ICONS_DIR) -> Path:
    if name not in ICON_NAMES:
        raise ValueError(f"no icon named {name!r}; the set is {sorted(ICON_NAMES)}")
    return folder / f"{name}.svg"


def icon_color(palette: QPalette, mode: QIcon.Mode) -> QColor:
    """The colour an icon is drawn in: the button text colour, dimmed when disabled, on a highlight when selected."""
    if mode == QIcon.Mode.Disabled:
        return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
    if mode == QIcon.Mode.Selected:
        return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.HighlightedText)
    return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText)


class TintedSvgIconEngine(QIconEngine):
    """Renders an SVG whose strokes and fills say ``currentColor`` in the colour of the palette of the moment.

    Nothing is drawn ahead: each pixmap is rendered at the asked size times the device pixel ratio (a few
    are kept, keyed by size, ratio and colour), so icons are sharp at 200 % and follow a theme change on the
    next repaint.
    """

    def __init__(self, svg_source: str, name: str = "",
                 palette_source: Callable[[], QPalette] = QGuiApplication.palette) -> None:
        super().__init__()
        self._source = svg_source
        self._name = name
        self._palette_source = palette_source
        self._pixmaps: dict[tuple[int, int, float, int], QPixmap] = {}

    def clone(self) -> QIconEngine:
        return TintedSvgIconEngine(self._source, self._name, self._palette_source)

    def key(self) -> str:
        return "TintedSvgIconEngine"

    def iconName(self) -> str:
        return self._name

    def isNull(self) -> bool:
        return not self._source

    def renderer(self, color: QColor) -> QSvgRenderer:
        """A renderer of the SVG with ``currentColor`` replaced by ``color`` (its alpha applies when painting)."""
        tinted = self._source.replace(CURRENT_COLOR, color.name(QColor.NameFormat.HexRgb))
        return QSvgRenderer(QByteArray(tinted.encode("utf-8")))

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        color = icon_color(self._palette_source(), mode)
        painter.save()
        painter.setOpacity(painter.opacity() * color.alphaF())
        self.renderer(color).render(painter, _centred_square(QRectF(rect)))
        painter.restore()

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        """``size`` in device-independent pixels; the pixmap has ``size * scale`` real pixels and says so."""
        scale = scale if scale > 0 else 1.0
        color = icon_color(self._palette_source(), mode)
        key = (size.width(), size.height(), scale, color.rgba())
        cached = self._pixmaps.get(key)
        if cached is not None:
            return cached
        pixmap = QPixmap(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)))
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setOpacity(color.alphaF())
        self.renderer(color).render(painter, _centred_square(QRectF(pixmap.rect())))
        painter.end()
        pixmap.setDevicePixelRatio(scale)
        if len(self._pixmaps) >= MAX_CACHED_PIXMAPS:
            self._pixmaps.clear()
        self._pixmaps[key] = pixmap
        return pixmap


def _centred_square(rect: QRectF) -> QRectF:
    side = min(rect.width(), rect.height())
    return QRectF(rect.center().x() - side / 2, rect.center().y() - side / 2, side, side)


def themed_icon(name: str, folder: Path = ICONS_DIR) -> QIcon:
    """The icon ``name`` (one of ``ICON_NAMES``), drawn in the palette's text colour; an empty icon, logged,
    when its file cannot be read (a broken install shows text-only buttons rather than failing)."""
    path = icon_path(name, folder)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as error:
        log.warning("icon %s could not be read: %s", path, error)
        return QIcon()
    return QIcon(TintedSvgIconEngine(source, name))


def app_icon(folder: Path = ICONS_DIR) -> QIcon:
    """UniDesk's own (full-colour) logo, for the window and the task bar."""
    return QIcon(str(folder / "unidesk.svg"))
