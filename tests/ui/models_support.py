"""Helpers for the model manager tests: a real model library in a temp folder, faked machines, the dialog."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.hardware import HardwareReport
from app.core.models import Catalog, HubClient, LocalModels, ModelLibrary, TransferOptions, load_catalog
from app.ui.models.model_manager_dialog import ModelManagerDialog
from tests.ui.conftest import fake_machine

NOWHERE = "http://127.0.0.1:9"  # the discard port: any request fails at once
SMALL_MACHINE = fake_machine(ram_total_gib=8.0, ram_available_gib=6.0)
LARGE_MACHINE = fake_machine(ram_total_gib=128.0, ram_available_gib=120.0)
FAST_TRANSFERS = TransferOptions(chunk_size=16 * 1024, max_retries=3, retry_delay_s=0.05)


def make_library(folder: Path, hub_url: str = NOWHERE) -> ModelLibrary:
    """The shipped catalog, a registry and models folder under ``folder``, a hub client for ``hub_url``. With a
    (fake) hub that serves test files under the catalog's names, the catalog's published checksums are left out:
    they are the real files' and would refuse the test's bytes (tests/reliability/test_catalog_pins.py)."""
    local = LocalModels(folder / "data" / "local_models.json", folder / "data" / "models")
    catalog = load_catalog() if hub_url == NOWHERE else without_checksums(load_catalog())
    return ModelLibrary(catalog, local, HubClient(endpoint=hub_url, timeout_s=10), transfer_options=FAST_TRANSFERS)


def without_checksums(catalog: Catalog) -> Catalog:
    """``catalog`` with no variant pinned: each download is checked against the hub's stated sha256."""
    models = tuple(replace(model, variants=tuple(replace(variant, sha256=None, files_sha256=(), checksum_source="")
                                                 for variant in model.variants)) for model in catalog.models)
    return replace(catalog, models=models)


class UsedModels:
    """Stands in for the window's ``load_model``: records the paths and answers ``accept``."""

    def __init__(self, accept: bool = True) -> None:
        self.paths: list[Path] = []
        self.accept = accept

    def __call__(self, path: Path) -> bool:
        self.paths.append(path)
        return self.accept


def open_dialog(qtbot: Any, library: ModelLibrary, machine: HardwareReport, used: UsedModels,
                settings: Settings | None = None, *, first_run: bool = False) -> ModelManagerDialog:
    """The dialog, shown, with its badges computed."""
    chosen = settings or Settings.defaults()
    dialog = ModelManagerDialog(library, lambda: machine, lambda: chosen, used)
    qtbot.addWidget(dialog)
    dialog.open_manager(first_run=first_run)
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: bool(dialog.fits), timeout=20_000)
    return dialog
