"""Turning the bytes of a settings file into valid Settings plus one problem line per fault."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.config.declarations import (
    RULES,
    SETTINGS,
    closest_setting_key,
    section_for,
    spec_for,
)
from app.core.config.migrations import CURRENT_VERSION, migrate
from app.core.config.schema import SettingValue, SettingValueError
from app.core.config.settings import Settings
from app.core.config.validation import format_value, printable, toml_text, validate_value
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text, listed

CONTEXT = "SettingsFile"


@dataclass(frozen=True)
class SettingProblem:
    """One thing wrong with the settings file, as one line for the user.

    ``key`` is the setting (or file key such as ``version``) it is about, ``None`` for the
    file as a whole (unreadable, broken syntax, newer format).
    """

    key: str | None
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ParsedSettings:
    """What a settings file's content amounts to."""

    settings: Settings
    problems: tuple[SettingProblem, ...]
    file_version: int | None
    """The format version the file declares (1 when it has no ``version``); None if unparsable."""

    @property
    def newer_version(self) -> bool:
        """Whether the file comes from a newer UniDesk than this one."""
        return self.file_version is not None and self.file_version > CURRENT_VERSION


def parse_settings_bytes(data: bytes, file_name: str = "settings.toml") -> ParsedSettings:
    """Parse, migrate and validate a settings file. Never raises for bad content."""
    encoding_problem: list[SettingProblem] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        # Keep going: only values that contain the stray bytes fall back to their defaults.
        text = data.decode("utf-8-sig", errors="surrogateescape")
        encoding_problem.append(SettingProblem(None, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "SettingsFile", "{0} is not UTF-8 text (byte 0x{1:02x} at position {2}); settings containing such "
                            "bytes use their defaults."), (file_name, error.object[error.start], error.start))))
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "SettingsFile", "{0} has a syntax error: {1}; using the defaults for all settings."),
            (file_name, printable(str(error))))
        problems = (*encoding_problem, SettingProblem(None, message))
        return ParsedSettings(Settings.defaults(), problems, None)
    parsed = parse_settings_document(raw, file_name)
    if not encoding_problem:
        return parsed
    return ParsedSettings(parsed.settings, (*encoding_problem, *parsed.problems), parsed.file_version)


def parse_settings_document(raw: Mapping[str, Any], file_name: str = "settings.toml") -> ParsedSettings:
    """Validate an already parsed TOML document (any format version)."""
    problems: list[SettingProblem] = []
    document = dict(raw)
    version = _read_version(document.pop("version", None), file_name, problems)
    newer = version > CURRENT_VERSION
    if newer:
        problems.append(SettingProblem(None, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "SettingsFile", "{0} was written by a newer UniDesk (file format {1}; this version knows format {2}): "
                            "settings it knows were loaded, and the file will not be overwritten without asking."),
            (file_name, version, CURRENT_VERSION))))
    elif version < CURRENT_VERSION:
        document = migrate(document, version)
    found = _collect_known_keys(document, problems, newer=newer)
    values = _validate_values(found, problems)
    _enforce_rules(values, problems)
    return ParsedSettings(Settings(values), tuple(problems), version)


def _read_version(value: object, file_name: str, problems: list[SettingProblem]) -> int:
    if value is None:
        return 1
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    shown = toml_text(value)
    problems.append(SettingProblem("version", Text(CONTEXT, QT_TRANSLATE_NOOP(
        "SettingsFile", "version = {0} in {1} is not a format version (a whole number from 1); reading the file "
                        "as format {2}."), (shown, file_name, CURRENT_VERSION))))
    return CURRENT_VERSION


def _collect_known_keys(
    document: Mapping[str, Any], problems: list[SettingProblem], *, newer: bool
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in document.items():
        if section_for(name) is None:
            for key in _leaf_keys(name, value):
                problems.append(_unknown_key_problem(key, newer=newer))
            continue
        if not isinstance(value, dict):
            problems.append(SettingProblem(name, Text(CONTEXT, QT_TRANSLATE_NOOP(
                "SettingsFile", "{0} = {1} should be a table of settings ([{0}]); ignored."),
                (name, toml_text(value)))))
            continue
        for item_name, item in value.items():
            key = f"{name}.{item_name}"
            try:
                spec_for(key)
            except KeyError:
                problems.append(_unknown_key_problem(key, newer=newer))
                continue
            found[key] = item
    return found


def _validate_values(found: Mapping[str, Any], problems: list[SettingProblem]) -> dict[str, SettingValue]:
    values: dict[str, SettingValue] = {spec.key: spec.default for spec in SETTINGS}
    for key, value in found.items():
        spec = spec_for(key)
        try:
            values[key] = validate_value(spec, value)
        except SettingValueError as error:
            default = format_value(spec, spec.default)
            problems.append(SettingProblem(key, Text(CONTEXT, QT_TRANSLATE_NOOP(
                "SettingsFile", "{0}; using the default {1}."), (error.message, default))))
    return values


def _enforce_rules(values: dict[str, SettingValue], problems: list[SettingProblem]) -> None:
    for rule in RULES:
        reason = rule.check(values)
        if reason is None:
            continue
        reset_spec = spec_for(rule.reset_key)
        values[rule.reset_key] = reset_spec.default
        if rule.check(values) is None:
            default = format_value(reset_spec, reset_spec.default)
            message = Text(CONTEXT, QT_TRANSLATE_NOOP("SettingsFile", "{0}; using the default {1} for {2}."),
                           (reason, default, rule.reset_key))
        else:
            for key in rule.keys:
                values[key] = spec_for(key).default
            message = Text(CONTEXT, QT_TRANSLATE_NOOP("SettingsFile", "{0}; using the defaults for {1}."),
                           (reason, listed(rule.keys)))
        problems.append(SettingProblem(rule.reset_key, message))


def _unknown_key_problem(key: str, *, newer: bool) -> SettingProblem:
    shown = printable(key)
    if newer:
        return SettingProblem(key, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "SettingsFile", "{0} is not known to this version of UniDesk; ignored."), (shown,)))
    suggestion = closest_setting_key(key)
    if suggestion is None:
        return SettingProblem(key, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "SettingsFile", "{0} is not a known setting; ignored."), (shown,)))
    return SettingProblem(key, Text(CONTEXT, QT_TRANSLATE_NOOP(
        "SettingsFile", "{0} is not a known setting; ignored (did you mean {1}?)."), (shown, suggestion)))


def _leaf_keys(prefix: str, value: object) -> list[str]:
    if isinstance(value, dict) and value:
        return [leaf for name, item in value.items() for leaf in _leaf_keys(f"{prefix}.{name}", item)]
    return [prefix]

