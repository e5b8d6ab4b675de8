"""Model manager core: curated catalog, fit badges, hub downloads (resumable, verified) and local models."""

from __future__ import annotations

from app.core.models.catalog import Catalog, CatalogModel, CatalogVariant, load_catalog
from app.core.models.catalog_metadata import variant_metadata
from app.core.models.downloads import DownloadJob, DownloadResult, DownloadSpec
from app.core.models.errors import (
    CatalogError,
    ChecksumMismatchError,
    DownloadError,
    HubError,
    LocalModelError,
    ModelsError,
    NotEnoughDiskSpaceError,
)
from app.core.models.file_download import TransferOptions
from app.core.models.fit import FitBadge, VariantFit, badge_request_from_settings, fit_catalog, fit_variant
from app.core.models.hub import HubClient, RemoteFile
from app.core.models.library import ModelLibrary
from app.core.models.local_models import LocalModel, LocalModels, RemovedModel, models_folder
from app.core.models.progress import DownloadProgress, DownloadState
from app.core.models.units import human_size

__all__ = [
    "Catalog",
    "CatalogError",
    "CatalogModel",
    "CatalogVariant",
    "ChecksumMismatchError",
    "DownloadError",
    "DownloadJob",
    "DownloadProgress",
    "DownloadResult",
    "DownloadSpec",
    "DownloadState",
    "FitBadge",
    "HubClient",
    "HubError",
    "LocalModel",
    "LocalModelError",
    "LocalModels",
    "ModelLibrary",
    "ModelsError",
    "NotEnoughDiskSpaceError",
    "RemoteFile",
    "RemovedModel",
    "TransferOptions",
    "VariantFit",
    "badge_request_from_settings",
    "fit_catalog",
    "fit_variant",
    "human_size",
    "load_catalog",
    "models_folder",
    "variant_metadata",
]
