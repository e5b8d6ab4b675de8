"""DialogButtons: a dialog's row of our own buttons with standard roles, whose texts survive language switches."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialogButtonBox, QPushButton, QWidget

from app.ui.i18n import follow_language

ButtonRole = QDialogButtonBox.ButtonRole


class DialogButtons(QDialogButtonBox):
    """A button box placed and ordered as the platform wants, holding buttons added by role (:meth:`add`).

    Qt writes the texts of *standard* buttons (``StandardButton.Save``...) again after every language switch,
    over any text set on them, and leaves their naming to Qt's own catalogue. Buttons added with a role keep
    the text given here: ``add`` takes it as a function (``lambda: self.tr("Save")``) and writes it, as the
    button's text and accessible name, now and after every switch. ``accepted``/``rejected`` still follow the
    roles.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts: list[tuple[QPushButton, Callable[[], str]]] = []
        follow_language(self, self.retranslate_ui)

    def add(self, role: ButtonRole, text: Callable[[], str]) -> QPushButton:
        """A new button with ``role`` named by ``text()`` in the current language."""
        button = self.addButton("", role)
        self._texts.append((button, text))
        _name(button, text())
        return button

    def retranslate_ui(self) -> None:
        """Every button's text in the current language."""
        for button, text in self._texts:
            _name(button, text())


def _name(button: QPushButton, text: str) -> None:
    button.setText(text)
    button.setAccessibleName(text)
