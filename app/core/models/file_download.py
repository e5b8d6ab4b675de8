"""One file's resumable transfer: HTTP Range into ``<name>.part``, streamed checksum, atomic rename."""

from __future__ import annotations

import http.client
import logging
import os
import re
import urllib.error
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.models.checksums import Checksum, StreamingHash
from app.core.models.errors import ChecksumMismatchError, DownloadError, LocalWriteError
from app.core.models.hub import HubClient, RemoteFile
from app.core.models.progress import TransferControl
from app.core.util.file_lock import open_locked, unlock_and_remove
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelErrors"

log = logging.getLogger(__name__)
MIB = 1024**2
PART_SUFFIX = ".part"
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")
_RETRY_DELAY_CAP_S = 30.0


@dataclass(frozen=True)
class TransferOptions:
    """How a file is fetched. ``max_retries``: attempts in a row that bring no new bytes before the
    download fails (the ``.part`` file is kept, so running it again resumes)."""

    chunk_size: int = MIB
    max_retries: int = 5
    retry_delay_s: float = 1.0


@dataclass(frozen=True)
class FetchResult:
    """A finished file. ``verified_by``: sha256, git-sha1, size (no checksum known) or present
    (the final file already existed: it only ever appears after verification)."""

    path: Path
    size: int
    downloaded_bytes: int
    verified_by: str


class _ConnectionDropped(Exception):
    """The server ended the body early; retried from where it stopped."""


class _StartOver(Exception):
    """The partial file cannot be continued (e.g. the range was refused); start from byte 0."""


def part_path(destination: Path) -> Path:
    """Where ``destination`` is downloaded to until it is verified."""
    return destination.with_name(destination.name + PART_SUFFIX)


def lock_path(destination: Path) -> Path:
    """The lock held while ``destination`` is being downloaded."""
    return destination.with_name(destination.name + PART_SUFFIX + ".lock")


