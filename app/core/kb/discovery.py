"""Finding the document files under the files and folders a user adds, with ignore rules."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from app.core.kb.parsers.formats import BINARY_EXTENSIONS, IMAGE_EXTENSIONS, extension_of, format_for_path

ProblemCallback = Callable[[Path, str], None]

DEFAULT_SKIPPED_FOLDERS: Final = frozenset(
    """node_modules bower_components .git .hg .svn .bzr _darcs __pycache__ .mypy_cache .pytest_cache
    .ruff_cache .tox .nox .venv venv .eggs build dist target .gradle .idea .vscode .next .nuxt
    .cache .terraform htmlcov site-packages __MACOSX .Trash .ipynb_checkpoints""".split()
)
_SKIPPED_FOLDER_SUFFIXES: Final = (".egg-info", ".dist-info")
MAX_FOLDER_DEPTH: Final = 200


@dataclass(frozen=True)
class IgnoreRules:
    """What a folder scan leaves out; files named explicitly are only refused for their type."""

    skip_hidden: bool = True
    skipped_folders: frozenset[str] = DEFAULT_SKIPPED_FOLDERS
    skipped_extensions: frozenset[str] = BINARY_EXTENSIONS
    scan_skipped_extensions: frozenset[str] = IMAGE_EXTENSIONS
    """Taken when named, skipped in folder scans: pictures (read by OCR) are mostly icons and screenshots there."""
    follow_symlinks: bool = True


DEFAULT_IGNORE_RULES: Final = IgnoreRules()


@dataclass(frozen=True)
class DiscoveredFile:
    """A file to index, with what the incremental indexer compares first."""

    path: Path
    size: int
    mtime_ns: int


def is_supported(path: Path) -> bool:
    """True unless the name says the file is never a document (images, archives, models, ...).

    Files with unknown extensions count as supported: their content decides (any text file is).
    """
    return format_for_path(path) is not None


def discover_files(
    paths: Iterable[Path],
    rules: IgnoreRules = DEFAULT_IGNORE_RULES,
    on_problem: ProblemCallback | None = None,
) -> Iterator[DiscoveredFile]:
    """Yield the files to index under ``paths`` (files and folders, folders recursively).

    Order is deterministic (each folder's entries by name). Hidden entries, build/cache/VCS
    folders and binary file types are skipped inside folders; a missing path, an unreadable
    folder, a broken link or an explicitly named binary file is reported to ``on_problem``
    and skipped. Each file is yielded once, even when reachable twice (links, overlapping paths).
    """
    scan = _Scan(rules, on_problem or _ignore_problem)
    for path in paths:
        yield from scan.top_level(Path(os.path.abspath(path)))


def _ignore_problem(path: Path, problem: str) -> None:
    del path, problem


class _Scan:
    """One discovery run: remembers what it has visited so links cannot loop or repeat files."""

    def __init__(self, rules: IgnoreRules, on_problem: ProblemCallback) -> None:
        self.rules = rules
        self.on_problem = on_problem
        self.seen_files: set[tuple[int, int]] = set()
        self.seen_folders: set[tuple[int, int]] = set()

    def top_level(self, path: Path) -> Iterator[DiscoveredFile]:
        try:
            info = path.stat()
        except FileNotFoundError:
            broken_link = path.is_symlink()
            self.on_problem(path, "broken link" if broken_link else "does not exist")
            return
        except OSError as error:
            self.on_problem(path, f"cannot be read ({error.strerror or error})")
            return
        if stat.S_ISDIR(info.st_mode):
            yield from self._walk(path, info)
        elif not stat.S_ISREG(info.st_mode):
            self.on_problem(path, "is not a regular file")
        elif extension_of(path) in self.rules.skipped_extensions:
            self.on_problem(path, f"is not a document (.{extension_of(path)} files are skipped)")
        else:
            found = self._file(path, info)
            if found is not None:
                yield found

    def _walk(self, root: Path, root_info: os.stat_result) -> Iterator[DiscoveredFile]:
        self.seen_folders.add((root_info.st_dev, root_info.st_ino))
        yield from self._walk_folder(root, 0)

    def _walk_folder(self, folder: Path, depth: int) -> Iterator[DiscoveredFile]:
        if depth > MAX_FOLDER_DEPTH:
            self.on_problem(folder, f"skipped: nested more than {MAX_FOLDER_DEPTH} folders deep")
            return
        for entry in self._entries(folder):
            subfolder, found = self._classify(entry)
            if subfolder is not None:
                yield from self._walk_folder(subfolder, depth + 1)
            elif found is not None:
                yield found

    def _entries(self, folder: Path) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(folder) as iterator:
                return sorted(iterator, key=lambda entry: entry.name)
        except OSError as error:
            self.on_problem(folder, f"cannot list this folder ({error.strerror or error})")
            return []

    def _classify(self, entry: os.DirEntry[str]) -> tuple[Path | None, DiscoveredFile | None]:
        """(folder to enter, None), (None, file to yield) or (None, None) for a skipped entry."""
        path = Path(entry.path)
        if self.rules.skip_hidden and _is_hidden(entry):
            return None, None
        try:
            is_link = entry.is_symlink()
            if is_link and not self.rules.follow_symlinks:
                return None, None
            info = entry.stat(follow_symlinks=True)
        except FileNotFoundError:
            self.on_problem(path, "broken link")
            return None, None
        except OSError as error:
            self.on_problem(path, f"cannot be read ({error.strerror or error})")
            return None, None
        if stat.S_ISDIR(info.st_mode):
            if _is_skipped_folder(entry.name, self.rules):
                return None, None
            identity = (info.st_dev, info.st_ino)
            if identity in self.seen_folders:
                return None, None  # a link back into a folder already walked
            self.seen_folders.add(identity)
            return path, None
        extension = extension_of(path)
        if not stat.S_ISREG(info.st_mode) or extension in self.rules.skipped_extensions or (
            extension in self.rules.scan_skipped_extensions
        ):
            return None, None
        return None, self._file(path, info)

    def _file(self, path: Path, info: os.stat_result) -> DiscoveredFile | None:
        identity = (info.st_dev, info.st_ino)
        if identity in self.seen_files:
            return None
        self.seen_files.add(identity)
        return DiscoveredFile(path, info.st_size, info.st_mtime_ns)


def _is_skipped_folder(name: str, rules: IgnoreRules) -> bool:
    return name in rules.skipped_folders or name.endswith(_SKIPPED_FOLDER_SUFFIXES)


def _is_hidden(entry: os.DirEntry[str]) -> bool:
    if entry.name.startswith("."):
        return True
    if os.name != "nt":
        return False
    attributes = getattr(entry.stat(follow_symlinks=False), "st_file_attributes", 0)
    return bool(attributes & getattr(stat, "FILE_ATTRIBUTE_HIDDEN", 0))
