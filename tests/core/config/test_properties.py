"""Property tests: validation is total and idempotent; loading never raises; valid values round-trip."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from app.core.config import (  # noqa: E402
    SETTINGS,
    AppPaths,
    Settings,
    SettingSpec,
    SettingsStore,
    SettingValueError,
    ValueKind,
    validate_value,
)
from app.core.config.reading import parse_settings_bytes, parse_settings_document  # noqa: E402

SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
TOML_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=8), children, max_size=3)),
    max_leaves=6,
)
SPECS = st.sampled_from(SETTINGS)
PYTHON_TYPE = {ValueKind.BOOL: bool, ValueKind.INT: int, ValueKind.FLOAT: float, ValueKind.STR: str}


def _valid_values(spec: SettingSpec) -> st.SearchStrategy[Any]:
    listed = [choice.value for choice in (*spec.special_values, *spec.choices)]
    broad: st.SearchStrategy[Any]
    if spec.kind is ValueKind.BOOL:
        broad = st.booleans()
    elif spec.kind is ValueKind.INT:
        broad = st.integers(min_value=int(spec.minimum or 0), max_value=int(spec.maximum or 10_000))
    elif spec.kind is ValueKind.FLOAT:
        broad = st.floats(min_value=spec.minimum or 0.0, max_value=spec.maximum or 100.0)
    elif spec.key.endswith("url"):
        broad = st.sampled_from(["", "http://localhost:8000/v1", "https://example.org/api"])
    else:
        broad = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30)
    if spec.choices:
        broad = st.sampled_from(listed)
    elif listed:
        broad = st.one_of(st.sampled_from(listed), broad)
    return broad


@given(SPECS, TOML_VALUES)
def test_validate_value_accepts_idempotently_or_raises_one_clear_line(spec: SettingSpec, value: Any) -> None:
    try:
        accepted = validate_value(spec, value)
    except SettingValueError as error:
        assert error.key == spec.key and error.message.startswith(spec.key)
        assert "\n" not in error.message
        error.message.encode("utf-8")
        return
    assert type(accepted) is PYTHON_TYPE[spec.kind]
    assert validate_value(spec, accepted) == accepted


@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_make_loading_raise(data: bytes) -> None:
    parsed = parse_settings_bytes(data)
    assert isinstance(parsed.settings, Settings)
    for problem in parsed.problems:
        assert "\n" not in problem.message


@given(st.dictionaries(st.sampled_from(["version", "engine", "kb", "ui", "x"]), TOML_VALUES, max_size=4))
def test_arbitrary_documents_never_make_loading_raise(document: dict[str, Any]) -> None:
    parsed = parse_settings_document(document)
    assert len(parsed.settings) == len(SETTINGS)


@st.composite
def changed_settings(draw: st.DrawFn) -> Settings:
    result = Settings.defaults()
    for spec in draw(st.lists(SPECS, max_size=8, unique_by=lambda spec: spec.key)):
        try:
            result = result.with_changes({spec.key: draw(_valid_values(spec))})
        except SettingValueError:
            continue  # e.g. a chunk overlap that is not below the chunk size drawn so far
    return result


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(changed_settings())
def test_valid_settings_round_trip_through_the_file(original: Settings) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SettingsStore(AppPaths.under_home(Path(folder)))
        store.save(original)
        result = store.load()
    assert result.problems == ()
    assert result.settings == original