class FileTransfer:
    """Fetches ``remote`` to ``destination``; ``on_bytes(n)`` for received bytes, ``on_resumed(n)``
    for bytes reused from an earlier ``.part``, ``on_discarded(n)`` for counted bytes thrown away
    (a server that ignored the Range), ``on_state(s)`` for "downloading"/"paused"/"verifying"."""

    def __init__(
        self,
        hub: HubClient,
        remote: RemoteFile,
        destination: Path,
        expected: Checksum | None,
        control: TransferControl,
        options: TransferOptions,
        *,
        on_bytes: Callable[[int], None],
        on_resumed: Callable[[int], None],
        on_state: Callable[[str], None],
        on_discarded: Callable[[int], None] = lambda count: None,
    ) -> None:
        self.hub, self.remote, self.destination, self.expected = hub, remote, destination, expected
        self.control, self.options = control, options
        self.part = part_path(destination)
        self._on_bytes, self._on_resumed, self._on_state = on_bytes, on_resumed, on_state
        self._on_discarded = on_discarded
        self._hash: StreamingHash | None = None
        self._received = 0

    def run(self) -> FetchResult:
        """Download (or finish) the file and verify it; raises DownloadError/HubError with clear messages.

        The ``.part`` file is locked (``<name>.part.lock``) meanwhile: a second process downloading the
        same file is refused instead of appending to it too."""
        lock = open_locked(lock_path(self.destination))
        if lock is None:
            raise DownloadError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "{0} is already being downloaded by another UniDesk process."),
                     (self.destination.name,)),
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "Let that download finish, then try again.")),
            )
        try:
            return self._run_locked()
        finally:
            unlock_and_remove(lock, lock_path(self.destination))

    def _run_locked(self) -> FetchResult:
        size = self.remote.size
        if self.destination.is_file() and (size is None or self.destination.stat().st_size == size):
            existing = self.destination.stat().st_size
            self._on_resumed(existing)
            return FetchResult(self.destination, existing, 0, "present")
        self.destination.parent.mkdir(parents=True, exist_ok=True)
        offset = self._adopt_part()
        failures = 0
        last_error: BaseException | None = None
        self._on_state("downloading")
        while True:
            self.control.checkpoint()
            if self.control.pause_requested:
                self._on_state("paused")
                self.control.wait_while_paused()
                self._on_state("downloading")
            if size is not None and offset >= size:
                break  # an earlier run left a complete .part
            before = offset
            try:
                offset, complete = self._attempt(offset)
                if complete:
                    break
                continue  # paused or cancelled mid-body: the loop head handles it
            except _StartOver:
                self._truncate()
                offset = 0
                last_error = None
            except (_ConnectionDropped, OSError, http.client.HTTPException) as error:
                offset = self.part.stat().st_size if self.part.exists() else 0
                last_error = error
                log.info("download of %s interrupted at %d bytes: %s", self.remote.path, offset, error)
            failures = 0 if offset > before else failures + 1
            if failures > self.options.max_retries:
                raise self._gave_up(offset, last_error)
            self.control.sleep(min(_RETRY_DELAY_CAP_S, self.options.retry_delay_s * 2 ** max(0, failures - 1)))
        self._on_state("verifying")
        verified_by = self._verify()
        return FetchResult(self.destination, self.destination.stat().st_size, self._received, verified_by)

    def _adopt_part(self) -> int:
        """Resume from an existing ``.part``: hash what it holds (so the checksum covers the whole
        file) and return its size; a part longer than the file is discarded."""
        self._hash = self.expected.hasher(self.remote.size) if self.expected is not None else None
        if not self.part.is_file():
            return 0
        held = self.part.stat().st_size
        if self.remote.size is not None and held > self.remote.size:
            self.part.unlink()  # not from this file: start afresh
            return 0
        if self._hash is not None and held:
            self._on_state("verifying")
            with self.part.open("rb") as handle:
                while chunk := handle.read(self.options.chunk_size):
                    self.control.checkpoint()
                    self._hash.update(chunk)
        self._on_resumed(held)
        return held

    def _truncate(self) -> None:
        """Empty the ``.part`` file (its bytes no longer count) and restart the checksum."""
        if self.part.is_file():
            self._on_discarded(self.part.stat().st_size)
            self.part.unlink()
        self._hash = self.expected.hasher(self.remote.size) if self.expected is not None else None

    def _attempt(self, offset: int) -> tuple[int, bool]:
        """One GET from ``offset``; returns (new offset, whether the file is complete)."""
        size = self.remote.size
        what = f"{self.remote.repo_id}/{self.remote.path}"
        try:
            response = self.hub.open_range(self.remote.url, offset)
        except urllib.error.HTTPError as error:
            if error.code == 416:
                if size is not None and offset == size:
                    return offset, True
                raise _StartOver from error
            if error.code >= 500 or error.code == 408:
                raise _ConnectionDropped(f"{error.code} {error.reason}") from error
            raise self.hub.http_error(error, what) from error
        with response:
            if response.status == 206:
                match = _CONTENT_RANGE.match(response.headers.get("Content-Range") or "")
                if match is None or int(match.group(1)) != offset:
                    raise _StartOver
                if size is not None and match.group(3) != "*" and int(match.group(3)) != size:
                    raise DownloadError(
                        Text(CONTEXT, QT_TRANSLATE_NOOP(
                            "ModelErrors", "{0} changed on the hub while it was being downloaded."), (what,)),
                        Text(CONTEXT, QT_TRANSLATE_NOOP(
                            "ModelErrors", "Run the download again to fetch the new version.")),
                    )
            elif offset > 0:
                self._truncate()  # the server ignored the Range header and sends the whole file
                offset = 0
            offset = self._copy_body(response, offset)
        if size is None:
            return offset, not (self.control.pause_requested or self.control.cancelled)
        if offset >= size:
            return offset, True
        if self.control.pause_requested or self.control.cancelled:
            return offset, False
        raise _ConnectionDropped(f"the connection closed after {offset} of {size} bytes")

    def _copy_body(self, response: http.client.HTTPResponse, offset: int) -> int:
        """Append the body to the ``.part`` file until it ends, the file is complete, or a pause or
        cancel is requested; returns the new offset."""
        size = self.remote.size
        try:
            handle = self.part.open("ab")
        except OSError as error:
            raise self._write_error(error) from error
        with handle:
            while not (self.control.pause_requested or self.control.cancelled):
                wanted = self.options.chunk_size if size is None else min(self.options.chunk_size, size - offset)
                if wanted <= 0:
                    break
                chunk = response.read(wanted)
                if not chunk:
                    break
                try:
                    handle.write(chunk)
                except OSError as error:
                    raise self._write_error(error) from error
                if self._hash is not None:
                    self._hash.update(chunk)
                offset += len(chunk)
                self._received += len(chunk)
                self._on_bytes(len(chunk))
        return offset

    def _write_error(self, error: OSError) -> DownloadError:
        return LocalWriteError(
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Cannot write {0}: {1}."), (str(self.part), str(error.strerror or error))),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Free some disk space or choose another models folder (setting model.folder).")),
        )

    def _gave_up(self, offset: int, error: BaseException | None) -> DownloadError:
        """The error after too many failed attempts (the ``.part`` stays for a later resume)."""
        reason: str
        if error is None:
            reason = Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "the download from {0} kept starting over"),
                          (self.hub.host,))
        elif isinstance(error, _ConnectionDropped):
            reason = Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "the connection to {0} kept dropping ({1})"),
                          (self.hub.host, str(error)))
        else:
            reason = self.hub.network_reason(error)
            if reason.endswith("."):  # the library's own words end the sentence already
                reason = str(reason).rstrip(".")
        hint = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelErrors", "Run the download again: it resumes from where it stopped."))
        if self.remote.size is None:
            return DownloadError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Downloading {0} stopped at {1} bytes: {2}."), (self.remote.path, offset, reason)), hint)
        return DownloadError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelErrors", "Downloading {0} stopped at {1} of {2} bytes: {3}."),
            (self.remote.path, offset, self.remote.size, reason)), hint)

    def _verify(self) -> str:
        """Check size and checksum of the ``.part``, then rename it into place. A mismatch deletes the
        ``.part``: resuming would only extend bad bytes."""
        size = self.remote.size
        held = self.part.stat().st_size
        name = self.remote.path
        if size is not None and held != size:
            self.part.unlink(missing_ok=True)
            raise ChecksumMismatchError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "{0} came out at {1} bytes instead of {2}; the partial file was deleted."),
                    (name, held, size)),
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "Run the download again.")),
            )
        verified_by = "size"
        if self.expected is not None and self._hash is not None:
            actual = self._hash.hex_digest()
            if actual != self.expected.hex_digest:
                self.part.unlink(missing_ok=True)
                raise ChecksumMismatchError(
                    Text(CONTEXT, QT_TRANSLATE_NOOP(
                        "ModelErrors", "{0} failed verification: its {1} is {2}..., expected {3}...; the corrupt "
                                       "partial file was deleted."),
                        (name, self.expected.algorithm, actual[:16], self.expected.hex_digest[:16])),
                    Text(CONTEXT, QT_TRANSLATE_NOOP(
                        "ModelErrors",
                        "Run the download again; if it fails again, the hub or a proxy is serving a damaged file.")),
                )
            verified_by = self.expected.algorithm
        with self.part.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(self.part, self.destination)
        return verified_by
