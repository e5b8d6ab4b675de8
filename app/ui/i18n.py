"""The window's language: Qt translators for the ui.language setting (system, en, zh_CN), switchable while running.

Installing or removing a translator makes Qt post ``QEvent.LanguageChange`` to every widget (they
get it on the next turn of the event loop); widgets whose ``retranslate_ui`` method re-sets their texts
(installed with :func:`follow_language`, or called from ``changeEvent``) switch language in place, without
losing what they show. Texts handed in from outside are a :data:`TextSource` so they can be written again;
the core's own words come as :class:`~app.core.util.translatable.Text`, which :func:`render` translates.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QObject, QTranslator, Signal
from PySide6.QtWidgets import QAbstractButton, QDockWidget, QMainWindow, QToolButton

from app.core.util.translatable import LAYOUT, Text

log = logging.getLogger(__name__)

TRANSLATIONS_DIR = Path(__file__).resolve().parents[2] / "resources" / "translations"
APP_CATALOG = "unidesk"
ENGLISH, SIMPLIFIED_CHINESE = "en", "zh_CN"
SUPPORTED_LANGUAGES = (ENGLISH, SIMPLIFIED_CHINESE)
QT_CATALOGS = ("qtbase",)
"""Qt's own translations (standard buttons such as OK/Cancel, file dialogs)."""

TextSource = str | Callable[[], str]
"""A text handed to a widget: fixed (names, data), a core :class:`~app.core.util.translatable.Text` (translated by
:func:`render`), or a function that writes it in the current language
(``lambda: self.tr("Loading {0}…").format(name)``), so the widget can write it again after a language switch."""


def resolve_language(setting: str, system: QLocale | None = None) -> str:
    """The language to show for a ``ui.language`` value: ``en`` or ``zh_CN``.

    ``system`` (or anything unknown) follows the system locale: any Chinese locale gets Simplified
    Chinese (the only Chinese translation there is), every other language English.
    """
    if setting in SUPPORTED_LANGUAGES:
        return setting
    locale = system if system is not None else QLocale.system()
    return SIMPLIFIED_CHINESE if locale.language() == QLocale.Language.Chinese else ENGLISH


def translation_file(language: str, folder: Path = TRANSLATIONS_DIR) -> Path:
    """The compiled catalogue of ``language`` (``resources/translations/unidesk_zh_CN.qm``)."""
    return folder / f"{APP_CATALOG}_{language}.qm"


class LanguageSwitcher(QObject):
    """Keeps the translators of the current language installed on the application.

    ``apply(setting)`` switches (at start-up and whenever the setting changes); ``language_changed(code)``
    follows. English needs no translator: the source strings are English.
    """

    language_changed = Signal(str)

    def __init__(
        self,
        app: QCoreApplication,
        *,
        translations_dir: Path = TRANSLATIONS_DIR,
        qt_translations_dir: Path | None = None,
    ) -> None:
        super().__init__(app)
        self._app = app
        self._translations_dir = translations_dir
        self._qt_translations_dir = qt_translations_dir or Path(
            QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
        self._installed: list[QTranslator] = []
        self.language = ENGLISH

    def apply(self, setting: str) -> str:
        """Show the language ``setting`` asks for; returns the language now shown."""
        wanted = resolve_language(setting)
        if wanted == self.language:
            return wanted
        translators = self._load(wanted)
        if wanted != ENGLISH and not translators:
            return self.language
        for translator in self._installed:
            self._app.removeTranslator(translator)
        self._installed = translators
        for translator in translators:
            self._app.installTranslator(translator)
        self.language = wanted
        self.language_changed.emit(wanted)
        return wanted

    def _load(self, language: str) -> list[QTranslator]:
        if language == ENGLISH:
            return []
        app_translator = QTranslator(self)
        path = translation_file(language, self._translations_dir)
        if not app_translator.load(str(path)):
            log.warning("the %s translation %s could not be loaded; staying in %s", language, path, self.language)
            return []
        translators = [app_translator]
        for catalog in QT_CATALOGS:
            qt_translator = QTranslator(self)
            if qt_translator.load(f"{catalog}_{language}", str(self._qt_translations_dir)):
                translators.append(qt_translator)
        return translators


def translate(context: str, text: str) -> str:
    """``text`` in the current language. Call it with literal strings (``translate("Context", "Text")``):
    pyside6-lupdate finds only those."""
    return QCoreApplication.translate(context, text)


def duration_text(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``1 h 5 min`` (translated)."""
    total = max(0, round(seconds))
    if total < 60:
        return translate("Units", "{0} s").format(total)
    minutes, secs = divmod(total, 60)
    if minutes < 60:
        return translate("Units", "{0} min {1} s").format(minutes, secs)
    hours, minutes = divmod(minutes, 60)
    return translate("Units", "{0} h {1} min").format(hours, minutes)


def render(text: Text | str) -> str:
    """A core text in the current language: a :class:`~app.core.util.translatable.Text`'s template translated in its
    context, then formatted with its arguments (the Texts among them rendered the same way); a plain string
    (a name, a path, the core's untranslated English) as it is."""
    if not isinstance(text, Text):
        return text
    template = text.template
    if text.context != LAYOUT:
        translated = QCoreApplication.translate(text.context, template)
        template = translated.lower() if text.lowercase and translated == template else translated
    try:
        return text.with_template(template, render)
    except (IndexError, KeyError, ValueError):
        log.warning("the translation of %r does not fit its arguments; showing the English", text.template)
        return str(text)


def rendered(text: TextSource) -> str:
    """``text`` as it reads now: what its function writes in the current language, or the string rendered
    (:func:`render`)."""
    return text() if callable(text) else render(text)


class LanguageChangeFilter(QObject):
    """Runs ``retranslate`` whenever the object it watches (its parent) gets ``QEvent.LanguageChange``."""

    def __init__(self, watched: QObject, retranslate: Callable[[], None]) -> None:
        super().__init__(watched)
        self._retranslate = retranslate
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False


def follow_language(watched: QObject, retranslate: Callable[[], None]) -> LanguageChangeFilter:
    """Write ``watched``'s texts now (``retranslate()``) and again after every language switch.

    Call it at the end of ``__init__`` with the widget's ``retranslate_ui`` method, once everything that
    method names exists. ``retranslate_ui`` (re)sets every user-visible text, keeping all state.
    """
    retranslate()
    return LanguageChangeFilter(watched, retranslate)


def retranslate_qt_parts(window: QMainWindow) -> None:
    """Name the buttons Qt builds inside ``window`` in the current language: each dock's float and close buttons
    (Qt names them only when it builds them, so after a switch a screen reader would still say "Float") and the
    menu bar's button for menus that do not fit (Qt gives it no name)."""
    dock_buttons = {
        "qt_dockwidget_floatbutton": (translate("QDockWidget", "Float"),
                                      translate("QDockWidget", "Undocks and re-attaches the dock widget")),
        "qt_dockwidget_closebutton": (translate("QDockWidget", "Close"),
                                      translate("QDockWidget", "Closes the dock widget")),
    }
    for dock in window.findChildren(QDockWidget):
        for button in dock.findChildren(QAbstractButton):
            named = dock_buttons.get(button.objectName())
            if named is not None:
                button.setAccessibleName(named[0])
                button.setAccessibleDescription(named[1])
    more = window.menuBar().findChild(QToolButton, "qt_menubar_ext_button")
    if more is not None:
        more.setAccessibleName(translate("QMenuBar", "More menus"))
        more.setToolTip(translate("QMenuBar", "More menus"))
