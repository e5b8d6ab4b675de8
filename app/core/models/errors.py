"""Errors of the model manager: catalog, hub, downloads and local models."""

from __future__ import annotations

from app.core.util.errors import UserFacingError


class ModelsError(UserFacingError):
    """Base of the model manager's user-facing errors."""


class CatalogError(ModelsError):
    """The catalog file is malformed, or an id is not in it."""


class HubError(ModelsError):
    """The hub refused a request or could not be reached. ``status`` is the HTTP status, if any."""

    def __init__(self, message: str, hint: str | None = None, *, status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


class DownloadError(ModelsError):
    """A download could not be completed (the partial file is kept unless the message says otherwise)."""


class ChecksumMismatchError(DownloadError):
    """The downloaded bytes do not match the expected checksum or size."""


class NotEnoughDiskSpaceError(DownloadError):
    """The models folder's disk cannot hold what is left to download."""


class LocalWriteError(DownloadError):
    """The downloaded bytes cannot be written on this machine (disk full, no permission): no other
    download source would help."""


class LocalModelError(ModelsError):
    """A local model cannot be added, found or removed."""
