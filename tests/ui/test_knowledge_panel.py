"""The knowledge-base panel over a real knowledge base: drops, states, failures, removal, re-indexing, folders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QUrl
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from app.core.kb.catalog import DocumentStatus
from app.ui.knowledge.file_drops import install_file_drop, local_paths
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from tests.fixtures.documents import CHINESE_TEXT, write_corrupt_pdf, write_pdf, write_text
from tests.ui.knowledge_support import (
    INDEXING_TIMEOUT_MS,
    drop_files,
    drop_mime,
    file_mime,
    knowledge_access,
    wait_until_indexed,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
WAIT_MS = max(INDEXING_TIMEOUT_MS, 300_000)
"""Indexing loads the embedding model first (a minute for two small files on a loaded 2-core machine); every step
here runs on the knowledge base's worker threads."""


@pytest.fixture
def access(tmp_path: Path) -> Iterator[KnowledgeAccess]:
    opened = knowledge_access(tmp_path / "kb")
    yield opened
    opened.close()


@pytest.fixture
def panel(qtbot: Any, access: KnowledgeAccess) -> Iterator[KnowledgeBasePanel]:
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    widget = KnowledgeBasePanel(access, open_url=open_url)
    widget.opened_urls = opened  # type: ignore[attr-defined]
    widget.resize(520, 640)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.start()
    yield widget
    widget.shutdown()


def test_dropped_pdf_and_gbk_text_are_indexed(
    qtbot: Any, tmp_path: Path, panel: KnowledgeBasePanel, access: KnowledgeAccess, screenshot: Shot
) -> None:
    pdf = write_pdf(tmp_path / "docs" / "field-guide.pdf", [
        ["The heron nests in tall reeds beside the river.", "It hunts fish at dawn."],
        ["Page two describes the kingfisher and its blue wings."],
    ])
    gbk = write_text(tmp_path / "docs" / "notes-gbk.txt", CHINESE_TEXT, "gbk")
    assert panel.hint.isVisible()  # empty: says where to drop
    assert not (tmp_path / "kb").exists()  # nothing is created before the first document

    enter_accepted, drop_accepted = drop_files(panel.table.viewport(), [pdf, gbk])

    assert enter_accepted and drop_accepted
    with qtbot.waitSignal(panel.indexing_finished, timeout=WAIT_MS) as finished:
        pass
    wait_until_indexed(qtbot, panel, [pdf, gbk])
    records = {Path(record.path).name: record for record in panel.table.records()}
    assert records["field-guide.pdf"].status is DocumentStatus.INDEXED
    assert records["field-guide.pdf"].pages == 2
    assert records["notes-gbk.txt"].status is DocumentStatus.INDEXED
    assert records["notes-gbk.txt"].chunk_count >= 1
    assert panel.table.status_of(str(pdf)) == "Indexed"
    assert finished.args[0].files_indexed == 2
    assert panel.progress.phase_label.text() == "Done: 2 indexed."
    assert not panel.progress.bar.isVisible() and not panel.progress.cancel_button.isVisible()
    assert not panel.hint.isVisible()
    knowledge_base = access.knowledge_base
    assert knowledge_base is not None
    # The GBK bytes were decoded as Chinese: a Chinese keyword finds that file.
    hits = knowledge_base.search("向量检索", k=3).hits
    assert hits and Path(hits[0].path).name == "notes-gbk.txt"
    panel.table.select_path(str(pdf))
    assert "2 pages" in panel.details.text()
    screenshot(panel, "kb-01-two-documents-indexed")


def test_a_failed_file_shows_its_reason(
    qtbot: Any, tmp_path: Path, panel: KnowledgeBasePanel, screenshot: Shot
) -> None:
    good = write_text(tmp_path / "docs" / "readme.md", "# Readme\n\nThe app reads Markdown files.\n", "utf-8")
    broken = write_corrupt_pdf(tmp_path / "docs" / "broken.pdf")
    empty = write_text(tmp_path / "docs" / "empty.txt", "", "utf-8")
    panel.ask_files = lambda: [good, broken, empty]

    panel.add_files_button.click()

    wait_until_indexed(qtbot, panel, [good, broken, empty])
    assert panel.table.status_of(str(good)) == "Indexed"
    assert panel.table.status_of(str(broken)) == "Failed: damaged file"
    assert panel.table.status_of(str(empty)) == "Failed: no text in it"
    record = next(record for record in panel.table.records() if record.path == str(broken))
    assert record.error_message and record.error_message.startswith(str(broken))
    panel.table.select_path(str(broken))
    details = panel.details.text()
    assert "Not indexed: damaged file." in details
    assert record.error_message[len(str(broken)) + 2:] in details  # the core's own reason, without the path
    screenshot(panel, "kb-02-failed-file-reason")


