"""The running window's local socket: a second `unidesk` asks it to come to the front (no network port)."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

from app.core.config.home_lock import window_channel_path
from app.core.config.paths import AppPaths

log = logging.getLogger(__name__)
FRONT_REQUEST = b"front"


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

    def __init__(self, window: QWidget, path: Path) -> None:
        super().__init__(window)
        self._window = window
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
        if request.strip() == FRONT_REQUEST:
            log.info("a second launch asked for this window: brought to the front")
            bring_to_front(self._window)
            connection.write(b"ok\n")
            connection.flush()
        connection.disconnectFromServer()


def install_window_channel(window: QWidget, paths: AppPaths) -> WindowChannel:
    """Start listening for a second launch on ``paths``'s home (closed with the window)."""
    return WindowChannel(window, window_channel_path(paths))
