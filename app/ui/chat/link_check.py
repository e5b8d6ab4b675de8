"""Links in answers: only web addresses open, and only after the user has seen the exact address."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtWidgets import QMessageBox, QWidget

WEB_SCHEMES = ("http", "https")
LinkConfirmer = Callable[[QUrl], bool]


def is_web_link(url: QUrl) -> bool:
    """True for a valid http(s) address with a host (not file:, smb:, javascript:, a bare path...)."""
    return url.isValid() and url.scheme().lower() in WEB_SCHEMES and bool(url.host())


def exact_address(url: QUrl) -> str:
    """The address as it will be fetched: international host names in their ASCII form, odd characters encoded,
    so a look-alike domain or a hidden user name shows."""
    return bytes(url.toEncoded().data()).decode("ascii", "replace")


def ask_before_opening(parent: QWidget) -> LinkConfirmer:
    """A confirmer that shows the exact address in a dialog and returns whether the user chose to open it."""

    def confirm(url: QUrl) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, QCoreApplication.translate("LinkCheck", "Open link?"),
                          QCoreApplication.translate("LinkCheck", "Open this address in your web browser?"),
                          QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel, parent)
        box.setInformativeText(exact_address(url))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Open

    return confirm


def open_checked(url: QUrl, confirm: LinkConfirmer, open_url: Callable[[QUrl], bool]) -> bool:
    """Open ``url`` if it is a web link and ``confirm`` agrees; whether it was opened."""
    if not is_web_link(url) or not confirm(url):
        return False
    return bool(open_url(url))
