"""The window's language: Qt translators for the ui.language setting (system, en, zh_CN), switchable while running.

Installing or removing a translator makes Qt post ``QEvent.LanguageChange`` to every widget (they
get it on the next turn of the event loop); widgets that re-set their texts in ``changeEvent`` (a
``retranslate_ui`` method) switch language in place, without losing what they show.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator, Signal

log = logging.getLogger(__name__)

TRANSLATIONS_DIR = Path(__file__).resolve().parents[2] / "resources" / "translations"
APP_CATALOG = "unidesk"
ENGLISH, SIMPLIFIED_CHINESE = "en", "zh_CN"
SUPPORTED_LANGUAGES = (ENGLISH, SIMPLIFIED_CHINESE)
QT_CATALOGS = ("qtbase",)
"""Qt's own translations (standard buttons such as OK/Cancel, file dialogs)."""


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
