"""SettingsPanel: every declared setting, generated from SETTINGS, grouped by section and group."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.config import SECTIONS, SETTINGS, Settings, SettingSection, SettingSpec, SettingValue, SettingValueError
from app.core.config.schema import same_value
from app.ui.i18n import follow_language
from app.ui.settings.declaration_text import declared, reason_text
from app.ui.settings.setting_editor import SettingEditor


class SettingsPanel(QWidget):
    """One editor per declared setting; advanced ones appear when "Show advanced settings" is on.

    ``edited`` fires after every change; ``candidate()`` says whether the edited values are valid together.
    """

    edited = Signal()

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsPanel")
        self._base = settings
        self.editors: dict[str, SettingEditor] = {}
        self._following = False
        self._forms: list[tuple[QLabel | None, list[SettingEditor]]] = []
        self._row_labels: dict[str, QLabel] = {}
        self._grids: list[QGridLayout] = []
        self._declared_labels: list[tuple[QLabel, str]] = []
        """Labels showing a declared text (section titles and descriptions, group headings), with that text."""
        self._section_titles: list[str] = []
        self.section_list = QListWidget(self)
        self.section_list.setObjectName("settingsSections")
        self.section_list.setMaximumWidth(190)
        self.section_widgets: list[QWidget] = []
        body_widget = QWidget()
        body_widget.setObjectName("settingsBody")
        body_layout = QVBoxLayout(body_widget)
        body_layout.setSpacing(14)
        for section in SECTIONS:
            specs = [spec for spec in SETTINGS if spec.section == section.name]
            if specs:
                self.section_list.addItem(section.title)  # retranslate_ui writes the titles
                self._section_titles.append(section.title)
                section_widget = self._make_section(section, specs, settings, body_widget)
                body_layout.addWidget(section_widget)
                self.section_widgets.append(section_widget)
        body_layout.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("settingsScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(body_widget)
        self.section_list.setCurrentRow(0)
        self.section_list.currentRowChanged.connect(self._jump_to_section)
        self.scroll_area.verticalScrollBar().valueChanged.connect(self._follow_scroll)
        self.advanced_toggle = QCheckBox(self)
        self.advanced_toggle.setObjectName("advancedToggle")
        self.advanced_toggle.toggled.connect(self.show_advanced)
        body = QHBoxLayout()
        body.addWidget(self.section_list)
        body.addWidget(self.scroll_area, stretch=1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(body, stretch=1)
        layout.addWidget(self.advanced_toggle)
        self.show_advanced(False)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Section, group and row names in the current language (each editor rewrites its own texts)."""
        self.section_list.setAccessibleName(self.tr("Settings sections"))
        for row, title in enumerate(self._section_titles):
            self.section_list.item(row).setText(declared(title))
        for label, text in self._declared_labels:
            label.setText(declared(text))
        for key, label in self._row_labels.items():
            spec = self.editors[key].spec
            label.setText(declared(spec.title))
            label.setToolTip(declared(spec.description))
        self.advanced_toggle.setText(self.tr("Show advanced settings"))
        self.advanced_toggle.setAccessibleName(self.tr("Show advanced settings"))
        self._align_labels()

    def _align_labels(self) -> None:
        """One label column for every section and group (the widest name sets it), so the fields line up down
        the whole panel, advanced ones included."""
        width = max((label.sizeHint().width() for label in self._row_labels.values()), default=0)
        for label in self._row_labels.values():
            label.setFixedWidth(width)
        for grid in self._grids:  # a group of check boxes only has no labels: its empty column keeps the width
            labelled = any(grid.itemAtPosition(row, 0) is not None for row in range(grid.rowCount()))
            grid.setColumnMinimumWidth(0, width if labelled else width + grid.horizontalSpacing())

    # ---- building --------------------------------------------------------------------
    def _make_section(
        self, section: SettingSection, specs: list[SettingSpec], settings: Settings, parent: QWidget
    ) -> QWidget:
        page = QWidget(parent)
        page.setObjectName(f"settingsSection:{section.name}")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        title = QLabel(page)
        title.setObjectName("sectionTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        title.setFont(font)
        description = QLabel(page)
        description.setWordWrap(True)
        description.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout.addWidget(title)
        layout.addWidget(description)
        self._declared_labels += [(title, section.title), (description, section.description)]
        groups: dict[str, list[SettingSpec]] = {}
        for spec in specs:
            groups.setdefault(spec.group, []).append(spec)
        for group, members in sorted(groups.items(), key=lambda item: item[0] != ""):
            heading = None
            if group:
                heading = QLabel(page)
                heading.setObjectName("groupHeading")
                self._declared_labels.append((heading, group))
                heading_font = heading.font()
                heading_font.setBold(True)
                heading.setFont(heading_font)
                layout.addSpacing(4)
                layout.addWidget(heading)
            grid = QGridLayout()
            self._grids.append(grid)
            grid.setColumnStretch(1, 1)
            grid.setHorizontalSpacing(10)
            grid.setVerticalSpacing(6)
            editors = [self._add_editor(grid, row, spec, settings[spec.key], page) for row, spec in enumerate(members)]
            layout.addLayout(grid)
            self._forms.append((heading, editors))
        return page

    def _jump_to_section(self, row: int) -> None:
        if 0 <= row < len(self.section_widgets) and not self._following:
            self.scroll_area.verticalScrollBar().setValue(self.section_widgets[row].y())

    def _follow_scroll(self, position: int) -> None:
        """Select the section at the top of the view while the user scrolls."""
        row = 0
        for index, widget in enumerate(self.section_widgets):
            if widget.y() <= position + 8:
                row = index
        if self.section_list.currentRow() != row:
            self._following = True
            self.section_list.setCurrentRow(row)
            self._following = False

    def _add_editor(
        self, grid: QGridLayout, row: int, spec: SettingSpec, value: SettingValue, page: QWidget
    ) -> SettingEditor:
        editor = SettingEditor(spec, value, page)
        editor.edited.connect(self._on_edited)
        if spec.kind.value != "bool":
            label = QLabel(page)
            label.setBuddy(editor.control)
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            label.setContentsMargins(0, 4, 0, 0)
            grid.addWidget(label, row, 0)
            self._row_labels[spec.key] = label
        grid.addWidget(editor, row, 1)
        self.editors[spec.key] = editor
        return editor

    # ---- state -----------------------------------------------------------------------
    def show_advanced(self, shown: bool) -> None:
        """Show or hide the settings marked advanced (and group headings left empty)."""
        if self.advanced_toggle.isChecked() != shown:
            self.advanced_toggle.setChecked(shown)
        for heading, editors in self._forms:
            visible_count = 0
            for editor in editors:
                visible = shown or not editor.spec.advanced or editor.error() is not None
                editor.setVisible(visible)
                label = self._row_labels.get(editor.spec.key)
                if label is not None:
                    label.setVisible(visible)
                visible_count += visible
            if heading is not None:
                heading.setVisible(visible_count > 0)

    def editor(self, key: str) -> SettingEditor:
        return self.editors[key]

    def set_settings(self, settings: Settings) -> None:
        """Show ``settings`` in every editor (after Apply or Restore defaults)."""
        self._base = settings
        for key, editor in self.editors.items():
            editor.set_value(settings[key])
            editor.set_rule_error(None)
        self.edited.emit()

    def base_settings(self) -> Settings:
        """The settings the panel started from (the ones in force)."""
        return self._base

    def invalid_keys(self) -> list[str]:
        """Keys whose input is refused."""
        return [key for key, editor in self.editors.items() if editor.error() is not None]

    def candidate(self) -> Settings | None:
        """The edited settings if every value and every cross-field rule is fine, else None."""
        if any(editor.value() is None for editor in self.editors.values()):
            return None
        return self._combined()

    def settings_for_planning(self) -> Settings:
        """The edited settings with refused fields left at their last valid value (for the live verdict)."""
        return self._combined() or self._base

    def changed_keys(self) -> list[str]:
        """Keys whose edited value differs from the settings in force."""
        return [
            key for key, editor in self.editors.items()
            if editor.value() is not None and not same_value(editor.value(), self._base[key])  # type: ignore[arg-type]
        ]

    def _combined(self) -> Settings | None:
        changes = {key: value for key, editor in self.editors.items() if (value := editor.value()) is not None}
        for editor in self.editors.values():
            editor.set_rule_error(None)
        try:
            return self._base.with_changes(changes)
        except SettingValueError as error:
            if error.key in self.editors:
                self.editors[error.key].set_rule_error(reason_text(error))
            return None

    def _on_edited(self, _key: str) -> None:
        self._combined()
        self.edited.emit()
