"""Helpers for tests of the core's Texts in the window: the data inside a Text, and the English a view has left."""

from __future__ import annotations

from app.core.config import SETTINGS
from app.core.util.translatable import Text
from tests.ui.i18n_support import english_left

SETTING_VALUES = frozenset(choice.value for spec in SETTINGS for choice in spec.choices
                           if isinstance(choice.value, str))
"""What the settings file holds for a choice (auto, dark, en, …): tooltips list them as they are typed there."""


def data_in(text: str) -> list[str]:
    """The plain strings inside ``text``, however deep: names, paths, values and foreign messages that stay as
    they are in every language (a plain ``text`` is all data; empty strings are left out)."""
    if not isinstance(text, Text):
        return [text] if text else []
    return [data for arg in text.args if isinstance(arg, str) for data in data_in(arg)]


def english_words_left(texts: list[str], names: list[str]) -> list[str]:
    """:func:`english_left`, and of what is left the words that are setting values (whole words only: the value
    ``en`` is no reason to pass "Send")."""
    return [word for word in english_left(texts, names) if word not in SETTING_VALUES]
