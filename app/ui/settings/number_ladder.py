"""Where a setting's spin box goes when the user clicks its arrows: within bounds, via special values."""

from __future__ import annotations

import math

from app.core.config import SettingSpec

DOUBLING_RATIO = 1024
"""Ranges spanning this factor or more (context length, answer length) step by doubling."""


def _specials(spec: SettingSpec) -> list[float]:
    return sorted(float(choice.value) for choice in spec.special_values if not isinstance(choice.value, (bool, str)))


def linear_step(spec: SettingSpec) -> float:
    """The arrow step of a linear range: 1 for whole numbers, a tenth-ish of a decade for decimals."""
    if spec.kind.value == "int":
        return 1
    low = spec.minimum if spec.minimum is not None else 0.0
    high = spec.maximum if spec.maximum is not None else low + 10.0
    span = max(high - low, 1e-9)
    return float(10 ** (math.floor(math.log10(span)) - 1))


def doubles(spec: SettingSpec) -> bool:
    """True when stepping doubles and halves the value (minimum > 0 and a range of >= 1024x)."""
    low, high = spec.minimum, spec.maximum
    return low is not None and high is not None and low > 0 and high / low >= DOUBLING_RATIO


def next_value(spec: SettingSpec, value: float, direction: int) -> float:
    """The value one arrow click up (``direction`` 1) or down (-1) from ``value``.

    Special values below the minimum (0 = "Automatic", -1 = "all") sit just under it: stepping
    down from the minimum reaches them, stepping up from them reaches the minimum. Out-of-range
    values step back into the range. The result never leaves the allowed values.
    """
    low = spec.minimum if spec.minimum is not None else -math.inf
    high = spec.maximum if spec.maximum is not None else math.inf
    below = [special for special in _specials(spec) if special < low]
    above = [special for special in _specials(spec) if special > high]
    if direction > 0:
        if value < low:
            larger = [special for special in below if special > value]
            return larger[0] if larger else low
        if value >= high:
            larger = [special for special in above if special > value]
            return larger[0] if larger else high
        return min(high, _up(spec, value))
    if value > high:
        smaller = [special for special in above if special < value]
        return smaller[-1] if smaller else high
    if value <= low:
        smaller = [special for special in below if special < value]
        return smaller[-1] if smaller else min(value, low) if math.isfinite(low) else value - linear_step(spec)
    return max(low, _down(spec, value))


def _up(spec: SettingSpec, value: float) -> float:
    if doubles(spec) and spec.minimum is not None:
        step = float(spec.minimum)
        while step <= value:
            step *= 2
        return step
    step = linear_step(spec)
    return round((math.floor(value / step + 1e-9) + 1) * step, 6)


def _down(spec: SettingSpec, value: float) -> float:
    if doubles(spec) and spec.minimum is not None:
        step = float(spec.minimum)
        while step * 2 < value:
            step *= 2
        return step
    step = linear_step(spec)
    return round((math.ceil(value / step - 1e-9) - 1) * step, 6)


def can_step(spec: SettingSpec, value: float, direction: int) -> bool:
    """Whether an arrow click in ``direction`` changes ``value``."""
    return next_value(spec, value, direction) != value
