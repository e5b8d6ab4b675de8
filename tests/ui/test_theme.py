"""The theme controller: light and dark forced, "system" following the platform's colour scheme while running,
one controller per application, and widgets that bake colours (document states) re-tinted on a switch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.models import load_catalog
from app.core.models.fit import VariantFit
from app.ui.knowledge.document_table import STATUS, DocumentTable
from app.ui.models.catalog_tree import FIT, CatalogTree
from app.ui.theme import (
    DARK_STATUS,
    LIGHT_STATUS,
    ThemeController,
    apply_theme,
    dark_palette,
    is_dark,
    light_palette,
    wants_dark,
)

pytestmark = pytest.mark.gui


@pytest.fixture
def app(qapp: Any) -> Iterator[QApplication]:
    """The test application, put back to the light look the other tests expect."""
    assert isinstance(qapp, QApplication)
    yield qapp
    apply_theme(qapp, "light")


def window_is_dark(app: QApplication) -> bool:
    return app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def system_switches_to(app: QApplication, scheme: Qt.ColorScheme) -> None:
    """What the platform does when the user flips the desktop's light/dark switch."""
    app.styleHints().colorSchemeChanged.emit(scheme)


@pytest.mark.parametrize(("theme", "scheme", "dark"), [
    ("dark", Qt.ColorScheme.Light, True),
    ("light", Qt.ColorScheme.Dark, False),
    ("system", Qt.ColorScheme.Dark, True),
    ("system", Qt.ColorScheme.Light, False),
    ("system", Qt.ColorScheme.Unknown, False),
])
def test_forced_themes_ignore_the_system_and_system_follows_it(theme: str, scheme: Qt.ColorScheme, dark: bool) -> None:
    assert wants_dark(theme, scheme) is dark


def test_palettes_read_as_their_names_say() -> None:
    assert is_dark(dark_palette()) and not is_dark(light_palette())
    for palette in (light_palette(), dark_palette()):
        text = palette.color(QPalette.ColorRole.Text).lightness()
        base = palette.color(QPalette.ColorRole.Base).lightness()
        assert abs(text - base) > 150  # text reads on its base
        disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
        assert disabled != palette.color(QPalette.ColorRole.ButtonText)


def test_one_controller_per_application_applies_forced_themes(app: QApplication) -> None:
    controller = apply_theme(app, "dark")
    assert ThemeController.of(app) is controller and controller.parent() is app
    assert controller.theme == "dark" and controller.dark and window_is_dark(app)
    assert "settingsBanner" in app.styleSheet()  # the app's style sheet stays on
    assert apply_theme(app, "light") is controller
    assert not controller.dark and not window_is_dark(app)
    assert len([child for child in app.children() if isinstance(child, ThemeController)]) == 1


def test_system_theme_follows_the_platform_switch_while_running(app: QApplication) -> None:
    controller = apply_theme(app, "system")
    assert not window_is_dark(app)  # the offscreen platform states no preference: light
    system_switches_to(app, Qt.ColorScheme.Dark)
    assert controller.dark and window_is_dark(app)
    system_switches_to(app, Qt.ColorScheme.Light)
    assert not controller.dark and not window_is_dark(app)

    apply_theme(app, "light")  # forced: the platform's switch no longer matters
    system_switches_to(app, Qt.ColorScheme.Dark)
    assert not window_is_dark(app)
    apply_theme(app, "purple")  # not a theme: treated as "system"
    assert controller.theme == "system"


def test_failed_documents_are_re_tinted_when_the_theme_changes(qtbot: Any, app: QApplication) -> None:
    table = DocumentTable()
    qtbot.addWidget(table)
    table.show()
    qtbot.waitExposed(table)
    failed = DocumentRecord(1, "/docs/broken.pdf", None, None, 10, 0, "pdf", None, 0, 0, DocumentStatus.FAILED,
                            "unreadable", "the file is damaged", None, 0.0, 0.0)
    table.show_documents([failed])
    item = table.topLevelItem(0)
    assert item is not None
    light_colour = item.foreground(STATUS).color().name()
    apply_theme(app, "dark")
    dark_colour = item.foreground(STATUS).color().name()
    assert (light_colour, dark_colour) == (LIGHT_STATUS.bad, DARK_STATUS.bad)
    assert item.foreground(STATUS).color().lightness() > table.palette().color(QPalette.ColorRole.Base).lightness()


def test_fit_badges_are_re_tinted_when_the_theme_changes(qtbot: Any, app: QApplication) -> None:
    catalog = load_catalog()
    tree = CatalogTree(catalog)
    qtbot.addWidget(tree)
    tree.show()
    qtbot.waitExposed(tree)
    model = next(iter(catalog))
    variant = model.variants[0]
    fit = VariantFit(model.id, variant.id, "too_big", "llamacpp", 8192, 1, 10 * 1024**3, 4 * 1024**3, -1.5, None,
                     "needs more memory than there is")
    tree.show_fits((fit,))
    model_row = tree.topLevelItem(0)
    assert model_row is not None
    badge = model_row.child(0)  # the first variant's row
    light_colour = badge.foreground(FIT).color().name()
    apply_theme(app, "dark")
    assert (light_colour, badge.foreground(FIT).color().name()) == (LIGHT_STATUS.bad, DARK_STATUS.bad)
