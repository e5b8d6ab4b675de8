"""Translation hook for text that comes from the SETTINGS declaration (titles, descriptions, labels)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.core.config import SettingValueError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "SettingsDeclaration"
"""Translation context of declared setting texts (the Chinese UI fills it in)."""


def declared(text: str) -> str:
    """``text`` from the declaration, translated when a translation is installed."""
    return QCoreApplication.translate(CONTEXT, text) if text else text


def reason_text(error: SettingValueError) -> str:
    """What is wrong and what is allowed, without the ``key = `` prefix meant for files and commands.

    E.g. ``0 is below the minimum 1. Allowed: a whole number from 1 to 64.`` A Text: show it with
    ``app.ui.i18n.render`` (again after a language switch).
    """
    problem = error.problem
    if not isinstance(problem, Text):
        problem = problem.rstrip(".")
    if error.hint:
        return Text("SettingValues", QT_TRANSLATE_NOOP("SettingValues", "{0}. {1}"), (problem, error.hint))
    return Text("SettingValues", QT_TRANSLATE_NOOP("SettingValues", "{0}."), (problem,))
