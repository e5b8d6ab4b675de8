"""Checking, normalising, parsing and displaying setting values against their SettingSpec.

Type rules (TOML keeps these types apart, so hand edits are judged by them):

- bool settings accept only ``true``/``false`` (not ``1``, not ``"yes"``);
- int settings accept ints, and floats with no fractional part (``8.0`` becomes ``8``)
  because the intent is unambiguous; not bools, not strings, not ``8.5``;
- float settings accept ints and floats (stored as float); NaN and infinities are rejected;
- str settings accept strings without control characters (line breaks, NUL, ...) and
  without bytes that were not UTF-8 (read with ``surrogateescape``).
"""

from __future__ import annotations

import datetime
import math
import urllib.parse

from app.core.config.schema import (
    Choice,
    SettingSpec,
    SettingValue,
    SettingValueError,
    TextFormat,
    ValueKind,
    same_value,
    setting_problem,
)
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text, listed

SECRET_MASK = "********"
CONTEXT = "SettingValues"
"""Translation context of the phrases below (what a setting accepts, why a value is refused)."""
DECLARED_CONTEXT = "SettingsDeclaration"
"""Translation context of the declared titles, labels and units (app/ui/declared_texts.py lists them)."""

_EXPECTED_PHRASE = {
    ValueKind.BOOL: Text(CONTEXT, QT_TRANSLATE_NOOP("SettingValues", "true or false")),
    ValueKind.INT: Text(CONTEXT, QT_TRANSLATE_NOOP("SettingValues", "a whole number")),
    ValueKind.FLOAT: Text(CONTEXT, QT_TRANSLATE_NOOP("SettingValues", "a number")),
    ValueKind.STR: Text(CONTEXT, QT_TRANSLATE_NOOP("SettingValues", "text in quotes")),
}

_TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS = frozenset({"false", "no", "off", "0"})


def _said(template: str, *args: object) -> Text:
    """A phrase of this module (``template`` marked with QT_TRANSLATE_NOOP("SettingValues", ...))."""
    return Text(CONTEXT, template, args)


def validate_value(spec: SettingSpec, value: object) -> SettingValue:
    """Return ``value`` normalised to the setting's type, or raise :class:`SettingValueError`.

    The error's message names the key, the value and the reason, e.g.
    ``engine.parallel_chats = 0 is below the minimum 1``; its hint says what is allowed.
    """
    typed = _coerce_type(spec, value)
    if any(same_value(typed, special.value) for special in spec.special_values):
        return typed
    if spec.choices and not any(same_value(typed, choice.value) for choice in spec.choices):
        allowed = listed(_choice_text(choice, spec) for choice in _all_choices(spec))
        raise _error(spec, value, _said(QT_TRANSLATE_NOOP("SettingValues", "is not one of: {0}"), allowed))
    if isinstance(typed, (int, float)) and not isinstance(typed, bool):
        _check_bounds(spec, value, typed)
    if isinstance(typed, str):
        _check_text(spec, value, typed)
    return typed


def format_value(spec: SettingSpec, value: object) -> str:
    """``value`` written the way a TOML file shows it; secrets are masked."""
    if spec.secret:
        return '""' if value == "" else SECRET_MASK
    return toml_text(value)


