"""validate_value's type rules, bounds, choices and messages; parse_value_text; masking."""

from __future__ import annotations

import math

import pytest

from app.core.config import (
    SETTINGS,
    SettingSpec,
    SettingValueError,
    describe_allowed,
    format_value,
    parse_value_text,
    spec_for,
    validate_value,
)
from app.core.util.errors import UserFacingError


def _reject(key: str, value: object) -> SettingValueError:
    with pytest.raises(SettingValueError) as caught:
        validate_value(spec_for(key), value)
    assert isinstance(caught.value, UserFacingError)
    assert caught.value.key == key
    assert caught.value.message.startswith(key), "the message names the key first"
    assert "\n" not in caught.value.message
    return caught.value


def test_below_minimum_message_names_key_value_and_bound() -> None:
    error = _reject("engine.parallel_chats", -1)
    assert error.message == "engine.parallel_chats = -1 is below the minimum 1 (or 0 for automatic)"
    assert error.hint == "Allowed: a whole number from 1 to 64, or 0 for automatic."


def test_above_maximum_mentions_the_unit_and_the_automatic_value() -> None:
    error = _reject("engine.context_length", 2_000_000)
    assert "is above the maximum 1048576 tokens" in error.message
    assert "0 for automatic" in error.message


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("engine.parallel_chats", True, "is true/false, not a whole number"),
        ("engine.parallel_chats", "4", "is text, not a whole number"),
        ("engine.parallel_chats", 2.5, "is not a whole number"),
        ("engine.parallel_chats", math.inf, "is not a whole number"),
        ("engine.parallel_chats", {"a": 1}, "is a table, not a whole number"),
        ("engine.parallel_chats", [1, 2], "is an array, not a whole number"),
        ("engine.os_reserve_gib", "4", "is text, not a number"),
        ("engine.os_reserve_gib", False, "is true/false, not a number"),
        ("engine.os_reserve_gib", math.nan, "is not a finite number"),
        ("engine.prefix_caching", 1, "is a whole number, not true or false"),
        ("engine.prefix_caching", "true", "is text, not true or false"),
        ("ui.theme", 3, "is a whole number, not text in quotes"),
    ],
)
def test_wrong_types_are_rejected_with_the_reason(key: str, value: object, reason: str) -> None:
    assert reason in _reject(key, value).message


def test_integral_float_is_accepted_for_int_settings_and_becomes_an_int() -> None:
    value = validate_value(spec_for("engine.parallel_chats"), 8.0)
    assert value == 8 and type(value) is int


def test_int_is_accepted_for_float_settings_and_becomes_a_float() -> None:
    value = validate_value(spec_for("engine.os_reserve_gib"), 8)
    assert value == 8.0 and type(value) is float


@pytest.mark.parametrize(
    ("key", "value"),
    [("ui.theme", "blue"), ("ui.theme", "Dark"), ("engine.backend", "ollama"),
     ("engine.kv_cache_dtype", "q5_1"), ("engine.block_size", 48), ("ui.language", "zh")],
)
def test_values_outside_the_choices_are_rejected_and_the_choices_listed(key: str, value: object) -> None:
    error = _reject(key, value)
    assert "is not one of:" in error.message
    for choice in spec_for(key).choices:
        assert str(choice.value) in error.message


def test_block_size_accepts_each_choice_and_automatic() -> None:
    spec = spec_for("engine.block_size")
    for size in (0, 16, 32, 64, 128, 256):
        assert validate_value(spec, size) == size


@pytest.mark.parametrize("bad_url", ["ftp://host/v1", "localhost:8000", "http://", "just words"])
def test_remote_url_must_be_http_or_https(bad_url: str) -> None:
    assert "is not an http:// or https:// address" in _reject("engine.remote_url", bad_url).message


@pytest.mark.parametrize("good_url", ["", "http://127.0.0.1:8000/v1", "https://api.example.org"])
def test_remote_url_accepts_empty_and_addresses(good_url: str) -> None:
    assert validate_value(spec_for("engine.remote_url"), good_url) == good_url


def test_text_with_control_characters_or_stray_bytes_is_rejected() -> None:
    assert "control character" in _reject("model.path", "/models/a\nb.gguf").message
    error = _reject("model.path", "/models/caf\udce9.gguf")
    assert "not UTF-8" in error.message and "\\xe9" in error.message


def test_required_text_cannot_be_empty() -> None:
    assert "is empty" in _reject("kb.embedding_model", "").message


def test_overlong_text_is_rejected() -> None:
    spec = spec_for("model.path")
    assert "longer than" in _reject("model.path", "x" * (spec.max_length + 1)).message


def test_secret_values_never_appear_in_messages_or_display() -> None:
    spec = spec_for("engine.remote_api_key")
    assert format_value(spec, "sk-very-secret") == "********"
    assert format_value(spec, "") == '""'
    error = _reject("engine.remote_api_key", 123456789)
    assert "123456789" not in str(error)


def test_unicode_text_is_kept() -> None:
    spec = spec_for("model.path")
    assert validate_value(spec, "/模型/qwen.gguf") == "/模型/qwen.gguf"


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("engine.parallel_chats", " 4 ", 4),
        ("engine.parallel_chats", "4.0", 4),
        ("engine.os_reserve_gib", "6", 6.0),
        ("engine.prefix_caching", "off", False),
        ("engine.prefix_caching", "Yes", True),
        ("ui.theme", "dark", "dark"),
    ],
)
def test_parse_value_text(key: str, text: str, expected: object) -> None:
    value = parse_value_text(spec_for(key), text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("key", "text"), [("engine.parallel_chats", "four"), ("engine.prefix_caching", "maybe"),
                      ("engine.parallel_chats", "100"), ("sampling.temperature", "hot")],
)
def test_parse_value_text_rejects_bad_text(key: str, text: str) -> None:
    with pytest.raises(SettingValueError) as caught:
        parse_value_text(spec_for(key), text)
    assert caught.value.key == key


@pytest.mark.parametrize("spec", SETTINGS, ids=lambda spec: spec.key)
def test_describe_allowed_mentions_every_choice(spec: SettingSpec) -> None:
    text = describe_allowed(spec)
    assert text
    for choice in spec.choices:
        assert str(choice.value) in text
