"""CatalogPage: the catalog judged for a context length and number of parallel chats, with the chosen variant's
details and download box."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from app.core.config.declarations import spec_for
from app.core.hardware.machine_profiles import find_profile, machine_profiles
from app.core.hardware.report import HardwareReport
from app.core.models.catalog import Catalog
from app.core.models.fit import DEFAULT_FIT_CONTEXT, VariantFit
from app.core.planner.request import PlanRequest
from app.ui.i18n import render
from app.ui.models.catalog_tree import CatalogTree, VariantKey
from app.ui.models.download_box import DownloadBox
from app.ui.models.model_texts import (
    fit_reason,
    format_name,
    languages_text,
    machine_text,
    machine_title,
    speed_detail,
)
from app.ui.settings.special_values import label_for, special_labels

CONTEXT_SPEC = spec_for("engine.context_length")  # the boxes take the values these settings allow
CHATS_SPEC = spec_for("engine.parallel_chats")
AUTOMATIC_CHATS = 0  # the chats box's lowest value: the planner picks for each model, as the setting's Automatic
RECOMPUTE_DELAY_MS = 200
MACHINE_BOX_CHARACTERS = 28  # the machine box's width in characters; longer titles are shown whole in its list


class CatalogPage(QWidget):
    """``request_changed()`` (debounced) when the context, the chats or the machine change;
    ``selection_changed(key or None)``. The machine is this computer or a built-in profile ("will it fit on ...")."""

    request_changed = Signal()
    selection_changed = Signal(object)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("catalogPage")
        self.catalog = catalog
        self.base_request = PlanRequest("llamacpp", parallel_chats=None)
        self.report: HardwareReport | None = None
        self.machine_label = QLabel(self)
        self.machine_label.setObjectName("machineLabel")
        self.machine_label.setWordWrap(True)
        self.judged_label = QLabel(self)
        self.context_spin = QSpinBox(self)
        self.context_spin.setObjectName("fitContext")
        self.context_spin.setRange(int(CONTEXT_SPEC.minimum or 1), int(CONTEXT_SPEC.maximum or DEFAULT_FIT_CONTEXT))
        self.context_spin.setSingleStep(1024)
        self.context_spin.setValue(DEFAULT_FIT_CONTEXT)
        self.context_spin.setGroupSeparatorShown(True)
        self.chats_spin = QSpinBox(self)
        self.chats_spin.setObjectName("fitChats")
        self.chats_spin.setRange(AUTOMATIC_CHATS, int(CHATS_SPEC.maximum or 1))
        self.fit_on_label = QLabel(self)
        self.machine_combo = QComboBox(self)
        self.machine_combo.setObjectName("fitMachine")
        # Sized for a short title: the built-in machines' long titles show in the open list, not in the page's width.
        self.machine_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.machine_combo.setMinimumContentsLength(MACHINE_BOX_CHARACTERS)
        self.machine_combo.addItem("", None)  # this computer; named in retranslate_ui
        for profile in machine_profiles():
            self.machine_combo.addItem(profile.title, profile.id)
        self.hide_misfits = QCheckBox(self)
        self.hide_misfits.setObjectName("hideMisfits")
        self.tree = CatalogTree(catalog, self)
        self.details = QLabel(self)
        self.details.setObjectName("variantDetails")
        self.details.setWordWrap(True)
        self.download_box = DownloadBox(self)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(RECOMPUTE_DELAY_MS)
        self._debounce.timeout.connect(self.request_changed)
        self.context_spin.valueChanged.connect(lambda _value: self._debounce.start())
        self.chats_spin.valueChanged.connect(lambda _value: self._debounce.start())
        self.chats_spin.valueChanged.connect(lambda _value: self._name_chats())
        self.machine_combo.currentIndexChanged.connect(lambda _index: self._debounce.start())
        self.hide_misfits.toggled.connect(self.tree.set_hide_misfits)
        self.tree.itemSelectionChanged.connect(self._selected)
        controls = QHBoxLayout()  # what to judge, then on which machine: two rows, so the page fits a small screen
        controls.addWidget(self.judged_label)
        controls.addWidget(self.context_spin)
        self.tokens_label = QLabel(self)
        controls.addWidget(self.tokens_label)
        controls.addWidget(self.chats_spin)
        self.chats_label = QLabel(self)
        controls.addWidget(self.chats_label)
        controls.addStretch(1)
        machine_row = QHBoxLayout()
        machine_row.addWidget(self.fit_on_label)
        machine_row.addWidget(self.machine_combo, 1)
        machine_row.addWidget(self.hide_misfits)
        layout = QVBoxLayout(self)
        layout.addWidget(self.machine_label)
        layout.addLayout(controls)
        layout.addLayout(machine_row)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.details)
        layout.addWidget(self.download_box)
        self.retranslate_ui()

    def _name_chats(self) -> None:
        """"× 1 parallel chat", "× 4 parallel chats": the word after the box agrees with its number."""
        one = self.chats_spin.value() == 1
        self.chats_label.setText(self.tr("parallel chat") if one else self.tr("parallel chats"))

    def retranslate_ui(self) -> None:
        self.judged_label.setText(self.tr("Judged for"))
        self.tokens_label.setText(self.tr("tokens per chat ×"))
        self._name_chats()
        self.context_spin.setAccessibleName(self.tr("Context length to judge the models for"))
        self.chats_spin.setAccessibleName(self.tr("Number of parallel chats to judge the models for"))
        self.chats_spin.setSpecialValueText(label_for(special_labels(CHATS_SPEC), AUTOMATIC_CHATS) or "")
        self.hide_misfits.setText(self.tr("Hide models that do not fit"))
        self.fit_on_label.setText(self.tr("on"))
        self.machine_combo.setItemText(0, self.tr("this computer"))
        for index, profile in enumerate(machine_profiles(), start=1):
            self.machine_combo.setItemText(index, machine_title(profile.title))
        self.machine_combo.setAccessibleName(self.tr("Machine to judge the models for"))
        if self.report is not None:
            self.set_machine(self.report)
        else:
            self.machine_label.setText(self.tr("Looking at this machine…"))
        self._selected()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def set_base_request(self, request: PlanRequest) -> None:
        """The request from the settings (``badge_request_from_settings``); its context and chats fill the two boxes."""
        self.base_request = request
        for spin, value in ((self.context_spin, request.context_length or DEFAULT_FIT_CONTEXT),
                            (self.chats_spin, request.parallel_chats or AUTOMATIC_CHATS)):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)

    def current_request(self) -> PlanRequest:
        chats = self.chats_spin.value()
        return dataclasses.replace(self.base_request, context_length=self.context_spin.value(),
                                   parallel_chats=None if chats == AUTOMATIC_CHATS else chats)

    def chosen_profile_report(self) -> HardwareReport | None:
        """The built-in machine chosen in the box, or None for this computer."""
        profile_id = self.machine_combo.currentData()
        profile = find_profile(profile_id) if profile_id else None
        return profile.report if profile is not None else None

    def set_machine(self, report: HardwareReport) -> None:
        self.report = report
        profile_id = self.machine_combo.currentData()
        profile = find_profile(profile_id) if profile_id else None
        self.machine_label.setText(machine_text(report, machine_title(profile.title) if profile is not None else None))

    def show_fits(self, report: HardwareReport, fits: tuple[VariantFit, ...]) -> None:
        """Badges computed for ``report``; the details of the chosen variant follow."""
        self.set_machine(report)
        self.tree.show_fits(fits)
        self._selected()

    def selected_key(self) -> VariantKey | None:
        return self.tree.selected_key()

    def _selected(self) -> None:
        key = self.tree.selected_key()
        if key is None:
            self.details.setText("")
            self.details.setVisible(False)
        else:
            model, variant = self.catalog.find(*key)
            fit = self.tree.fit(key)
            lines = [self.tr("{0} · {1} · licence {2}").format(model.name, format_name(variant.format), model.license),
                     self.tr("Languages: {0}").format(languages_text(model.languages, len(model.languages)))]
            if fit is not None:
                lines.extend(line for line in (fit_reason(fit), speed_detail(fit)) if line)
            lines.append(render(variant.pin_note()))
            self.details.setText("\n".join(lines))
            self.details.setToolTip(model.summary)
            self.details.setVisible(True)
        self.selection_changed.emit(key)
