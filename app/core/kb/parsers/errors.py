"""The one error type of document reading: what is wrong with which file, as a machine-readable kind."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from app.core.kb.parsers.document_texts import document_text, located
from app.core.util.errors import UserFacingError

DOCUMENT_ERROR_KINDS: Final = frozenset(
    {"missing", "empty", "binary", "encrypted", "corrupt", "unsupported", "unreadable",
     "too-large", "timeout", "crashed"}
)
"""``too-large``: over a size, inflation or memory limit; ``timeout`` / ``crashed``: reading it ran too long or
killed the reader process (never retried until the file changes)."""


class DocumentError(UserFacingError):
    """A document cannot be read; ``kind`` is one of DOCUMENT_ERROR_KINDS, ``path`` the file (if known).

    Known problems and hints (:mod:`~app.core.kb.parsers.document_texts`) become translatable Texts."""

    def __init__(
        self, message: str, hint: str | None = None, *, kind: str, path: Path | None = None
    ) -> None:
        if kind not in DOCUMENT_ERROR_KINDS:
            raise ValueError(f"unknown document error kind {kind!r}")
        super().__init__(document_text(message) or message, document_text(hint))
        self.kind = kind
        self.path = path

    @classmethod
    def for_file(cls, path: Path, kind: str, problem: str, hint: str | None = None) -> DocumentError:
        """An error whose message names the file: ``"<path>: <problem>"`` (known problems and hints become
        translatable Texts)."""
        return cls(located(str(path), problem), hint, kind=kind, path=path)

    def with_path(self, path: Path) -> DocumentError:
        """The same error, its message now naming ``path`` (for errors raised before the file was known)."""
        if self.path is not None:
            return self
        return DocumentError.for_file(path, self.kind, self.message, self.hint)

    @classmethod
    def from_os_error(cls, path: Path, error: OSError) -> DocumentError:
        """The document error for a failure to open or read ``path``."""
        if isinstance(error, FileNotFoundError):
            return cls.for_file(
                path, "missing", "the file does not exist (moved or deleted?)",
                "Check the path, or remove the entry if the file is gone for good.",
            )
        if isinstance(error, IsADirectoryError):
            return cls.for_file(
                path, "unsupported", "this is a folder, not a file", "Add the folder itself to add its files."
            )
        if isinstance(error, PermissionError):
            return cls.for_file(
                path, "unreadable", "permission denied", "Give your user read access to the file and retry."
            )
        reason = error.strerror or str(error)
        return cls.for_file(
            path, "unreadable", f"the file cannot be read ({reason})",
            "Check the disk or network share, then retry.",
        )
