"""Downloads from the hub as a :class:`Job`: own worker thread, progress snapshots, pause/resume, cancel.

A job may be given several sources (:mod:`app.core.models.sources`): when one cannot be reached or
fails, the job says so in its progress and resumes the partial files from the next one.
"""

from __future__ import annotations

import fnmatch
import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from app.core.models.checksums import Checksum, sha256_checksum
from app.core.models.errors import (
    ChecksumMismatchError,
    DownloadError,
    HubError,
    LocalWriteError,
    NotEnoughDiskSpaceError,
)
from app.core.models.file_download import FetchResult, FileTransfer, TransferOptions, part_path
from app.core.models.hub import HUGGINGFACE, HubClient, RemoteFile
from app.core.models.local_models import LocalModel
from app.core.models.progress import DownloadProgress, DownloadTracker, TransferCancelled, TransferControl
from app.core.models.units import human_size
from app.core.util.errors import UserFacingError
from app.core.util.jobs import Job
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelErrors"

log = logging.getLogger(__name__)
MIB = 1024**2
DISK_MARGIN_BYTES = 512 * MIB  # left free on the disk beyond what the download needs
# Files of a Hugging Face model that vLLM needs: weights, configs, tokenizer, chat template, licence.
HF_FILE_PATTERNS: tuple[str, ...] = (
    "*.json", "*.safetensors", "*.model", "*.tiktoken", "*.jinja", "*.txt", "LICENSE*", "*.md",
)


@dataclass(frozen=True)
class DownloadSpec:
    """What to fetch: named ``files`` of ``repo_id`` (e.g. one GGUF), or with no names every
    top-level file matching ``patterns`` (an HF model). ``known_sha256`` maps file names to
    digests stated by the catalog; other files are checked against the hub's own checksums."""

    repo_id: str
    target_dir: Path
    revision: str = "main"
    files: tuple[str, ...] = ()
    patterns: tuple[str, ...] = HF_FILE_PATTERNS
    known_sha256: tuple[tuple[str, str], ...] = ()
    label: str = ""
    other_repos: tuple[tuple[str, str], ...] = ()
    """(hub flavour, repository id) where the model has another id, e.g. ("modelscope", "qwen/...")."""

    def repo_for(self, flavour: str) -> str | None:
        """The repository id on a hub of ``flavour``; None when the model is not published there."""
        if flavour == HUGGINGFACE:
            return self.repo_id
        return dict(self.other_repos).get(flavour)

    @property
    def result_path(self) -> Path:
        """The downloaded file (a single named file) or the folder (a repository download)."""
        return self.target_dir / self.files[0] if len(self.files) == 1 else self.target_dir

    @property
    def title(self) -> str:
        """A name for messages: the label, or the repository id."""
        return self.label or self.repo_id


@dataclass(frozen=True)
class DownloadResult:
    """A finished download. ``local_model`` is set when it was registered as a local model."""

    path: Path
    files: tuple[FetchResult, ...]
    bytes_downloaded: int
    local_model: LocalModel | None = None


def remaining_bytes(remotes: tuple[RemoteFile, ...], target_dir: Path) -> int:
    """Bytes still to fetch: sizes minus finished files and ``.part`` files already on disk."""
    total = 0
    for remote in remotes:
        if remote.size is None:
            continue
        destination = target_dir / remote.path
        if destination.is_file() and destination.stat().st_size == remote.size:
            continue
        part = part_path(destination)
        held = part.stat().st_size if part.is_file() else 0
        total += max(0, remote.size - held)
    return total


def check_disk_space(folder: Path, needed_bytes: int, label: str, margin_bytes: int = DISK_MARGIN_BYTES) -> None:
    """Raise NotEnoughDiskSpaceError unless ``folder``'s disk has ``needed_bytes`` plus a margin free."""
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    free = shutil.disk_usage(existing).free
    if free < needed_bytes + margin_bytes:
        raise NotEnoughDiskSpaceError(
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Not enough disk space for {0}: it needs {1} more (and {2} to spare), but only {3} is "
                               "free on {4}."),
                (label, human_size(needed_bytes), human_size(margin_bytes), human_size(free), str(existing))),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Free up disk space, or choose another models folder in Settings (model.folder).")),
        )