def describe_allowed(spec: SettingSpec) -> str:
    """One phrase saying what the setting accepts, e.g. ``a whole number from 1 to 64`` (a Text)."""
    if spec.choices:
        choices = listed(_choice_text(choice, spec) for choice in _all_choices(spec))
        return _said(QT_TRANSLATE_NOOP("SettingValues", "one of: {0}"), choices)
    phrase: str = _EXPECTED_PHRASE[spec.kind]
    if spec.kind is ValueKind.STR:
        phrase = _said(QT_TRANSLATE_NOOP("SettingValues", "text"))
        if spec.text_format is TextFormat.URL:
            phrase = _said(QT_TRANSLATE_NOOP("SettingValues", "an http:// or https:// address"))
        if spec.allow_empty:
            phrase = _said(QT_TRANSLATE_NOOP("SettingValues", '{0} (or "" for none)'), phrase)
    if spec.minimum is not None and spec.maximum is not None:
        phrase = _said(QT_TRANSLATE_NOOP("SettingValues", "{0} from {1} to {2}"), phrase,
                       _number_text(spec.minimum), _with_unit(spec, spec.maximum))
    elif spec.minimum is not None:
        phrase = _said(QT_TRANSLATE_NOOP("SettingValues", "{0} of at least {1}"), phrase,
                       _with_unit(spec, spec.minimum))
    elif spec.maximum is not None:
        phrase = _said(QT_TRANSLATE_NOOP("SettingValues", "{0} of at most {1}"), phrase,
                       _with_unit(spec, spec.maximum))
    if spec.special_values:
        phrase = _said(QT_TRANSLATE_NOOP("SettingValues", "{0}, or {1}"), phrase, _special_phrase(spec))
    return phrase


def parse_value_text(spec: SettingSpec, text: str) -> SettingValue:
    """Turn text typed on a command line or in a field into a validated value."""
    stripped = text.strip()
    parsed: object = text
    if spec.kind is ValueKind.BOOL:
        lowered = stripped.lower()
        if lowered in _TRUE_WORDS:
            parsed = True
        elif lowered in _FALSE_WORDS:
            parsed = False
    elif spec.kind is ValueKind.INT:
        parsed = _parse_number(stripped, prefer_int=True)
    elif spec.kind is ValueKind.FLOAT:
        parsed = _parse_number(stripped, prefer_int=False)
    return validate_value(spec, parsed)


def _parse_number(text: str, *, prefer_int: bool) -> object:
    try:
        return int(text) if prefer_int else float(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _coerce_type(spec: SettingSpec, value: object) -> SettingValue:
    if spec.kind is ValueKind.BOOL:
        if isinstance(value, bool):
            return value
    elif spec.kind is ValueKind.INT:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float):
            if not math.isfinite(value) or not value.is_integer():
                raise _error(spec, value, _said(QT_TRANSLATE_NOOP("SettingValues", "is not a whole number")))
            return int(value)
    elif spec.kind is ValueKind.FLOAT:
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _error(spec, value, _said(QT_TRANSLATE_NOOP("SettingValues", "is not a finite number")))
            return value
    elif isinstance(value, str):
        return value
    reason = _said(QT_TRANSLATE_NOOP("SettingValues", "is {0}, not {1}"), _type_phrase(value),
                   _EXPECTED_PHRASE[spec.kind])
    raise _error(spec, value, reason)


def _check_bounds(spec: SettingSpec, original: object, number: int | float) -> None:
    if spec.minimum is not None and number < spec.minimum:
        minimum = _with_unit(spec, spec.minimum)
        reason = (_said(QT_TRANSLATE_NOOP("SettingValues", "is below the minimum {0} (or {1})"), minimum,
                        _special_phrase(spec)) if spec.special_values
                  else _said(QT_TRANSLATE_NOOP("SettingValues", "is below the minimum {0}"), minimum))
        raise _error(spec, original, reason)
    if spec.maximum is not None and number > spec.maximum:
        maximum = _with_unit(spec, spec.maximum)
        reason = (_said(QT_TRANSLATE_NOOP("SettingValues", "is above the maximum {0} (or {1})"), maximum,
                        _special_phrase(spec)) if spec.special_values
                  else _said(QT_TRANSLATE_NOOP("SettingValues", "is above the maximum {0}"), maximum))
        raise _error(spec, original, reason)


