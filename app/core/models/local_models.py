"""The user's local models: downloaded ones (in the models folder) and their own files, listed in a small registry."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.models.errors import LocalModelError
from app.core.planner.errors import ModelMetadataError
from app.core.planner.model_reader import read_model_metadata
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelErrors"

log = logging.getLogger(__name__)
REGISTRY_NAME = "local_models.json"
REGISTRY_VERSION = 1
LocalFormat = Literal["gguf", "hf"]
_SLUG = re.compile(r"[^a-z0-9._-]+")


def models_folder(paths: AppPaths, settings: Settings) -> Path:
    """Where downloads go: the ``model.folder`` setting, or ``<data dir>/models``."""
    configured = settings.str_value("model.folder").strip()
    return Path(configured).expanduser() if configured else paths.data_dir / "models"


@dataclass(frozen=True)
class LocalModel:
    """A model on this machine. ``downloaded_into`` is the models folder a download went to (None for
    the user's own files): only those files are ever deleted by :meth:`LocalModels.remove`."""

    id: str
    name: str
    path: str
    format: LocalFormat
    size_bytes: int
    added_at: str
    downloaded_into: str | None = None
    catalog_model_id: str | None = None
    variant_id: str | None = None

    @property
    def managed(self) -> bool:
        """True for downloads, whose files UniDesk deletes on removal."""
        return self.downloaded_into is not None

    def is_present(self) -> bool:
        """Whether the file or folder still exists."""
        return Path(self.path).exists()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (also the registry's record)."""
        return asdict(self)


@dataclass(frozen=True)
class RemovedModel:
    """What :meth:`LocalModels.remove` did: ``deleted_files`` False means the files were only forgotten."""

    model: LocalModel
    deleted_files: bool
    freed_bytes: int


def _disk_size(path: Path) -> int:
    """Bytes of a file, or of all files under a folder."""
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def _inside(path: Path, folder: Path) -> bool:
    """True when ``path`` lies strictly inside ``folder`` (after resolving links)."""
    resolved, root = path.resolve(), folder.resolve()
    return resolved != root and resolved.is_relative_to(root)


class LocalModels:
    """The registry of local models (a JSON file), safe to use from several threads of one process."""

    def __init__(self, registry_file: Path, folder: Path) -> None:
        self.registry_file = registry_file
        self.folder = folder
        self._lock = threading.RLock()

    @classmethod
    def open(cls, paths: AppPaths, settings: Settings) -> LocalModels:
        """The registry under the app's data folder, with the configured models folder."""
        return cls(paths.data_dir / REGISTRY_NAME, models_folder(paths, settings))

    def models(self) -> tuple[LocalModel, ...]:
        """Every registered model, in the order added."""
        with self._lock:
            return self._load()

    def get(self, model_id: str) -> LocalModel:
        """The model ``model_id``; a clear error if there is none."""
        for model in self.models():
            if model.id == model_id.strip().lower():
                return model
        raise LocalModelError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelErrors", "There is no local model '{0}'."), (model_id,)),
                              Text(CONTEXT, QT_TRANSLATE_NOOP(
                                  "ModelErrors", "Run `unidesk models list` to see their ids.")))

    def find_by_path(self, path: Path) -> LocalModel | None:
        """The registered model at ``path``, if any."""
        wanted = str(Path(path).expanduser().resolve())
        return next((model for model in self.models() if model.path == wanted), None)

    def add(self, path: Path, *, name: str | None = None) -> LocalModel:
        """Register the user's own .gguf file or Hugging Face folder (checked with the planner's reader).
        Adding the same path again returns the existing entry. The files are never deleted by UniDesk."""
        target = self._model_path(path)
        with self._lock:
            existing = self.find_by_path(target)
            if existing is not None:
                return existing
            return self._register(target, name=name, downloaded_into=None)

    def register_download(
        self, path: Path, *, name: str, catalog_model_id: str, variant_id: str
    ) -> LocalModel:
        """Record a finished download (a file or folder inside the models folder)."""
        target = self._model_path(path)
        if not _inside(target, self.folder):
            raise LocalModelError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "{0} is not inside the models folder {1}."), (str(target), str(self.folder))))
        with self._lock:
            existing = self.find_by_path(target)
            if existing is not None:  # downloaded again: the new record replaces the old one
                self._save([model for model in self._load() if model.id != existing.id])
            return self._register(
                target, name=name, downloaded_into=str(self.folder.resolve()),
                catalog_model_id=catalog_model_id, variant_id=variant_id,
            )

    def remove(self, model_id: str) -> RemovedModel:
        """Forget a model; delete its files only if UniDesk downloaded them into its models folder."""
        with self._lock:
            model = self.get(model_id)
            path = Path(model.path)
            deleted, freed = False, 0
            root = Path(model.downloaded_into) if model.downloaded_into else None
            if root is not None and path.exists() and _inside(path, root):
                freed = _disk_size(path)
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
                    path.with_name(path.name + ".part").unlink(missing_ok=True)
                self._prune_empty_parents(path.parent, root)
                deleted = True
            self._save([entry for entry in self._load() if entry.id != model.id])
            return RemovedModel(model=model, deleted_files=deleted, freed_bytes=freed)

    @staticmethod
    def _prune_empty_parents(folder: Path, root: Path) -> None:
        """Remove now-empty folders between a deleted model and the models folder (not the folder itself)."""
        current = folder
        while _inside(current, root):
            try:
                current.rmdir()
            except OSError:
                return
            current = current.parent

    @staticmethod
    def _model_path(path: Path) -> Path:
        """The resolved file or folder; a config.json stands for its folder."""
        target = Path(path).expanduser()
        if target.is_file() and target.name == "config.json":
            target = target.parent
        return target.resolve()

    def _register(self, target: Path, *, name: str | None, downloaded_into: str | None,
                  catalog_model_id: str | None = None, variant_id: str | None = None) -> LocalModel:
        """Validate ``target`` and append it to the registry."""
        try:
            metadata = read_model_metadata(target)
        except ModelMetadataError as error:
            raise LocalModelError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "{0} is not a model UniDesk can load: {1}"), (str(target), error.message)),
                error.hint) from error
        if metadata.source == "hf_config":
            raise LocalModelError(
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} has a config.json but no .safetensors weights."),
                     (str(target),)),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "Add a folder that holds the model's weights, or a .gguf file.")),
            )
        models = list(self._load())
        label = name or (target.stem if target.is_file() else target.name)
        model = LocalModel(
            id=self._unique_id(label, {model.id for model in models}),
            name=label,
            path=str(target),
            format="gguf" if metadata.source == "gguf" else "hf",
            size_bytes=_disk_size(target),
            added_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            downloaded_into=downloaded_into,
            catalog_model_id=catalog_model_id,
            variant_id=variant_id,
        )
        self._save([*models, model])
        return model

    @staticmethod
    def _unique_id(label: str, taken: set[str]) -> str:
        """A lower-case id from ``label``, with -2, -3, ... when taken."""
        base = _SLUG.sub("-", label.lower()).strip("-.") or "model"
        candidate, number = base, 2
        while candidate in taken:
            candidate, number = f"{base}-{number}", number + 1
        return candidate

    def _load(self) -> tuple[LocalModel, ...]:
        """Read the registry; a damaged file is set aside (kept as .bad) and the list starts empty."""
        try:
            document = json.loads(self.registry_file.read_text(encoding="utf-8"))
            return tuple(LocalModel(**entry) for entry in document["models"])
        except FileNotFoundError:
            return ()
        except (OSError, ValueError, KeyError, TypeError) as error:
            backup = self.registry_file.with_name(self.registry_file.name + ".bad")
            log.warning("local model registry %s is unreadable (%s); kept as %s", self.registry_file, error, backup)
            with contextlib.suppress(OSError):
                os.replace(self.registry_file, backup)
            return ()

    def _save(self, models: list[LocalModel]) -> None:
        """Write the registry atomically (a uniquely named temporary file, synced, then renamed over it)."""
        self.registry_file.parent.mkdir(parents=True, exist_ok=True)
        document = {"version": REGISTRY_VERSION, "models": [model.to_dict() for model in models]}
        text = json.dumps(document, indent=1, ensure_ascii=False)
        # A name of its own for each write, so two writers never share (and tear) one temporary file.
        descriptor, temporary = tempfile.mkstemp(prefix=self.registry_file.name + ".", suffix=".tmp",
                                                 dir=self.registry_file.parent)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.registry_file)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
