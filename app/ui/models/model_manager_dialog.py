"""ModelManagerDialog: pick a model that fits, download it (pause, resume, cancel), add your own, delete, use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.config import Settings
from app.core.engines.manager import ManagerState
from app.core.hardware.report import HardwareReport
from app.core.models.downloads import DownloadJob
from app.core.models.fit import VariantFit, badge_request_from_settings
from app.core.models.library import ModelLibrary
from app.core.models.local_models import LocalModel
from app.core.models.progress import DownloadProgress
from app.core.models.recommend import Recommendation, recommend_chat_model
from app.core.util.errors import UserFacingError
from app.ui.bridge import Bridge
from app.ui.i18n import render
from app.ui.job_watcher import JobWatcher
from app.ui.models.catalog_page import CatalogPage
from app.ui.models.catalog_tree import VariantKey
from app.ui.models.download_box import DownloadBox
from app.ui.models.first_run_page import FirstRunPage
from app.ui.models.local_models_page import LocalModelsPage
from app.ui.state.engine_state import EngineSnapshot, EngineState

UseModel = Callable[[Path], bool]
POLL_MS = 250
FITS_LANE, LOCAL_LANE = "model-fits", "local-models"


class ModelManagerDialog(QDialog):
    """The model manager. ``hardware()`` (the probe, with free memory read now) runs on a worker;
    ``use_model(path)`` starts loading in the background and says whether it could start.

    Downloads keep running when the dialog is closed; a :class:`JobWatcher` reads their snapshots. The dialogs
    ``ask_model_file``, ``ask_model_folder`` and ``confirm_delete`` can be replaced (tests).
    """

    def __init__(
        self,
        library: ModelLibrary,
        hardware: Callable[[], HardwareReport],
        settings: Callable[[], Settings],
        use_model: UseModel,
        parent: QWidget | None = None,
        *,
        loaded_model: Callable[[], Path | None] = lambda: None,
        engine_state: EngineState | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("modelManager")
        self.resize(980, 680)
        self.library = library
        self._hardware = hardware
        self._settings = settings
        self._use_model = use_model
        self._loaded_model = loaded_model
        self._engine_state = engine_state
        self.ask_model_file: Callable[[], Path | None] = self._ask_model_file_dialog
        self.ask_model_folder: Callable[[], Path | None] = self._ask_model_folder_dialog
        self.confirm_delete: Callable[[LocalModel], bool] = self._confirm_delete_dialog
        self._bridge = Bridge(self)
        self._jobs: dict[VariantKey, DownloadJob] = {}
        self._ended_jobs: dict[VariantKey, DownloadJob] = {}
        self._select_after_refresh: str | None = None
        self._downloaded: dict[VariantKey, LocalModel] = {}
        self._message_source: Callable[[], str] | None = None
        self.fits: tuple[VariantFit, ...] = ()
        self.recommendation: Recommendation | None = None

        self.first_run = FirstRunPage(self)
        self.first_run.browse_requested.connect(self.show_catalog)
        self.first_run.own_file_requested.connect(lambda: self.add_model_file(use_after=True))
        guide_box = self.first_run.download_box
        guide_box.download_requested.connect(lambda: self._start_download(self._recommended_key()))
        guide_box.pause_requested.connect(lambda: self._job_do(self._recommended_key(), DownloadJob.pause))
        guide_box.resume_requested.connect(lambda: self._job_do(self._recommended_key(), DownloadJob.resume))
        guide_box.cancel_requested.connect(lambda: self._job_do(self._recommended_key(), DownloadJob.cancel))
        guide_box.use_requested.connect(lambda: self._use_key(self._recommended_key()))
        self.catalog_page = CatalogPage(library.catalog, self)
        self.catalog_page.request_changed.connect(self.recompute_fits)
        self.catalog_page.selection_changed.connect(lambda _key: self._update_download_box())
        box = self.catalog_page.download_box
        box.download_requested.connect(self.download_selected)
        box.pause_requested.connect(lambda: self._selected_job_do(DownloadJob.pause))
        box.resume_requested.connect(lambda: self._selected_job_do(DownloadJob.resume))
        box.cancel_requested.connect(lambda: self._selected_job_do(DownloadJob.cancel))
        box.use_requested.connect(self.use_selected_variant)
        self.local_page = LocalModelsPage(self)
        self.local_page.use_requested.connect(self.use_local_model)
        self.local_page.delete_requested.connect(self.delete_model)
        self.local_page.add_file_requested.connect(self.add_model_file)
        self.local_page.add_folder_requested.connect(self.add_model_folder)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.catalog_page, "")
        self.tabs.addTab(self.local_page, "")
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.first_run)
        self.stack.addWidget(self.tabs)
        self.stack.setCurrentWidget(self.tabs)
        self.message = QLabel(self)
        self.message.setObjectName("modelManagerMessage")
        self.message.setWordWrap(True)
        self.privacy = QLabel(self)
        self.privacy.setObjectName("modelManagerPrivacy")
        self.privacy.setWordWrap(True)
        self.close_button = QPushButton(self)
        self.close_button.clicked.connect(self.close)
        footer = QHBoxLayout()
        footer.addWidget(self.privacy, 1)
        footer.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.message)
        layout.addLayout(footer)
        self.downloads = JobWatcher(POLL_MS, self)
        self.downloads.progressed.connect(self._download_progressed)
        self.downloads.ended.connect(self._download_ended)
        if engine_state is not None:
            engine_state.changed.connect(self._engine_state_changed)
        self.retranslate_ui()

    # ---- language --------------------------------------------------------------------------
    def retranslate_ui(self) -> None:
        self.setWindowTitle(self.tr("Models"))
        self.tabs.setTabText(0, self.tr("Catalog"))
        self.tabs.setTabText(1, self.tr("On this computer"))
        self.privacy.setText(self.tr("Models run on this computer. Downloads come from the Hugging Face hub, a "
                                     "mirror or ModelScope (Settings > Download source); nothing you type is sent "
                                     "anywhere."))
        self.close_button.setText(self.tr("Close"))
        self._say(self._message_source)
        self._update_states()
        self._show_recommendation()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def _say(self, source: Callable[[], str] | None) -> None:
        """Show a message made by ``source`` (kept, so it is re-made in a new language)."""
        self._message_source = source
        text = source() if source is not None else ""
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # ---- opening -----------------------------------------------------------------------------
    def open_manager(self, *, first_run: bool = False) -> None:
        """Show the dialog (on the first-run page when asked), with badges for the current settings."""
        self.stack.setCurrentWidget(self.first_run if first_run else self.tabs)
        self.catalog_page.set_base_request(badge_request_from_settings(self._settings()))
        self.recompute_fits()
        self.refresh_local()
        self.show()
        self.raise_()
        self.activateWindow()

    def show_catalog(self) -> None:
        self.stack.setCurrentWidget(self.tabs)
        self.tabs.setCurrentWidget(self.catalog_page)

    def show_local(self) -> None:
        self.stack.setCurrentWidget(self.tabs)
        self.tabs.setCurrentWidget(self.local_page)

    def recompute_fits(self) -> None:
        """Judge every variant for the chosen context and chats on a worker (pure arithmetic)."""
        request, library, hardware = self.catalog_page.current_request(), self.library, self._hardware
        other_machine = self.catalog_page.chosen_profile_report()

        def work() -> tuple[HardwareReport, tuple[VariantFit, ...]]:
            report = other_machine if other_machine is not None else hardware()
            return report, library.fit_badges(report, request)

        self._bridge.run_latest(FITS_LANE, work, self._show_fits, self._show_error)

    def _show_fits(self, result: tuple[HardwareReport, tuple[VariantFit, ...]]) -> None:
        report, self.fits = result
        self.catalog_page.show_fits(report, self.fits)
        if self.catalog_page.chosen_profile_report() is None:  # the guide recommends for this computer only
            self.recommendation = recommend_chat_model(self.library.catalog, self.fits, report)
            self._show_recommendation()

    # ---- the first-run guide's recommendation ------------------------------------------------
    def _recommended_key(self) -> VariantKey | None:
        recommendation = self.recommendation
        return None if recommendation is None else (recommendation.model.id, recommendation.variant.id)

    def _show_recommendation(self) -> None:
        recommendation = self.recommendation
        if recommendation is None:
            self.first_run.show_no_recommendation()
            return
        name = f"{recommendation.model.name} ({recommendation.variant.quantization})"
        self.first_run.show_recommendation(name, render(recommendation.reason))
        self._update_first_run_box()

    def _update_first_run_box(self) -> None:
        key = self._recommended_key()
        if key is not None:
            self._show_key_in(self.first_run.download_box, key)

    def refresh_local(self) -> None:
        self._bridge.run_latest(LOCAL_LANE, self.library.local.models, self._show_local, self._show_error)

    def _show_local(self, models: tuple[LocalModel, ...]) -> None:
        self.local_page.show_models(models, self._loaded_model())
        if self._select_after_refresh is not None:
            self.local_page.select(self._select_after_refresh)
            self._select_after_refresh = None
        self._downloaded = {
            (model.catalog_model_id, model.variant_id): model for model in models
            if model.catalog_model_id and model.variant_id and model.is_present()
        }
        self._update_states()
        self._update_download_box()
        self._update_first_run_box()

    # ---- downloads ---------------------------------------------------------------------------
    def download_selected(self) -> None:
        self._start_download(self.catalog_page.selected_key())

    def _start_download(self, key: VariantKey | None) -> None:
        if key is None:
            return
        try:
            job = self.library.start_download(*key)
        except UserFacingError as error:
            self._show_error(error)
            return
        self._jobs[key] = job
        self._say(None)
        self.downloads.watch(job)
        self.downloads.tick()

    def _selected_job_do(self, action: Callable[[DownloadJob], None]) -> None:
        self._job_do(self.catalog_page.selected_key(), action)

    def _job_do(self, key: VariantKey | None, action: Callable[[DownloadJob], None]) -> None:
        job = self._jobs.get(key) if key is not None else None
        if job is not None and not job.done:
            action(job)
            self.downloads.tick()

    def _download_progressed(self, _job: DownloadJob, _progress: DownloadProgress) -> None:
        self._update_states()
        self._update_download_box()
        self._update_first_run_box()

    def _download_ended(self, job: DownloadJob) -> None:
        """A download that ended (however) says so and refreshes the local models."""
        key = next((key for key, running in self._jobs.items() if running is job), None)
        if key is None:
            return
        del self._jobs[key]
        progress = job.progress()
        model, variant = self.library.catalog.find(*key)
        name = f"{model.name} {variant.quantization}"
        if progress.state == "finished":
            self._say(lambda: self.tr("{0} is downloaded and verified.").format(name))
        elif progress.state == "failed":
            self._say(lambda: self.tr("The download of {0} failed: {1}").format(name, render(progress.message)))
        else:
            self._say(lambda: self.tr("The download of {0} was cancelled.").format(name))
        self._ended_jobs[key] = job
        self._update_states()
        self._update_download_box()
        self._update_first_run_box()
        self.refresh_local()

    def job(self, key: VariantKey) -> DownloadJob | None:
        """The running download of a variant, else the one that ended last (this session)."""
        return self._jobs.get(key) or self._ended_jobs.get(key)

    def _update_states(self) -> None:
        states = {key: self.tr("Downloaded") for key in self._downloaded}
        for key, job in self._jobs.items():
            states[key] = self.catalog_page.tree.progress_text(job.progress())
        self.catalog_page.tree.show_states(states)

    def _update_download_box(self) -> None:
        key = self.catalog_page.selected_key()
        if key is None:
            self.catalog_page.download_box.show_nothing()
            return
        self._show_key_in(self.catalog_page.download_box, key)

    def _show_key_in(self, box: DownloadBox, key: VariantKey) -> None:
        """Show ``key``'s download (running, ended or not started) in ``box``."""
        running = self._jobs.get(key)
        ended = self._ended_jobs.get(key)
        if running is not None:
            box.show_progress(running.progress())
        elif key in self._downloaded:
            box.show_downloaded()
        elif ended is not None and ended.progress().state == "failed":
            box.show_progress(ended.progress())
        else:
            _, variant = self.library.catalog.find(*key)
            box.show_available(gated=variant.gated)

    # ---- using, adding, deleting ---------------------------------------------------------------
    def use_selected_variant(self) -> None:
        self._use_key(self.catalog_page.selected_key())

    def _use_key(self, key: VariantKey | None) -> None:
        model = self._downloaded.get(key) if key is not None else None
        if model is not None:
            self.use_local_model(model)

    def use_local_model(self, model: LocalModel) -> None:
        if self._use_model(Path(model.path)):
            if self._engine_state is not None:
                self._say(self._engine_text)  # follows the load from here on: loading, then ready or failed
            else:
                self._say(lambda: self.tr("Loading {0}…").format(model.name))
            self.close()
        else:
            self._say(lambda: self.tr("Another model is loading; choose this one again when it has finished."))

    def _engine_text(self) -> str:
        """The footer's line for the engine's state now (the window's EngineState)."""
        snapshot = self._engine_state.snapshot if self._engine_state is not None else EngineSnapshot()
        name = snapshot.model_name
        if snapshot.state is ManagerState.LOADING:
            return self.tr("Loading {0}…").format(name)
        if snapshot.state is ManagerState.READY:
            return self.tr("{0} is loaded and ready.").format(name)
        if snapshot.state is ManagerState.FAILED:
            return self.tr("{0} could not be loaded: {1}").format(name, render(snapshot.error))
        return ""

    def _engine_state_changed(self, snapshot: EngineSnapshot) -> None:
        if self._message_source == self._engine_text:
            self._say(self._engine_text)
        if self.isVisible() and snapshot.state is not ManagerState.LOADING:
            self.refresh_local()  # the installed list marks the model in use (not again for each load step)

    def add_model_file(self, *, use_after: bool = False) -> None:
        path = self.ask_model_file()
        if path is not None:
            self._add_local(path, use_after=use_after)

    def add_model_folder(self) -> None:
        path = self.ask_model_folder()
        if path is not None:
            self._add_local(path, use_after=False)

    def _add_local(self, path: Path, *, use_after: bool) -> None:
        library = self.library

        def added(model: LocalModel) -> None:
            self._say(lambda: self.tr("Added {0}.").format(model.name))
            self._select_after_refresh = model.id
            self.refresh_local()
            self.show_local()
            if use_after:
                self.use_local_model(model)

        self._bridge.run_in_background(lambda: library.add_local(path), added, self._show_error)

    def delete_model(self, model: LocalModel) -> None:
        if not self.confirm_delete(model):
            return
        library = self.library

        def deleted(_removed: object) -> None:
            self._say(lambda: self.tr("{0} was removed.").format(model.name))
            self.refresh_local()

        self._bridge.run_in_background(lambda: library.remove_local(model.id), deleted, self._show_error)

    def _show_error(self, error: Exception) -> None:
        text = str(error) or type(error).__name__
        self._say(lambda: render(text))

    # ---- dialogs -----------------------------------------------------------------------------
    def _ask_model_file_dialog(self) -> Path | None:
        name, _ = QFileDialog.getOpenFileName(self, self.tr("Add a GGUF model"), str(Path.home()),
                                              self.tr("GGUF models (*.gguf);;All files (*)"))
        return Path(name) if name else None

    def _ask_model_folder_dialog(self) -> Path | None:
        name = QFileDialog.getExistingDirectory(self, self.tr("Add a Hugging Face model folder"), str(Path.home()))
        return Path(name) if name else None

    def _confirm_delete_dialog(self, model: LocalModel) -> bool:
        if model.managed:
            text = self.tr("Delete {0}? Its files are deleted from this computer.").format(model.name)
        else:
            text = self.tr("Remove {0} from the list? Your file stays where it is.").format(model.name)
        answer = QMessageBox.question(self, self.tr("Delete model"), text)
        return answer == QMessageBox.StandardButton.Yes

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop watching downloads and wait for the dialog's workers (the library's owner closes the library)."""
        self.downloads.stop()
        self._bridge.wait_for_all(timeout_ms)