def _check_text(spec: SettingSpec, original: object, text: str) -> None:
    if any("\udc80" <= character <= "\udcff" for character in text):
        reason = _said(QT_TRANSLATE_NOOP("SettingValues", "contains bytes that are not UTF-8 text"))
        raise _error(spec, original, reason)
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in text):
        reason = _said(QT_TRANSLATE_NOOP("SettingValues", "contains a control character (such as a line break)"))
        raise _error(spec, original, reason)
    if len(text) > spec.max_length:
        raise _error(spec, original, _said(QT_TRANSLATE_NOOP("SettingValues", "is longer than {0} characters"),
                                           spec.max_length))
    if not text:
        if not spec.allow_empty:
            raise _error(spec, original, _said(QT_TRANSLATE_NOOP("SettingValues", "is empty, but a value is required")))
        return
    if spec.text_format is TextFormat.URL:
        parts = urllib.parse.urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            reason = _said(QT_TRANSLATE_NOOP("SettingValues", "is not an http:// or https:// address"))
            raise _error(spec, original, reason)


def _error(spec: SettingSpec, value: object, reason: str) -> SettingValueError:
    hint = _said(QT_TRANSLATE_NOOP("SettingValues", "Allowed: {0}."), describe_allowed(spec))
    if _is_scalar(value):
        return SettingValueError(spec.key, setting_problem(spec.key, format_value(spec, value), reason), hint)
    return SettingValueError(spec.key, _said(QT_TRANSLATE_NOOP("SettingValues", "{0} {1}"), spec.key, reason), hint)


def _is_scalar(value: object) -> bool:
    return isinstance(value, (bool, int, float, str))


def _type_phrase(value: object) -> str:
    if isinstance(value, bool):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "true/false"))
    if isinstance(value, int):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "a whole number"))
    if isinstance(value, float):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "a decimal number"))
    if isinstance(value, str):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "text"))
    if isinstance(value, dict):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "a table"))
    if isinstance(value, (list, tuple)):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "an array"))
    if isinstance(value, (datetime.date, datetime.time)):
        return _said(QT_TRANSLATE_NOOP("SettingValues", "a date/time"))
    return _said(QT_TRANSLATE_NOOP("SettingValues", "a {0}"), type(value).__name__)


def toml_text(value: object) -> str:
    """A scalar as TOML writes it (strings quoted and escaped); other types described."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + printable(value.replace("\\", "\\\\").replace('"', '\\"')) + '"'
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, int):
        return str(value)
    return f"<{_type_phrase(value)}>"  # the English: a TOML file's view of it


def printable(text: str) -> str:
    """``text`` safe to show on one line: control characters and non-UTF-8 bytes escaped."""
    return "".join(_printable_character(character) for character in text)


def _printable_character(character: str) -> str:
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return character


def _number_text(number: int | float) -> str:
    return str(number) if isinstance(number, int) else repr(number)


def _with_unit(spec: SettingSpec, number: int | float) -> str:
    text = _number_text(number)
    if not spec.unit:
        return text
    return _said(QT_TRANSLATE_NOOP("SettingValues", "{0} {1}"), text, Text(DECLARED_CONTEXT, spec.unit))


def _special_phrase(spec: SettingSpec) -> str:
    """E.g. ``0 for automatic`` or ``-1 for automatic, -2 for ...``."""
    parts = []
    for choice in spec.special_values:
        value = choice.value
        shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        parts.append(_said(QT_TRANSLATE_NOOP("SettingValues", "{0} for {1}"), shown, _label(choice)))
    return listed(parts)


def _all_choices(spec: SettingSpec) -> tuple[Choice, ...]:
    return (*spec.special_values, *spec.choices)


def _choice_text(choice: Choice, spec: SettingSpec) -> str:
    shown = choice.value if isinstance(choice.value, str) else format_value(spec, choice.value)
    if isinstance(choice.value, str) or choice.label == str(choice.value):
        return str(shown)
    return _said(QT_TRANSLATE_NOOP("SettingValues", "{0} ({1})"), shown, _label(choice))


def _label(choice: Choice) -> Text:
    """A declared label inside a phrase: lower case in English ("0 for automatic")."""
    return Text(DECLARED_CONTEXT, choice.label, lowercase=True)
