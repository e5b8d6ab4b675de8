"""The shape of a setting declaration (SettingSpec and friends) and the errors settings raise."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from app.core.util.errors import UserFacingError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

SettingValue = bool | int | float | str
"""A setting's value: every setting is one TOML scalar (no lists, tables or dates)."""

Number = int | float

AUTOMATIC_LABEL = "Automatic"
"""The label of a special value that leaves the choice to the app (``Choice(0, AUTOMATIC_LABEL)``)."""


class ValueKind(enum.Enum):
    """The Python/TOML type a setting holds."""

    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    STR = "str"


class TextFormat(enum.Enum):
    """Extra checks and editor hints for ``STR`` settings."""

    PLAIN = "plain"
    URL = "url"
    """Empty, or an ``http://``/``https://`` address with a host."""
    PATH = "path"
    """A file or folder path; existence is not checked here (drives come and go)."""


@dataclass(frozen=True)
class Choice:
    """One allowed value with the label a settings panel shows for it."""

    value: SettingValue
    label: str


@dataclass(frozen=True)
class SettingSection:
    """A group of settings (the first part of their keys) and its heading in the settings panel."""

    name: str
    title: str
    description: str


@dataclass(frozen=True)
class SettingSpec:
    """Everything about one setting: key, type, default, allowed values and how to present it.

    Allowed values: ``special_values`` are always allowed (e.g. ``0`` = automatic) and bypass
    the other checks; otherwise the value must be one of ``choices`` when there are any, and
    lie within ``minimum``..``maximum`` (inclusive) when those are set.
    """

    key: str
    kind: ValueKind
    default: SettingValue
    title: str
    description: str
    minimum: Number | None = None
    maximum: Number | None = None
    choices: tuple[Choice, ...] = ()
    special_values: tuple[Choice, ...] = ()
    unit: str | None = None
    group: str = ""
    """Sub-heading inside the section in the settings panel ("" = none)."""
    advanced: bool = False
    """Hidden behind "Show advanced settings" in the panel."""
    secret: bool = False
    """Masked whenever it is shown (API keys). Still stored in the settings file."""
    applies_on_reload: bool = False
    """Takes effect only after the model is loaded again."""
    text_format: TextFormat = TextFormat.PLAIN
    allow_empty: bool = True
    max_length: int = 4096

    def __post_init__(self) -> None:
        section, _, name = self.key.partition(".")
        if not section or not name or "." in name:
            raise ValueError(f"setting key {self.key!r} must look like 'section.name'")
        if self.kind is not ValueKind.STR and self.text_format is not TextFormat.PLAIN:
            raise ValueError(f"{self.key}: text_format only applies to text settings")

    @property
    def section(self) -> str:
        """The section (TOML table) the setting lives in: the part of the key before the dot."""
        return self.key.partition(".")[0]

    @property
    def name(self) -> str:
        """The key inside its section's table."""
        return self.key.partition(".")[2]

    def is_automatic(self, value: SettingValue) -> bool:
        """Whether ``value`` is this setting's special value labelled Automatic (the app decides, e.g. 0 tokens)."""
        return any(choice.label == AUTOMATIC_LABEL and same_value(choice.value, value)
                   for choice in self.special_values)

    def label_for(self, value: SettingValue) -> str | None:
        """The label of a special value or choice equal to ``value``, if it is one."""
        for choice in (*self.special_values, *self.choices):
            if same_value(choice.value, value):
                return choice.label
        return None


@dataclass(frozen=True)
class CrossFieldRule:
    """A rule that ties settings together (e.g. chunk overlap < chunk size).

    ``check`` returns ``None`` when the values are fine, else the reason, one line naming
    the keys involved. When a loaded file breaks the rule, ``reset_key`` goes back to its
    default (and, if that is not enough, every key in ``keys``).
    """

    keys: tuple[str, ...]
    reset_key: str
    check: Callable[[Mapping[str, SettingValue]], str | None]


PROBLEM_CONTEXT = "SettingValues"
_KEY_VALUE_REASON = QT_TRANSLATE_NOOP("SettingValues", "{0} = {1} {2}")
_VALUE_REASON = QT_TRANSLATE_NOOP("SettingValues", "{0} {1}")


def setting_problem(key: str, shown_value: str, reason: str) -> Text:
    """``key = value reason``, e.g. ``engine.parallel_chats = 0 is below the minimum 1``; a settings panel
    shows it without the key (:attr:`SettingValueError.problem`)."""
    return Text(PROBLEM_CONTEXT, _KEY_VALUE_REASON, (key, shown_value, reason))


class SettingValueError(UserFacingError):
    """A value that a setting does not accept, or a combination of values that breaks a rule."""

    def __init__(self, key: str, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.key = key

    @property
    def problem(self) -> str:
        """The message without the ``key = `` (or ``key ``) it starts with: what a field's editor shows."""
        message, key = self.message, self.key
        if isinstance(message, Text) and message.context == PROBLEM_CONTEXT and message.args[:1] == (key,):
            if message.template == _KEY_VALUE_REASON:
                return Text(PROBLEM_CONTEXT, _VALUE_REASON, message.args[1:])
            reason = message.args[1] if len(message.args) == 2 else None
            if message.template == _VALUE_REASON and isinstance(reason, str):
                return reason
        for prefix in (f"{key} = ", f"{key} "):
            if message.startswith(prefix):
                return message[len(prefix):]
        return message


class UnknownSettingError(SettingValueError, KeyError):
    """A key that no setting is declared under (also a ``KeyError`` for mapping lookups)."""

    def __str__(self) -> str:
        return UserFacingError.__str__(self)


def same_value(left: SettingValue, right: SettingValue) -> bool:
    """Equality that keeps ``True`` apart from ``1`` and ``"1"`` apart from ``1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    return left == right
