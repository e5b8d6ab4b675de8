"""IndexingProgressView: the indexing job's bar, what it is doing, its rate and time left, and Cancel; between runs,
what the knowledge base holds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.core.kb.catalog import DocumentRecord
from app.core.kb.progress import IndexingProgress
from app.ui.knowledge.knowledge_texts import did_something, knowledge_base_summary, phase_text, rate_text


class IndexingProgressView(QWidget):
    """Shows :class:`IndexingProgress` snapshots; ``cancel_requested()`` when the user presses Cancel.

    Between runs it says what the knowledge base holds (:meth:`show_documents`), below the summary of the last
    run when that run changed something (a run that found nothing new, such as the check at start, says nothing).
    Hidden while there is neither.
    """

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("indexingProgress")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("indexingBar")
        self.bar.setTextVisible(True)
        self.phase_label = QLabel(self)
        self.phase_label.setObjectName("indexingPhase")
        self.phase_label.setWordWrap(True)
        self.rate_label = QLabel(self)
        self.rate_label.setObjectName("indexingRate")
        self.file_label = QLabel(self)
        self.file_label.setObjectName("indexingFile")
        self.summary_label = QLabel(self)
        self.summary_label.setObjectName("knowledgeSummary")
        self.summary_label.setWordWrap(True)
        self.cancel_button = QPushButton(self)
        self.cancel_button.setObjectName("cancelIndexingButton")
        self.cancel_button.clicked.connect(self._cancel_clicked)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.phase_label, 0, 0, 1, 2)
        layout.addWidget(self.bar, 1, 0)
        layout.addWidget(self.cancel_button, 1, 1)
        layout.addWidget(self.rate_label, 2, 0, 1, 2)
        layout.addWidget(self.file_label, 3, 0, 1, 2)
        layout.addWidget(self.summary_label, 4, 0, 1, 2)
        self.progress: IndexingProgress | None = None
        self.documents: tuple[DocumentRecord, ...] = ()
        self._cancelling = False
        self.retranslate_ui()
        self._show_summary()

    def retranslate_ui(self) -> None:
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop indexing; documents already indexed are kept"))
        self.cancel_button.setAccessibleName(self.tr("Cancel indexing"))
        self.bar.setAccessibleName(self.tr("Indexing progress"))
        if self.progress is not None:
            self.show_progress(self.progress)
        self._show_summary()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def show_progress(self, progress: IndexingProgress) -> None:
        """Show one snapshot of the running (or just ended) job."""
        if progress.finished:
            self._cancelling = False
        self.progress = progress
        running = not progress.finished
        self.bar.setVisible(running)
        self.cancel_button.setVisible(running)
        self.cancel_button.setEnabled(running and not self._cancelling)
        if progress.phase == "indexing" and progress.files_total > 0:
            self.bar.setRange(0, progress.files_total)
            self.bar.setValue(progress.files_done)
            self.bar.setFormat(self.tr("%v of %m"))
        elif running:
            self.bar.setRange(0, 0)  # busy: no total known in this phase
        text = phase_text(progress)
        if self._cancelling and running:
            text = self.tr("Cancelling after the current batch…")
        if progress.phase == "failed" and progress.message:
            text = f"{text}\n{progress.message}"
        self.phase_label.setText(text)
        self.phase_label.setVisible(self._phase_shown())
        self.rate_label.setText(rate_text(progress) if running else "")
        self.rate_label.setVisible(running and bool(self.rate_label.text()))
        current = progress.current_file
        name = Path(current).name if running and current else ""
        if name and progress.ocr_page:
            name = self.tr("{0} (text recognition: page {1} of {2})").format(
                name, progress.ocr_page, progress.ocr_pages)
        self.file_label.setText(name)
        self.file_label.setToolTip(current or "")
        self.file_label.setVisible(bool(self.file_label.text()))
        self._show_summary()

    def show_documents(self, documents: Sequence[DocumentRecord]) -> None:
        """The knowledge base's documents as they are now (shown between runs)."""
        self.documents = tuple(documents)
        self._show_summary()

    def _phase_shown(self) -> bool:
        """A run is shown while it runs, and after it when it changed something, was cancelled or failed."""
        progress = self.progress
        return progress is not None and (progress.phase != "finished" or did_something(progress))

    def _show_summary(self) -> None:
        running = self.progress is not None and not self.progress.finished
        summary = "" if running else knowledge_base_summary(self.documents)
        self.summary_label.setText(summary)
        self.summary_label.setVisible(bool(summary))
        self.setVisible(bool(summary) or self._phase_shown())

    def new_job(self) -> None:
        """A new job started: forget that the previous one was being cancelled."""
        self._cancelling = False

    def _cancel_clicked(self) -> None:
        self._cancelling = True
        self.cancel_button.setEnabled(False)
        self.cancel_requested.emit()
        if self.progress is not None:
            self.show_progress(self.progress)
