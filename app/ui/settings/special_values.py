"""Shared text rules of the numeric setting editors: special values shown by their labels."""

from __future__ import annotations

import math

from app.core.config import SettingSpec
from app.ui.settings.declaration_text import declared


def special_labels(spec: SettingSpec) -> dict[float, str]:
    """Special numeric values and their labels, e.g. ``{0: "Automatic"}``."""
    return {
        float(choice.value): declared(choice.label)
        for choice in spec.special_values
        if isinstance(choice.value, (int, float)) and not isinstance(choice.value, bool)
    }


def label_for(labels: dict[float, str], value: float) -> str | None:
    """The label of a special value, if ``value`` is one."""
    for special, label in labels.items():
        if abs(special - value) < 1e-9:
            return label
    return None


def shows_label(labels: dict[float, str], value: float, text: str) -> bool:
    """Whether ``text`` is the label of the special value ``value`` (a box showing it, not the user's typing)."""
    label = label_for(labels, value)
    return label is not None and label == text


def value_for_label(labels: dict[float, str], text: str) -> float | None:
    """The special value whose label is ``text`` (any case), if any."""
    wanted = text.strip().casefold()
    for special, label in labels.items():
        if label.casefold() == wanted:
            return special
    return None


def typed_number(labels: dict[float, str], text: str) -> float | None:
    """The number ``text`` stands for (a special value's label or a number), or None when it is neither."""
    special = value_for_label(labels, text)
    if special is not None:
        return special
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None
