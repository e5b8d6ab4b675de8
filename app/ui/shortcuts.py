"""The window's keyboard shortcuts as one table (new chat, send, stop, search, knowledge base) and their installer."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QWidget

log = logging.getLogger(__name__)
CONTEXT = "Shortcuts"


@dataclass(frozen=True)
class ShortcutSpec:
    """One shortcut: its name (the handler's key), its keys (portable text) and what it does (English)."""

    name: str
    keys: tuple[str, ...]
    description: str

    def sequences(self) -> list[QKeySequence]:
        return [QKeySequence(keys) for keys in self.keys]

    def translated_description(self) -> str:
        return QCoreApplication.translate(CONTEXT, self.description)

    def native_keys(self) -> str:
        """The first key combination as this platform writes it (``Ctrl+N``, ``⌘N``)."""
        return QKeySequence(self.keys[0]).toString(QKeySequence.SequenceFormat.NativeText)


SHORTCUTS: tuple[ShortcutSpec, ...] = (
    ShortcutSpec("new_chat", ("Ctrl+N",), str(QT_TRANSLATE_NOOP("Shortcuts", "New chat"))),
    ShortcutSpec("send", ("Ctrl+Return", "Ctrl+Enter"), str(QT_TRANSLATE_NOOP("Shortcuts", "Send the message"))),
    ShortcutSpec("stop", ("Esc",), str(QT_TRANSLATE_NOOP("Shortcuts", "Stop the answer"))),
    ShortcutSpec("search", ("Ctrl+F",), str(QT_TRANSLATE_NOOP("Shortcuts", "Search conversations"))),
    ShortcutSpec("focus_knowledge_base", ("Ctrl+K",), str(QT_TRANSLATE_NOOP("Shortcuts", "Go to the knowledge base"))),
)
"""Qt maps Ctrl to the Command key on macOS."""


class InstalledShortcuts(QObject):
    """The actions :func:`install_shortcuts` made; ``retranslate_ui()`` renames them in the current language.

    ``skipped`` names the shortcuts left out because a button or action of the window already uses
    their keys (that binding keeps working; two bindings of one key would make Qt do neither).
    """

    def __init__(self, parent: QObject, actions: dict[str, QAction], skipped: dict[str, str]) -> None:
        super().__init__(parent)
        self.actions = actions
        self.skipped = skipped

    def retranslate_ui(self) -> None:
        for spec in SHORTCUTS:
            action = self.actions.get(spec.name)
            if action is not None:
                action.setText(spec.translated_description())


def keys_in_use(window: QWidget) -> dict[str, str]:
    """Key combinations (portable text) already bound by buttons and actions inside ``window``, with the owner."""
    used: dict[str, str] = {}
    for button in window.findChildren(QAbstractButton):
        if not button.shortcut().isEmpty():
            used[button.shortcut().toString()] = button.objectName() or type(button).__name__
    for action in [*window.actions(), *window.findChildren(QAction)]:
        for sequence in action.shortcuts():
            used[sequence.toString()] = action.objectName() or action.text()
    return used


def install_shortcuts(window: QWidget, handlers: Mapping[str, Callable[[], object]]) -> InstalledShortcuts:
    """Bind every shortcut of :data:`SHORTCUTS` that has a handler to a window-wide action on ``window``."""
    taken = keys_in_use(window)
    actions: dict[str, QAction] = {}
    skipped: dict[str, str] = {}
    for spec in SHORTCUTS:
        handler = handlers.get(spec.name)
        if handler is None:
            continue
        free = [sequence for sequence in spec.sequences() if sequence.toString() not in taken]
        if not free:
            skipped[spec.name] = taken[spec.sequences()[0].toString()]
            log.info("shortcut %s left to %s, which already uses its keys", spec.name, skipped[spec.name])
            continue
        action = QAction(spec.translated_description(), window)
        action.setObjectName(f"shortcut_{spec.name}")
        action.setShortcuts(free)
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False, run=handler: run())
        window.addAction(action)
        actions[spec.name] = action
    return InstalledShortcuts(window, actions, skipped)
