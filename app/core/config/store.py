"""Loading and saving Settings as the versioned, human-readable settings.toml file.

The file holds ``version = N`` and one table per section with only the values that differ
from their defaults (so improved defaults reach users who never changed a setting):

    version = 2

    [engine]
    parallel_chats = 4

Loading never raises for bad content: each invalid key falls back to its default, the
original bytes are kept in ``settings.toml.bad-YYYYMMDD-HHMMSS`` and every fault becomes one
SettingProblem line. Saving is atomic and refuses to replace a file from a newer UniDesk
unless asked to (a copy of that file is kept first).
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import tomli_w

from app.core.config.declarations import SECTIONS, SETTINGS
from app.core.config.files import keep_backup, write_atomically
from app.core.config.migrations import CURRENT_VERSION
from app.core.config.paths import AppPaths
from app.core.config.reading import SettingProblem, parse_settings_bytes
from app.core.config.settings import Settings
from app.core.util.errors import UserFacingError

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SettingsLoadResult:
    """The settings to use, what was wrong with the file, and where its original was kept."""

    settings: Settings
    problems: tuple[SettingProblem, ...] = ()
    backup_path: Path | None = None
    file_version: int | None = None
    """Format version found in the file; None when there was no (readable, parsable) file."""

    @property
    def newer_file(self) -> bool:
        """Whether the file comes from a newer UniDesk (``save`` will not replace it silently)."""
        return self.file_version is not None and self.file_version > CURRENT_VERSION


class SettingsSaveError(UserFacingError):
    """The settings file could not be written."""


class SettingsFileNewerError(UserFacingError):
    """The settings file on disk is from a newer UniDesk and was not replaced."""


class SettingsStore:
    """Reads and writes the settings file at ``paths.settings_file``."""

    def __init__(self, paths: AppPaths, *, clock: Callable[[], datetime] = datetime.now) -> None:
        self._path = paths.settings_file
        self._clock = clock

    @property
    def path(self) -> Path:
        """The settings file (it may not exist yet)."""
        return self._path

    def load(self) -> SettingsLoadResult:
        """The saved settings; defaults where the file is missing or a value is invalid."""
        try:
            data = self._path.read_bytes()
        except FileNotFoundError:
            return SettingsLoadResult(Settings.defaults())
        except OSError as error:
            reason = error.strerror or str(error)
            problem = SettingProblem(
                None, f"Could not read {self._path}: {reason}; using the defaults for all settings."
            )
            _log.warning("%s", problem.message)
            return SettingsLoadResult(Settings.defaults(), (problem,))
        parsed = parse_settings_bytes(data, self._path.name)
        problems = list(parsed.problems)
        backup_path: Path | None = None
        if problems and not parsed.newer_version:
            try:
                backup_path = keep_backup(self._path, data, "bad", self._clock())
            except OSError as error:
                problems.append(SettingProblem(
                    None, f"Could not keep a copy of {self._path.name}: {error.strerror or error}."
                ))
        for problem in problems:
            _log.warning("%s: %s", self._path, problem.message)
        if backup_path is not None:
            _log.warning("The original settings file was kept as %s", backup_path)
        return SettingsLoadResult(parsed.settings, tuple(problems), backup_path, parsed.file_version)

    def save(self, settings: Settings, *, replace_newer: bool = False) -> Path | None:
        """Write ``settings`` atomically. Returns the path of a copy kept of the old file, if any.

        Raises :class:`SettingsFileNewerError` when the file on disk has a newer format version
        and ``replace_newer`` is false; with it true, that file is copied aside first. Raises
        :class:`SettingsSaveError` when the file cannot be written (the old one stays intact).
        """
        backup_path: Path | None = None
        newer_version, old_data = self._version_on_disk()
        if newer_version is not None and old_data is not None:
            if not replace_newer:
                raise SettingsFileNewerError(
                    f"{self._path} was written by a newer UniDesk (file format {newer_version}); "
                    "it was not replaced.",
                    "Update UniDesk, or choose to replace the file (a copy of it is kept).",
                )
            backup_path = self._keep_copy(old_data, f"v{newer_version}")
        try:
            write_atomically(self._path, render_settings(settings))
        except OSError as error:
            raise SettingsSaveError(
                f"Could not save settings to {self._path}: {error.strerror or error}.",
                "Check that the folder is writable and the disk is not full.",
            ) from error
        return backup_path

    def _version_on_disk(self) -> tuple[int | None, bytes | None]:
        """The file's format version if it is newer than this app's, with its bytes."""
        try:
            data = self._path.read_bytes()
            version = tomllib.loads(data.decode("utf-8-sig")).get("version")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None, None
        if isinstance(version, int) and not isinstance(version, bool) and version > CURRENT_VERSION:
            return version, data
        return None, None

    def _keep_copy(self, data: bytes, label: str) -> Path:
        try:
            return keep_backup(self._path, data, label, self._clock())
        except OSError as error:
            raise SettingsSaveError(
                f"Could not keep a copy of {self._path} before replacing it: "
                f"{error.strerror or error}.",
                "Check that the folder is writable and the disk is not full.",
            ) from error


def render_settings(settings: Settings) -> bytes:
    """The settings file's content: ``version`` and the non-default values, by section."""
    document: dict[str, Any] = {"version": CURRENT_VERSION}
    changed = set(settings.changed_keys())
    for section in SECTIONS:
        table = {
            spec.name: settings[spec.key]
            for spec in SETTINGS
            if spec.section == section.name and spec.key in changed
        }
        if table:
            document[section.name] = table
    return tomli_w.dumps(document).encode("utf-8")
