"""SettingDoubleSpinBox: a decimal setting's spin box that accepts any typed number (the editor explains
bad ones), shows special values by their labels, and steps only through allowed values."""

from __future__ import annotations

from PySide6.QtGui import QFocusEvent, QValidator
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QWidget

from app.core.config import SettingSpec
from app.ui.i18n import follow_language
from app.ui.settings.special_values import label_for, shows_label, special_labels, typed_number
from app.ui.settings.spin_steps import enabled_steps, stepped

TYPED_LIMIT = 1e9
DECIMALS = 2


class SettingDoubleSpinBox(QDoubleSpinBox):
    """Spin box for a ``float`` setting. Typing is free; arrows stay within the declared values."""

    def __init__(self, spec: SettingSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._spec = spec
        self._labels = special_labels(spec)
        self.setDecimals(DECIMALS)
        self.setRange(-TYPED_LIMIT, TYPED_LIMIT)
        self.setGroupSeparatorShown(False)
        self.setKeyboardTracking(True)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.setMinimumWidth(150)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Read the special values' labels in the current language; a special value on show is shown by its new
        label (the value stays, nothing is reported as an edit; text the user is typing stays as typed)."""
        relabel = shows_label(self._labels, self.value(), self.text())
        self._labels = special_labels(self._spec)
        if relabel:
            self.setValue(self.value())  # writes the shown text again

    def textFromValue(self, value: float) -> str:
        return label_for(self._labels, value) or super().textFromValue(value)

    def valueFromText(self, text: str) -> float:
        typed = typed_number(self._labels, text)
        if typed is None:
            return self.value()  # not a number: the box keeps its number, the editor shows the problem
        return min(max(typed, -TYPED_LIMIT), TYPED_LIMIT)

    def typed(self) -> float | str:
        """What the field says: its number (a special value's label read as its value), else the text itself."""
        number = typed_number(self._labels, self.text())
        return self.text() if number is None else number

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        """Any text may be typed and stays as typed (never corrected on leaving the field): the editor reads
        it and explains what is wrong with it (:meth:`SettingEditor.value`)."""
        return QValidator.State.Acceptable, text, pos

    def focusOutEvent(self, event: QFocusEvent) -> None:
        """Leaving the field keeps text that is not a number as typed (Qt would write the last number back)."""
        typed = self.text()
        super().focusOutEvent(event)
        if typed_number(self._labels, typed) is None and self.text() != typed:
            self.lineEdit().setText(typed)

    def stepBy(self, steps: int) -> None:
        self.setValue(stepped(self._spec, self.value(), steps))
        self.selectAll()

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        return enabled_steps(self._spec, self.value())
