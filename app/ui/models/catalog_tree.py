"""CatalogTree: the curated models with their variants: size, fit badge and decode speed for this machine, licence,
languages, state."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from app.core.models.catalog import Catalog, CatalogModel, CatalogVariant
from app.core.models.fit import VariantFit
from app.core.models.progress import DownloadProgress
from app.core.models.units import human_size
from app.ui.models.model_texts import (
    badge_colour,
    badge_text,
    fit_badge_text,
    fit_reason,
    languages_text,
    parameters_text,
    speed_detail,
    speed_text,
)

VariantKey = tuple[str, str]
KEY_ROLE = Qt.ItemDataRole.UserRole
NAME, SIZE, FIT, SPEED, LICENCE, LANGUAGES, STATE = range(7)
BADGE_ORDER = ("fits", "tight", "too_big", "unsupported")


class CatalogTree(QTreeWidget):
    """Models as rows, their variants under them. Fit badges come from :meth:`show_fits`, download
    states from :meth:`show_state`; ``hide_misfits`` hides what does not fit this machine."""

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("catalogTree")
        self.catalog = catalog
        self.setColumnCount(7)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        for column in (SIZE, FIT, SPEED, LICENCE, LANGUAGES, STATE):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self._fits: dict[VariantKey, VariantFit] = {}
        self._states: dict[VariantKey, str] = {}
        self._variant_items: dict[VariantKey, QTreeWidgetItem] = {}
        self._model_items: dict[str, QTreeWidgetItem] = {}
        self.hide_misfits = False
        for model in catalog:
            self._add_model(model)
        self.expandAll()
        self.retranslate_ui()

    def _add_model(self, model: CatalogModel) -> None:
        item = QTreeWidgetItem(self)
        item.setData(NAME, KEY_ROLE, (model.id, ""))
        font = QFont(item.font(NAME))
        font.setBold(True)
        item.setFont(NAME, font)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
        self._model_items[model.id] = item
        for variant in model.variants:
            child = QTreeWidgetItem(item)
            child.setData(NAME, KEY_ROLE, (model.id, variant.id))
            child.setText(SIZE, human_size(variant.approx_size_bytes))
            child.setTextAlignment(SIZE, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._variant_items[(model.id, variant.id)] = child

    def retranslate_ui(self) -> None:
        self.setHeaderLabels([self.tr("Model"), self.tr("Download"), self.tr("On this machine"), self.tr("Speed"),
                              self.tr("Licence"), self.tr("Languages"), self.tr("State")])
        self.headerItem().setToolTip(SPEED, self.tr("The most tokens a second it can write here: memory bandwidth "
                                                    "over the bytes read per token"))
        self.setAccessibleName(self.tr("Model catalog"))
        for model in self.catalog:
            self._fill_model(model)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.PaletteChange):  # texts, badge colours
            self.retranslate_ui()
        super().changeEvent(event)

    def _fill_model(self, model: CatalogModel) -> None:
        """The model's row (its best badge) and its variants' rows."""
        item = self._model_items[model.id]
        item.setText(NAME, self.tr("{0} · {1} parameters").format(model.name, parameters_text(model.parameters)))
        item.setToolTip(NAME, model.summary)
        item.setText(LICENCE, model.license)
        item.setText(LANGUAGES, languages_text(model.languages))
        badges = [self._fits[(model.id, variant.id)].badge for variant in model.variants
                  if (model.id, variant.id) in self._fits]
        best = min(badges, key=BADGE_ORDER.index, default=None)
        item.setText(FIT, badge_text(best) if best is not None else "")
        item.setForeground(FIT, QBrush(badge_colour(best, self.palette())) if best is not None else QBrush())
        for variant in model.variants:
            self._fill_variant(model, variant)

    def _fill_variant(self, model: CatalogModel, variant: CatalogVariant) -> None:
        key = (model.id, variant.id)
        item = self._variant_items[key]
        kind = self.tr("GGUF") if variant.format == "gguf" else self.tr("Hugging Face")
        item.setText(NAME, f"{kind} {variant.quantization}")
        item.setToolTip(NAME, variant.repo_id + (f"/{variant.file_name}" if variant.file_name else ""))
        fit = self._fits.get(key)
        item.setText(FIT, fit_badge_text(fit) if fit is not None else self.tr("…"))
        item.setToolTip(FIT, fit_reason(fit) if fit is not None else "")
        item.setForeground(FIT, QBrush(badge_colour(fit.badge, self.palette())) if fit is not None else QBrush())
        item.setText(SPEED, speed_text(fit) if fit is not None else "")
        item.setToolTip(SPEED, speed_detail(fit) if fit is not None else "")
        warning = None if fit is None else "too_big" if fit.slow else "tight" if fit.cpu_layers else None
        item.setForeground(SPEED, QBrush(badge_colour(warning, self.palette())) if warning else QBrush())
        item.setTextAlignment(SPEED, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setText(STATE, self._states.get(key, ""))

    def show_fits(self, fits: tuple[VariantFit, ...]) -> None:
        """Show the badges (one per variant, as ModelLibrary.fit_badges returns them)."""
        self._fits = {(fit.model_id, fit.variant_id): fit for fit in fits}
        for model in self.catalog:
            self._fill_model(model)
        self.apply_filter()

    def show_states(self, states: Mapping[VariantKey, str]) -> None:
        """Set the State column (e.g. ``Downloaded``, ``42%``) of every variant; others are cleared."""
        changed = set(self._states) | set(states)
        self._states = dict(states)
        for key in changed:
            item = self._variant_items.get(key)
            if item is not None:
                item.setText(STATE, self._states.get(key, ""))

    def set_hide_misfits(self, hide: bool) -> None:
        self.hide_misfits = hide
        self.apply_filter()

    def apply_filter(self) -> None:
        for model in self.catalog:
            visible_children = 0
            for variant in model.variants:
                fit = self._fits.get((model.id, variant.id))
                hidden = self.hide_misfits and fit is not None and fit.badge in ("too_big", "unsupported")
                self._variant_items[(model.id, variant.id)].setHidden(hidden)
                visible_children += not hidden
            self._model_items[model.id].setHidden(visible_children == 0)

    def fit(self, key: VariantKey) -> VariantFit | None:
        return self._fits.get(key)

    def badge_of(self, key: VariantKey) -> str:
        """The badge text shown for a variant."""
        return self._variant_items[key].text(FIT)

    def speed_of(self, key: VariantKey) -> str:
        """The speed text shown beside a variant's badge."""
        return self._variant_items[key].text(SPEED)

    def is_marked_slow(self, key: VariantKey) -> bool:
        """Whether the speed is shown in the warning colour of a painfully slow model."""
        item = self._variant_items[key]
        return item.foreground(SPEED).color() == badge_colour("too_big", self.palette())

    def state_of(self, key: VariantKey) -> str:
        return self._variant_items[key].text(STATE)

    def is_shown(self, key: VariantKey) -> bool:
        item = self._variant_items[key]
        parent = item.parent()
        return not item.isHidden() and (parent is None or not parent.isHidden())

    def selected_key(self) -> VariantKey | None:
        items = self.selectedItems()
        if not items:
            return None
        model_id, variant_id = items[0].data(NAME, KEY_ROLE)
        return (str(model_id), str(variant_id)) if variant_id else None

    def select(self, key: VariantKey) -> None:
        item = self._variant_items[key]
        self.setCurrentItem(item)
        self.scrollToItem(item)

    def progress_text(self, progress: DownloadProgress) -> str:
        """The State column for a download in progress."""
        if progress.state == "paused":
            return self.tr("Paused")
        fraction = progress.fraction
        return self.tr("{0}%").format(int(fraction * 100)) if fraction is not None else self.tr("Downloading")
