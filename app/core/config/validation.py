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
)

SECRET_MASK = "********"

_EXPECTED_PHRASE = {
    ValueKind.BOOL: "true or false",
    ValueKind.INT: "a whole number",
    ValueKind.FLOAT: "a number",
    ValueKind.STR: "text in quotes",
}

_TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS = frozenset({"false", "no", "off", "0"})


def validate_value(spec: SettingSpec, value: object) -> SettingValue:
    """Return ``value`` normalised to the setting's type, or raise :class:`SettingValueError`.

    The error's message names the key, the value and the reason, e.g.
    ``engine.parallel_chats = 0 is below the minimum 1``; its hint says what is allowed.
    """
    typed = _coerce_type(spec, value)
    if any(same_value(typed, special.value) for special in spec.special_values):
        return typed
    if spec.choices and not any(same_value(typed, choice.value) for choice in spec.choices):
        allowed = ", ".join(_choice_text(choice, spec) for choice in _all_choices(spec))
        raise _error(spec, value, f"is not one of: {allowed}")
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
    """One phrase saying what the setting accepts, e.g. ``a whole number from 1 to 64``."""
    if spec.choices:
        return "one of: " + ", ".join(_choice_text(choice, spec) for choice in _all_choices(spec))
    phrase = _EXPECTED_PHRASE[spec.kind]
    if spec.kind is ValueKind.STR:
        phrase = "text"
        if spec.text_format is TextFormat.URL:
            phrase = "an http:// or https:// address"
        if spec.allow_empty:
            phrase += ' (or "" for none)'
    if spec.minimum is not None and spec.maximum is not None:
        phrase += f" from {_number_text(spec.minimum)} to {_with_unit(spec, spec.maximum)}"
    elif spec.minimum is not None:
        phrase += f" of at least {_with_unit(spec, spec.minimum)}"
    elif spec.maximum is not None:
        phrase += f" of at most {_with_unit(spec, spec.maximum)}"
    if spec.special_values:
        phrase += ", or " + _special_phrase(spec)
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
                raise _error(spec, value, "is not a whole number")
            return int(value)
    elif spec.kind is ValueKind.FLOAT:
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _error(spec, value, "is not a finite number")
            return value
    elif isinstance(value, str):
        return value
    raise _error(spec, value, f"is {_type_phrase(value)}, not {_EXPECTED_PHRASE[spec.kind]}")


def _check_bounds(spec: SettingSpec, original: object, number: int | float) -> None:
    alternatives = ""
    if spec.special_values:
        alternatives = " (or " + _special_phrase(spec) + ")"
    if spec.minimum is not None and number < spec.minimum:
        reason = f"is below the minimum {_with_unit(spec, spec.minimum)}{alternatives}"
        raise _error(spec, original, reason)
    if spec.maximum is not None and number > spec.maximum:
        reason = f"is above the maximum {_with_unit(spec, spec.maximum)}{alternatives}"
        raise _error(spec, original, reason)


def _check_text(spec: SettingSpec, original: object, text: str) -> None:
    if any("\udc80" <= character <= "\udcff" for character in text):
        raise _error(spec, original, "contains bytes that are not UTF-8 text")
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in text):
        raise _error(spec, original, "contains a control character (such as a line break)")
    if len(text) > spec.max_length:
        raise _error(spec, original, f"is longer than {spec.max_length} characters")
    if not text:
        if not spec.allow_empty:
            raise _error(spec, original, "is empty, but a value is required")
        return
    if spec.text_format is TextFormat.URL:
        parts = urllib.parse.urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise _error(spec, original, "is not an http:// or https:// address")


def _error(spec: SettingSpec, value: object, reason: str) -> SettingValueError:
    if _is_scalar(value):
        message = f"{spec.key} = {format_value(spec, value)} {reason}"
    else:
        message = f"{spec.key} {reason}"
    return SettingValueError(spec.key, message, f"Allowed: {describe_allowed(spec)}.")


def _is_scalar(value: object) -> bool:
    return isinstance(value, (bool, int, float, str))


def _type_phrase(value: object) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, (datetime.date, datetime.time)):
        return "a date/time"
    return f"a {type(value).__name__}"


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
    return f"<{_type_phrase(value)}>"


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
    return f"{text} {spec.unit}" if spec.unit else text


def _special_phrase(spec: SettingSpec) -> str:
    """E.g. ``0 for automatic`` or ``-1 for automatic, -2 for ...``."""
    parts = []
    for choice in spec.special_values:
        value = choice.value
        shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        parts.append(f"{shown} for {choice.label.lower()}")
    return ", ".join(parts)


def _all_choices(spec: SettingSpec) -> tuple[Choice, ...]:
    return (*spec.special_values, *spec.choices)


def _choice_text(choice: Choice, spec: SettingSpec) -> str:
    shown = choice.value if isinstance(choice.value, str) else format_value(spec, choice.value)
    if isinstance(choice.value, str) or choice.label == str(choice.value):
        return str(shown)
    return f"{shown} ({choice.label.lower()})"
