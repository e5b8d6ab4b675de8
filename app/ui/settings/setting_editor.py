"""SettingEditor: the editor of one declared setting (control by kind, help text, refusal reason, note)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.config import (
    SettingSpec,
    SettingValue,
    SettingValueError,
    TextFormat,
    ValueKind,
    describe_allowed,
    parse_value_text,
    validate_value,
)
from app.core.config.schema import same_value
from app.ui.i18n import follow_language, render
from app.ui.settings.declaration_text import declared, reason_text
from app.ui.settings.path_field import PathField
from app.ui.settings.setting_double_spin_box import SettingDoubleSpinBox
from app.ui.settings.setting_spin_box import SettingSpinBox

ERROR_COLOR = "#e53935"
INVALID_FIELD_STYLE = "QLineEdit { border: 1px solid #e53935; border-radius: 2px; padding: 1px; }"

Control = QCheckBox | QComboBox | SettingSpinBox | SettingDoubleSpinBox | PathField | QLineEdit


class SettingEditor(QWidget):
    """Edits one setting. Bad input stays in the field and the reason appears under it.

    ``value()`` is the validated value, or None while the input is refused.
    """

    edited = Signal(str)
    """The setting's key, after every change by the user."""

    def __init__(self, spec: SettingSpec, value: SettingValue, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.setObjectName(f"settingEditor:{spec.key}")
        self._error: str | None = None
        self._rule_error: str | None = None
        self._value: SettingValue | None = value
        self.reveal_button: QToolButton | None = None
        self.unit_label: QLabel | None = None
        self.control: Control = self._make_control()
        self.error_label = self._small_label("settingError")
        self.error_label.setStyleSheet(f"color: {ERROR_COLOR};")
        self.note_label = self._small_label("settingNote")
        self.note_label.setForegroundRole(QPalette.ColorRole.Link)
        self.help_label = self._small_label("settingHelp")
        self.help_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.help_label.setVisible(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.setSpacing(2)
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.control, stretch=1 if isinstance(self.control, (QLineEdit, PathField)) else 0)
        if spec.unit and isinstance(self.control, (SettingSpinBox, SettingDoubleSpinBox)):
            self.unit_label = QLabel(self)
            self.unit_label.setObjectName("settingUnit")
            row.addWidget(self.unit_label)
        if self.reveal_button is not None:
            row.addWidget(self.reveal_button)
        if not isinstance(self.control, (QLineEdit, PathField)):
            row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.note_label)
        layout.addWidget(self.error_label)
        layout.addWidget(self.help_label)
        self.set_value(value)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """The declared texts (title, description, unit, choice labels) in the current language; values stay."""
        spec, control = self.spec, self.control
        title = declared(spec.title)
        if isinstance(control, QCheckBox):
            control.setText(title)
        elif isinstance(control, QComboBox):
            for index, choice in enumerate((*spec.special_values, *spec.choices)):
                control.setItemText(index, declared(choice.label))
        control.setAccessibleName(title)
        control.setAccessibleDescription(declared(spec.description))
        control.setToolTip(self._tooltip())
        self.help_label.setText(declared(spec.description))
        if self.unit_label is not None and spec.unit:
            self.unit_label.setText(declared(spec.unit))
        if self.reveal_button is not None:
            self.reveal_button.setText(self.tr("Show"))
            self.reveal_button.setAccessibleName(self.tr("Show {0}").format(title))
            self.reveal_button.setToolTip(self.tr("Show or hide {0}").format(title))
        self._show_error()  # the core's reason, in the language shown

    # ---- building --------------------------------------------------------------------
    def _small_label(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        label.setVisible(False)
        font = label.font()
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
        label.setFont(font)
        return label

    def _tooltip(self) -> str:
        allowed = self.tr("Allowed: {0}.").format(render(describe_allowed(self.spec)))
        return f"{declared(self.spec.description)}\n{allowed}"

    def _make_control(self) -> Control:
        spec = self.spec
        control: Control
        if spec.kind is ValueKind.BOOL:
            control = QCheckBox(self)
            control.toggled.connect(lambda _checked: self._changed())
        elif spec.choices:
            control = QComboBox(self)
            for choice in (*spec.special_values, *spec.choices):
                control.addItem(choice.label, choice.value)  # retranslate_ui writes the label
            control.activated.connect(lambda _index: self._changed())
        elif spec.kind in (ValueKind.INT, ValueKind.FLOAT):
            control = SettingSpinBox(spec, self) if spec.kind is ValueKind.INT else SettingDoubleSpinBox(spec, self)
            control.valueChanged.connect(lambda _value: self._changed())  # arrows, and typed numbers
            control.lineEdit().textEdited.connect(lambda _text: self._changed())  # typing that is not a number
        elif spec.text_format is TextFormat.PATH:
            control = PathField(lambda: declared(spec.title), self)
            control.text_edited.connect(lambda _text: self._changed())
        else:
            control = QLineEdit(self)
            if spec.secret:
                control.setEchoMode(QLineEdit.EchoMode.Password)
                self.reveal_button = self._make_reveal_button(control)
            if spec.text_format is TextFormat.URL:
                control.setPlaceholderText("http://…")
            control.textEdited.connect(lambda _text: self._changed())
        return control

    def _make_reveal_button(self, line_edit: QLineEdit) -> QToolButton:
        button = QToolButton(self)
        button.setCheckable(True)
        button.toggled.connect(
            lambda shown: line_edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        )
        return button

    # ---- values ----------------------------------------------------------------------
    def value(self) -> SettingValue | None:
        """The validated value, or None while the input is refused."""
        return None if self._error is not None else self._value

    def error(self) -> str | None:
        """Why the input is refused (its own check first, then a rule linking it to other settings)."""
        return self._error or self._rule_error

    def set_value(self, value: SettingValue) -> None:
        """Show ``value`` (already valid) without reporting an edit."""
        control = self.control
        blocked = control.blockSignals(True)
        try:
            if isinstance(control, QCheckBox):
                control.setChecked(bool(value))
            elif isinstance(control, QComboBox):
                index = next(
                    (i for i in range(control.count()) if same_value(control.itemData(i), value)), 0
                )
                control.setCurrentIndex(index)
            elif isinstance(control, SettingSpinBox) and isinstance(value, int):
                control.setValue(value)
            elif isinstance(control, SettingDoubleSpinBox) and isinstance(value, (int, float)):
                control.setValue(float(value))
            elif isinstance(control, PathField):
                control.set_text(str(value))
            elif isinstance(control, QLineEdit):
                control.setText(str(value))
        finally:
            control.blockSignals(blocked)
        self._value, self._error = value, None
        self._show_error()

    def set_rule_error(self, text: str | None) -> None:
        """Show (or clear) a problem with this setting's combination with others."""
        self._rule_error = text
        self._show_error()

    def set_note(self, text: str | None) -> None:
        """A remark under the control, e.g. why Automatic picks a backend."""
        self.note_label.setText(text or "")
        self.note_label.setVisible(bool(text))

    def set_help_visible(self, visible: bool) -> None:
        self.help_label.setVisible(visible)

    def _raw_value(self) -> object:
        control = self.control
        if isinstance(control, QCheckBox):
            return control.isChecked()
        if isinstance(control, QComboBox):
            return control.currentData()
        if isinstance(control, (SettingSpinBox, SettingDoubleSpinBox)):
            return control.typed()  # the text as typed, not the box's last number
        if isinstance(control, PathField):
            return control.text()
        return control.text()

    def _changed(self) -> None:
        raw = self._raw_value()
        try:
            if isinstance(raw, str) and self.spec.kind is not ValueKind.STR:
                self._value = parse_value_text(self.spec, raw)
            else:
                self._value = validate_value(self.spec, raw)
            self._error = None
        except SettingValueError as error:
            self._error = reason_text(error)
        self._show_error()
        self.edited.emit(self.spec.key)

    def _show_error(self) -> None:
        text = self.error()
        self.error_label.setText(render(text) if text else "")
        self.error_label.setVisible(bool(text))
        field = self._text_field()
        if field is not None:  # a widget style sheet, not a property + repolish (QStyle.polish leaks None refs)
            field.setStyleSheet(INVALID_FIELD_STYLE if text else "")

    def _text_field(self) -> QLineEdit | None:
        """The line edit the user types into, if the control has one (it gets the red frame)."""
        control = self.control
        if isinstance(control, (SettingSpinBox, SettingDoubleSpinBox)):
            return control.lineEdit()
        if isinstance(control, PathField):
            return control.line_edit
        return control if isinstance(control, QLineEdit) else None
