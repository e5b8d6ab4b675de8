"""The window's Local API setting in force: ``api.enabled`` starts and stops the server; the status bar says which."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel, QMainWindow

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.engines.manager import EngineManager
from app.core.services.api.auth import token_path
from app.core.services.api.server import ApiServer
from app.core.services.api.setup import build_api_server
from app.core.util.errors import UserFacingError
from app.ui.i18n import render
from app.ui.state.live_settings import LiveSettings

log = logging.getLogger(__name__)


class LocalApiSwitch(QObject):
    """Runs the local API while ``api.enabled`` is on (on ``api.port``), and shows its state in ``window``'s
    status bar: off, the address it serves, or why it could not start. Nothing listens while it is off."""

    def __init__(self, window: QMainWindow, manager: EngineManager, live_settings: LiveSettings,
                 paths: AppPaths) -> None:
        super().__init__(window)
        self._manager, self._live_settings, self._paths = manager, live_settings, paths
        self._server: ApiServer | None = None
        self._problem = ""
        self.label = QLabel(window)
        self.label.setObjectName("localApiState")
        window.statusBar().addPermanentWidget(self.label)
        window.installEventFilter(self)
        self.follow(live_settings.get())

    @property
    def server(self) -> ApiServer | None:
        return self._server

    def follow(self, settings: Settings) -> None:
        """Start, stop or move the server as ``settings`` say."""
        wanted = settings.bool_value("api.enabled")
        port = settings.int_value("api.port")
        if self._server is not None and (not wanted or self._server.port != port):
            self._server.stop()
            self._server = None
        self._problem = ""
        if wanted and self._server is None:
            try:
                self._server = build_api_server(self._manager, self._paths, self._live_settings.get, port=port).start()
            except UserFacingError as error:
                log.warning("the local API did not start: %s", error)
                self._problem = render(error.text)
        self._show()

    def shutdown(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        self._show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LanguageChange:
            self._show()
        return False

    def _show(self) -> None:
        if self._server is not None:
            text = self.tr("Local API: {0}").format(self._server.url)
            tip = self.tr("Programs on this computer can use the loaded model at this address with the token in {0}.")
            self.label.setToolTip(tip.format(str(token_path(self._paths.data_dir))))
        elif self._problem:
            text = self.tr("Local API: not running")
            self.label.setToolTip(self._problem)
        else:
            text = self.tr("Local API: off")
            self.label.setToolTip(self.tr("Turn it on in Settings > Local API."))
        self.label.setText(text)


def install_local_api_switch(window: QMainWindow, manager: EngineManager, live_settings: LiveSettings,
                             paths: AppPaths) -> LocalApiSwitch:
    return LocalApiSwitch(window, manager, live_settings, paths)
