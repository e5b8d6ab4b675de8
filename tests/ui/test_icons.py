"""The icon set: valid SVGs drawn in ``currentColor``, rendered crisp at the device pixel ratio asked for,
re-tinted with the theme, put on the window's buttons, and shipped in the package."""

from __future__ import annotations

import logging
import tomllib
from collections import Counter
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QIcon, QImage, QPalette
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from app.ui.icons import ICON_NAMES, ICONS_DIR, app_icon, icon_path, themed_icon
from app.ui.theme import RESOURCES_DIR, apply_theme
from tests.ui.chat_support import ChatWindows, chat_of

pytestmark = pytest.mark.gui

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(qapp: Any) -> Iterator[QApplication]:
    assert isinstance(qapp, QApplication)
    yield qapp
    apply_theme(qapp, "light")


def opaque_pixels(image: QImage) -> list[QColor]:
    return [image.pixelColor(x, y) for y in range(image.height()) for x in range(image.width())
            if image.pixelColor(x, y).alpha() == 255]


def stroke_colour(icon: QIcon, mode: QIcon.Mode = QIcon.Mode.Normal) -> str:
    """The colour most of the icon's fully covered pixels have (the strokes are drawn in one colour; a few
    antialiased pixels may round one step off it)."""
    colours = Counter(colour.name() for colour in opaque_pixels(icon.pixmap(QSize(24, 24), 2.0, mode).toImage()))
    [(colour, count)] = colours.most_common(1)
    assert count > sum(colours.values()) / 2, colours
    return colour


@pytest.mark.parametrize("name", sorted(ICON_NAMES))
def test_each_icon_is_a_valid_svg_drawn_only_in_current_color(name: str) -> None:
    source = icon_path(name).read_text(encoding="utf-8")
    assert QSvgRenderer(source.encode("utf-8")).isValid()
    assert "currentColor" in source and "#" not in source  # no colour of its own: the palette decides


def test_an_icon_at_twice_the_pixel_ratio_has_twice_the_pixels_and_is_drawn(app: QApplication) -> None:
    icon = themed_icon("send")
    single, double = icon.pixmap(QSize(16, 16), 1.0), icon.pixmap(QSize(16, 16), 2.0)
    assert (single.width(), single.height(), single.devicePixelRatio()) == (16, 16, 1.0)
    assert (double.width(), double.height(), double.devicePixelRatio()) == (32, 32, 2.0)
    assert double.deviceIndependentSize().toSize() == QSize(16, 16)  # same size on screen, sharper
    covered_single = len(opaque_pixels(single.toImage()))
    covered_double = len(opaque_pixels(double.toImage()))
    assert covered_single > 0 and covered_double > 2 * covered_single  # drawn at 2x, not blank


def test_icons_take_the_palette_text_colour_and_follow_the_theme(app: QApplication) -> None:
    icon = themed_icon("settings")
    apply_theme(app, "light")
    light = stroke_colour(icon)
    light_disabled = stroke_colour(icon, QIcon.Mode.Disabled)
    apply_theme(app, "dark")
    dark = stroke_colour(icon)  # the same QIcon, re-tinted: nothing to replace on a theme switch
    palette = app.palette()
    assert dark == palette.color(QPalette.ColorRole.ButtonText).name()
    assert QColor(dark).lightness() > 200 and QColor(light).lightness() < 60
    assert light_disabled not in (light, dark)


def test_the_window_buttons_carry_icons_that_re_tint(app: QApplication, chat_windows: ChatWindows) -> None:
    window = chat_windows.open()
    view, sidebar, _store = chat_of(window)
    buttons = [view.composer.send_button, view.composer.stop_button, sidebar.new_button]
    actions = [window.load_action, window.load_folder_action, window.settings_action]
    assert all(not button.icon().isNull() for button in buttons)
    assert all(not action.icon().isNull() for action in actions)
    light = stroke_colour(view.composer.send_button.icon())
    apply_theme(app, "dark")
    assert stroke_colour(view.composer.send_button.icon()) != light


def test_a_missing_file_gives_an_empty_icon_and_unknown_names_are_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert themed_icon("send", folder=tmp_path).isNull()
    assert "send.svg" in caplog.text
    with pytest.raises(ValueError, match="no icon named"):
        themed_icon("rocket")
    assert not app_icon().isNull()


def test_the_icons_ship_in_the_package() -> None:
    """pyproject's package data covers every icon (and the style sheet), where the app looks for them."""
    assert ICONS_DIR.parent == RESOURCES_DIR == REPOSITORY / "resources"
    config = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert any(fnmatch("resources", pattern) for pattern in config["packages"]["find"]["include"])
    package_data: dict[str, list[str]] = config["package-data"]
    shipped = [REPOSITORY / package.replace(".", "/") / pattern
               for package, patterns in package_data.items() for pattern in patterns]
    files = [*sorted(ICONS_DIR.glob("*.svg")), RESOURCES_DIR / "styles" / "app.qss"]
    assert len(files) > len(ICON_NAMES)
    for file in files:
        assert any(fnmatch(str(file), str(pattern)) for pattern in shipped), f"{file} would not be shipped"
