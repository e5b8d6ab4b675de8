"""Settings: an immutable, always-valid mapping from setting key to value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from app.core.config.declarations import RULES, SETTINGS, spec_for, unknown_setting_error
from app.core.config.schema import SettingValue, SettingValueError, same_value
from app.core.config.validation import format_value, validate_value
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text, listed


class Settings(Mapping[str, SettingValue]):
    """Every declared setting with a valid value; changes make a new object.

    ``Settings({"engine.parallel_chats": 4})`` starts from the defaults and applies the given
    values, raising :class:`SettingValueError` for a bad value or a broken cross-field rule
    and :class:`UnknownSettingError` (also a ``KeyError``) for an undeclared key.
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, object] | None = None) -> None:
        merged: dict[str, SettingValue] = {spec.key: spec.default for spec in SETTINGS}
        for key, value in (values or {}).items():
            merged[key] = validate_value(spec_for(key), value)
        check_rules(merged)
        self._values: Mapping[str, SettingValue] = MappingProxyType(merged)

    @classmethod
    def defaults(cls) -> Settings:
        """Every setting at its declared default."""
        return cls()

    def with_changes(self, changes: Mapping[str, object]) -> Settings:
        """A copy with ``changes`` applied (all at once, so related keys can change together)."""
        return Settings({**self._values, **changes})

    def __getitem__(self, key: str) -> SettingValue:
        try:
            return self._values[key]
        except KeyError:
            raise unknown_setting_error(key) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Settings):
            return NotImplemented
        return all(same_value(self._values[key], other._values[key]) for key in self._values)

    def __hash__(self) -> int:
        return hash(tuple((key, type(value), value) for key, value in self._values.items()))

    def __repr__(self) -> str:
        changed = ", ".join(
            f"{key}={format_value(spec_for(key), self._values[key])}" for key in self.changed_keys()
        )
        return f"Settings({changed})"

    def to_dict(self) -> dict[str, SettingValue]:
        """Every key and value, in declaration order (secrets unmasked: this is the data)."""
        return dict(self._values)

    def changed_keys(self) -> tuple[str, ...]:
        """Keys whose value differs from the declared default, in declaration order."""
        return tuple(
            spec.key for spec in SETTINGS if not same_value(self._values[spec.key], spec.default)
        )

    def is_default(self, key: str) -> bool:
        """Whether ``key`` holds its declared default."""
        return same_value(self[key], spec_for(key).default)

    def display_value(self, key: str) -> str:
        """The value as text for people to read; secrets are masked."""
        return format_value(spec_for(key), self[key])

    def bool_value(self, key: str) -> bool:
        """The value of a true/false setting, typed for callers."""
        value = self[key]
        if not isinstance(value, bool):
            raise TypeError(f"{key} is not a true/false setting")
        return value

    def int_value(self, key: str) -> int:
        """The value of a whole-number setting, typed for callers."""
        value = self[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{key} is not a whole-number setting")
        return value

    def int_or_automatic(self, key: str) -> int | None:
        """The value of a whole-number setting, or None when it holds its Automatic special value."""
        value = self.int_value(key)
        return None if spec_for(key).is_automatic(value) else value

    def float_or_automatic(self, key: str) -> float | None:
        """The value of a number setting, or None when it holds its Automatic special value."""
        value = self.float_value(key)
        return None if spec_for(key).is_automatic(value) else value

    def float_value(self, key: str) -> float:
        """The value of a number setting, typed for callers."""
        value = self[key]
        if isinstance(value, bool) or not isinstance(value, float):
            raise TypeError(f"{key} is not a decimal-number setting")
        return value

    def str_value(self, key: str) -> str:
        """The value of a text setting, typed for callers."""
        value = self[key]
        if not isinstance(value, str):
            raise TypeError(f"{key} is not a text setting")
        return value


def check_rules(values: Mapping[str, SettingValue]) -> None:
    """Raise :class:`SettingValueError` for the first cross-field rule ``values`` break."""
    for rule in RULES:
        reason = rule.check(values)
        if reason is not None:
            keys = listed(rule.keys)
            hint = Text("SettingValues", QT_TRANSLATE_NOOP("SettingValues", "Change one of: {0}."), (keys,))
            raise SettingValueError(rule.reset_key, reason, hint)
