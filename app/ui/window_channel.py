"""The running window's local socket: a second `unidesk` asks it to come to the front, and hands it the
files it was opened with ("Open with UniDesk"), which go to the knowledge base (no network port).

The protocol is lines of UTF-8: ``front``, then any number of ``open<TAB><absolute path>``; the window
answers ``ok``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

from app.core.config.home_lock import window_channel_path
from app.core.config.paths import AppPaths

log = logging.getLogger(__name__)
FRONT_REQUEST = b"front"
OPEN_PREFIX = "open\t"
OpenFiles = Callable[[list[Path]], None]


def bring_to_front(window: QWidget) -> None:
    """Show ``window`` un-minimised, raised and active."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


class WindowChannel(QObject):
    """Listens on the home's window socket while the window runs; "front" raises ``window``.

    Only the holder of the home lock listens, so a socket file left by a killed window is stale
    and is removed before listening.
    """

    def __init__(self, window: QWidget, path: Path, open_files: OpenFiles | None = None) -> None:
        super().__init__(window)
        self._window = window
        self._open_files = open_files
        self.path = path
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        QLocalServer.removeServer(str(path))
        if not self._server.listen(str(path)):
            log.warning("the window channel %s is not available: %s", path, self._server.errorString())

    @property
    def listening(self) -> bool:
        return self._server.isListening()

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while (connection := self._server.nextPendingConnection()) is not None:
            connection.readyRead.connect(lambda socket=connection: self._read(socket))
            connection.disconnected.connect(connection.deleteLater)

    def _read(self, connection: QLocalSocket) -> None:
        request = bytes(connection.readAll().data())
        lines = request.decode("utf-8", "replace").splitlines()
        if lines and lines[0].strip() == FRONT_REQUEST.decode():
            log.info("a second launch asked for this window: brought to the front")
            bring_to_front(self._window)
            files = [Path(line[len(OPEN_PREFIX):]) for line in lines[1:] if line.startswith(OPEN_PREFIX)]
            opened = [path for path in files if path.is_absolute() and path.exists()]
            if opened and self._open_files is not None:
                log.info("a second launch opened %d file(s): added to the knowledge base", len(opened))
                self._open_files(opened)
            connection.write(b"ok\n")
            connection.flush()
        connection.disconnectFromServer()


def install_window_channel(window: QWidget, paths: AppPaths, open_files: OpenFiles | None = None) -> WindowChannel:
    """Start listening for a second launch on ``paths``'s home (closed with the window); files it
    was opened with go to ``open_files``."""
    return WindowChannel(window, window_channel_path(paths), open_files)
