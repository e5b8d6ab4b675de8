"""The one declaration of settings is complete, consistent and matches what the issue asked for."""

from __future__ import annotations

import pytest

from app.core.config import (
    RULES,
    SECTIONS,
    SETTINGS,
    Settings,
    SettingSpec,
    SettingValueError,
    UnknownSettingError,
    ValueKind,
    section_for,
    spec_for,
    validate_value,
)


def test_no_setting_is_declared_twice() -> None:
    keys = [spec.key for spec in SETTINGS]
    assert len(keys) == len(set(keys))


def test_section_names_are_unique_and_every_setting_belongs_to_one() -> None:
    names = [section.name for section in SECTIONS]
    assert len(names) == len(set(names))
    assert {spec.section for spec in SETTINGS} <= set(names)
    assert all(any(spec.section == name for spec in SETTINGS) for name in names), "empty section"


@pytest.mark.parametrize("spec", SETTINGS, ids=lambda spec: spec.key)
def test_every_default_passes_its_own_validation(spec: SettingSpec) -> None:
    validated = validate_value(spec, spec.default)
    assert validated == spec.default
    assert type(validated) is type(spec.default)


@pytest.mark.parametrize("spec", SETTINGS, ids=lambda spec: spec.key)
def test_every_setting_is_described_for_the_settings_panel(spec: SettingSpec) -> None:
    assert spec.title.strip() and spec.description.strip()
    assert spec.description.rstrip().endswith((".", ")")), "descriptions are sentences"
    for choice in (*spec.choices, *spec.special_values):
        assert choice.label.strip()
        assert validate_value(spec, choice.value) == choice.value


@pytest.mark.parametrize("spec", SETTINGS, ids=lambda spec: spec.key)
def test_bounds_are_consistent(spec: SettingSpec) -> None:
    if spec.minimum is not None and spec.maximum is not None:
        assert spec.minimum < spec.maximum
    if spec.kind in (ValueKind.BOOL, ValueKind.STR):
        assert spec.minimum is None and spec.maximum is None
    for special in spec.special_values:
        value = special.value
        assert isinstance(value, (int, float)), "special values are numbers"
        outside = (spec.minimum is not None and value < spec.minimum) or (
            spec.maximum is not None and value > spec.maximum
        ) or bool(spec.choices)
        assert outside, f"{spec.key}: special value {special.value} is already allowed"


def test_defaults_satisfy_the_cross_field_rules() -> None:
    defaults = Settings.defaults().to_dict()
    for rule in RULES:
        assert rule.check(defaults) is None
        assert set(rule.keys) <= defaults.keys() and rule.reset_key in rule.keys


# What the issue asked for: key -> (kind, default or None, minimum, maximum, choices).
REQUIRED = {
    "model.path": (ValueKind.STR, "", None, None, ()),
    "engine.backend": (ValueKind.STR, "auto", None, None, ("auto", "vllm", "llamacpp", "remote")),
    "engine.remote_url": (ValueKind.STR, "", None, None, ()),
    "engine.remote_api_key": (ValueKind.STR, "", None, None, ()),
    "engine.context_length": (ValueKind.INT, 0, 512, 1_048_576, ()),
    "engine.parallel_chats": (ValueKind.INT, None, 1, 64, ()),
    "engine.memory_utilization": (ValueKind.FLOAT, 0.0, 0.05, 0.95, ()),
    "engine.os_reserve_gib": (ValueKind.FLOAT, 4.0, 0.5, 64, ()),
    "engine.kv_cache_dtype": (
        ValueKind.STR, "auto", None, None, ("auto", "f16", "bf16", "q8_0", "q4_0", "fp8")
    ),
    "engine.block_size": (ValueKind.INT, 0, None, None, (16, 32, 64, 128, 256)),
    "engine.prefix_caching": (ValueKind.BOOL, None, None, None, ()),
    "engine.warmup": (ValueKind.BOOL, None, None, None, ()),
    "engine.gpu_layers": (ValueKind.INT, -1, None, None, ()),
    "engine.threads": (ValueKind.INT, 0, 1, 512, ()),
    "engine.flash_attention": (ValueKind.STR, "auto", None, None, ("auto", "on", "off")),
    "kb.embedding_model": (ValueKind.STR, "auto", None, None, ()),
    "kb.chunk_tokens": (ValueKind.INT, None, 64, 4096, ()),
    "kb.chunk_overlap_tokens": (ValueKind.INT, None, 0, 1024, ()),
    "kb.top_k": (ValueKind.INT, None, 1, 50, ()),
    "kb.reranker": (ValueKind.BOOL, None, None, None, ()),
    "ui.language": (ValueKind.STR, None, None, None, ("system", "en", "zh_CN")),
    "ui.theme": (ValueKind.STR, None, None, None, ("system", "light", "dark")),
    "api.enabled": (ValueKind.BOOL, False, None, None, ()),
    "api.port": (ValueKind.INT, 8765, 1024, 65535, ()),
    "sampling.temperature": (ValueKind.FLOAT, None, 0, 2, ()),
    "sampling.top_p": (ValueKind.FLOAT, None, None, 1, ()),
    "sampling.max_answer_tokens": (ValueKind.INT, None, None, None, ()),
}


@pytest.mark.parametrize("key", sorted(REQUIRED))
def test_required_setting_is_declared_as_asked(key: str) -> None:
    kind, default, minimum, maximum, choices = REQUIRED[key]
    spec = spec_for(key)
    assert spec.kind is kind
    if default is not None:
        assert spec.default == default
    if minimum is not None:
        assert spec.minimum == minimum
    if maximum is not None:
        assert spec.maximum == maximum
    if choices:
        assert tuple(choice.value for choice in spec.choices) == choices


def test_api_key_is_secret_and_nothing_else_is() -> None:
    assert [spec.key for spec in SETTINGS if spec.secret] == ["engine.remote_api_key"]


@pytest.mark.parametrize(
    ("key", "automatic"),
    [("engine.context_length", 0), ("engine.memory_utilization", 0.0), ("engine.block_size", 0),
     ("engine.gpu_layers", -1), ("engine.threads", 0)],
)
def test_automatic_values_are_accepted_outside_the_normal_range(key: str, automatic: float) -> None:
    spec = spec_for(key)
    assert validate_value(spec, automatic) == automatic
    assert spec.label_for(automatic) == "Automatic"


def test_spec_for_unknown_key_is_a_user_facing_key_error_with_a_suggestion() -> None:
    with pytest.raises(UnknownSettingError) as caught:
        spec_for("engine.paralel_chats")
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, SettingValueError)
    assert caught.value.key == "engine.paralel_chats"
    assert caught.value.hint == "Did you mean engine.parallel_chats?"
    assert "engine.paralel_chats is not a known setting" in str(caught.value)


def test_section_for() -> None:
    engine = section_for("engine")
    assert engine is not None and engine.title
    assert section_for("nope") is None


@pytest.mark.parametrize("bad_key", ["nodot", "a.b.c", ".x", "x."])
def test_spec_rejects_malformed_keys(bad_key: str) -> None:
    with pytest.raises(ValueError, match=r"section\.name"):
        SettingSpec(bad_key, ValueKind.INT, 1, "t", "d.")
