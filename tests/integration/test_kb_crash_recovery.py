"""Kill -9 during `unidesk kb add`, restart: nothing finished is lost, nothing half-done is visible."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.core.kb.catalog import DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.knowledge_base import KB_FOLDER_NAME
from app.core.kb.progress import ProgressTracker
from app.core.kb.retrieval import SearchOptions
from tests.fixtures.knowledge_base import open_knowledge_base

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO_ROOT = Path(__file__).resolve().parents[2]
FILES = 60
TOPICS = ("harbour", "glacier", "orchard", "foundry", "observatory", "monastery", "canal", "vineyard")


def unique_word(index: int) -> str:
    return f"zorblax{index:03d}"


def write_documents(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for index in range(FILES):
        topic = TOPICS[index % len(TOPICS)]
        paragraphs = [
            f"Report {index} about the {topic}: the code word of this file is {unique_word(index)}. " * 3,
            f"The {topic} inspection found {index % 7} issues in the northern wing and noted repairs. " * 4,
            f"Follow-up work on the {topic} is planned for week {index % 52}, with a budget review. " * 4,
        ]
        (folder / f"doc{index:03d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    return folder


def indexed_count(database: Path) -> int:
    if not database.exists():
        return 0
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
        try:
            return int(connection.execute("SELECT count(*) FROM documents WHERE status = 'indexed'").fetchone()[0])
        finally:
            connection.close()
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def test_kill_during_ingestion_then_resume(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = write_documents(tmp_path / "docs")
    database = home / "data" / KB_FOLDER_NAME / "kb.sqlite3"
    environment = {key: value for key, value in os.environ.items() if key != "UNIDESK_HOME"}
    # Small batches: documents are committed a few at a time, so the kill lands between commits.
    configured = subprocess.run(
        [sys.executable, "-m", "app", "--home", str(home), "settings", "set", "kb.embedding_batch_size", "4"],
        cwd=REPO_ROOT, env=environment, capture_output=True, text=True, timeout=120,
    )
    assert configured.returncode == 0, configured.stderr
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--home", str(home), "kb", "add", str(folder)],
        cwd=REPO_ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 180
        while indexed_count(database) < 5:
            assert process.poll() is None, process.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "indexing did not start in time"
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(30)
    assert process.returncode == -signal.SIGKILL

    with open_knowledge_base(home / "data" / KB_FOLDER_NAME) as kb:
        records = kb.documents()
        done = [r for r in records if r.status is DocumentStatus.INDEXED]  # read: findable by keywords at least
        embedded = [r for r in done if r.embedded]
        unfinished = [r for r in records if r.status is not DocumentStatus.INDEXED]
        assert done and len(done) < FILES, "killed in the middle"
        report = check_consistency(open_database(kb.database_path), kb.vector_store)
        assert report.ok, report.problems
        assert report.chunks == sum(r.chunk_count for r in done)
        assert report.awaiting_vectors == len(done) - len(embedded)

        # Nothing of a document that was not read completely can be found, by keyword or by vector.
        done_ids = {r.id for r in done}
        for record in [r for r in unfinished if r.status is not DocumentStatus.PENDING][:3] + unfinished[:2]:
            index = int(Path(record.path).stem.removeprefix("doc"))
            result = kb.search(f"code word {unique_word(index)}", options=SearchOptions(k=10))
            assert {hit.document_id for hit in result.hits} <= done_ids

        # Restart: the same add resumes; finished files are skipped, the rest is indexed.
        summary = kb.indexer().run([folder], ProgressTracker(), threading.Event())
        assert summary.files_skipped == len(done)
        # Documents read before the kill are embedded now (from their last written vectors on).
        assert summary.files_indexed == len(unfinished) + len(done) - len(embedded) and summary.files_failed == 0
        assert {r.stage for r in kb.documents()} == {"indexed"}
        report = check_consistency(open_database(kb.database_path), kb.vector_store)
        assert report.ok and report.orphan_vectors == 0, report
        last = unfinished[-1]
        # The last unfinished file is findable by its own word now. Every file holds "code word", so the
        # fused ranking of such a query may put a near-identical file first: ask the keyword index alone.
        word = unique_word(int(Path(last.path).stem[3:]))
        hit = kb.search(word, options=SearchOptions(k=1, use_vectors=False)).hits[0]
        assert hit.path == last.path
