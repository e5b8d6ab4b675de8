"""KnowledgeBasePanel: add (drop or pick) documents, see their state, remove, re-index, watched folders, progress."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.kb.embedding_choice import EMBEDDING_MODELS_FOLDER, EmbeddingSelection
from app.core.kb.progress import IndexingProgress
from app.core.models.downloads import DownloadJob
from app.core.models.hub import HubClient
from app.core.services.embedding_download import start_embedding_download
from app.core.services.indexing import IndexingJob
from app.ui.bridge import Bridge
from app.ui.chat.flow_layout import FlowLayout
from app.ui.i18n import render
from app.ui.icons import themed_icon
from app.ui.job_watcher import JobWatcher
from app.ui.knowledge.document_table import DocumentTable
from app.ui.knowledge.embedding_model_view import EmbeddingModelView
from app.ui.knowledge.file_drops import install_file_drop
from app.ui.knowledge.indexing_progress_view import IndexingProgressView
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_texts import failure_detail, failure_kind_text, notes_text, status_text
from app.ui.knowledge.watched_folders_view import WatchedFoldersView

UrlOpener = Callable[[QUrl], bool]
DOCUMENTS_LANE = "kb-documents"
EMBEDDING_LANE = "kb-embedding-model"
RUNNING_POLL_MS = 250
IDLE_POLL_MS = 1000
REFRESH_WHILE_RUNNING_S = 1.0
DROP_HIGHLIGHT = "QTreeWidget#documentTable { border: 2px dashed palette(highlight); }"


class KnowledgeBasePanel(QWidget):
    """The knowledge base in a side panel. Nothing here blocks the GUI: the knowledge base opens and
    lists documents on workers, indexing runs in the core's job thread, and a :class:`JobWatcher` reads its snapshots.

    Signals: ``documents_changed()`` after the list was re-read, ``indexing_finished(IndexingProgress)``
    when a job ends. ``ask_files``, ``ask_folder`` and ``confirm_remove(count)`` are the dialogs
    (tests replace them); ``open_url`` opens folders in the file manager.
    """

    documents_changed = Signal()
    indexing_finished = Signal(object)

    def __init__(
        self, access: KnowledgeAccess, parent: QWidget | None = None, *, open_url: UrlOpener = QDesktopServices.openUrl
    ) -> None:
        super().__init__(parent)
        self.setObjectName("knowledgeBasePanel")
        self.access = access
        self.open_url = open_url
        self.ask_files: Callable[[], list[Path]] = self._ask_files_dialog
        self.ask_folder: Callable[[], Path | None] = self._ask_folder_dialog
        self.confirm_remove: Callable[[int], bool] = self._confirm_remove_dialog
        self._bridge = Bridge(self)
        self._job: IndexingJob | None = None
        self._last_refresh = 0.0
        self._shut_down = False
        self.error: str | None = None

        self.hint = QLabel(self)
        self.hint.setObjectName("knowledgeHint")
        self.hint.setWordWrap(True)
        self.hub: Callable[[], HubClient] = HubClient.from_environment
        """Where a missing embedding model is downloaded from (tests give a local stand-in)."""
        self.embedding = EmbeddingModelView(self._start_embedding_download, self)
        self.embedding.download_finished.connect(self._embedding_downloaded)
        self.embedding_note = self.embedding.note
        self.add_files_button = QPushButton(self)
        self.add_files_button.setObjectName("addFilesButton")
        self.add_files_button.setIcon(themed_icon("add-files"))
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button = QPushButton(self)
        self.add_folder_button.setObjectName("addFolderButton")
        self.add_folder_button.setIcon(themed_icon("folder"))
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.table = DocumentTable(self)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.reindex_button = QPushButton(self)
        self.reindex_button.setObjectName("reindexButton")
        self.reindex_button.setIcon(themed_icon("reindex"))
        self.reindex_button.clicked.connect(self.reindex_selected)
        self.remove_button = QPushButton(self)
        self.remove_button.setObjectName("removeDocumentButton")
        self.remove_button.setIcon(themed_icon("remove"))
        self.remove_button.clicked.connect(self.remove_selected)
        self.reveal_button = QPushButton(self)
        self.reveal_button.setObjectName("revealDocumentButton")
        self.reveal_button.setIcon(themed_icon("reveal"))
        self.reveal_button.clicked.connect(self.reveal_selected)
        self.details = QLabel(self)
        self.details.setObjectName("documentDetails")
        self.details.setWordWrap(True)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("knowledgeError")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        self.progress = IndexingProgressView(self)
        self.progress.cancel_requested.connect(self.cancel_indexing)
        self.watched = WatchedFoldersView(self)
        self.watched.stop_watching_requested.connect(self.stop_watching)
        self.watched.reveal_requested.connect(self._reveal_folder)
        self.watched.setVisible(False)
        self._build_layout()
        self.jobs = JobWatcher(RUNNING_POLL_MS, self)
        self.jobs.progressed.connect(self._job_progressed)
        self.jobs.ended.connect(self._job_ended)
        self._idle_timer = QTimer(self)  # the service starts jobs by itself (resume, watched folders)
        self._idle_timer.setInterval(IDLE_POLL_MS)
        self._idle_timer.timeout.connect(self._poll)
        self.drop_filter = install_file_drop(self, self.add_paths, on_drag_state=self._show_drop_target)
        self.retranslate_ui()
        self._update_buttons()

    def _build_layout(self) -> None:
        # The button rows wrap in a narrow dock (a 900 px window): a row of three buttons set the dock's width.
        adding = FlowLayout()
        adding.addWidget(self.add_files_button)
        adding.addWidget(self.add_folder_button)
        acting = FlowLayout()
        for button in (self.reindex_button, self.remove_button, self.reveal_button):
            acting.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(adding)
        layout.addWidget(self.hint)
        layout.addWidget(self.embedding)
        layout.addWidget(self.error_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(acting)
        layout.addWidget(self.details)
        layout.addWidget(self.progress)
        layout.addWidget(self.watched)

    # ---- language --------------------------------------------------------------------------
    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Knowledge base"))
        self.hint.setText(self.tr(
            "Drop files or folders here (or onto the chat), or use the buttons. "
            "Documents are read and indexed on this computer; nothing is uploaded."))
        self.add_files_button.setText(self.tr("Add files…"))
        self.add_files_button.setToolTip(self.tr("Add documents: text, Markdown, PDF, Word, web pages, code"))
        self.add_folder_button.setText(self.tr("Add folder…"))
        self.add_folder_button.setToolTip(self.tr("Add every document in a folder and keep it up to date"))
        self.reindex_button.setText(self.tr("Re-index"))
        self.reindex_button.setToolTip(self.tr("Read the selected documents again"))
        self.remove_button.setText(self.tr("Remove"))
        self.remove_button.setToolTip(self.tr("Remove the selected documents from the knowledge base (the files stay)"))
        self.reveal_button.setText(self.tr("Show in folder"))
        self.reveal_button.setToolTip(self.tr("Open the folder of the selected document in the file manager"))
        if self.error is not None:
            self.error_label.setText(self.tr("The knowledge base cannot be used: {0}").format(render(self.error)))
        self._selection_changed()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    # ---- starting and stopping -----------------------------------------------------------------
    def start(self) -> None:
        """Open an existing knowledge base (on a worker), resume unfinished indexing and show its documents."""
        if self.access.knowledge_base is not None:
            self._opened()
            return
        access = self.access
        self._bridge.run_in_background(
            lambda: access.open() if access.exists() else None,
            lambda knowledge_base: self._opened() if knowledge_base is not None else None,
            self._show_error,
        )

    def _opened(self) -> None:
        if self._shut_down:
            return
        self.refresh()
        self._poll()
        knowledge_base = self.access.knowledge_base
        if knowledge_base is not None:  # which embedding model and why (probes the hardware once: a worker)
            self._bridge.run_latest(EMBEDDING_LANE, knowledge_base.embedding_selection, self._show_embedding,
                                    self._show_error)

    def _show_embedding(self, selection: EmbeddingSelection) -> None:
        self.embedding.show_selection(selection)

    def fetch_embedding_model(self) -> None:
        """Open (or create) the knowledge base on a worker, then download its chosen embedding model if it is
        not on this computer yet (the first-run guide starts this beside the chat model's download)."""
        if self._shut_down:
            return
        access = self.access
        self._bridge.run_in_background(lambda: access.open().embedding_selection(), self._download_selection,
                                       self._show_error)

    def _download_selection(self, selection: EmbeddingSelection) -> None:
        if self._shut_down:
            return
        self.embedding.show_selection(selection)
        if selection.missing:
            self.embedding.download()

    def _start_embedding_download(self, selection: EmbeddingSelection) -> DownloadJob:
        """On a worker: fetch the chosen embedding model into the knowledge base's folder."""
        knowledge_base = self.access.knowledge_base
        if knowledge_base is None:
            raise RuntimeError("the knowledge base is not open")
        return start_embedding_download(self.hub(), selection.wanted, knowledge_base.folder / EMBEDDING_MODELS_FOLDER)

    def _embedding_downloaded(self) -> None:
        """The new model is in: an indexing run re-embeds in the background (search uses the old vectors meanwhile)."""
        access = self.access
        self._bridge.run_in_background(lambda: access.opened_service().request(()), lambda _none: self._opened(),
                                       self._show_error)

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop polling and wait for the panel's own workers (the caller closes the KnowledgeAccess)."""
        self._shut_down = True
        self._idle_timer.stop()
        self.jobs.stop()
        self.embedding.shutdown(timeout_ms)
        self._bridge.drop_lane(DOCUMENTS_LANE)
        self._bridge.wait_for_all(timeout_ms)

    # ---- adding ----------------------------------------------------------------------------
    def add_paths(self, paths: Sequence[Path]) -> None:
        """Index ``paths`` (files and folders), creating the knowledge base on first use."""
        if not paths or self._shut_down:
            return
        wanted = [Path(path) for path in paths]
        access = self.access
        self.error = None
        self.error_label.setVisible(False)
        self._bridge.run_in_background(lambda: access.opened_service().request(wanted),
                                       lambda _none: self._opened(), self._show_error)

    def choose_files(self) -> None:
        self.add_paths(self.ask_files())

    def choose_folder(self) -> None:
        folder = self.ask_folder()
        if folder is not None:
            self.add_paths([folder])

    def _ask_files_dialog(self) -> list[Path]:
        names, _ = QFileDialog.getOpenFileNames(self, self.tr("Add documents"), str(Path.home()))
        return [Path(name) for name in names]

    def _ask_folder_dialog(self) -> Path | None:
        name = QFileDialog.getExistingDirectory(self, self.tr("Add a folder"), str(Path.home()))
        return Path(name) if name else None

    # ---- acting on documents -----------------------------------------------------------------
    def remove_selected(self) -> None:
        records = self.table.selected_records()
        knowledge_base = self.access.knowledge_base
        if not records or knowledge_base is None or self.indexing or not self.confirm_remove(len(records)):
            return
        ids = [record.id for record in records]
        self._bridge.run_in_background(lambda: [knowledge_base.remove(document_id) for document_id in ids],
                                       lambda _removed: self.refresh(), self._show_error)

    def reindex_selected(self) -> None:
        """Read the selected documents again from scratch (they are removed, then added again)."""
        records = self.table.selected_records()
        knowledge_base = self.access.knowledge_base
        if not records or knowledge_base is None or self.indexing:
            return
        ids, paths = [record.id for record in records], [Path(record.path) for record in records]
        access = self.access

        def work() -> None:
            for document_id in ids:
                knowledge_base.remove(document_id)
            access.opened_service().request(paths)

        self._bridge.run_in_background(work, lambda _none: self._opened(), self._show_error)

    def reveal_selected(self) -> None:
        records = self.table.selected_records()
        if records:
            self._reveal_folder(str(Path(records[0].path).parent))

    def _reveal_folder(self, folder: str) -> None:
        self.open_url(QUrl.fromLocalFile(folder))

    def stop_watching(self, folder: str) -> None:
        knowledge_base = self.access.knowledge_base
        if knowledge_base is not None:
            self._bridge.run_in_background(lambda: knowledge_base.unwatch(folder),
                                           lambda _none: self.refresh(), self._show_error)

    def cancel_indexing(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def focus_documents(self) -> None:
        """Put the keyboard focus on the documents list (the window's "focus knowledge base" shortcut)."""
        self.table.setFocus()
        first = self.table.topLevelItem(0)
        if self.table.currentItem() is None and first is not None:
            self.table.setCurrentItem(first)

    def _confirm_remove_dialog(self, count: int) -> bool:
        answer = QMessageBox.question(
            self, self.tr("Remove documents"),
            self.tr("Remove {0} document(s) from the knowledge base? The files themselves are not deleted.")
            .format(count))
        return answer == QMessageBox.StandardButton.Yes

    # ---- reading the state -------------------------------------------------------------------
    @property
    def indexing(self) -> bool:
        """True while an indexing job runs."""
        return self._job is not None and not self._job.done

    def refresh(self) -> None:
        """Re-read the documents and watched folders on a worker (newer requests supersede older ones)."""
        knowledge_base = self.access.knowledge_base
        if knowledge_base is None or self._shut_down:
            return
        self._last_refresh = time.monotonic()
        self._bridge.run_latest(
            DOCUMENTS_LANE, lambda: (knowledge_base.documents(), knowledge_base.watched_folders()),
            self._show_documents, self._show_error)

    def _show_documents(self, result: tuple[list[DocumentRecord], list[str]]) -> None:
        documents, folders = result
        self.table.show_documents(documents)
        self.progress.show_documents(documents)
        service = self.access.service
        self.watched.show_folders(folders, watching=service is not None and service.watching)
        self._selection_changed()
        self.documents_changed.emit()

    def _poll(self) -> None:
        """Look for a job the indexing service started (idle timer) and watch it."""
        service = self.access.service
        if service is None or self._shut_down:
            return
        job = service.current_job()
        if job is not None and job is not self._job:
            if self._job is not None:
                self.jobs.forget(self._job)
            self._job = job
            self.progress.new_job()
            self.jobs.watch(job)
            self.jobs.tick()
        if not self._idle_timer.isActive():
            self._idle_timer.start()
        self._update_buttons()

    def _job_progressed(self, job: IndexingJob, snapshot: IndexingProgress) -> None:
        """The watched job's snapshot: progress and live document states."""
        if job is not self._job or self._shut_down:
            return
        self.progress.show_progress(snapshot)
        if not job.done and time.monotonic() - self._last_refresh >= REFRESH_WHILE_RUNNING_S:
            self.refresh()

    def _job_ended(self, job: IndexingJob) -> None:
        if job is not self._job or self._shut_down:
            return
        service = self.access.service
        if service is not None and service.current_job() is not job:
            self._poll()  # requests made meanwhile run on in a follow-up job: one run for the user
            return
        self.refresh()
        self.indexing_finished.emit(job.progress())
        self._poll()  # a job queued behind this one starts now

    def _selection_changed(self) -> None:
        records = self.table.selected_records()
        self.details.setText(self._details_text(records[0]) if len(records) == 1 else "")
        self.details.setVisible(len(records) == 1)
        self.hint.setVisible(self.table.topLevelItemCount() == 0)
        self._update_buttons()

    def _details_text(self, record: DocumentRecord) -> str:
        lines = [record.path]
        if record.status is DocumentStatus.INDEXED:
            lines.append(self.tr("{0} pages · {1} chunks").format(record.pages, record.chunk_count))
            if record.notes:
                lines.append(self.tr("Read in part: {0}").format(notes_text(record)))
        elif record.status is DocumentStatus.FAILED:
            lines.append(self.tr("Not indexed: {0}.").format(failure_kind_text(record.error_kind)))
            lines.append(failure_detail(record))
        else:
            lines.append(status_text(record.status))
        return "\n".join(lines)

    def _update_buttons(self) -> None:
        chosen = bool(self.table.selected_records())
        self.reindex_button.setEnabled(chosen and not self.indexing)
        self.remove_button.setEnabled(chosen and not self.indexing)
        self.reveal_button.setEnabled(chosen)

    def _show_error(self, error: Exception) -> None:
        self.error = str(error) or type(error).__name__
        self.error_label.setVisible(True)
        self.retranslate_ui()

    def _show_drop_target(self, active: bool) -> None:
        self.table.setStyleSheet(DROP_HIGHLIGHT if active else "")
