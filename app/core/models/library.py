"""ModelLibrary: the one object the model manager (GUI or CLI) uses: catalog, badges, downloads, local models."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.hardware.report import HardwareReport
from app.core.models.catalog import Catalog, CatalogModel, CatalogVariant, load_catalog
from app.core.models.downloads import DownloadJob, DownloadResult, DownloadSpec, with_local_model
from app.core.models.errors import DownloadError
from app.core.models.file_download import TransferOptions
from app.core.models.fit import VariantFit, fit_catalog
from app.core.models.hub import HubClient
from app.core.models.local_models import LocalModel, LocalModels, RemovedModel
from app.core.models.sources import download_sources
from app.core.planner.request import PlanRequest
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelErrors"


class ModelLibrary:
    """Catalog + local models + downloads for one UniDesk home.

    Nothing touches the network until :meth:`start_download` is called. At most one download
    runs per target in this process (a second request for the same one gets the running job).
    """

    def __init__(
        self,
        catalog: Catalog,
        local: LocalModels,
        hub: HubClient | Sequence[HubClient],
        *,
        transfer_options: TransferOptions | None = None,
    ) -> None:
        self.catalog = catalog
        self.local = local
        self.sources: tuple[HubClient, ...] = (hub,) if isinstance(hub, HubClient) else tuple(hub)
        self._transfer_options = transfer_options
        self._lock = threading.Lock()
        self._jobs: dict[Path, DownloadJob] = {}

    @classmethod
    def open(cls, paths: AppPaths, settings: Settings, *, hub: HubClient | None = None) -> ModelLibrary:
        """The library of this home: the shipped catalog, the registry, and the download sources of the
        ``model.download_source`` setting (or only ``hub``)."""
        sources = (hub,) if hub is not None else download_sources(
            settings.str_value("model.download_source"), settings.str_value("model.mirror_url"))
        return cls(load_catalog(), LocalModels.open(paths, settings), sources)

    @property
    def models_folder(self) -> Path:
        """Where downloads go."""
        return self.local.folder

    def fit_badges(self, hardware: HardwareReport, request: PlanRequest) -> tuple[VariantFit, ...]:
        """Every catalog variant's fit badge on ``hardware`` (pure arithmetic, no I/O)."""
        return fit_catalog(self.catalog, hardware, request)

    def download_target(self, variant: CatalogVariant) -> Path:
        """Where ``variant`` lands: ``<models folder>/<owner>/<repo>/`` (plus the file name for GGUF)."""
        folder = self.models_folder.joinpath(*variant.repo_id.split("/"))
        return folder / variant.file_name if variant.file_name else folder

    def downloaded(self, model_id: str, variant_id: str | None = None) -> LocalModel | None:
        """The local model a catalog variant was downloaded as, if it is still on disk."""
        _, variant = self.catalog.find(model_id, variant_id)
        target = self.download_target(variant)
        found = self.local.find_by_path(target)
        return found if found is not None and found.is_present() else None

    def start_download(
        self,
        model_id: str,
        variant_id: str | None = None,
        *,
        on_finished: Callable[[DownloadJob], None] | None = None,
    ) -> DownloadJob:
        """Start downloading a catalog variant (default variant when None); when it is verified it is
        registered as a local model (``job.wait().local_model``). Raises DownloadError if it is already
        downloaded."""
        model, variant = self.catalog.find(model_id, variant_id)
        if self.downloaded(model.id, variant.id) is not None:
            raise DownloadError(
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} ({1}) is already downloaded."),
                     (model.name, variant.quantization)),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "Pick it in the model list, or remove it first to download it again.")),
            )
        target = self.download_target(variant)
        with self._lock:
            running = self._jobs.get(target)
            if running is not None and not running.done:
                return running
            job = DownloadJob(
                self._spec(model, variant),
                self.sources,
                options=self._transfer_options,
                finalize=lambda result: self._register(result, model, variant),
                on_finished=on_finished,
            )
            self._jobs[target] = job
        return job.start()

    def download_job(self, model_id: str, variant_id: str | None = None) -> DownloadJob | None:
        """The latest download job of a catalog variant in this process (running or ended), if any."""
        _, variant = self.catalog.find(model_id, variant_id)
        with self._lock:
            return self._jobs.get(self.download_target(variant))

    def running_downloads(self) -> tuple[DownloadJob, ...]:
        """Jobs that have not ended."""
        with self._lock:
            return tuple(job for job in self._jobs.values() if not job.done)

    def add_local(self, path: Path, *, name: str | None = None) -> LocalModel:
        """Register the user's own .gguf file or model folder (never deleted by UniDesk)."""
        return self.local.add(path, name=name)

    def remove_local(self, model_id: str) -> RemovedModel:
        """Forget a local model, deleting its files only if UniDesk downloaded them."""
        return self.local.remove(model_id)

    def close(self, timeout: float = 10.0) -> None:
        """Cancel running downloads, keeping their partial files so they resume next time."""
        for job in self.running_downloads():
            job.cancel(keep_partial=True)
        for job in self.running_downloads():
            job.join(timeout)

    def _spec(self, model: CatalogModel, variant: CatalogVariant) -> DownloadSpec:
        target = self.download_target(variant)
        label = f"{model.name} ({variant.quantization})"
        if variant.file_name is not None:
            known = ((variant.file_name, variant.sha256),) if variant.sha256 else ()
            return DownloadSpec(variant.repo_id, target.parent, variant.revision, (variant.file_name,),
                                known_sha256=known, label=label)
        return DownloadSpec(variant.repo_id, target, variant.revision, known_sha256=variant.files_sha256, label=label)

    def _register(self, result: DownloadResult, model: CatalogModel, variant: CatalogVariant) -> DownloadResult:
        local = self.local.register_download(
            result.path, name=f"{model.name} {variant.quantization}", catalog_model_id=model.id, variant_id=variant.id
        )
        return with_local_model(result, local)