class DownloadJob(Job[DownloadResult | None, DownloadProgress]):
    """Fetches a :class:`DownloadSpec` on a worker thread (a :class:`Job`).

    ``progress()`` is cheap and thread-safe (poll it from a GUI timer); ``pause()`` stops
    between chunks and closes the connection, ``resume()`` continues with a Range request;
    ``cancel()`` stops and deletes the partial files (``keep_partial=True`` keeps them, so the
    same download started later resumes). ``wait()`` gives the result, None if cancelled.
    ``finalize`` runs on the worker after the files are verified (e.g. to register the model)
    and may return an updated result; ``on_finished`` runs on the worker when the job ends,
    however it ends.
    """

    def __init__(
        self,
        spec: DownloadSpec,
        hub: HubClient | Sequence[HubClient],
        *,
        options: TransferOptions | None = None,
        disk_margin_bytes: int = DISK_MARGIN_BYTES,
        finalize: Callable[[DownloadResult], DownloadResult] | None = None,
        on_finished: Callable[[DownloadJob], None] | None = None,
    ) -> None:
        super().__init__(f"download {spec.repo_id}", on_finished=on_finished)
        self.spec = spec
        self._hubs: tuple[HubClient, ...] = (hub,) if isinstance(hub, HubClient) else tuple(hub)
        if not self._hubs:
            raise ValueError("a download needs at least one source")
        self._hub = self._hubs[0]
        self._options = options or TransferOptions()
        self._disk_margin_bytes = disk_margin_bytes
        self._finalize = finalize
        self._tracker = DownloadTracker()
        self._control = TransferControl()
        self._remotes: tuple[RemoteFile, ...] = ()
        self._source_note = ""

    def pause(self) -> None:
        """Stop after the current chunk and wait; the partial file stays."""
        self._control.pause()

    def resume(self) -> None:
        """Continue a paused download from where it stopped."""
        self._control.resume()

    def cancel(self, *, keep_partial: bool = False) -> None:
        """Stop; delete the partial files unless ``keep_partial``."""
        super().cancel()
        self._control.cancel(keep_partial=keep_partial)

    @property
    def paused(self) -> bool:
        """True while a pause is requested (the worker stops after its current chunk)."""
        return self._control.pause_requested

    def progress(self) -> DownloadProgress:
        """A snapshot of where the download stands (cheap, thread-safe)."""
        return self._tracker.snapshot()

    def _run(self) -> DownloadResult | None:
        try:
            return self._download()
        except TransferCancelled:
            kept = self._control.keep_partial
            if not kept:
                self._delete_partial_files()
            message = "Cancelled; the partial download was kept and resumes next time." if kept else "Cancelled."
            self._tracker.update(state="cancelled", message=message, current_file=None)
            return None

    def _failed(self, error: BaseException) -> None:
        if isinstance(error, UserFacingError):
            log.warning("download of %s failed: %s", self.spec.repo_id, error)
            self._tracker.update(state="failed", message=str(error))
        else:  # details in the log
            log.error("download of %s crashed", self.spec.repo_id, exc_info=error)
            self._tracker.update(state="failed", message=f"Unexpected {type(error).__name__}: {error}")

    def _download(self) -> DownloadResult:
        """Try each source in turn; a failed source's partial files are resumed by the next one."""
        failures: list[str] = []
        last_error: DownloadError | HubError | None = None
        for index, hub in enumerate(self._hubs):
            repo_id = self.spec.repo_for(hub.flavour)
            if repo_id is None:
                failures.append(f"{hub.host}: not published there")
                continue
            self._hub = hub
            try:
                return self._download_from(repo_id)
            except (NotEnoughDiskSpaceError, LocalWriteError):
                raise  # another source would not help
            except (HubError, DownloadError) as error:
                last_error = error
                reason = str(error.message).rstrip(".")
                failures.append(f"{hub.host}: {reason}")
                log.warning("download of %s from %s failed: %s", self.spec.repo_id, hub.host, error)
                following = [other.host for other in self._hubs[index + 1:] if self.spec.repo_for(other.flavour)]
                if following:  # said in the progress until the download ends
                    self._source_note = f"{hub.host} failed ({reason}); downloading from {following[0]}"
                    self._tracker.update(state="preparing", message=self._source_note)
        if last_error is not None and len(self._hubs) == 1:
            raise last_error
        raise DownloadError(
            Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "No download source could provide {0}: {1}."),
                 (self.spec.title, "; ".join(failures))),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Check the internet connection, or choose another download source in Settings "
                               "(model.download_source); the download resumes where it stopped.")),
        )

    def _download_from(self, repo_id: str) -> DownloadResult:
        spec, tracker = replace(self.spec, repo_id=repo_id), self._tracker
        tracker.update(state="preparing", message=f"Asking {self._hub.host} about {spec.title}")
        self._remotes = remotes = self._resolve(spec)
        self._control.checkpoint()
        sizes = [remote.size for remote in remotes]
        total = None if any(size is None for size in sizes) else sum(size or 0 for size in sizes)
        tracker.update(files_total=len(remotes), bytes_total=total, message=self._source_note)
        check_disk_space(spec.target_dir, remaining_bytes(remotes, spec.target_dir), spec.title,
                         self._disk_margin_bytes)
        results: list[FetchResult] = []
        known = dict(spec.known_sha256)
        for remote in remotes:
            tracker.update(current_file=remote.path)
            expected: Checksum | None = sha256_checksum(known[remote.path]) if remote.path in known else remote.checksum
            transfer = FileTransfer(
                self._hub, remote, spec.target_dir / remote.path, expected, self._control, self._options,
                on_bytes=tracker.received, on_resumed=tracker.resumed, on_discarded=tracker.discarded,
                on_state=lambda state: tracker.update(state=state),
            )
            try:
                results.append(transfer.run())
            except ChecksumMismatchError as error:
                if remote.path not in known:
                    raise
                raise ChecksumMismatchError(error.message, Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "The expected sha256 is the one the catalog states. Run the download again; if it "
                                   "fails again, the publisher has probably replaced the file since the catalog was "
                                   "written: choose another variant, or update UniDesk."))) from error
            tracker.update(files_done=len(results))
        result = DownloadResult(spec.result_path, tuple(results), sum(item.downloaded_bytes for item in results))
        if self._finalize is not None:
            result = self._finalize(result)
        tracker.update(state="finished", current_file=None,
                       message=f"Downloaded {spec.title} ({human_size(sum(item.size for item in results))}).")
        return result

    def _resolve(self, spec: DownloadSpec) -> tuple[RemoteFile, ...]:
        """The files to fetch, with sizes and the hub's checksums."""
        if spec.files:
            return tuple(self._hub.file_info(spec.repo_id, name, spec.revision) for name in spec.files)
        listed = self._hub.list_files(spec.repo_id, spec.revision)
        chosen = tuple(
            remote for remote in listed
            if "/" not in remote.path and not remote.path.startswith(".")
            and any(fnmatch.fnmatch(remote.path, pattern) for pattern in spec.patterns)
        )
        if not chosen:
            raise UserFacingError(
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} has no model files to download."), (spec.repo_id,)),
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "The catalog entry may be out of date.")))
        return chosen

    def _delete_partial_files(self) -> None:
        """Remove this job's ``.part`` files (finished files of a multi-file download stay)."""
        for remote in self._remotes:
            part_path(self.spec.target_dir / remote.path).unlink(missing_ok=True)


def with_local_model(result: DownloadResult, model: LocalModel) -> DownloadResult:
    """``result`` with the local model it was registered as."""
    return replace(result, local_model=model)
