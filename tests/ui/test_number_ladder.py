"""Spin-box arrows: bounds, doubling for long ranges, special values just below the minimum."""

from __future__ import annotations

import pytest

from app.core.config import spec_for, validate_value
from app.ui.settings.number_ladder import can_step, doubles, next_value


def _walk(key: str, start: float, direction: int, steps: int) -> list[float]:
    spec = spec_for(key)
    values = [start]
    for _ in range(steps):
        values.append(next_value(spec, values[-1], direction))
    return values


def test_context_length_doubles_from_automatic_to_the_maximum_and_back() -> None:
    up = _walk("engine.context_length", 0, 1, 13)
    assert up[:5] == [0, 512, 1024, 2048, 4096]
    assert up[-1] == 1_048_576
    assert not can_step(spec_for("engine.context_length"), 1_048_576, 1)
    assert _walk("engine.context_length", 1024, -1, 3) == [1024, 512, 0, 0]


def test_special_value_below_the_minimum_sits_next_to_it() -> None:
    assert _walk("engine.gpu_layers", -1, 1, 2) == [-1, 0, 1]
    assert _walk("engine.gpu_layers", 0, -1, 2) == [0, -1, -1]
    assert _walk("kb.watch_interval_seconds", 0, 1, 1) == [0, 5]


def _ends(key: str) -> tuple[float, float]:
    """The lowest and highest value a setting allows, special values included."""
    spec = spec_for(key)
    specials = [float(choice.value) for choice in spec.special_values if not isinstance(choice.value, (bool, str))]
    assert spec.minimum is not None and spec.maximum is not None
    return min([spec.minimum, *specials]), max([spec.maximum, *specials])


@pytest.mark.parametrize("key", ["engine.context_length", "engine.parallel_chats", "engine.memory_utilization",
                                 "engine.os_reserve_gib", "sampling.temperature", "sampling.top_p", "api.port",
                                 "sampling.max_answer_tokens", "engine.threads"])
def test_every_arrow_step_moves_its_way_to_an_allowed_value_and_stops_at_the_end(key: str) -> None:
    spec = spec_for(key)
    lowest, highest = _ends(key)
    for direction, end in ((1, highest), (-1, lowest)):
        value = float(spec.default)
        for _ in range(40):
            stepped = next_value(spec, value, direction)
            typed = int(stepped) if spec.kind.value == "int" else stepped
            assert validate_value(spec, typed) == typed, (key, stepped)
            if value == end:
                assert stepped == value and not can_step(spec, value, direction)
            else:
                assert (stepped - value) * direction > 0, (key, value, stepped)
                assert can_step(spec, value, direction)
            value = stepped


def test_out_of_range_typing_steps_back_into_range() -> None:
    spec = spec_for("engine.parallel_chats")
    assert next_value(spec, 70, -1) == 64
    assert next_value(spec, -5, 1) == 0  # Automatic: the special value below the minimum comes first
    assert next_value(spec_for("kb.top_k"), -5, 1) == 1


@pytest.mark.parametrize(("key", "expected"), [("engine.context_length", True), ("engine.parallel_chats", False),
                                               ("engine.gpu_layers", False)])
def test_which_ranges_double(key: str, expected: bool) -> None:
    assert doubles(spec_for(key)) is expected
