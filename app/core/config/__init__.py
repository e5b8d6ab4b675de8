"""UniDesk settings: one declaration per setting, validation, and the versioned settings file."""

from __future__ import annotations

from app.core.config.declarations import RULES, SECTIONS, SETTINGS, section_for, spec_for
from app.core.config.migrations import CURRENT_VERSION, MIGRATIONS, Migration, migrate
from app.core.config.paths import AppPaths
from app.core.config.reading import SettingProblem
from app.core.config.schema import (
    Choice,
    CrossFieldRule,
    SettingSection,
    SettingSpec,
    SettingValue,
    SettingValueError,
    TextFormat,
    UnknownSettingError,
    ValueKind,
)
from app.core.config.settings import Settings
from app.core.config.store import (
    SettingsFileNewerError,
    SettingsLoadResult,
    SettingsSaveError,
    SettingsStore,
)
from app.core.config.validation import (
    describe_allowed,
    format_value,
    parse_value_text,
    validate_value,
)

__all__ = [
    "CURRENT_VERSION",
    "MIGRATIONS",
    "RULES",
    "SECTIONS",
    "SETTINGS",
    "AppPaths",
    "Choice",
    "CrossFieldRule",
    "Migration",
    "SettingProblem",
    "SettingSection",
    "SettingSpec",
    "SettingValue",
    "SettingValueError",
    "Settings",
    "SettingsFileNewerError",
    "SettingsLoadResult",
    "SettingsSaveError",
    "SettingsStore",
    "TextFormat",
    "UnknownSettingError",
    "ValueKind",
    "describe_allowed",
    "format_value",
    "migrate",
    "parse_value_text",
    "section_for",
    "spec_for",
    "validate_value",
]
