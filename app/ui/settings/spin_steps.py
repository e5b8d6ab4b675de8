"""Arrow steps shared by the setting spin boxes: where steps lead and which arrows are enabled."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractSpinBox

from app.core.config import SettingSpec
from app.ui.settings.number_ladder import can_step, next_value

StepFlag = QAbstractSpinBox.StepEnabledFlag


def stepped(spec: SettingSpec, value: float, steps: int) -> float:
    """``value`` after ``steps`` arrow clicks (negative: down), each to the next allowed value."""
    for _ in range(abs(steps)):
        value = next_value(spec, value, 1 if steps > 0 else -1)
    return value


def enabled_steps(spec: SettingSpec, value: float) -> QAbstractSpinBox.StepEnabledFlag:
    """The arrows that would change ``value``."""
    flags = StepFlag.StepNone
    if can_step(spec, value, 1):
        flags |= StepFlag.StepUpEnabled
    if can_step(spec, value, -1):
        flags |= StepFlag.StepDownEnabled
    return flags
