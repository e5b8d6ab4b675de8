"""Translation hook for text that comes from the SETTINGS declaration (titles, descriptions, labels)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.core.config import SettingValueError

CONTEXT = "SettingsDeclaration"
"""Translation context of declared setting texts (the Chinese UI fills it in)."""


def declared(text: str) -> str:
    """``text`` from the declaration, translated when a translation is installed."""
    return QCoreApplication.translate(CONTEXT, text) if text else text


def reason_text(error: SettingValueError) -> str:
    """What is wrong and what is allowed, without the ``key = `` prefix meant for files and commands.

    E.g. ``0 is below the minimum 1. Allowed: a whole number from 1 to 64.``
    """
    message = error.message
    prefix = f"{error.key} = "
    if message.startswith(prefix):
        message = message[len(prefix):]
    elif message.startswith(error.key + " "):
        message = message[len(error.key) + 1:]
    sentence = message.rstrip(".") + "."
    return f"{sentence} {error.hint}" if error.hint else sentence
