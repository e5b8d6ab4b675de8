"""Fixtures for the settings tests: a store under a temporary home and a fixed clock."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from app.core.config import (
    SETTINGS,
    AppPaths,
    Settings,
    SettingSpec,
    SettingsStore,
    SettingValue,
    SettingValueError,
    ValueKind,
)

FIXED_TIME = datetime(2026, 11, 29, 8, 55, 0)


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths.under_home(tmp_path / "home")


@pytest.fixture
def store(paths: AppPaths) -> SettingsStore:
    return SettingsStore(paths, clock=lambda: FIXED_TIME)


def write_settings_file(store: SettingsStore, content: str | bytes) -> bytes:
    """Write ``content`` as the settings file and return the exact bytes written."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_bytes(data)
    return data


def non_default_value(spec: SettingSpec, base: Settings | None = None) -> SettingValue:
    """A value for ``spec`` that differs from its default and that ``base`` accepts (rules too)."""
    base = base or Settings.defaults()
    candidates: list[SettingValue] = [choice.value for choice in (*spec.choices, *spec.special_values)]
    if spec.kind is ValueKind.BOOL:
        candidates.append(not spec.default)
    if spec.minimum is not None:
        candidates.append(spec.minimum if spec.kind is ValueKind.INT else float(spec.minimum))
    if spec.maximum is not None:
        candidates.append(spec.maximum if spec.kind is ValueKind.INT else float(spec.maximum))
    if spec.kind is ValueKind.STR and not spec.choices:
        candidates.append("https://example.org/v1" if spec.key.endswith("url") else "changed 值 ✓")
    for candidate in candidates:
        if type(candidate) is type(spec.default) and candidate != spec.default:
            try:
                base.with_changes({spec.key: candidate})
            except SettingValueError:
                continue
            return candidate
    raise AssertionError(f"no non-default value found for {spec.key}")


def all_changed_settings() -> Settings:
    """Settings in which every single value differs from its default."""
    settings = Settings.defaults()
    for spec in SETTINGS:
        settings = settings.with_changes({spec.key: non_default_value(spec, settings)})
    return settings