def test_remove_reindex_reveal_and_watched_folders(
    qtbot: Any, tmp_path: Path, panel: KnowledgeBasePanel, access: KnowledgeAccess
) -> None:
    folder = tmp_path / "project"
    first = write_text(folder / "alpha.txt", "Alpha notes about the garden.\n", "utf-8")
    second = write_text(folder / "beta.txt", "Beta notes about the orchard.\n", "utf-8")
    panel.ask_folder = lambda: folder
    panel.add_folder_button.click()
    wait_until_indexed(qtbot, panel, [first, second])
    qtbot.waitUntil(lambda: panel.watched.folders() == [str(folder)], timeout=WAIT_MS)
    assert panel.watched.isVisible()

    panel.table.select_path(str(first))
    panel.reveal_button.click()
    assert panel.opened_urls == [QUrl.fromLocalFile(str(folder))]  # type: ignore[attr-defined]

    knowledge_base = access.knowledge_base
    assert knowledge_base is not None
    old_id = next(record.id for record in panel.table.records() if record.path == str(first))
    qtbot.waitUntil(panel.reindex_button.isEnabled, timeout=WAIT_MS)  # not while a job (the folder's watch) runs
    panel.reindex_button.click()
    # Re-indexed, and that job has ended (the panel refuses to remove documents while one runs).
    qtbot.waitUntil(lambda: not panel.indexing and any(
        record.path == str(first) and record.id != old_id and record.status is DocumentStatus.INDEXED
        for record in panel.table.records()), timeout=WAIT_MS)

    panel.confirm_remove = lambda count: count == 1
    panel.table.select_path(str(second))
    qtbot.waitUntil(panel.remove_button.isEnabled, timeout=WAIT_MS)
    panel.remove_button.click()
    qtbot.waitUntil(lambda: str(second) not in [record.path for record in panel.table.records()], timeout=WAIT_MS)
    assert second.exists()  # only the entry goes
    assert [document.path for document in knowledge_base.documents()] == [str(first)]

    panel.watched.list.setCurrentRow(0)
    panel.watched.stop_button.click()
    qtbot.waitUntil(lambda: panel.watched.folders() == [], timeout=WAIT_MS)
    assert knowledge_base.watched_folders() == []
    assert not panel.watched.isVisible()


def test_progress_shows_rate_and_cancel_keeps_finished_documents(
    qtbot: Any, tmp_path: Path, panel: KnowledgeBasePanel, access: KnowledgeAccess, screenshot: Shot
) -> None:
    sentence = "Every file here holds a few paragraphs about rivers, birds and the weather of the valley. "
    files = [write_text(tmp_path / "many" / f"note-{index:03}.txt",
                        "\n\n".join(f"{index} {part} " + sentence * 12 for part in range(6)), "utf-8")
             for index in range(150)]
    panel.add_paths([tmp_path / "many"])
    qtbot.waitUntil(lambda: panel.progress.progress is not None and panel.progress.progress.phase == "indexing"
                    and panel.progress.progress.files_done >= 2 and bool(panel.progress.rate_label.text()),
                    timeout=WAIT_MS)
    assert panel.progress.bar.isVisible() and panel.progress.bar.maximum() == len(files)
    assert "chunks/s" in panel.progress.rate_label.text()
    assert panel.progress.cancel_button.isEnabled()
    screenshot(panel, "kb-03-indexing-progress")

    panel.progress.cancel_button.click()

    with qtbot.waitSignal(panel.indexing_finished, timeout=WAIT_MS) as finished:
        pass
    assert finished.args[0].phase == "cancelled"
    assert panel.progress.phase_label.text().startswith("Cancelled.")
    qtbot.waitUntil(lambda: not panel.indexing, timeout=WAIT_MS)
    knowledge_base = access.knowledge_base
    assert knowledge_base is not None
    # Embedded documents stay; the rest wait, read (found by keywords) or not yet read, for the next run.
    stages = [document.stage for document in knowledge_base.documents()]
    assert "indexed" in stages and ("keywords" in stages or "pending" in stages)
    assert stages.count("indexed") < len(files)


def test_the_drop_handler_serves_other_widgets_and_leaves_text_drags_alone(qtbot: Any, tmp_path: Path) -> None:
    host = QWidget()
    editor = QPlainTextEdit(host)
    QVBoxLayout(host).addWidget(editor)
    qtbot.addWidget(host)
    host.show()
    received: list[list[Path]] = []
    install_file_drop(host, received.append)
    document = write_text(tmp_path / "dropped.txt", "hello", "utf-8")

    assert drop_files(editor.viewport(), [document, document]) == (True, True)
    assert received == [[document]]
    assert editor.toPlainText() == ""  # the editor did not paste the file's URL

    text_only = QMimeData()
    text_only.setText("just text")
    web = QMimeData()
    web.setUrls([QUrl("https://example.org/page.html")])
    assert local_paths(text_only) == [] and local_paths(web) == []
    drop_mime(editor.viewport(), text_only)
    assert received == [[document]]  # a text drag is not a file drop
    assert local_paths(file_mime([tmp_path])) == [tmp_path]
