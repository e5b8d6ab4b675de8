"""Checksums the hub states for its files (LFS sha256, git blob sha1) and streaming verification."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal, Protocol

ChecksumAlgorithm = Literal["sha256", "git-sha1"]
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SHA1 = re.compile(r"^[0-9a-f]{40}$")


class Headers(Protocol):
    """Case-insensitive header lookup (``email.message.Message``, http.client's headers)."""

    def get(self, name: str, /) -> str | None: ...


@dataclass(frozen=True)
class Checksum:
    """An expected digest. ``git-sha1`` is git's blob id: sha1 of ``b"blob <size>\\0"`` + the bytes,
    which the hub reports as the ETag of small (non-LFS) files such as config.json."""

    algorithm: ChecksumAlgorithm
    hex_digest: str

    def hasher(self, size: int | None) -> StreamingHash:
        """A fresh streaming hash for a file of ``size`` bytes (git-sha1 needs the size up front)."""
        return StreamingHash(self.algorithm, size)


class StreamingHash:
    """Feeds bytes as they arrive; ``hex_digest()`` at the end."""

    def __init__(self, algorithm: ChecksumAlgorithm, size: int | None) -> None:
        if algorithm == "git-sha1":
            if size is None:
                raise ValueError("a git blob id needs the file size")
            self._hash = hashlib.sha1(usedforsecurity=False)
            self._hash.update(f"blob {size}\0".encode("ascii"))
        else:
            self._hash = hashlib.sha256()
        self.algorithm = algorithm

    def update(self, data: bytes) -> None:
        self._hash.update(data)

    def hex_digest(self) -> str:
        return self._hash.hexdigest()


def parse_etag(value: str | None) -> Checksum | None:
    """The checksum an ETag stands for: 64 hex digits = LFS sha256, 40 = git blob id; else None."""
    if not value:
        return None
    digest = value.strip().removeprefix("W/").strip('"').lower()
    if _SHA256.match(digest):
        return Checksum("sha256", digest)
    if _SHA1.match(digest):
        return Checksum("git-sha1", digest)
    return None


def checksum_from_headers(headers: Headers) -> Checksum | None:
    """The hub's checksum for a file from a HEAD answer: ``X-Linked-ETag`` (LFS) or ``ETag``."""
    return parse_etag(headers.get("X-Linked-Etag")) or parse_etag(headers.get("ETag"))


def sha256_checksum(hex_digest: str) -> Checksum:
    """A sha256 Checksum from 64 hex digits (as stated in the catalog)."""
    digest = hex_digest.strip().lower()
    if not _SHA256.match(digest):
        raise ValueError(f"not a sha256 digest: {hex_digest!r}")
    return Checksum("sha256", digest)
