"""Settings: an immutable, always-valid mapping with with_changes, typed getters and masking."""

from __future__ import annotations

import pytest

from app.core.config import (
    SETTINGS,
    Settings,
    SettingSpec,
    SettingValueError,
    UnknownSettingError,
)
from tests.core.config.conftest import non_default_value


def test_defaults_hold_every_declared_setting_in_declaration_order() -> None:
    defaults = Settings.defaults()
    assert list(defaults) == [spec.key for spec in SETTINGS]
    assert len(defaults) == len(SETTINGS)
    for spec in SETTINGS:
        assert defaults[spec.key] == spec.default
        assert defaults.get(spec.key) == spec.default
        assert defaults.is_default(spec.key)
    assert defaults.changed_keys() == ()


def test_with_changes_returns_a_new_object_and_leaves_the_old_one_alone() -> None:
    before = Settings.defaults()
    after = before.with_changes({"engine.parallel_chats": 4, "ui.theme": "dark"})
    assert after["engine.parallel_chats"] == 4 and after["ui.theme"] == "dark"
    assert before["engine.parallel_chats"] == 0 and before["ui.theme"] == "system"
    assert after.changed_keys() == ("engine.parallel_chats", "ui.theme")
    assert after != before


def test_with_changes_normalises_types() -> None:
    changed = Settings.defaults().with_changes({"engine.os_reserve_gib": 6, "engine.parallel_chats": 2.0})
    assert type(changed["engine.os_reserve_gib"]) is float
    assert type(changed["engine.parallel_chats"]) is int


def test_with_changes_rejects_a_bad_value_with_a_user_facing_error() -> None:
    with pytest.raises(SettingValueError) as caught:
        Settings.defaults().with_changes({"engine.parallel_chats": -1})
    assert caught.value.key == "engine.parallel_chats"
    assert "below the minimum 1" in caught.value.message


def test_with_changes_rejects_unknown_keys() -> None:
    with pytest.raises(UnknownSettingError):
        Settings.defaults().with_changes({"engine.turbo": True})


def test_with_changes_enforces_overlap_smaller_than_chunk_size() -> None:
    with pytest.raises(SettingValueError) as caught:
        Settings.defaults().with_changes({"kb.chunk_tokens": 256, "kb.chunk_overlap_tokens": 256})
    assert caught.value.key == "kb.chunk_overlap_tokens"
    assert "kb.chunk_overlap_tokens = 256 is not smaller than kb.chunk_tokens = 256" in caught.value.message


def test_related_keys_can_change_together() -> None:
    changed = Settings.defaults().with_changes({"kb.chunk_tokens": 2048, "kb.chunk_overlap_tokens": 1000})
    assert (changed["kb.chunk_tokens"], changed["kb.chunk_overlap_tokens"]) == (2048, 1000)


def test_unknown_key_lookup_is_a_key_error_and_get_returns_the_fallback() -> None:
    settings = Settings.defaults()
    with pytest.raises(KeyError):
        settings["engine.nope"]
    assert settings.get("engine.nope") is None
    assert settings.get("engine.nope", 7) == 7
    assert "engine.nope" not in settings and "engine.threads" in settings


def test_settings_cannot_be_mutated() -> None:
    settings = Settings.defaults()
    with pytest.raises(TypeError):
        settings["ui.theme"] = "dark"  # type: ignore[index]
    values = settings.to_dict()
    values["ui.theme"] = "dark"
    assert settings["ui.theme"] == "system", "to_dict returns a copy"
    with pytest.raises(AttributeError):
        settings.extra = 1  # type: ignore[attr-defined]


def test_equal_settings_are_equal_and_hash_alike() -> None:
    one = Settings({"engine.parallel_chats": 3})
    two = Settings.defaults().with_changes({"engine.parallel_chats": 3})
    assert one == two and hash(one) == hash(two)
    assert len({one, two, Settings.defaults()}) == 2


def test_true_is_not_confused_with_one() -> None:
    assert Settings({"kb.reranker": True}) != Settings({"kb.reranker": False})


def test_typed_getters_return_the_declared_types() -> None:
    settings = Settings.defaults()
    assert settings.int_value("engine.parallel_chats") == 0  # automatic
    assert settings.int_or_automatic("engine.parallel_chats") is None
    assert Settings({"engine.parallel_chats": 3}).int_or_automatic("engine.parallel_chats") == 3
    assert settings.int_or_automatic("engine.gpu_layers") is None  # -1 is its automatic value
    assert settings.float_or_automatic("engine.memory_utilization") is None
    assert settings.float_or_automatic("engine.os_reserve_gib") == 4.0  # no automatic value
    assert settings.float_value("engine.os_reserve_gib") == 4.0
    assert settings.bool_value("engine.warmup") is True
    assert settings.str_value("ui.theme") == "system"
    with pytest.raises(TypeError):
        settings.int_value("ui.theme")
    with pytest.raises(TypeError):
        settings.int_value("engine.warmup")


def test_repr_and_display_mask_the_api_key() -> None:
    settings = Settings({"engine.remote_api_key": "sk-very-secret", "engine.parallel_chats": 2})
    assert "sk-very-secret" not in repr(settings)
    assert "engine.parallel_chats=2" in repr(settings)
    assert settings.display_value("engine.remote_api_key") == "********"
    assert settings["engine.remote_api_key"] == "sk-very-secret"
    assert settings.display_value("ui.theme") == '"system"'


@pytest.mark.parametrize("spec", SETTINGS, ids=lambda spec: spec.key)
def test_every_setting_can_be_changed_away_from_its_default(spec: SettingSpec) -> None:
    value = non_default_value(spec)
    changed = Settings.defaults().with_changes({spec.key: value})
    assert changed[spec.key] == value
    assert changed.changed_keys() == (spec.key,)
