"""A damaged conversations file: a dialog offers to move it aside (nothing deleted) and start with an empty history."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core.chat.database import database_path
from app.core.config.paths import AppPaths
from app.core.util.errors import UserFacingError
from app.core.util.set_aside import set_aside, sqlite_file_is_damaged
from app.ui.startup_error import show_startup_error

log = logging.getLogger(__name__)
T = TypeVar("T")
Asker = Callable[[Path, str], bool]


def ask_to_set_aside(path: Path, reason: str) -> bool:
    """The dialog: whether the user chose to move the file aside and start fresh."""
    translate = QCoreApplication.translate
    box = QMessageBox(QMessageBox.Icon.Warning, translate("DamagedDatabase", "Conversations file damaged"),
                      translate("DamagedDatabase", "Your conversations file cannot be read: it is damaged."))
    kept_in = str(path.parent)
    box.setInformativeText(translate(
        "DamagedDatabase", "UniDesk can move it aside, keeping it in {0}, and start with an empty history. "
        "Nothing is deleted; you can try to repair or restore it later.").format(kept_in))
    box.setDetailedText(reason)
    move = box.addButton(translate("DamagedDatabase", "Move aside and start fresh"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(translate("DamagedDatabase", "Quit"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(move)
    box.exec()
    return box.clickedButton() is move




def open_or_recover(open_chat: Callable[[], T], paths: AppPaths, *, ask: Asker = ask_to_set_aside,
                    tell: Callable[[str], None] = show_startup_error) -> T | None:
    """``open_chat()``; if the conversations file is damaged, ask to set it aside and open a fresh one.
    Any other failure (or a refusal) is shown and gives None: the window does not exit silently."""
    try:
        return open_chat()
    except UserFacingError as error:
        path = database_path(paths.data_dir)
        print(f"unidesk: error: {error}", file=sys.stderr)
        QApplication.instance() or QApplication(sys.argv[:1])
        if not sqlite_file_is_damaged(path):
            tell(str(error))
            return None
        if not ask(path, str(error)):
            return None
        kept = set_aside(path)
        log.warning("the damaged conversations file was moved to %s; starting with an empty history", kept)
    try:
        return open_chat()
    except UserFacingError as error:
        tell(str(error))
        return None
