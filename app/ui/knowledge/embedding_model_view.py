"""Which embedding model the knowledge base uses and why, with a Download button while the chosen one is missing."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from app.core.kb.embedding_choice import EmbeddingSelection
from app.core.models.downloads import DownloadJob
from app.core.models.progress import DownloadProgress
from app.core.models.units import human_size
from app.ui.bridge import Bridge
from app.ui.i18n import render
from app.ui.job_watcher import JobWatcher

DOWNLOAD_POLL_MS = 250
StartDownload = Callable[[EmbeddingSelection], DownloadJob]
"""Starts fetching the selection's wanted model (asks the hub for its files: run off the GUI thread)."""


class EmbeddingModelView(QWidget):
    """The model in use and the reason (:attr:`note`); while the chosen model is not on this computer,
    a Download button fetches it with progress, like a chat model. ``download_finished()`` when it is in."""

    download_finished = Signal()

    def __init__(self, start_download: StartDownload, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._start_download = start_download
        self._selection: EmbeddingSelection | None = None
        self._job: DownloadJob | None = None
        self._bridge = Bridge(self)
        self.note = QLabel(self)
        self.note.setObjectName("embeddingModelNote")
        self.note.setWordWrap(True)
        self.download_button = QPushButton(self)
        self.download_button.setObjectName("embeddingDownloadButton")
        self.download_button.clicked.connect(self.download)
        self.download_button.setVisible(False)
        self.jobs = JobWatcher(DOWNLOAD_POLL_MS, self)
        self.jobs.progressed.connect(self._progressed)
        self.jobs.ended.connect(self._ended)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note, 1)
        layout.addWidget(self.download_button)
        self.setVisible(False)
        self.retranslate_ui()

    def show_selection(self, selection: EmbeddingSelection) -> None:
        self._selection = selection
        self.setVisible(True)
        if self._job is None:
            self.note.setText(render(selection.note))
        self.download_button.setVisible(selection.missing and self._job is None)

    def download(self) -> None:
        """Start fetching the chosen model (the hub is asked on a worker; progress follows on a timer)."""
        selection = self._selection
        if selection is None or not selection.missing or self._job is not None:
            return
        self.download_button.setEnabled(False)
        self.note.setText(self.tr("Preparing the download of %1…").replace("%1", selection.wanted))
        self._bridge.run_in_background(lambda: self._start_download(selection), self._started, self._failed)

    def _started(self, job: DownloadJob) -> None:
        self._job = job
        self.download_button.setVisible(False)
        self.jobs.watch(job)

    def _progressed(self, job: DownloadJob, progress: DownloadProgress) -> None:
        if self._selection is None or progress.finished:
            return
        total = f" / {human_size(progress.bytes_total)}" if progress.bytes_total else ""
        self.note.setText(self.tr("Downloading %1: %2").replace("%1", self._selection.wanted)
                          .replace("%2", human_size(progress.bytes_done) + total))

    def _ended(self, job: DownloadJob) -> None:
        self.jobs.forget(job)
        self._job = None
        if job.error is not None:
            self._failed(job.error)
            return
        self.note.setText(self.tr("Downloaded; the knowledge base is re-embedded in the background "
                                  "(search keeps working meanwhile)."))
        self.download_finished.emit()

    def _failed(self, error: BaseException) -> None:
        self._job = None
        self.download_button.setEnabled(True)
        self.download_button.setVisible(True)
        self.note.setText(self.tr("The download failed: %1").replace("%1", render(str(error))))

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop watching; a running download is paused with its partial files kept (it resumes next time)."""
        if self._job is not None:
            self._job.cancel(keep_partial=True)
            self.jobs.forget(self._job)
        self._bridge.wait_for_all(timeout_ms)

    def retranslate_ui(self) -> None:
        self.download_button.setText(self.tr("Download"))
        self.download_button.setToolTip(self.tr("Download the multilingual embedding model chosen for this "
                                                "computer (once; then everything runs offline)"))
        if self._selection is not None and self._job is None:
            self.note.setText(render(self._selection.note))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)
