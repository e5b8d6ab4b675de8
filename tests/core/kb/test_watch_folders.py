"""Folder watching by polling: change detection, debounce, and the knowledge base's view of a folder."""

from __future__ import annotations

import threading
from pathlib import Path

from app.core.kb.progress import ProgressTracker
from app.core.kb.watch import FolderChangeDetector, FolderWatcher, scan_folder
from tests.fixtures.knowledge_base import FAKE_READERS, open_knowledge_base, walk_discover


def test_a_change_is_reported_once_it_has_settled() -> None:
    detector = FolderChangeDetector()
    known = {"/f": {"/f/a.txt": (1, 1)}}
    same = {"/f": {"/f/a.txt": (1, 1)}}
    assert detector.settled_changes(same, known) == []
    growing = {"/f": {"/f/a.txt": (1, 1), "/f/b.txt": (5, 2)}}
    assert detector.settled_changes(growing, known) == [], "first sight: maybe still being written"
    grown = {"/f": {"/f/a.txt": (1, 1), "/f/b.txt": (9, 3)}}
    assert detector.settled_changes(grown, known) == [], "still changing"
    assert detector.settled_changes(grown, known) == ["/f"], "two equal polls: settled"
    known_after_indexing = grown
    assert detector.settled_changes(grown, known_after_indexing) == []


def test_deleted_files_count_as_a_change() -> None:
    detector = FolderChangeDetector()
    known = {"/f": {"/f/a.txt": (1, 1), "/f/b.txt": (1, 1)}}
    shrunk = {"/f": {"/f/a.txt": (1, 1)}}
    detector.settled_changes(shrunk, known)
    assert detector.settled_changes(shrunk, known) == ["/f"]


def test_the_watcher_compares_the_disk_with_the_knowledge_base(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("Alpha paragraph.")
    (folder / "sub" / "b.txt").write_text("Beta paragraph.")
    with open_knowledge_base(tmp_path / "kb") as kb:
        kb.indexer(**FAKE_READERS).run([folder], ProgressTracker(), threading.Event())  # type: ignore[arg-type]
        assert kb.folder_state(str(folder)) == scan_folder(folder, walk_discover)
        assert set(kb.folder_state(str(folder / "sub"))) == {str(folder / "sub" / "b.txt")}
        reported: list[list[str]] = []
        watcher = FolderWatcher(kb.watched_folders, kb.folder_state, reported.append, 60, walk_discover)
        assert watcher.poll_once() == [] and watcher.poll_once() == []
        (folder / "c.txt").write_text("Gamma paragraph.")
        assert watcher.poll_once() == []
        assert watcher.poll_once() == [str(folder)]
        assert reported == [[str(folder)]]


def test_a_missing_folder_is_left_alone(tmp_path: Path) -> None:
    reported: list[list[str]] = []
    watcher = FolderWatcher(lambda: [str(tmp_path / "unplugged")], lambda folder: {"x": (1, 1)},
                            reported.append, 60, walk_discover)
    assert watcher.poll_once() == [] and watcher.poll_once() == [] and reported == []


def test_the_watcher_thread_polls_until_stopped(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    polled = threading.Event()
    watcher = FolderWatcher(lambda: [str(tmp_path)], lambda folder: {},
                            lambda folders: polled.set(), 0.05, walk_discover)
    watcher.start()
    try:
        assert polled.wait(10)
    finally:
        watcher.stop()
