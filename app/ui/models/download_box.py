"""DownloadBox: the chosen catalog variant's download: Download, progress with rate and time left, Pause/Resume,
Cancel, and Use this model once it is on disk."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.core.models.progress import DownloadProgress
from app.core.util.translatable import join_sentences
from app.ui.models.model_texts import download_amount_text, download_state_text

PROGRESS_STEPS = 1000


class DownloadBox(QWidget):
    """Signals: ``download_requested``, ``pause_requested``, ``resume_requested``, ``cancel_requested``,
    ``use_requested``. Show a state with :meth:`show_available`, :meth:`show_downloaded` or :meth:`show_progress`."""

    download_requested = Signal()
    pause_requested = Signal()
    resume_requested = Signal()
    cancel_requested = Signal()
    use_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("downloadBox")
        self.state_label = QLabel(self)
        self.state_label.setObjectName("downloadState")
        self.state_label.setWordWrap(True)
        self.amount_label = QLabel(self)
        self.amount_label.setObjectName("downloadAmount")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("downloadBar")
        self.bar.setRange(0, PROGRESS_STEPS)
        self.download_button = QPushButton(self)
        self.download_button.setObjectName("downloadButton")
        self.download_button.clicked.connect(self.download_requested)
        self.pause_button = QPushButton(self)
        self.pause_button.setObjectName("pauseButton")
        self.pause_button.clicked.connect(self.pause_requested)
        self.resume_button = QPushButton(self)
        self.resume_button.setObjectName("resumeButton")
        self.resume_button.clicked.connect(self.resume_requested)
        self.cancel_button = QPushButton(self)
        self.cancel_button.setObjectName("cancelDownloadButton")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.use_button = QPushButton(self)
        self.use_button.setObjectName("useCatalogModelButton")
        self.use_button.clicked.connect(self.use_requested)
        buttons = QHBoxLayout()
        for button in (self.download_button, self.pause_button, self.resume_button, self.cancel_button,
                       self.use_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.state_label, 0, 0)
        layout.addWidget(self.bar, 1, 0)
        layout.addWidget(self.amount_label, 2, 0)
        layout.addLayout(buttons, 3, 0)
        self._mode = "none"
        self._gated = False
        self._progress: DownloadProgress | None = None
        self.retranslate_ui()
        self.show_nothing()

    def retranslate_ui(self) -> None:
        self.download_button.setText(self.tr("Download"))
        self.download_button.setToolTip(self.tr("Download from the Hugging Face hub; the file is checked "
                                                "against its published checksum"))
        self.pause_button.setText(self.tr("Pause"))
        self.resume_button.setText(self.tr("Resume"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the download and delete the part downloaded so far"))
        self.use_button.setText(self.tr("Use this model"))
        self.bar.setAccessibleName(self.tr("Download progress"))
        self._render()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    @property
    def mode(self) -> str:
        """none, available, downloaded or progress."""
        return self._mode

    def show_nothing(self) -> None:
        self._mode = "none"
        self._render()

    def show_available(self, *, gated: bool = False) -> None:
        """Not on this machine yet: offer Download."""
        self._mode, self._gated, self._progress = "available", gated, None
        self._render()

    def show_downloaded(self) -> None:
        self._mode, self._progress = "downloaded", None
        self._render()

    def show_progress(self, progress: DownloadProgress) -> None:
        """A download of this variant runs (or just ended: failed or cancelled offer Download again)."""
        self._mode, self._progress = "progress", progress
        self._render()

    def _render(self) -> None:
        mode, progress = self._mode, self._progress
        running = progress is not None and not progress.finished
        failed_or_cancelled = progress is not None and progress.state in ("failed", "cancelled")
        self.download_button.setVisible(mode == "available" or failed_or_cancelled)
        self.pause_button.setVisible(running and progress is not None and progress.state != "paused")
        self.resume_button.setVisible(running and progress is not None and progress.state == "paused")
        self.cancel_button.setVisible(running)
        self.use_button.setVisible(mode == "downloaded" or (progress is not None and progress.state == "finished"))
        self.bar.setVisible(running)
        self.amount_label.setVisible(running)
        if mode == "none":
            self.state_label.setText(self.tr("Choose a model variant to download or use it."))
        elif mode == "available":
            text = self.tr("Not on this computer yet.")
            if self._gated:
                text = join_sentences((text, self.tr("Its publisher asks you to accept a licence on the hub first "
                                                     "(set HF_TOKEN to your access token).")))
            self.state_label.setText(text)
        elif mode == "downloaded":
            self.state_label.setText(self.tr("On this computer: it runs without the internet."))
        elif progress is not None:
            self.state_label.setText(download_state_text(progress))
            fraction = progress.fraction
            if fraction is None:
                self.bar.setRange(0, 0)
            else:
                self.bar.setRange(0, PROGRESS_STEPS)
                self.bar.setValue(int(fraction * PROGRESS_STEPS))
            self.amount_label.setText(download_amount_text(progress))
